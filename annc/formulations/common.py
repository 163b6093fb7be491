"""Shared pieces of the lowering: affine expressions with interval bounds, and big-M.

Every big-M row ``expr <= rhs + M (1 - delta)`` is written with the tightest valid M
for that row: the largest value the row's slack can need for any network whose
weights and biases lie in their boxes (interval arithmetic over the data and the
bounds propagated layer by layer).  A user's numeric M replaces it and is checked
against it (see :meth:`Lowering.big_m`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..builder import ModelBuilder
from ..problem import TrainingProblem


@dataclass
class Affine:
    """``sum_t coef_t * x[col_t] + const`` for an array of rows, with bounds ``lo <= . <= hi``.

    Terms broadcast to ``shape`` or ``shape + (t,)`` as in :meth:`ModelBuilder.rows`.
    """

    terms: list
    lo: np.ndarray
    hi: np.ndarray

    def scaled(self, k: float) -> list:
        return [(c, np.asarray(v, float) * k) for c, v in self.terms]


@dataclass
class LayerInput:
    """What feeds a layer: the data, or the previous layer's binary or ReLU outputs.

    ``cols`` (U x n) are the previous activation columns (None for data); ``X`` the data;
    ``upper`` (U x n) an upper bound of every input value (its lower bound is 0 for
    binary and ReLU units); ``on`` (U x n) the units' binary on/off columns ``h``.
    """

    kind: str  # "data" | "binary" | "relu"
    cols: np.ndarray | None
    X: np.ndarray | None
    upper: np.ndarray
    on: np.ndarray | None = None


@dataclass
class Lowering:
    """State of one lowering: the builder, the problem, and the big-M bookkeeping."""

    builder: ModelBuilder
    problem: TrainingProblem
    m_too_small: list = field(default_factory=list)  # (row block, user M, valid M, count, layer)
    layer: int = 0  # the layer being lowered: where a refused M is set (the output's for the loss)

    @property
    def eps(self) -> float:
        return self.problem.spec.eps

    def big_m(self, rows: str, valid, user: float | None) -> np.ndarray:
        """M for the rows of block ``rows``: ``valid`` (auto) or the user's number.

        A user's M below the valid bound of some row would cut off networks that
        satisfy every bound: those rows are recorded and reported by the caller.
        """
        valid = np.maximum(np.asarray(valid, float), 0.0)
        if user is None:
            return valid
        short = valid > user * (1 + 1e-9) + 1e-12
        if short.any():
            self.m_too_small.append((rows, user, float(valid.max()), int(short.sum()), self.layer))
        return np.full_like(valid, float(user))


def parameters(low: Lowering, layer: int, n_in: int, spec_layer) -> tuple[np.ndarray, np.ndarray]:
    """Weight (n_in x units) and bias (units) columns of ``layer``, boxed by the spec."""
    b = low.builder
    (wl, wu), (bl, bu) = spec_layer.weight_bounds, spec_layer.bias_bounds
    a = b.var(f"a{layer}", (n_in, spec_layer.units), wl, wu, role="weight", layer=layer)
    beta = b.var(f"b{layer}", (spec_layer.units,), bl, bu, role="bias", layer=layer)
    return a, beta


def data_affine(X: np.ndarray, a: np.ndarray, beta: np.ndarray, spec_layer) -> Affine:
    """Pre-activation of a layer fed by data: ``pre[u,k] = sum_i a[i,k] x[u,i] + b[k]``.

    Bounds per sample: ``sum_i max(aL x_ui, aU x_ui) + bU`` and the mirror image.
    """
    (wl, wu), (bl, bu) = spec_layer.weight_bounds, spec_layer.bias_bounds
    pos, neg = np.clip(X, 0, None).sum(1), np.clip(X, None, 0).sum(1)
    units = spec_layer.units
    hi = np.repeat((wu * pos + wl * neg + bu)[:, None], units, axis=1)
    lo = np.repeat((wl * pos + wu * neg + bl)[:, None], units, axis=1)
    return Affine([(a.T[None, :, :], X[:, None, :]), (beta[None, :], 1.0)], lo, hi)
