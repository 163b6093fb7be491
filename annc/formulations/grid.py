"""Weights (and biases) on a grid: ``weights [lo, hi] grid K`` and the exact products it allows.

**The grid.**  A layer with ``weights [lo, hi] grid K`` has weights that take one of the K
evenly spaced values ``v_p = lo + (hi - lo)(p - 1)/(K - 1)``, p = 1..K
(:func:`annc.io.spec.types.grid_values`; K odd and ``lo = -hi`` include 0).  Each weight
``a`` keeps its column, tied to one-hot selectors ``lambda_p`` (columns ``g{l}``, shape
``(n_in, units, K)``)::

    gn: sum_p lambda_p = 1                 lambda_p binary
    ga: a - sum_p v_p lambda_p = 0

so every block that reads ``a`` (data-fed affine rows, the exact products with binary
or sign inputs, penalties, export) is unchanged, and ``a`` is one of the ``v_p``.
``bias [lo, hi] grid K`` does the same for the biases (columns ``gb{l}``, rows
``gbn{l}``/``gba{l}``); the biases enter the pre-activations linearly, so nothing else
changes.

**Exact products with ReLU inputs.**  A layer fed by ReLU outputs ``q'`` in ``[0, qU']``
(``qU'`` per sample) would relax ``a q'`` (piecewise McCormick, :mod:`.relu`).  On a grid
``a q' = sum_p v_p (lambda_p q')``, and each ``y_p = lambda_p q'`` (columns ``y{l}``,
shape ``(U, n_in, units, K)``, boxed in ``[0, qU']``) is linearised exactly by the
disjunctive (convex-hull) rows::

    yu: y_p <= qU' lambda_p                M = qU' (the tightest valid: y_p <= q' <= qU')
    ys: sum_p y_p = q'

At a binary point with ``lambda_p* = 1``: ``yu`` and ``y >= 0`` give ``y_p = 0`` for
``p != p*`` and ``ys`` gives ``y_p* = q'``, so ``sum_p v_p y_p = v_p* q' = a q'`` exactly.
These rows imply the usual big-M linearisation ``y_p <= q'`` (from ``ys`` and ``y >= 0``)
and ``y_p >= q' - qU' (1 - lambda_p)`` (``q' - y_p = sum_{p' != p} y_p' <= qU' sum_{p' != p}
lambda_p' = qU' (1 - lambda_p)``), with K + 1 rows per product instead of 3K; their LP
relaxation is the convex hull of ``{(lambda, q', y): lambda one-hot, q' in [0, qU'],
y = lambda q'}`` for each product.  The pre-activation is

    pre[u, k] = sum_i sum_p v_p y[u, i, k, p] + b[k]     in [sum_i min(v_1, 0) qU'_ui + bL, sum_i max(v_K, 0) qU'_ui + bU]

(a zero ``v_p`` adds no coefficient).  No ``z`` or McCormick selector exists for such a
layer and the layout marks it exact (``relaxed`` False, ``grid_products`` True): a
proven optimum of a model whose every ReLU-fed layer is on a grid is the optimum over
the networks of the grid, and its objective is the exported network's loss.

**Lift** (the MIP point of a network on the grid): ``lambda`` = the one-hot of the grid
index of each weight (bias), ``y_p = lambda_p q'``.  A network with a weight more than
:data:`ON_GRID_TOL` (relative) away from every grid value has no point: :func:`snapped`
raises :class:`~annc.core.errors.ModelError`; the MIP starts project onto the grid first
(:func:`project`, nearest value).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ModelError
from ..io.spec.types import grid_values
from .common import Affine, LayerInput, Lowering

ON_GRID_TOL = 1e-6  # a weight within this (times max(1, |lo|, |hi|)) of a grid value is on it


def values(bounds, K: int) -> np.ndarray:
    """The K grid values of the box ``bounds`` (:func:`annc.io.spec.types.grid_values`)."""
    return np.asarray(grid_values(bounds, K), dtype=float)


def selectors(low: Lowering, layer: int, spec_layer, a: np.ndarray, beta: np.ndarray) -> dict:
    """One-hot selectors of the weights' (``g{layer}``) and the biases' (``gb{layer}``) grid
    values, with their rows (``gn``/``ga``, ``gbn``/``gba``); handles ``{"g": ..., "gb": ...}``
    for the grids the layer has (empty without one)."""
    handles = {}
    for key, cols, K, bounds in (("g", a, spec_layer.weight_grid, spec_layer.weight_bounds),
                                 ("gb", beta, spec_layer.bias_grid, spec_layer.bias_bounds)):
        if K is None:
            continue
        b, v = low.builder, values(bounds, K)
        lam = b.binary(f"{key}{layer}", cols.shape + (K,), role="grid", layer=layer)
        b.rows(f"{key}n{layer}", cols.shape, "E", 1.0, [(lam, 1.0)], role="grid", layer=layer)
        b.rows(f"{key}a{layer}", cols.shape, "E", 0.0, [(cols, 1.0), (lam, -v)], role="grid", layer=layer)
        handles[key] = lam
    return handles


def products(low: Lowering, layer: int, spec_layer, inp: LayerInput, a: np.ndarray,
             beta: np.ndarray, g: np.ndarray) -> tuple[Affine, dict]:
    """Exact products ``y{layer}[u,i,k,p] = lambda[i,k,p] q'[u,i]`` (rows ``yu``, ``ys``);
    returns ``pre = sum_i sum_p v_p y + b`` and the handles ``{"y": y}``."""
    b, user = low.builder, spec_layer.big_m
    v = values(spec_layer.weight_bounds, spec_layer.weight_grid)
    (bl, bu), (U, n_in), K, G = spec_layer.bias_bounds, inp.cols.shape, spec_layer.units, len(v)
    qU = inp.upper  # U x n_in
    shape = (U, n_in, K, G)
    y = b.var(f"y{layer}", shape, 0.0, qU[:, :, None, None], role="product", layer=layer)
    m = low.big_m(f"yu{layer}", np.broadcast_to(qU[:, :, None, None], shape), user)
    b.rows(f"yu{layer}", shape, "L", 0.0, [(y, 1.0), (g[None], -m)], role="product", layer=layer, big_m=m)
    b.rows(f"ys{layer}", shape[:3], "E", 0.0, [(y, 1.0), (inp.cols[:, :, None], -1.0)], role="product",
           layer=layer)
    terms = y.transpose(0, 2, 1, 3).reshape(U, K, n_in * G)  # row (u, k): every (i, p)
    lo = (min(v[0], 0.0) * qU.sum(1) + bl)[:, None] * np.ones((1, K))
    hi = (max(v[-1], 0.0) * qU.sum(1) + bu)[:, None] * np.ones((1, K))
    return Affine([(terms, np.tile(v, n_in)), (beta[None, :], 1.0)], lo, hi), {"y": y}


def indices(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The index of the grid value nearest to each entry of ``x`` (the lower one on a tie)."""
    x = np.asarray(x, float)
    return np.argmin(np.abs(x[..., None] - v), axis=-1)


