"""Symmetry-breaking orderings of the units of a hidden layer (spec setting ``symmetry``).

Permuting the units of hidden layer ``l`` (the columns of ``a_l``, the entries of
``b_l``, the rows of ``a_{l+1}``) maps every feasible point to a feasible point with
the same objective: all units of a layer share their boxes, their big-M and their
McCormick pieces.  So an order that some permutation of every network satisfies
removes up to ``K!`` copies of each solution per layer and cuts off no optimum:

    bias:   b_k >= b_{k+1}                                          (rows ``sb{l}``)
    count:  sum_u n_u h_uk >= sum_u n_u h_u,k+1                     (rows ``sc{l}``)

``n_u`` is the number of samples on row ``u``; ``count`` orders units by how many
samples switch them on.  Ties are allowed, so every network has an ordered copy
(:func:`order` computes it; :func:`annc.formulations.lift` puts a network in it).
"""
from __future__ import annotations

import numpy as np

from .common import Lowering


def add_order(low: Lowering, layer: int, rule: str, beta: np.ndarray, h: np.ndarray) -> None:
    """Rows putting the units of ``layer`` in ``rule``'s order (nothing for ``none``)."""
    K = len(beta)
    if rule == "none" or K < 2:
        return
    b = low.builder
    if rule == "bias":
        b.rows(f"sb{layer}", (K - 1,), "G", 0.0, [(beta[:-1], 1.0), (beta[1:], -1.0)],
               role="symmetry", layer=layer)
    else:
        n = low.problem.row_samples[:, None]  # U x 1
        b.rows(f"sc{layer}", (K - 1,), "G", 0.0, [(h[:, :-1].T, n.T), (h[:, 1:].T, -n.T)],
               role="symmetry", layer=layer)


def order(rule: str, bias: np.ndarray, h: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The permutation of a layer's units that satisfies ``rule`` (``h``: U x K, ``n``: U)."""
    if rule == "bias":
        return np.argsort(-bias, kind="stable")
    if rule == "count":
        return np.argsort(-(n @ h), kind="stable")
    return np.arange(len(bias))
