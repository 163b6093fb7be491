"""The MIP point of a given network (the inverse of lowering), and its loss.

:func:`lift` walks the layers as :func:`~annc.formulations.formulate` lowers them and
asks each formulation module for its own columns: the activation of the layer feeding
a layer lifts that layer's products, the layer's activation its units, the loss module
its columns from the outputs ``o``, the penalty module its columns from the weights.
Before that, the units of each hidden layer are put in the spec's ``symmetry`` order
(:func:`ordered`: the same function, so the same loss), and the weights and biases of a
layer with a grid are set to their exact grid values (:func:`.grid.snapped`, which refuses
a network off the grid: :mod:`annc.training.warmstart.pool` projects onto the grid first); the grid's
selectors are lifted by :mod:`.grid`, and so are the products it makes exact.

The point satisfies every row and bound when the network's weights and biases lie in
their boxes, no unit's pre-activation (with the MIP's semantics, ``h = 1[pre >= eps]``)
lies in the gap ``(0, eps)``, and (for ``nll``) the outputs of every row are pairwise
eps apart; :mod:`annc.training.warmstart.pool` repairs networks that are not.
"""
from __future__ import annotations

import numpy as np

from . import grid
from .common import put
from .registry import ACTIVATIONS, LOSSES, PENALTIES
from .symmetry import order


def ordered(problem, weights: list, biases: list) -> tuple[list, list]:
    """The same network with each hidden layer's units in the spec's ``symmetry`` order."""
    spec = problem.spec
    W, b = [np.array(w, float) for w in weights], [np.array(v, float) for v in biases]
    n, act = problem.row_samples, problem.X
    for layer, ls in enumerate(spec.hidden):
        _, out, on = ACTIVATIONS[ls.activation].lift_units(act @ W[layer] + b[layer], spec.eps)
        p = order(spec.symmetry, b[layer], on, n)
        W[layer], b[layer], W[layer + 1] = W[layer][:, p], b[layer][p], W[layer + 1][p, :]
        act = out[:, p]
    return W, b


def lift(layout, num_cols: int, problem, weights: list, biases: list) -> np.ndarray:
    """The point of the model with ``layout`` (``num_cols`` columns) at the given network,
    its units put in the spec's symmetry order."""
    spec = problem.spec
    weights, biases = ordered(problem, weights, biases)
    snapped = [grid.snapped(ls, W, b, i) for i, (ls, W, b) in enumerate(zip(spec.layers, weights, biases))]
    weights, biases = [w for w, _ in snapped], [b for _, b in snapped]
    x = np.zeros(num_cols)
    act = problem.X
    for L, ls, W, b in zip(layout.layers, spec.layers, weights, biases):
        x[L.weight], x[L.bias] = W, b
        put(x, L.grid, grid.lift_selectors(ls, W, b))
        if L.fed_by != "data":
            owner = grid if L.grid_products else ACTIVATIONS[L.fed_by]
            put(x, L.products, owner.lift_products(act, W, problem, L.index))
        pre = act @ W + b
        if L.index < len(spec.hidden):
            values, act, _ = ACTIVATIONS[ls.activation].lift_units(pre, spec.eps)
            put(x, L.units, values)
        else:
            x[layout.output] = pre
            put(x, layout.loss, LOSSES[spec.loss].lift(problem, pre))
    penalty = PENALTIES[spec.penalty]
    for handles, W in zip(layout.penalty, weights):
        put(x, handles, penalty.lift(W))
    return x


def network_loss(spec, scores: np.ndarray, counts: np.ndarray, weights=()) -> float:
    """The training objective of a network: its loss at the output ``scores`` (U x J,
    ``counts[u, j]`` samples of class j on row u) plus the penalty of its ``weights``."""
    W = [np.asarray(w) for w in weights]
    return LOSSES[spec.loss].value(spec, scores, counts) + PENALTIES[spec.penalty].value(spec, W)


def floor(problem) -> float:
    """A valid lower bound on the optimum of ``problem``: the loss's floor plus the penalty's."""
    spec = problem.spec
    return LOSSES[spec.loss].floor(problem) + PENALTIES[spec.penalty].floor(problem)
