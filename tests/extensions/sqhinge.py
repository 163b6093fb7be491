"""A loss with an argument, written outside annc: ``loss sqhinge m``, the squared hinge
``sum c_uj g(xi_uj)`` with ``xi_uj = max(m - (o_uj - max_j' o_uj'), 0)`` as in
:mod:`annc.formulations.hinge`, and ``g`` the square linearised by its tangents at
``m/2, m, 3m/2, 2m`` (exact there, below the square between, linear past ``2m``)::

    g(xi) = max(0, max_k 2 a_k xi - a_k^2)

One column ``xi`` per row u and class j present (rows ``hin`` per rival, as hinge), one
column ``sq >= 0`` with a row ``tan`` per tangent (``sq >= 2 a_k xi - a_k^2``), and
``min sum c_uj sq_uj``.  Floor: the class k with the largest output leads every other
present class j by ``delta >= 0``, so ``xi_uj >= m`` and ``sq_uj >= g(m) = m^2``: a row
costs at least ``m^2 (n_u - max_j c_uj)``.

``LOSS`` is its entry of :data:`annc.core.losses.LOSS` (the margin argument hinge has); this
module is the formulation (:data:`annc.formulations.LOSSES`).  tests/formulations/test_extensions.py
registers both at run time.
"""
from __future__ import annotations

import numpy as np

from annc.formulations.common import Lowering, class_pairs, leads
from annc.core.losses import MARGIN, Loss

TANGENTS = (0.5, 1.0, 1.5, 2.0)  # times the margin


def size(U: int, J: int, pairs: int) -> tuple[int, int, int]:
    """xi and sq per present pair; rows hin (3 entries) per rival, tan (2 entries) per tangent."""
    K = len(TANGENTS)
    return 2 * pairs, pairs * (J - 1) + K * pairs, 3 * pairs * (J - 1) + 2 * K * pairs


LOSS = Loss("sqhinge", size, argument=MARGIN)


def g(xi: np.ndarray, margin: float) -> np.ndarray:
    a = margin * np.asarray(TANGENTS)
    return np.maximum(0.0, (2 * a * np.asarray(xi, float)[..., None] - a ** 2).max(-1))


def lower(low: Lowering, o: np.ndarray, spec_layer) -> dict:
    b, margin = low.builder, low.problem.spec.margin
    lb, ub = b.var_bounds(o)
    u, j, jp = class_pairs(low.problem.counts)
    n = len(u)
    hi = np.maximum(margin - (lb[u, j][:, None] - ub[u[:, None], jp]), 0.0).max(1)
    xi = b.var("xi", (n,), 0.0, hi, role="hinge")
    b.rows("hin", jp.shape, "G", margin, [(xi[:, None], 1.0), (o[u, j][:, None], 1.0),
                                         (o[u[:, None], jp], -1.0)], role="hinge")
    sq = b.var("sq", (n,), 0.0, g(hi, margin), role="hinge")
    a = margin * np.asarray(TANGENTS)
    b.rows("tan", (n, len(a)), "G", -a ** 2, [(sq[:, None], 1.0), (xi[:, None], -2 * a[None, :])], role="hinge")
    b.minimize(sq, low.problem.counts[u, j])
    return {"xi": xi, "sq": sq}


def lift(problem, o: np.ndarray) -> dict:
    u, j, _ = class_pairs(problem.counts)
    xi = np.maximum(problem.spec.margin - leads(o)[u, j], 0.0)
    return {"xi": xi, "sq": g(xi, problem.spec.margin)}


def value(spec, scores: np.ndarray, counts: np.ndarray) -> float:
    return float(np.sum(counts * g(np.maximum(spec.margin - leads(scores), 0.0), spec.margin)))


def floor(problem) -> float:
    c = problem.counts
    return float(problem.spec.margin ** 2 * np.sum(c.sum(1) - c.max(1)))
