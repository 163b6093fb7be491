"""The ``hinge`` loss (Crammer-Singer, margin m).

One column ``xi_uj >= 0`` per row u and class j present in it, and for every rival
``j' != j`` (rows ``hin``)::

    xi_uj >= m - (o_uj - o_uj')

with ``min sum c_uj xi_uj``.  Lift and value: ``xi_uj = max(m - (o_uj - max_j' o_uj'), 0)``.
Floor, per row u with ``n_u`` samples: let class k have the largest output, ``delta >= 0``
its lead over the second.  Every other class j present has ``o_uj`` at most the second,
so ``xi_uj >= m + delta``, and ``xi_uk >= max(m - delta, 0)``.  With ``r = n_u - c_uk``
the row's loss is at least ``c_uk max(m - delta, 0) + r (m + delta)``, least at
``delta = m`` (``2 m r``) when ``c_uk >= r`` and at ``delta = 0`` (``m n_u``) otherwise;
``r`` is least for the majority class, so the loss is at least
``m min(2 (n_u - max_j c_uj), n_u)``, which a network predicting every row's majority
with lead m attains.
"""
from __future__ import annotations

import numpy as np

from .common import Lowering, class_pairs, leads


def lower(low: Lowering, o: np.ndarray, spec_layer) -> dict:
    b, margin = low.builder, low.problem.spec.margin
    lb, ub = b.var_bounds(o)
    u, j, jp = class_pairs(low.problem.counts)
    n = len(u)
    hi = np.maximum(margin - (lb[u, j][:, None] - ub[u[:, None], jp]), 0.0).max(1)
    xi = b.var("xi", (n,), 0.0, hi, role="hinge")
    b.rows("hin", jp.shape, "G", margin, [(xi[:, None], 1.0), (o[u, j][:, None], 1.0),
                                         (o[u[:, None], jp], -1.0)], role="hinge")
    b.minimize(xi, low.problem.counts[u, j])
    return {"xi": xi}


def lift(problem, o: np.ndarray) -> dict:
    u, j, _ = class_pairs(problem.counts)
    return {"xi": np.maximum(problem.spec.margin - leads(o)[u, j], 0.0)}


def value(spec, scores: np.ndarray, counts: np.ndarray) -> float:
    return float(np.sum(counts * np.maximum(spec.margin - leads(scores), 0.0)))


def floor(problem) -> float:
    c = problem.counts
    n = c.sum(1)
    return float(problem.spec.margin * np.sum(np.minimum(2 * (n - c.max(1)), n)))
