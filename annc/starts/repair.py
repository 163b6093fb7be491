"""Moving a network into the weight box and off the eps gap (steps 1-2 of :mod:`annc.starts`).

A binary unit's step ``1[pre >= 0]`` is unchanged when its ``(alpha_k, beta_k)`` is scaled
by a positive factor: :func:`fit_box` scales it into 90% of its box (leaving the bias
room to move); ReLU layers are clipped.  The MIP's units need ``pre >= eps`` or
``pre <= 0``: :func:`threshold` moves each unit's bias so that no row's pre-activation
lies in ``(0, eps)``, flipping as few activations as it can.
"""
from __future__ import annotations

import numpy as np

from ..formulations import ACTIVATIONS
from ..problem import TrainingProblem

BOX_ROOM = 0.9  # scale into 90% of the box, leaving the bias room to move off the eps gap
SCALED = ("binary", "sign")  # step units: a positive scaling of (alpha_k, beta_k) keeps the function


def fit_box(w: np.ndarray, wb, bb) -> np.ndarray:
    """``w = (alpha_k, beta_k)`` scaled by the largest positive factor keeping it in its boxes."""
    lo = np.r_[np.full(len(w) - 1, wb[0]), bb[0]]
    hi = np.r_[np.full(len(w) - 1, wb[1]), bb[1]]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(w > 0, hi / w, np.where(w < 0, lo / w, np.inf))
    s = np.min(ratio) if np.isfinite(ratio).any() else 1.0
    return np.clip(w * max(s, 0.0) * BOX_ROOM, lo, hi)


def threshold(pre: np.ndarray, bias: float, eps: float, bl: float, bu: float) -> float | None:
    """A bias near ``bias`` that leaves no value of ``pre`` (computed with ``bias``) in ``(0, eps)``.

    The threshold goes mid-way into a gap wider than eps (so that rounding cannot put
    a value back into the forbidden interval), the one flipping fewest of ``pre >= 0``.
    """
    v = np.unique(pre)
    slack = 1e-6 * max(eps, 1.0)
    gaps = np.nonzero(np.diff(v) > eps + 2 * slack)[0]
    # c is the new zero: values <= c - slack go off, values >= c + eps + slack go on
    cands = [v[0] - eps - slack, v[-1] + slack] + list((v[gaps] + v[gaps + 1] - eps) / 2)
    orig = pre >= 0
    best, best_flips = None, None
    for c in cands:
        nb = bias - c
        if bl <= nb <= bu:
            flips = int(np.sum((pre - c >= eps) != orig))
            if best_flips is None or flips < best_flips:
                best, best_flips = float(nb), flips
    return best


def off_gap(problem: TrainingProblem, weights: list, biases: list, *, scale: bool = True):
    """Steps 1-2: the hidden layers' ``(weights, biases)`` in their boxes (scaled into 90% of
    them when ``scale``) and clear of the eps gap, and the last hidden layer's outputs on the
    problem's rows (the MIP's semantics); or None when some unit's bias cannot move off the gap."""
    spec, eps, act = problem.spec, problem.spec.eps, problem.X
    W_out, b_out = [], []
    for layer, ls in enumerate(spec.hidden):
        W, b = np.asarray(weights[layer], float).copy(), np.asarray(biases[layer], float).copy()
        if scale and ls.activation in SCALED:
            for k in range(W.shape[1]):
                wb = fit_box(np.r_[W[:, k], b[k]], ls.weight_bounds, ls.bias_bounds)
                W[:, k], b[k] = wb[:-1], wb[-1]
        W, b = np.clip(W, *ls.weight_bounds), np.clip(b, *ls.bias_bounds)
        pre = act @ W + b
        for k in range(W.shape[1]):
            nb = threshold(pre[:, k], b[k], eps, *ls.bias_bounds)
            if nb is None:
                return None
            pre[:, k] += nb - b[k]
            b[k] = nb
        act = ACTIVATIONS[ls.activation].lift_units(pre, eps)[1]
        W_out.append(W)
        b_out.append(b)
    return W_out, b_out, act


def repair_hidden(problem: TrainingProblem, weights: list, biases: list):
    """Steps 1-2 (:func:`off_gap` with scaling): the repaired ``(weights, biases)`` of the
    hidden layers and the last hidden layer's outputs on the problem's rows, or None."""
    return off_gap(problem, weights, biases)
