"""Shared pieces of the lowering: affine expressions with interval bounds, big-M, and the
:class:`Layout` (the handles to every block that lowering returns).

Every big-M row ``expr <= rhs + M (1 - delta)`` is written with the tightest valid M
for that row: the largest value the row's slack can need for any network whose
weights and biases lie in their boxes (interval arithmetic over the data and the
bounds propagated layer by layer).  A user's numeric M replaces it and is checked
against it (see :meth:`Lowering.big_m`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.builder import ModelBuilder
from ..io.problem import TrainingProblem


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

    kind: str  # "data" or the name of a hidden activation (a key of the ACTIVATIONS registry)
    cols: np.ndarray | None
    X: np.ndarray | None
    upper: np.ndarray
    on: np.ndarray | None = None
    handles: dict = field(default_factory=dict)  # the activation's column blocks by name ("h", "q")


@dataclass
class LayerLayout:
    """Handles (column index arrays) to the blocks of one layer.

    ``fed_by`` is ``"data"`` or the previous layer's activation, whose module lowered the
    ``products`` (``"z"``, and ``"s"`` for McCormick selectors) unless ``grid_products``:
    then :mod:`.grid` lowered them exactly (``"y"``); ``units`` are this layer's
    activation columns (``"h"``, ``"q"``; empty for the output layer); ``grid`` the
    one-hot grid selectors of a layer with a weight or bias grid (``"g"``, ``"gb"``).
    """

    index: int
    activation: str  # this layer's ("linear" for the output layer)
    fed_by: str
    weight: np.ndarray  # (inputs, units)
    bias: np.ndarray  # (units,)
    products: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)
    relaxed: bool = False  # its products are a relaxation (McCormick): its points need not be networks
    grid: dict = field(default_factory=dict)  # one-hot selectors of its grid values ("g", "gb")
    grid_products: bool = False  # its products with relaxed inputs are the grid's exact ones


@dataclass
class Layout:
    """What lowering returns beside the model: handles to its blocks.

    ``layers`` per layer (:class:`LayerLayout`); ``output`` the output columns ``o``
    (U x J); ``loss`` the loss module's blocks by name; ``penalty`` one dict per layer
    of the penalty module's blocks.  Code that reads or writes a point (MIP starts,
    verification) goes through these handles, never through block names.
    """

    layers: list = field(default_factory=list)
    output: np.ndarray | None = None
    loss: dict = field(default_factory=dict)
    penalty: list = field(default_factory=list)

    @property
    def relaxed(self) -> bool:
        """Whether some layer's products are a relaxation: the model's optimum is then a
        lower bound on the training loss, and its points need not be networks."""
        return any(L.relaxed for L in self.layers)


def put(x: np.ndarray, handles: dict, values: dict) -> None:
    """Write ``values[name]`` (broadcast to the block's shape) at the columns ``handles[name]``."""
    for name, v in values.items():
        cols = handles[name]
        x[cols] = np.broadcast_to(np.asarray(v, float), cols.shape)


def class_pairs(c: np.ndarray):
    """Index arrays (u, j, j') over rows u, classes j present in u (``c[u, j] > 0``), and
    rivals j' != j: shapes (n,), (n,), (n, J-1)."""
    J = c.shape[1]
    u, j = np.nonzero(c > 0)
    rivals = np.array([[k for k in range(J) if k != jj] for jj in range(J)])  # J x (J-1)
    return u, j, rivals[j]  # (n,), (n,), (n, J-1)


def leads(scores: np.ndarray) -> np.ndarray:
    """``lead[u, j] = o_uj - max_{j' != j} o_uj'``: how far class j is ahead of its best rival."""
    J = scores.shape[1]
    rival = np.where(np.eye(J, dtype=bool)[None], -np.inf, scores[:, None, :]).max(2)
    return scores - rival


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
