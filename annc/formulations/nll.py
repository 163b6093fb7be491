"""The ``nll`` loss (Proposition 1) over the output columns ``o`` (U x J), class counts ``c[u, j]``.

``omega_u >= o_uj`` for all j (rows ``om``) and ``min sum_u sum_j c_uj (omega_u - o_uj)``,
within ``N log J`` of the softmax negative log-likelihood; the diversifying rows keep a
row's outputs eps apart (:func:`.output.diversifying`).  Plus one valid inequality per
row, the *loss floor* (rows ``lf``)::

    sum_j c_uj (omega_u - o_uj) >= eps * sum_k k c_u(k)

with ``c_u(0) >= c_u(1) >= ...`` the row's class counts sorted down.  It holds at every
integer point: the outputs of a row are pairwise eps apart, so the one ranked k is at
least k eps below ``omega_u``, and pairing the largest counts with the smallest ranks
minimises the sum (rearrangement inequality).  The LP relaxation does not imply it
(fractional ``r`` lets outputs tie), and without it the root bound of a two-class
problem starts far below ``eps * sum_u min(c_u0, c_u1)``, the value a network that
gets every row's majority right with margin exactly eps attains.

Lift: ``omega_u = max_j o_uj`` and the diversifying ``r``.  Value of a network with
output scores ``o``: ``sum_uj c_uj (max_j' o_uj' - o_uj)``.  Floor: the sum of the loss
floors of the rows (valid for every network whose outputs are pairwise eps apart,
which every MIP point's are).
"""
from __future__ import annotations

import numpy as np

from .common import Lowering
from .output import diversifying, lift_diversifying


def nll_floor(counts: np.ndarray, eps: float) -> np.ndarray:
    """Per row u, the least ``nll`` loss of any network: ``eps * sum_k k c_u(k)``."""
    ranked = -np.sort(-counts, axis=1)
    return eps * ranked @ np.arange(counts.shape[1])


def lower(low: Lowering, o: np.ndarray, spec_layer) -> dict:
    """Columns ``w`` (omega) and ``r``, rows ``om``, ``lf``, ``da``, ``db``; the objective."""
    b = low.builder
    c = low.problem.counts
    lb, ub = b.var_bounds(o)
    U, J = o.shape
    w = b.var("w", (U,), lb.max(1), ub.max(1), role="omega")
    b.rows("om", (U, J), "G", 0.0, [(w[:, None], 1.0), (o, -1.0)], role="omega")
    b.rows("lf", (U,), "G", nll_floor(c, low.eps), [(w, c.sum(1)), (o, -c)], role="omega")
    b.minimize(w, c.sum(1))
    b.minimize(o, -c)
    return {"w": w, "r": diversifying(low, o, spec_layer)}


def lift(problem, o: np.ndarray) -> dict:
    return {"w": o.max(1), "r": lift_diversifying(o)}


def value(spec, scores: np.ndarray, counts: np.ndarray) -> float:
    return float(np.sum(counts * (scores.max(1, keepdims=True) - scores)))


def floor(problem) -> float:
    return float(nll_floor(problem.counts, problem.spec.eps).sum())
