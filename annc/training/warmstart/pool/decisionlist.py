"""One-vs-rest separators read as a decision list: a multi-class linear model in ``k - 1`` step units.

L1 logistic regression fits ``k`` one-vs-rest scores ``s_c(x) = w_c.x + b_c`` and predicts
``argmax_c s_c(x)``.  Computing that argmax exactly with step units takes the ``k (k - 1) / 2``
pairwise comparisons ``1[s_i >= s_j]`` (:func:`~annc.training.warmstart.pool.readings.differences`):
6 units for 4 classes, 10 for 5, more than a layer of 4 holds.  A layer of ``k - 1`` units holds
another classifier built from the same hyperplanes, the *decision list*

    predict(x) = c_1 if s_{c_1}(x) >= 0, else c_2 if s_{c_2}(x) >= 0, ..., else c_0,

with ``c_0`` the most frequent class (its own hyperplane unused) and ``c_1 .. c_{k-1}`` the other
classes in a priority order.  Unit ``r`` computes ``h_r = 1[s_{c_r}(x) >= 0]`` and the output layer
gives class ``c_r`` the score ``2^(k-1-r) h_r`` (``r = 1 .. k-1``) and ``c_0`` the constant ``1/2``:
the first unit on in the order wins, because ``2^(k-1-r) > sum_{q > r} 2^(k-1-q)``, and with no unit
on ``c_0``'s ``1/2`` beats every ``0``.  So the network predicts exactly what the list predicts
(up to the rows the eps gap's repair moves, as for every separator).

:func:`priority` chooses the order that fits the training rows best, weighted by their counts
(class weights included): every order while there are at most :data:`EXHAUSTIVE_UNITS` units
(720 orders), else the rarest class first (a rare class's one-vs-rest score rarely turns
positive, so it goes before the frequent classes it would otherwise lose to).
"""
from __future__ import annotations

import itertools

import numpy as np

EXHAUSTIVE_UNITS = 6  # every priority order is tried up to this many units (6! = 720 orders)


def list_predict(S: np.ndarray, units: list[int], default: int, classes: list[int]) -> np.ndarray:
    """The decision list's class per row: ``S`` (rows x columns) holds the one-vs-rest scores,
    ``units`` the columns in priority order, ``classes[col]`` the class of a column, ``default``
    the class where no listed score is ``>= 0``."""
    out = np.full(len(S), default)
    claimed = np.zeros(len(S), bool)
    for col in units:
        on = (S[:, col] >= 0) & ~claimed
        out[on] = classes[col]
        claimed |= on
    return out


def priority(S: np.ndarray, y: np.ndarray, weight: np.ndarray, columns: list[int], classes: list[int],
             default: int) -> list[int]:
    """The order of ``columns`` (module docstring) whose list fits the rows ``(S, y)`` best,
    weighted by ``weight``; ties: the first order tried (``columns``' own order first)."""
    if len(columns) > EXHAUSTIVE_UNITS:
        return sorted(columns, key=lambda c: weight[y == classes[c]].sum())
    best, fit = list(columns), -1.0
    for order in itertools.permutations(columns):
        got = float(weight[list_predict(S, list(order), default, classes) == y].sum())
        if got > fit + 1e-12:
            best, fit = list(order), got
    return best


def decision_list(X: np.ndarray, y: np.ndarray, weight: np.ndarray, W: np.ndarray, b: np.ndarray,
                  order: list[int], n_classes: int):
    """``(W1, b1, (Wo, bo))``: the ``k - 1`` units of the one-vs-rest hyperplanes ``(W, b)`` (a column
    per class of ``order``, the most frequent first, as
    :func:`~annc.training.warmstart.pool.regression.one_vs_rest` fits them) in :func:`priority`'s order, and
    the output layer that makes them a decision list (module docstring) over ``n_classes`` outputs
    (classes outside ``order`` get ``-1``, below every listed score)."""
    S = X @ W + b
    columns = list(range(1, len(order)))
    units = priority(S, y, weight, columns, list(order), order[0])
    L = len(units)
    Wo, bo = np.zeros((L, n_classes)), np.full(n_classes, -1.0)
    for c in order:
        bo[c] = 0.0
    bo[order[0]] = 0.5
    for r, col in enumerate(units):
        Wo[r, order[col]] = 2.0 ** (L - 1 - r)
    return W[:, units], b[units], (Wo, bo)
