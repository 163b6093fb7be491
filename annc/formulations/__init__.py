"""Lowering of a :class:`~annc.io.problem.TrainingProblem` to a MIP (:class:`~annc.core.model.Model`).

Layers are lowered in order.  A layer's pre-activation is affine in the data (layer 0,
exact) or a sum of products of its weights with the previous layer's outputs, which
the previous layer's activation module linearises (its ``products``: exact for binary
and sign inputs, piecewise McCormick for ReLU inputs; exact for ReLU inputs too when the
layer's weights are on a grid, :mod:`.grid`).  Its own activation module adds
units (registry ``ACTIVATIONS``); the last layer is linear (:mod:`.output`) and feeds
the loss (registry ``LOSSES``); the penalty (registry ``PENALTIES``) adds its columns
per weight.  Each module owns its mathematics (:mod:`.registry`): it lowers its blocks
and returns handles to them (the :class:`Layout` stored on the model as
``model.layout``), lifts a given network to its columns (:func:`lift`), and the loss and
penalty modules give the loss of a network (:func:`network_loss`) and a lower bound on
the optimum (:func:`floor`).

Column blocks, per layer ``l``: ``a{l}`` weights, ``b{l}`` biases, ``z{l}`` products,
``s{l}`` McCormick selectors, ``h{l}`` binary activations or ReLU indicators, ``q{l}``
ReLU outputs; with a grid (:mod:`.grid`) ``g{l}``/``gb{l}`` one-hot grid selectors and,
after ReLU units, ``y{l}`` exact grid products in place of ``z{l}`` and ``s{l}``; then ``o`` outputs and the loss's columns (``w`` omega and ``r``
diversifying binaries for nll, ``e`` for errors, ``xi`` for hinge); then the penalty's
(``t{l}`` for l1, ``n{l}`` for l0).  The spec's ``symmetry`` adds ordering rows per hidden
layer (:mod:`.symmetry`).
"""
from __future__ import annotations

from ..core.builder import ModelBuilder
from ..core.errors import ModelError
from ..core.model import Model
from ..io.problem import TrainingProblem
from ..io.spec import located, where
from . import grid, output
from .common import LayerInput, LayerLayout, Layout, Lowering, data_affine, parameters
from .lift import floor, lift, network_loss, ordered
from .registry import ACTIVATIONS, LOSSES, PENALTIES, register
from .symmetry import add_order

__all__ = ["ACTIVATIONS", "LOSSES", "PENALTIES", "Layout", "LayerLayout", "export_bias_shifts", "floor",
           "formulate", "lift", "network_loss", "ordered", "register"]

INTEGRALITY_TOL = 1e-6


def export_bias_shifts(spec) -> list[float]:
    """What each layer's exported bias adds to the solved one: the hidden activation module's
    ``export_bias_shift(eps)`` (binary and sign units of the MIP fire iff ``pre >= eps`` and
    are off iff ``pre <= 0``: the bias ``b - eps/2`` makes the standard step agree; ReLU: 0),
    and 0 for the linear output layer.  The map stores no shift: decoding derives it from
    the spec's eps, which the map stores once, in the spec's text."""
    return [ACTIVATIONS[ls.activation].export_bias_shift(spec.eps) for ls in spec.hidden] + [0.0]


def formulate(problem: TrainingProblem, name: str = "annc", *, allow_small_m: bool = False) -> Model:
    """Build the training MIP of ``problem``; see the module docstring for its blocks.
    The model's ``layout`` holds the handles to them (:class:`Layout`)."""
    spec = problem.spec
    if spec.max_weights is not None and spec.penalty != "l0":  # a spec built in Python: the parser says so
        raise ModelError(f"max_weights {spec.max_weights} bounds the count of the l0 penalty's non-zero weights; "
                         f"this spec's penalty is {spec.penalty}")
    low = Lowering(ModelBuilder(name), problem)
    inp = LayerInput("data", None, problem.X, problem.X)
    layout, weights = Layout(), []
    for layer, ls in enumerate(spec.layers):
        low.layer = layer
        n_in = spec.inputs if layer == 0 else spec.layers[layer - 1].units
        a, beta = parameters(low, layer, n_in, ls)
        selectors = grid.selectors(low, layer, ls, a, beta)
        weights.append((a, ls.weight_bounds))
        relaxes = inp.kind != "data" and ACTIVATIONS[inp.kind].RELAXES_PRODUCTS
        exact = grid.grid_products(ls, relaxes)
        if inp.kind == "data":
            pre, products = data_affine(problem.X, a, beta, ls), {}
        elif exact:
            pre, products = grid.products(low, layer, ls, inp, a, beta, selectors["g"])
        else:
            pre, products = ACTIVATIONS[inp.kind].products(low, layer, ls, inp, a, beta)
        L = LayerLayout(layer, ls.activation, inp.kind, a, beta, products, relaxed=relaxes and not exact,
                        grid=selectors, grid_products=exact)
        layout.layers.append(L)
        if layer == len(spec.hidden):
            layout.output = output.lower(low, layer, ls, pre)
        else:
            inp = ACTIVATIONS[ls.activation].units(low, layer, ls, pre)
            L.units = inp.handles
            add_order(low, layer, spec.symmetry, beta, inp.on)
    layout.loss = LOSSES[spec.loss].lower(low, layout.output, spec.output)
    layout.penalty = PENALTIES[spec.penalty].lower(low, weights)
    if low.m_too_small and not allow_small_m:
        raise ModelError(m_too_small_message(spec, low.m_too_small))
    model = low.builder.build()
    model.warnings = m_warnings(model, spec.eps, low.m_too_small)
    model.layout = layout
    return model


def m_too_small_message(spec, short: list) -> str:
    """Why a numeric M is refused: at each spec line that sets it (:func:`annc.io.spec.located`),
    the row blocks it is too small for, and the ways out."""
    by_setting: dict = {}  # the M's position (None: the spec does not say) -> its rows
    for rows, user, valid, count, layer in short:
        by_setting.setdefault(where(spec, "M", layer), (layer, []))[1].append(
            f"  rows {rows}: M = {user:g} but {count} row(s) need up to {valid:.6g}")
    parts = [located(spec, "M", layer, "big-M is below the valid bound of these rows, so networks "
                     "whose weights are inside their bounds would be cut off") + "\n" + "\n".join(lines)
             for layer, lines in by_setting.values()]
    return "\n".join(parts) + "\nuse 'M auto' (the default), a larger M, or --allow-small-m to keep it anyway"


def m_warnings(model: Model, eps: float, short: list) -> list[str]:
    out = []
    if short:
        out.append("big-M below the valid bound kept on request (--allow-small-m): "
                   "the model may cut off valid networks")
    big = max((m[1] for m in model.big_m.values()), default=0.0)
    if big * INTEGRALITY_TOL > eps / 10:
        out.append(f"largest big-M {big:g} times a typical integrality tolerance {INTEGRALITY_TOL:g} "
                   f"is {big * INTEGRALITY_TOL:g}, not well below eps = {eps:g}: the eps separation "
                   "of the activations is at the solver's mercy")
    return out
