"""Training objectives over the output columns ``o`` (U x J), class counts ``c[u, j]``.

``nll`` (Proposition 1): ``omega_u >= o_uj`` for all j (rows ``om``) and
``min sum_u sum_j c_uj (omega_u - o_uj)``, within ``N log J`` of the softmax negative
log-likelihood; the diversifying rows keep a row's outputs eps apart (:mod:`.output`).
Plus one valid inequality per row, the *loss floor* (rows ``lf``)::

    sum_j c_uj (omega_u - o_uj) >= eps * sum_k k c_u(k)

with ``c_u(0) >= c_u(1) >= ...`` the row's class counts sorted down.  It holds at every
integer point: the outputs of a row are pairwise eps apart, so the one ranked k is at
least k eps below ``omega_u``, and pairing the largest counts with the smallest ranks
minimises the sum (rearrangement inequality).  The LP relaxation does not imply it
(fractional ``r`` lets outputs tie), and without it the root bound of a two-class
problem starts far below ``eps * sum_u min(c_u0, c_u1)``, the value a network that
gets every row's majority right with margin exactly eps attains.

``errors``: one binary ``e_uj`` per row and class present in it, with
``o_uj - o_uj' >= eps - M (1 - ... )`` written as ``o_uj - o_uj' >= eps - M e_uj`` for
every ``j' != j``: ``e_uj = 0`` forces class j to win by eps; ``min sum c_uj e_uj``
counts the misclassified samples exactly.

``hinge`` (Crammer-Singer, margin m): ``xi_uj >= m - (o_uj - o_uj')`` for ``j' != j``,
``xi >= 0``, ``min sum c_uj xi_uj``.

Penalties on every weight (not biases), factor ``lambda``: ``l1`` adds ``t >= |alpha|``
(rows ``pa``/``pb``) and ``lambda sum t``; ``l0`` adds a binary ``s`` with
``aL s <= alpha <= aU s`` (rows ``pl``/``pu``) and ``lambda sum s``.
"""
from __future__ import annotations

import numpy as np

from .common import Lowering
from .output import add_diversifying


def nll_floor(counts: np.ndarray, eps: float) -> np.ndarray:
    """Per row u, the least ``nll`` loss of any network: ``eps * sum_k k c_u(k)``."""
    ranked = -np.sort(-counts, axis=1)
    return eps * ranked @ np.arange(counts.shape[1])


def add_nll(low: Lowering, o: np.ndarray, spec_layer) -> None:
    b = low.builder
    c = low.problem.counts
    lb, ub = b.var_bounds(o)
    U, J = o.shape
    w = b.var("w", (U,), lb.max(1), ub.max(1), role="omega")
    b.rows("om", (U, J), "G", 0.0, [(w[:, None], 1.0), (o, -1.0)], role="omega")
    b.rows("lf", (U,), "G", nll_floor(c, low.eps), [(w, c.sum(1)), (o, -c)], role="omega")
    b.minimize(w, c.sum(1))
    b.minimize(o, -c)
    add_diversifying(low, o, spec_layer)


def class_pairs(c: np.ndarray):
    """Index arrays (u, j, j') over rows u, classes j present in u (``c[u, j] > 0``), and
    rivals j' != j: shapes (n,), (n,), (n, J-1)."""
    J = c.shape[1]
    u, j = np.nonzero(c > 0)
    rivals = np.array([[k for k in range(J) if k != jj] for jj in range(J)])  # J x (J-1)
    return u, j, rivals[j]  # (n,), (n,), (n, J-1)


