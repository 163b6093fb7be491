"""The ``l0`` penalty on every weight (not biases), factor ``lambda``.

Per weight ``alpha`` in ``[aL, aU]`` a binary ``n`` with ``min(aL, 0) n <= alpha <= max(aU, 0) n``
(rows ``pl{l}``/``pu{l}``), and ``lambda sum n`` in the objective: ``n = 0`` forces ``alpha = 0``.
A weight budget (the spec's ``max_weights K``) adds one row ``nmax``: ``sum n <= K`` over every
layer's indicators, so the networks of the class are those with at most ``K`` non-zero weights
(a network with more lifts to a point that violates it).
Value (what verification compares with the solver's objective): a weight counts when
``|alpha| > ZERO_TOL``, so that a solver's round-off zero does not.  Lift: the same rule,
``n = 1[|alpha| > ZERO_TOL]``, so a point's penalty is its network's: a round-off weight
(``0 < |alpha| <= ZERO_TOL``, as an exact output layer's arithmetic leaves, 1e-16) lifts to
``n = 0``, and its rows ``pl``/``pu`` are then off by at most ``ZERO_TOL`` (under the start
tolerance, 1e-7).  With ``n = 1[alpha != 0]`` a kept separator's point counted such weights,
and its objective exceeded its network's (docs/decisions.md, "Solvers and files").
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
    budget = low.problem.spec.max_weights
    if budget is not None and out:
        every = np.concatenate([np.ravel(blk["n"]) for blk in out])
        b.rows("nmax", (1,), "L", float(budget), [(every[None, :], 1.0)], role="l0")
    return out


def counts(W) -> np.ndarray:
    """Which weights of ``W`` count (``|alpha| > ZERO_TOL``): the one rule of the lift and the value."""
    return np.abs(np.asarray(W, float)) > ZERO_TOL


def lift(W: np.ndarray) -> dict:
    return {"n": counts(W).astype(float)}


def count(weights: list) -> int:
    """The weights that count (:func:`counts`): what ``max_weights`` bounds."""
    return int(sum(np.count_nonzero(counts(w)) for w in weights))


def value(spec, weights: list) -> float:
    return float(spec.penalty_weight * count(weights))


def floor(problem) -> float:
    return 0.0