def project(x: np.ndarray, bounds, K: int | None) -> np.ndarray:
    """``x`` with each entry moved to its nearest grid value (``x`` itself when ``K`` is None)."""
    if K is None:
        return np.asarray(x, float)
    v = values(bounds, K)
    return v[indices(x, v)]


def _snap(x: np.ndarray, bounds, K: int | None, what: str, layer: int) -> np.ndarray:
    if K is None:
        return np.asarray(x, float)
    v = values(bounds, K)
    x = np.asarray(x, float)
    near = v[indices(x, v)]
    off = np.abs(x - near) > ON_GRID_TOL * max(1.0, abs(bounds[0]), abs(bounds[1]))
    if off.any():
        at = tuple(int(i) for i in np.argwhere(off)[0])
        raise ModelError(f"layer {layer}: {what} {list(at)} = {x[at]:.17g} is not a value of its grid "
                         f"([{bounds[0]:g}, {bounds[1]:g}] grid {K}, step {(v[1] - v[0]):g}): a network "
                         "off the grid has no point in this model; project it onto the grid first")
    return near


def snapped(spec_layer, W: np.ndarray, b: np.ndarray, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The weights ``W`` and biases ``b`` of ``spec_layer``'s grids at their exact grid values;
    raises :class:`~annc.core.errors.ModelError` for an entry not on its grid (within
    :data:`ON_GRID_TOL`).  Entries of a box without a grid are returned as they are."""
    return (_snap(W, spec_layer.weight_bounds, spec_layer.weight_grid, "weight", layer),
            _snap(b, spec_layer.bias_bounds, spec_layer.bias_grid, "bias", layer))


def lift_selectors(spec_layer, W: np.ndarray, b: np.ndarray) -> dict:
    """The one-hot selectors of the (on-grid: :func:`snapped`) weights ``W`` and biases ``b``."""
    out = {}
    for key, x, K, bounds in (("g", W, spec_layer.weight_grid, spec_layer.weight_bounds),
                              ("gb", b, spec_layer.bias_grid, spec_layer.bias_bounds)):
        if K is not None:
            out[key] = np.eye(K)[indices(x, values(bounds, K))]
    return out


def lift_products(inputs: np.ndarray, W: np.ndarray, problem, layer: int) -> dict:
    """``y = lambda q'`` at the inputs ``q'`` (U x n) and the (on-grid) weights ``W``."""
    ls = problem.spec.layers[layer]
    lam = np.eye(ls.weight_grid)[indices(W, values(ls.weight_bounds, ls.weight_grid))]  # n x K x G
    return {"y": inputs[:, :, None, None] * lam[None]}


def grid_products(spec_layer, relaxes: bool) -> bool:
    """Whether a layer's products with its inputs are the grid's exact ones: it has a weight
    grid and the activation feeding it would relax them (``relaxes``)."""
    return spec_layer.weight_grid is not None and relaxes
