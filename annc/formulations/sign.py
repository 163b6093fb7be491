"""Sign units (outputs -1 or +1, as binarised networks use) and products with sign inputs.

Unit ``k`` of layer ``l`` on row ``u``: the binary unit's indicator ``h`` with its rows
``on``/``off`` (:mod:`.binary`), so ``h = 1`` iff ``pre >= eps`` and ``h = 0`` iff
``pre <= 0``; the unit outputs ``s = 2h - 1``, which needs no column of its own.
Exported networks use ``+1 if pre >= 0 else -1`` with the bias ``b - eps/2``, as binary
units do, so the exported sign reproduces ``s`` exactly.

Product with a sign input ``s' = 2h' - 1`` and a weight ``a`` in ``[aL, aU]``::

    a s' = 2 a h' - a

so the next layer uses the exact binary products ``z = a h'`` (rows ``zu/zl/za/zb`` of
:mod:`.binary`) and ``pre = sum_i (2 z_i - a_i) + b``, with ``pre`` in
``[n min(aL, -aU) + bL, n max(aU, -aL) + bU]``.  Exact, like the binary formulation.

Lift (the MIP point of a network whose pre-activations avoid ``(0, eps)``): ``h = 1[pre >= eps]``,
``z = a (s' + 1)/2``.
"""
from __future__ import annotations

import numpy as np

from . import binary
from .common import Affine, LayerInput, Lowering

export_bias_shift = binary.export_bias_shift


def units(low: Lowering, layer: int, spec_layer, pre: Affine) -> LayerInput:
    """Indicator columns ``h{layer}`` (U x K) and rows ``on``/``off``; the outputs are ``2h - 1``."""
    h = binary.indicator(low, layer, spec_layer, pre)
    return LayerInput("sign", h, None, np.ones(h.shape), on=h, handles={"h": h})


def lift_units(pre: np.ndarray, eps: float) -> tuple[dict, np.ndarray, np.ndarray]:
    """The unit columns at ``pre``, the units' outputs ``2h - 1``, and their indicators ``h``."""
    h = binary.on(pre, eps)
    return {"h": h}, 2 * h - 1, h


def mip_outputs(x: np.ndarray, handles: dict) -> np.ndarray:
    """What the exported units must output at the solver's point ``x``: ``2h - 1``."""
    return 2 * np.round(x[handles["h"]]) - 1


def products(low: Lowering, layer: int, spec_layer, inp: LayerInput,
             a: np.ndarray, beta: np.ndarray) -> tuple[Affine, dict]:
    """Products ``z{layer}[u,i,k] = a[i,k] h'[u,i]``; returns ``pre = sum_i (2 z - a) + b`` and ``{"z": z}``."""
    z, _, _ = binary.exact_products(low, layer, spec_layer, inp.cols, a)
    (wl, wu), (bl, bu) = spec_layer.weight_bounds, spec_layer.bias_bounds
    (U, n_in), K = inp.cols.shape, spec_layer.units
    lo = np.full((U, K), n_in * min(wl, -wu) + bl)
    hi = np.full((U, K), n_in * max(wu, -wl) + bu)
    terms = [(z.transpose(0, 2, 1), 2.0), (a.T[None, :, :], -1.0), (beta[None, :], 1.0)]
    return Affine(terms, lo, hi), {"z": z}


def lift_products(inputs: np.ndarray, W: np.ndarray, problem, layer: int) -> dict:
    """Products ``a h'`` at the previous layer's outputs ``s' = 2h' - 1`` (U x n)."""
    return {"z": ((inputs + 1) / 2)[:, :, None] * W[None, :, :]}


product_gap = binary.product_gap
exact_rows = binary.exact_rows
RELAXES_PRODUCTS = False
