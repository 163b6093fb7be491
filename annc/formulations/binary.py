"""Binary units and products with binary inputs (Proposition 2).

Unit ``k`` of layer ``l`` on row ``u``, with pre-activation ``pre`` in ``[Lp, Up]``::

    on:  pre <= M_on h                        M_on  = max(Up, 0)
    off: pre >= eps + (-M_off - eps)(1 - h)    M_off = max(-Lp, 0)

so ``h = 1`` iff ``pre >= eps`` and ``h = 0`` iff ``pre <= 0`` (``pre`` in ``(0, eps)`` is
infeasible).  Exported networks use the bias ``b - eps/2`` so that the standard step
``1[pre >= 0]`` reproduces ``h`` exactly.

Product ``z = a h'`` of a weight ``a`` in ``[aL, aU]`` and a binary input ``h'``::

    zu: z <= M_zu h'          M_zu = max(aU, 0)
    zl: z >= -M_zl h'         M_zl = max(-aL, 0)
    za: z <= a + M_za (1-h')  M_za = max(-aL, 0)
    zb: z >= a - M_zb (1-h')  M_zb = max(aU, 0)

exact for binary ``h'``; ``z`` is boxed in ``[min(aL, 0), max(aU, 0)]``.

Lift (the MIP point of a network whose pre-activations avoid ``(0, eps)``): ``h = 1[pre >= eps]``,
``z = a h'``.
"""
from __future__ import annotations

import numpy as np

from .common import Affine, LayerInput, Lowering


def export_bias_shift(eps: float) -> float:
    """What the exported bias adds: ``-eps/2``, so that ``1[pre >= 0]`` agrees with ``h``."""
    return -eps / 2


def units(low: Lowering, layer: int, spec_layer, pre: Affine) -> LayerInput:
    """Binary activation columns ``h{layer}`` (U x K) and rows ``on``/``off``."""
    h = indicator(low, layer, spec_layer, pre)
    return LayerInput("binary", h, None, np.ones(h.shape), on=h, handles={"h": h})


def indicator(low: Lowering, layer: int, spec_layer, pre: Affine) -> np.ndarray:
    """The columns ``h{layer}`` with ``h = 1`` iff ``pre >= eps`` (rows ``on``/``off``)."""
    b, eps, user = low.builder, low.eps, spec_layer.big_m
    shape = pre.lo.shape
    h = b.binary(f"h{layer}", shape, role="binary", layer=layer)
    m_on = low.big_m(f"on{layer}", pre.hi, user)
    m_off = low.big_m(f"off{layer}", -pre.lo, user)
    b.rows(f"on{layer}", shape, "L", 0.0, pre.terms + [(h, -m_on)], role="on", layer=layer, big_m=m_on)
    b.rows(f"off{layer}", shape, "G", -m_off, pre.terms + [(h, -(m_off + eps))],
           role="off", layer=layer, big_m=m_off)
    return h


def on(pre: np.ndarray, eps: float) -> np.ndarray:
    """``h`` of units with pre-activations ``pre``: 1 iff ``pre >= eps``."""
    return (pre >= eps).astype(float)


def lift_units(pre: np.ndarray, eps: float) -> tuple[dict, np.ndarray, np.ndarray]:
    """The unit columns at ``pre``, the units' outputs, and their on-indicators."""
    h = on(pre, eps)
    return {"h": h}, h, h


def mip_outputs(x: np.ndarray, handles: dict) -> np.ndarray:
    """What the exported units must output at the solver's point ``x``: its ``h``."""
    return np.round(x[handles["h"]])


def products(low: Lowering, layer: int, spec_layer, inp: LayerInput,
             a: np.ndarray, beta: np.ndarray) -> tuple[Affine, dict]:
    """Products ``z{layer}[u,i,k] = a[i,k] h'[u,i]``; returns ``pre = sum_i z + b`` and ``{"z": z}``."""
    z, zlo, zhi = exact_products(low, layer, spec_layer, inp.cols, a)
    (bl, bu), n_in = spec_layer.bias_bounds, inp.cols.shape[1]
    U, K = inp.cols.shape[0], spec_layer.units
    hi = np.full((U, K), n_in * zhi + bu)
    lo = np.full((U, K), n_in * zlo + bl)
    return Affine([(z.transpose(0, 2, 1), 1.0), (beta[None, :], 1.0)], lo, hi), {"z": z}


def lift_products(inputs: np.ndarray, W: np.ndarray, problem, layer: int) -> dict:
    """Products at the previous layer's outputs ``inputs`` (U x n) and weights ``W``."""
    return {"z": inputs[:, :, None] * W[None, :, :]}


RELAXES_PRODUCTS = False  # z = a h exactly


def product_gap(x: np.ndarray, layer, inputs: dict):
    """Exact products: no gap to report."""
    return None


def exact_rows(x: np.ndarray, layer, inputs: dict, num_cols: int, *, weights_fixed: bool):
    """Exact products need no rows to be exact: None."""
    return None


def exact_products(low: Lowering, layer: int, spec_layer, h: np.ndarray, a: np.ndarray):
    """The columns ``z{layer}[u,i,k] = a[i,k] h[u,i]`` (rows zu/zl/za/zb) and their box."""
    b, user = low.builder, spec_layer.big_m
    wl, wu = spec_layer.weight_bounds
    U, n_in = h.shape
    K = spec_layer.units
    shape = (U, n_in, K)
    zlo, zhi = min(wl, 0.0), max(wu, 0.0)
    z = b.var(f"z{layer}", shape, zlo, zhi, role="product", layer=layer)
    hp = np.broadcast_to(h[:, :, None], shape)
    aa = np.broadcast_to(a[None, :, :], shape)
    ones = np.ones(shape)
    m = {r: low.big_m(f"{r}{layer}", v * ones, user)
         for r, v in (("zu", zhi), ("zl", -zlo), ("za", -zlo), ("zb", zhi))}
    b.rows(f"zu{layer}", shape, "L", 0.0, [(z, 1.0), (hp, -m["zu"])], role="product", layer=layer, big_m=m["zu"])
    b.rows(f"zl{layer}", shape, "G", 0.0, [(z, 1.0), (hp, m["zl"])], role="product", layer=layer, big_m=m["zl"])
    b.rows(f"za{layer}", shape, "L", m["za"], [(z, 1.0), (aa, -1.0), (hp, m["za"])],
           role="product", layer=layer, big_m=m["za"])
    b.rows(f"zb{layer}", shape, "G", -m["zb"], [(z, 1.0), (aa, -1.0), (hp, -m["zb"])],
           role="product", layer=layer, big_m=m["zb"])
    return z, zlo, zhi
