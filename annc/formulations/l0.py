"""The ``l0`` penalty on every weight (not biases), factor ``lambda``.

Per weight ``alpha`` in ``[aL, aU]`` a binary ``n`` with ``min(aL, 0) n <= alpha <= max(aU, 0) n``
(rows ``pl{l}``/``pu{l}``), and ``lambda sum n`` in the objective: ``n = 0`` forces ``alpha = 0``.
Lift: ``n = 1[alpha != 0]`` (the MIP's own rule).  Value (what verification compares with
the solver's objective): a weight counts when ``|alpha| > ZERO_TOL``, so that a solver's
round-off zero does not.  The two agree except for weights with ``0 < |alpha| <= ZERO_TOL``.
Floor: 0.
"""
from __future__ import annotations

import numpy as np

from .common import Lowering

ZERO_TOL = 1e-9


def lower(low: Lowering, weights: list) -> list[dict]:
    """Columns and rows for every weight block ``(cols, (aL, aU))``, layer by layer."""
    b, lam = low.builder, low.problem.spec.penalty_weight
    out = []
    for layer, (a, (wl, wu)) in enumerate(weights):
        s = b.binary(f"n{layer}", a.shape, role="l0", layer=layer)
        b.rows(f"pl{layer}", a.shape, "G", 0.0, [(a, 1.0), (s, -min(wl, 0.0))], role="l0", layer=layer)
        b.rows(f"pu{layer}", a.shape, "L", 0.0, [(a, 1.0), (s, -max(wu, 0.0))], role="l0", layer=layer)
        b.minimize(s, lam)
        out.append({"n": s})
    return out


def lift(W: np.ndarray) -> dict:
    return {"n": (W != 0).astype(float)}


def value(spec, weights: list) -> float:
    return float(spec.penalty_weight * sum(np.count_nonzero(np.abs(w) > ZERO_TOL) for w in weights))


def floor(problem) -> float:
    return 0.0
