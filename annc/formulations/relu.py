"""ReLU units and piecewise McCormick products with ReLU inputs (Proposition 3).

Unit ``k`` of layer ``l`` on row ``u``: an indicator ``h`` (rows ``on``/``off`` of the
binary formulation, ``h = 1`` iff ``pre >= eps``) and the output ``q = max(pre, 0)``,
``q`` in ``[0, qU]`` with ``qU = max(Up, 0)``::

    ra: q <= pre + M_a (1 - h)     M_a = max(-Lp, 0)
    rb: q >= pre - M_b (1 - h)     M_b = 0: q >= pre holds for every network
    rc: q <= M_c h                 M_c = qU
    (-M h <= q is the bound q >= 0)

Product ``z = a q'`` of a weight ``a`` in ``[aL, aU]`` and a ReLU input ``q'`` in
``[0, qU']`` (``qU'`` per sample): ``[aL, aU]`` is cut into P pieces
``[aL_p, aU_p]``, ``aL_p = aL + (aU - aL)(p - 1)/P``, ``aU_p = aL + (aU - aL) p/P``; one
selector ``lambda_p`` per weight and piece (no sample index) with
``sum_p lambda_p = 1`` and ``sum_p aL_p lambda_p <= a <= sum_p aU_p lambda_p``; and the
McCormick envelope of the chosen piece (lower bound of ``q'`` is 0)::

    mca: z >= aL_p q'                          - M1 (1 - lambda_p)   M1 = (aL_p - aL) qU'
    mcb: z >= aU_p q' + a qU' - aU_p qU'       - M2 (1 - lambda_p)   M2 = (aU - aU_p) qU'
    mcc: z <= aU_p q'                          + M3 (1 - lambda_p)   M3 = (aU - aU_p) qU'
    mcd: z <= aL_p q' + a qU' - aL_p qU'       + M4 (1 - lambda_p)   M4 = (aL_p - aL) qU'

Each M is the largest violation of its row by an exact product ``z = a q'`` with ``a``
in another piece.  This is a relaxation: ``|z - a q'|`` (the McCormick gap) shrinks
as ``P`` grows and is reported by ``annc decode``.

Lift (the MIP point of a network whose pre-activations avoid ``(0, eps)``): ``h = 1[pre >= eps]``,
``q = max(pre, 0) h``; ``z = a q'`` exactly, with ``lambda_p = 1`` for the piece holding ``a``
(the first one whose upper end is ``>= a``).
"""
from __future__ import annotations

import numpy as np

from . import binary
from .common import Affine, LayerInput, Lowering

RELAXES_PRODUCTS = True  # piecewise McCormick: the MIP's products need not be a q'


def export_bias_shift(eps: float) -> float:
    """ReLU units export their bias as it is."""
    return 0.0


def units(low: Lowering, layer: int, spec_layer, pre: Affine) -> LayerInput:
    """Indicator ``h{layer}``, output ``q{layer}`` and rows on/off/ra/rb/rc."""
    b, user = low.builder, spec_layer.big_m
    shape = pre.lo.shape
    h = binary.indicator(low, layer, spec_layer, pre)
    qU = np.maximum(pre.hi, 0.0)
    q = b.var(f"q{layer}", shape, 0.0, qU, role="relu", layer=layer)
    m_a = low.big_m(f"ra{layer}", -pre.lo, user)
    m_b = low.big_m(f"rb{layer}", np.zeros(shape), user)
    m_c = low.big_m(f"rc{layer}", qU, user)
    neg = [(c, -np.asarray(v, float)) for c, v in pre.terms]
    b.rows(f"ra{layer}", shape, "L", m_a, [(q, 1.0), (h, m_a)] + neg, role="relu", layer=layer, big_m=m_a)
    b.rows(f"rb{layer}", shape, "G", -m_b, [(q, 1.0), (h, -m_b)] + neg, role="relu", layer=layer, big_m=m_b)
    b.rows(f"rc{layer}", shape, "L", 0.0, [(q, 1.0), (h, -m_c)], role="relu", layer=layer, big_m=m_c)
    return LayerInput("relu", q, None, qU, on=h, handles={"h": h, "q": q})


def lift_units(pre: np.ndarray, eps: float) -> tuple[dict, np.ndarray, np.ndarray]:
    """The unit columns at ``pre``, the units' outputs ``q``, and their indicators ``h``."""
    h = binary.on(pre, eps)
    q = np.maximum(pre, 0.0) * h
    return {"h": h, "q": q}, q, h


