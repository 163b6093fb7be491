"""The output layer (linear) and the diversifying rows.

Output ``o[u,j] = pre[u,j]`` (one equality row; the paper's ``<=`` and ``>=`` pair),
boxed by the interval bounds of ``pre``.

Diversifying rows (the paper's ``h_j + h_j' - 2 h_j`` read as ``h_j' - h_j``): for every
pair ``j < j'`` one binary ``r`` with ``d = o_j' - o_j`` in ``[dL, dU]``::

    da: d <= -eps + M_a r          M_a = max(dU + eps, 0)
    db: d >=  eps - M_b (1 - r)    M_b = max(eps - dL, 0)

so ``|o_j - o_j'| >= eps``: the outputs of a row never tie and ``argmax`` is unique.

Lift: ``o`` is the output layer's ``pre``; ``r = 1[o_j' > o_j]`` (feasible when the
outputs of every row are pairwise eps apart).
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from .common import Affine, Lowering


def lower(low: Lowering, layer: int, spec_layer, pre: Affine) -> np.ndarray:
    """Output columns ``o`` (U x J) equal to ``pre``; returns them."""
    b = low.builder
    o = b.var("o", pre.lo.shape, pre.lo, pre.hi, role="output", layer=layer)
    b.rows("out", pre.lo.shape, "E", 0.0, [(o, 1.0)] + pre.scaled(-1.0), role="output", layer=layer)
    return o


def diversifying(low: Lowering, o: np.ndarray, spec_layer) -> np.ndarray:
    """One binary ``r`` per row and class pair ``j < j'`` forcing ``|o_j - o_j'| >= eps``."""
    b, eps = low.builder, low.eps
    lb, ub = b.var_bounds(o)
    U, J = o.shape
    pairs = np.array(list(combinations(range(J), 2)))
    j, jp = pairs[:, 0], pairs[:, 1]
    shape = (U, len(pairs))
    r = b.binary("r", shape, role="diversify")
    d_hi = ub[:, jp] - lb[:, j]
    d_lo = lb[:, jp] - ub[:, j]
    m_a = low.big_m("da", d_hi + eps, spec_layer.big_m)
    m_b = low.big_m("db", eps - d_lo, spec_layer.big_m)
    diff = [(o[:, jp], 1.0), (o[:, j], -1.0)]
    b.rows("da", shape, "L", -eps, diff + [(r, -m_a)], role="diversify", big_m=m_a)
    b.rows("db", shape, "G", eps - m_b, diff + [(r, -m_b)], role="diversify", big_m=m_b)
    return r


def lift_diversifying(o: np.ndarray) -> np.ndarray:
    """``r`` at the outputs ``o``: 1 for the pairs ``j < j'`` with ``o_j' > o_j``."""
    j, jp = np.triu_indices(o.shape[1], 1)
    return (o[:, jp] > o[:, j]).astype(float)