def add_errors(low: Lowering, o: np.ndarray, spec_layer) -> None:
    b, eps = low.builder, low.eps
    lb, ub = b.var_bounds(o)
    u, j, jp = class_pairs(low.problem.counts)
    n = len(u)
    # not "e"/"err": the LP format reserves names starting with e (see annc.writers.lp)
    e = b.binary("mis", (n,), role="error")
    d_lo = lb[u, j][:, None] - ub[u[:, None], jp]  # lower bound of o_uj - o_uj'
    m = low.big_m("win", eps - d_lo, spec_layer.big_m)
    b.rows("win", jp.shape, "G", eps, [(o[u, j][:, None], 1.0), (o[u[:, None], jp], -1.0),
                                      (e[:, None], m)], role="error", big_m=m)
    b.minimize(e, low.problem.counts[u, j])


def add_hinge(low: Lowering, o: np.ndarray, spec_layer) -> None:
    b, margin = low.builder, low.problem.spec.margin
    lb, ub = b.var_bounds(o)
    u, j, jp = class_pairs(low.problem.counts)
    n = len(u)
    hi = np.maximum(margin - (lb[u, j][:, None] - ub[u[:, None], jp]), 0.0).max(1)
    xi = b.var("xi", (n,), 0.0, hi, role="hinge")
    b.rows("hin", jp.shape, "G", margin, [(xi[:, None], 1.0), (o[u, j][:, None], 1.0),
                                         (o[u[:, None], jp], -1.0)], role="hinge")
    b.minimize(xi, low.problem.counts[u, j])


LOSSES = {"nll": add_nll, "errors": add_errors, "hinge": add_hinge}


def add_penalty(low: Lowering, weights: list[tuple[np.ndarray, tuple[float, float]]]) -> None:
    """The spec's l1 / l0 penalty on every weight block ``(cols, (aL, aU))``."""
    spec, b = low.problem.spec, low.builder
    lam = spec.penalty_weight
    for layer, (a, (wl, wu)) in enumerate(weights):
        if spec.penalty == "l1":
            t = b.var(f"t{layer}", a.shape, 0.0, max(abs(wl), abs(wu)), role="l1", layer=layer)
            b.rows(f"pa{layer}", a.shape, "G", 0.0, [(t, 1.0), (a, -1.0)], role="l1", layer=layer)
            b.rows(f"pb{layer}", a.shape, "G", 0.0, [(t, 1.0), (a, 1.0)], role="l1", layer=layer)
            b.minimize(t, lam)
        elif spec.penalty == "l0":
            s = b.binary(f"n{layer}", a.shape, role="l0", layer=layer)
            b.rows(f"pl{layer}", a.shape, "G", 0.0, [(a, 1.0), (s, -min(wl, 0.0))], role="l0", layer=layer)
            b.rows(f"pu{layer}", a.shape, "L", 0.0, [(a, 1.0), (s, -max(wu, 0.0))], role="l0", layer=layer)
            b.minimize(s, lam)


def network_loss(spec, scores: np.ndarray, counts: np.ndarray, weights=()) -> float:
    """The training objective evaluated on a network's output ``scores`` (U x J).

    ``counts[u, j]`` samples of class j have output row u.  ``nll``: the MIP objective at
    its optimal omega; ``errors``: samples whose class does not win by eps; ``hinge``: the
    Crammer-Singer hinge; plus the penalty of the ``weights`` matrices.
    """
    U, J = scores.shape
    rival = np.where(np.eye(J, dtype=bool)[None], -np.inf, scores[:, None, :]).max(2)  # best other class
    lead = scores - rival  # U x J: o_uj - max_{j' != j} o_uj'
    if spec.loss == "nll":
        loss = np.sum(counts * (scores.max(1, keepdims=True) - scores))
    elif spec.loss == "errors":
        loss = np.sum(counts * (lead < spec.eps - 1e-9))
    else:
        loss = np.sum(counts * np.maximum(spec.margin - lead, 0.0))
    W = [np.asarray(w) for w in weights]
    if spec.penalty == "l1":
        loss += spec.penalty_weight * sum(np.abs(w).sum() for w in W)
    elif spec.penalty == "l0":
        loss += spec.penalty_weight * sum(np.count_nonzero(np.abs(w) > 1e-9) for w in W)
    return float(loss)