def mip_outputs(x: np.ndarray, handles: dict):
    """Not compared: the products of the next layer are relaxed (see :func:`product_gap`)."""
    return None


def pieces(lo: float, hi: float, P: int) -> tuple[np.ndarray, np.ndarray]:
    """Piece bounds ``aL_p``, ``aU_p`` for ``p = 1..P`` (uniform partition)."""
    p = np.arange(1, P + 1)
    return lo + (hi - lo) * (p - 1) / P, lo + (hi - lo) * p / P


def weight_pieces(problem, layer: int, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Piece bounds per weight, each ``shape + (P,)``: the problem's own breakpoints for
    ``layer`` (``problem.partitions[layer]``, ``shape + (P + 1,)``, set by adaptive
    refinement: :func:`refined`) or the uniform partition of the weight box."""
    bp = problem.partitions.get(layer) if problem.partitions else None
    if bp is not None:
        return bp[..., :-1], bp[..., 1:]
    lo, hi = pieces(*problem.spec.layers[layer].weight_bounds, problem.spec.partitions)
    return np.broadcast_to(lo, shape + lo.shape), np.broadcast_to(hi, shape + hi.shape)


def refined(W: np.ndarray, lo: float, hi: float, P: int, width: float) -> np.ndarray:
    """Breakpoints ``(n, K, P + 1)`` for the weights ``W`` (adaptive refinement, as Alpine.jl
    partitions around the relaxation's solution): a piece ``[w - width/2, w + width/2]``
    (clipped to the box) around each weight, the rest of ``[lo, hi]`` cut uniformly into
    the other ``P - 1`` pieces, on each side in proportion to its length.  The McCormick
    envelope is exact where ``a`` is at a piece's end and tight near it, so the relaxed
    products are close to exact around ``W``; any partition of the box is a valid
    relaxation, so the bound stays a bound.  ``P >= 2``; with ``P == 2`` the breakpoint is
    ``w`` itself."""
    W = np.clip(np.asarray(W, float), lo, hi)
    if P == 2:
        mids = np.clip(W, lo + 1e-9 * (hi - lo), hi - 1e-9 * (hi - lo))
        return np.stack([np.full(W.shape, lo), mids, np.full(W.shape, hi)], axis=-1)
    a = np.clip(W - width / 2, lo, hi)
    b = np.clip(W + width / 2, lo, hi)
    left, right = a - lo, hi - b
    total = np.maximum(left + right, 1e-12)
    out = np.empty(W.shape + (P + 1,))
    for idx in np.ndindex(W.shape):
        n_left = int(round((P - 1) * left[idx] / total[idx]))
        n_left = min(max(n_left, 1 if left[idx] > 0 else 0), P - 1 - (1 if right[idx] > 0 else 0))
        n_right = P - 1 - n_left
        pts = np.concatenate([np.linspace(lo, a[idx], n_left + 1), np.linspace(b[idx], hi, n_right + 1)])
        out[idx] = pts
    return out


def products(low: Lowering, layer: int, spec_layer, inp: LayerInput,
             a: np.ndarray, beta: np.ndarray) -> tuple[Affine, dict]:
    """McCormick products ``z{layer}[u,i,k] ~ a[i,k] q'[u,i]``; returns ``pre = sum_i z + b``
    and the handles ``{"z": z, "s": lambda}``."""
    b, user, P = low.builder, spec_layer.big_m, low.problem.spec.partitions
    (wl, wu), (bl, bu) = spec_layer.weight_bounds, spec_layer.bias_bounds
    U, n_in = inp.cols.shape
    K = spec_layer.units
    qU = inp.upper  # U x n_in
    zlo = min(wl, 0.0) * qU[:, :, None] * np.ones((1, 1, K))
    zhi = max(wu, 0.0) * qU[:, :, None] * np.ones((1, 1, K))
    z = b.var(f"z{layer}", (U, n_in, K), zlo, zhi, role="product", layer=layer)
    lam = b.binary(f"s{layer}", (n_in, K, P), role="selector", layer=layer)
    aLp, aUp = weight_pieces(low.problem, layer, (n_in, K))  # (n_in, K, P) each

    b.rows(f"sel{layer}", (n_in, K), "E", 1.0, [(lam, 1.0)], role="selector", layer=layer)
    b.rows(f"sl{layer}", (n_in, K), "G", 0.0, [(a, 1.0), (lam, -aLp)], role="selector", layer=layer)
    b.rows(f"su{layer}", (n_in, K), "L", 0.0, [(a, 1.0), (lam, -aUp)], role="selector", layer=layer)

    shape = (U, n_in, K, P)
    zz = z[..., None]
    qq = inp.cols[:, :, None, None]
    aa = a[None, :, :, None]
    ll = lam[None]
    qu = qU[:, :, None, None] * np.ones(shape)
    aL, aU = aLp[None], aUp[None]  # (1, n_in, K, P)
    rows = {  # name: (sense, valid M, q' coef, a coef, constant on the right)
        "mca": ("G", (aL - wl) * qu, -aL, 0.0, 0.0),
        "mcb": ("G", (wu - aU) * qu, -aU, -qu, -aU * qu),
        "mcc": ("L", (wu - aU) * qu, -aU, 0.0, 0.0),
        "mcd": ("L", (aL - wl) * qu, -aL, -qu, -aL * qu),
    }
    for name, (sense, valid, qcoef, acoef, const) in rows.items():
        m = low.big_m(f"{name}{layer}", valid, user)
        sign = -1.0 if sense == "G" else 1.0  # z >= ... - M(1-l)  /  z <= ... + M(1-l)
        terms = [(zz, 1.0), (qq, qcoef * np.ones(shape)), (aa, acoef * np.ones(shape)), (ll, sign * m)]
        b.rows(f"{name}{layer}", shape, sense, const + sign * m, terms, role="mccormick", layer=layer, big_m=m)

    hi = zhi.sum(1) + bu
    lo = zlo.sum(1) + bl
    return Affine([(z.transpose(0, 2, 1), 1.0), (beta[None, :], 1.0)], lo, hi), {"z": z, "s": lam}


def lift_products(inputs: np.ndarray, W: np.ndarray, problem, layer: int) -> dict:
    """Exact products ``a q'`` at the inputs ``q'`` (U x n), and the selectors of ``W``'s
    pieces (the first piece whose upper end is ``>= a``)."""
    P = problem.spec.partitions
    hi = weight_pieces(problem, layer, W.shape)[1]
    piece = np.minimum(np.sum(hi < W[..., None], axis=-1), P - 1)
    return {"z": inputs[:, :, None] * W[None, :, :], "s": np.eye(P)[piece]}


def product_gap(x: np.ndarray, layer, inputs: dict) -> float:
    """The McCormick gap ``max |z - a q'|`` of ``layer``'s products at the point ``x``
    (``inputs``: the handles of the ReLU layer feeding it); None when ``layer``'s products
    are exact (weights on a grid: :mod:`.grid`)."""
    if not layer.relaxed:
        return None
    z, a, q = x[layer.products["z"]], x[layer.weight], x[inputs["q"]]
    return float(np.max(np.abs(z - a[None] * q[:, :, None]))) if z.size else 0.0


def exact_rows(x: np.ndarray, layer, inputs: dict, num_cols: int, *, weights_fixed: bool):
    """Rows that make the products of ``layer`` exact once one factor is known at ``x``.

    With the weights ``a`` fixed (a layer fix-and-optimise keeps): ``z - a* q' = 0`` for
    every sample, input and unit; with the inputs ``q'`` known (the free layer of
    fix-and-optimise, whose inputs come from fixed layers): ``z - q'* a = 0``.  Either
    is linear, so the sub-MIP is exact: its points are networks, not relaxations.
    Returns the rows as a sparse matrix (right-hand side 0, sense ``=``).
    """
    import scipy.sparse as sp
    z, a, q = layer.products["z"], layer.weight, inputs["q"]
    U, n, K = z.shape
    zc = z.ravel()
    if weights_fixed:
        other = np.broadcast_to(q[:, :, None], z.shape).ravel()
        coef = -np.broadcast_to(x[a][None], z.shape).ravel()
    else:
        other = np.broadcast_to(a[None], z.shape).ravel()
        coef = -np.broadcast_to(x[q][:, :, None], z.shape).ravel()
    m = zc.size
    rows = np.repeat(np.arange(m), 2)
    cols = np.column_stack([zc, other]).ravel()
    vals = np.column_stack([np.ones(m), coef]).ravel()
    return sp.csr_matrix((vals, (rows, cols)), shape=(m, num_cols))
