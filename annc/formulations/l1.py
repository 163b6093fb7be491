"""The ``l1`` penalty on every weight (not biases), factor ``lambda``.

Per weight ``alpha`` in ``[aL, aU]`` a column ``t`` in ``[0, max(|aL|, |aU|)]`` with
``t >= alpha`` and ``t >= -alpha`` (rows ``pa{l}``/``pb{l}``), and ``lambda sum t`` in the
objective.  Lift: ``t = |alpha|``.  Value: ``lambda sum |alpha|``.  Floor: 0.
"""
from __future__ import annotations

import numpy as np

from .common import Lowering


def lower(low: Lowering, weights: list) -> list[dict]:
    """Columns and rows for every weight block ``(cols, (aL, aU))``, layer by layer."""
    b, lam = low.builder, low.problem.spec.penalty_weight
    out = []
    for layer, (a, (wl, wu)) in enumerate(weights):
        t = b.var(f"t{layer}", a.shape, 0.0, max(abs(wl), abs(wu)), role="l1", layer=layer)
        b.rows(f"pa{layer}", a.shape, "G", 0.0, [(t, 1.0), (a, -1.0)], role="l1", layer=layer)
        b.rows(f"pb{layer}", a.shape, "G", 0.0, [(t, 1.0), (a, 1.0)], role="l1", layer=layer)
        b.minimize(t, lam)
        out.append({"t": t})
    return out


def lift(W: np.ndarray) -> dict:
    return {"t": np.abs(W)}


def value(spec, weights: list) -> float:
    return float(spec.penalty_weight * sum(np.abs(w).sum() for w in weights))


def floor(problem) -> float:
    return 0.0
