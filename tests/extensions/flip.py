"""A hidden activation written outside annc: ``flip``, the binary unit's complement,
``1 - 1[pre >= 0]`` (on below 0), outputs 0 or 1.

Unit: the binary indicator ``h`` with its rows ``on``/``off``
(:func:`annc.formulations.binary.indicator`: ``h = 1`` iff ``pre >= eps``, ``h = 0`` iff
``pre <= 0``); the unit outputs ``f = 1 - h``, which needs no column of its own.
Exported networks use the bias ``b - eps/2``, as binary units do, so the exported
``1 - 1[pre >= 0]`` reproduces ``f``.  Product with a flip input ``f' = 1 - h'``::

    a f' = a - a h' = a - z

with the exact binary products ``z = a h'``, so ``pre = sum_i (a_i - z_i) + b`` (two
entries per input, like sign), each term in ``[min(aL, 0), max(aU, 0)]``.

``ACTIVATION`` is its entry of :data:`annc.core.activations.HIDDEN`, with its ONNX hook; this
module is the formulation (:data:`annc.formulations.ACTIVATIONS`).
tests/formulations/test_extensions.py registers both at run time.
"""
from __future__ import annotations

import numpy as np

from annc.core.activations import EXACT, Activation, UnitSize
from annc.formulations import binary
from annc.formulations.common import Affine, LayerInput, Lowering


def forward(pre: np.ndarray) -> np.ndarray:
    return np.where(pre >= 0, 0.0, 1.0)


def to_onnx(g, pre: str) -> str:
    """``1 - Cast(GreaterOrEqual(pre, 0))``: the same doubles as :func:`forward`."""
    on = g.op("Cast", [g.op("GreaterOrEqual", [pre, g.const("zero", np.float64(0.0))])], to=g.DOUBLE)
    return g.op("Sub", [g.const("one", np.float64(1.0)), on])


ACTIVATION = Activation("flip", forward, 0.0, 1.0, step=True, homogeneous=False, products=EXACT,
                        pre_entries=2, unit=UnitSize(columns=1, rows=2, pre_rows=2, entries=2), onnx=to_onnx)

export_bias_shift = binary.export_bias_shift
product_gap = binary.product_gap
exact_rows = binary.exact_rows
RELAXES_PRODUCTS = False


def units(low: Lowering, layer: int, spec_layer, pre: Affine) -> LayerInput:
    h = binary.indicator(low, layer, spec_layer, pre)
    return LayerInput("flip", h, None, np.ones(h.shape), on=h, handles={"h": h})


def lift_units(pre: np.ndarray, eps: float):
    h = binary.on(pre, eps)
    return {"h": h}, 1 - h, h


def mip_outputs(x: np.ndarray, handles: dict) -> np.ndarray:
    return 1 - np.round(x[handles["h"]])


def products(low: Lowering, layer: int, spec_layer, inp: LayerInput, a: np.ndarray, beta: np.ndarray):
    z, zlo, zhi = binary.exact_products(low, layer, spec_layer, inp.cols, a)
    (bl, bu), (U, n_in), K = spec_layer.bias_bounds, inp.cols.shape, spec_layer.units
    lo, hi = np.full((U, K), n_in * zlo + bl), np.full((U, K), n_in * zhi + bu)
    terms = [(a.T[None, :, :], 1.0), (z.transpose(0, 2, 1), -1.0), (beta[None, :], 1.0)]
    return Affine(terms, lo, hi), {"z": z}


def lift_products(inputs: np.ndarray, W: np.ndarray, problem, layer: int) -> dict:
    return {"z": (1 - inputs)[:, :, None] * W[None, :, :]}
