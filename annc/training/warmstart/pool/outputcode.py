"""Separators in fewer units than classes: an output code read by Hamming distance.

A layer of ``L`` step units has ``2^L`` activation patterns, so it can tell up to ``2^L`` classes
apart even where it holds neither the ``k (k - 1) / 2`` pairwise units of the regression's argmax
nor the ``k - 1`` of a decision list (:mod:`~annc.training.warmstart.pool.decisionlist`): 10
classes in 4 units.  An *output code* (error-correcting output codes, Dietterich and Bakiri 1995)
gives class ``c`` a word ``C_c`` in ``{0, 1}^L``; unit ``j`` is a linear separator fitted to the
binary problem "is ``C_{y, j}`` one", and a row goes to the class whose word is nearest its
activations ``h`` in Hamming distance.

**The output layer computes that decoding exactly.**  Class ``c``'s score

    o_c(h) = sum_j (2 C_cj - 1) h_j - |C_c| + t_c = -d_H(h, C_c) + t_c,

because ``sum_j (2 C_cj - 1) h_j - |C_c| = -sum_j (C_cj (1 - h_j) + (1 - C_cj) h_j)`` for binary
``h``.  The tie-break ``t_c`` lies in ``[0, 1/2)``, larger for a more frequent class
(:func:`code_layer`): distances are whole numbers, so the nearest word wins and a tie between words
at the same distance goes to the more frequent class.

**The code** (:func:`output_code`): the class means are projected on the data's ``L`` leading
discriminant directions (scikit-learn's ``LinearDiscriminantAnalysis``), each direction
standardised across the classes, and the classes are assigned to distinct vertices of the cube
``{-1, 1}^L`` by a linear assignment (SciPy's ``linear_sum_assignment``) minimising the summed
squared distance of each class's projection to its vertex.  So classes that lie apart along a
discriminant direction differ in that bit, which is what a linear separator of that bit can
learn.  On scikit-learn's digits (10 classes, 64 features, 4 units, a 2/3 split, L1 logistic
regression at ``C = 1`` per bit) this code scored 81.8% on the test rows; 20 random codes with
distinct words scored 72.6% at their median and 82.6% at best (``python bench/run.py output_code``,
docs/decisions.md).

The number of units (:func:`code_bits`): ``ceil(log2 k)`` are needed; codes of up to two more
are tried where the layer holds them, and the one that fits the training rows best is kept
(:func:`~annc.training.warmstart.pool.readings.fewer_units`).
"""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

EXTRA_BITS = 2  # units beyond ceil(log2 k) an output code uses where the layer holds them


def least_bits(m: int) -> int:
    """``ceil(log2 m)``: the fewest units whose patterns tell ``m`` classes apart (at least 1)."""
    return max(1, math.ceil(math.log2(m)))


def code_bits(m: int, units: int) -> int | None:
    """The most units an output code of ``m`` classes takes in a layer of ``units``: ``ceil(log2 m)``
    and up to :data:`EXTRA_BITS` more, at most ``units``; None where the layer holds fewer than
    ``ceil(log2 m)`` (its patterns cannot tell the classes apart)."""
    need = least_bits(m)
    return None if units < need else min(units, need + EXTRA_BITS)


def output_code(X: np.ndarray, y: np.ndarray, order: list[int], bits: int) -> np.ndarray:
    """The code (module docstring): a ``len(order) x bits`` 0/1 array, row ``r`` the word of class
    ``order[r]``, every row distinct; columns that would be constant over the classes are dropped
    (they tell no class from another), so the array may have fewer than ``bits`` columns."""
    from scipy.optimize import linear_sum_assignment
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    m = len(order)
    keep = np.isin(y, order)
    Xk, yk = X[keep], y[keep]
    dims = min(bits, m - 1, X.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # collinear columns: the SVD solver copes, and says so
        lda = LinearDiscriminantAnalysis(solver="svd", n_components=dims).fit(Xk, yk)
    means = np.array([Xk[yk == c].mean(axis=0) for c in order])
    Z = lda.transform(means)[:, :dims]
    Z = Z - Z.mean(axis=0)
    spread = Z.std(axis=0)
    Z = Z / np.where(spread > 0, spread, 1.0)
    Z = np.hstack([Z, np.zeros((m, bits - Z.shape[1]))])
    V = np.array(list(itertools.product((-1.0, 1.0), repeat=bits)))
    cost = ((Z[:, None, :] - V[None, :, :]) ** 2).sum(axis=2)
    rows, cols = linear_sum_assignment(cost)
    code = np.zeros((m, bits), dtype=int)
    code[rows] = (V[cols] > 0).astype(int)
    return code[:, code.min(axis=0) != code.max(axis=0)]


def code_layer(code: np.ndarray, order: list[int], n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """``(Wo, bo)``: the output layer that decodes the units' activations to the class of the
    nearest word (module docstring); ``order`` is most frequent first, so ``t_c = (m - r) / (2m + 2)``
    for the class at position ``r``.  Classes outside ``order`` get ``-bits - 1``, below every
    listed score."""
    m, bits = code.shape
    Wo, bo = np.zeros((bits, n_classes)), np.full(n_classes, -bits - 1.0)
    for r, c in enumerate(order):
        Wo[:, c] = 2.0 * code[r] - 1.0
        bo[c] = -float(code[r].sum()) + (m - r) / (2 * m + 2)
    return Wo, bo


def code_predict(H: np.ndarray, code: np.ndarray, order: list[int]) -> np.ndarray:
    """The class of the word nearest each row of activations ``H`` (0/1), ties to the earlier class
    of ``order``: the decoding :func:`code_layer` computes."""
    distance = np.abs(H[:, None, :] - code[None, :, :]).sum(axis=2)
    return np.asarray(order)[np.argmin(distance, axis=1)]
