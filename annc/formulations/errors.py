"""The ``errors`` loss: the number of misclassified samples, exactly.

One binary ``mis_uj`` per row u and class j present in it (``c_uj > 0``), and for every
rival ``j' != j`` (rows ``win``)::

    o_uj - o_uj' >= eps - M mis_uj          M = max(eps - (lower bound of o_uj - o_uj'), 0)

so ``mis_uj = 0`` forces class j to win by eps; ``min sum c_uj mis_uj`` counts the
misclassified samples.  (Not ``e``/``err``: the LP format reserves names starting with e.)

Lift and value (what verification compares with the solver's objective): a sample of
class j is misclassified unless j leads every rival by ``eps - WIN_TOL``, so that a lead
of ``eps`` computed with rounding counts as a win (a solver's output layer often sits
exactly at the lead ``eps``, and ``1.0 - 0.9`` is below ``0.1`` in floating point); the
row ``win`` then holds within ``WIN_TOL``, far inside any feasibility tolerance.  Floor: on each row u at most one class can win, so at least
``n_u - max_j c_uj`` samples are misclassified.
"""
from __future__ import annotations

import numpy as np

from .common import Lowering, class_pairs, leads

WIN_TOL = 1e-9


def lower(low: Lowering, o: np.ndarray, spec_layer) -> dict:
    b, eps = low.builder, low.eps
    lb, ub = b.var_bounds(o)
    u, j, jp = class_pairs(low.problem.counts)
    n = len(u)
    e = b.binary("mis", (n,), role="error")
    d_lo = lb[u, j][:, None] - ub[u[:, None], jp]  # lower bound of o_uj - o_uj'
    m = low.big_m("win", eps - d_lo, spec_layer.big_m)
    b.rows("win", jp.shape, "G", eps, [(o[u, j][:, None], 1.0), (o[u[:, None], jp], -1.0),
                                      (e[:, None], m)], role="error", big_m=m)
    b.minimize(e, low.problem.counts[u, j])
    return {"mis": e}


def lift(problem, o: np.ndarray) -> dict:
    u, j, _ = class_pairs(problem.counts)
    return {"mis": (leads(o)[u, j] < problem.spec.eps - WIN_TOL).astype(float)}


def value(spec, scores: np.ndarray, counts: np.ndarray) -> float:
    return float(np.sum(counts * (leads(scores) < spec.eps - WIN_TOL)))


def floor(problem) -> float:
    c = problem.counts
    return float(np.sum(c.sum(1) - c.max(1)))
