"""L1 logistic regression of ``m`` classes read in one hidden layer of step units.

The regression predicts ``argmax_c s_c(x)``, ``s_c = w_c.x + b_c`` (:mod:`.regression`).  How many
units that takes, and which network computes it (:func:`separator_width`):

* two classes: one unit, the hyperplane;
* the ``m (m - 1) / 2`` pairwise comparisons ``s_i - s_j`` (:func:`differences`) and an output layer
  that counts each class's wins (:func:`votes`): the regression's own argmax;
* fewer units (:func:`fewer_units`): the decision list of its one-vs-rest hyperplanes
  (:mod:`.decisionlist`, ``m - 1`` units) or an output code (:mod:`.outputcode`,
  :func:`code_separators`, ``ceil(log2 m)`` units and up), whichever fits the training rows best.
"""
from __future__ import annotations

import numpy as np

from ....io.problem import TrainingProblem
from .decisionlist import decision_list
from .outputcode import code_bits, code_layer, least_bits, output_code
from .regression import hyperplane, logistic, one_vs_rest

__all__ = ["code_separators", "differences", "fewer_units", "pairs", "separator_width", "votes"]


def pairs(m: int) -> int:
    """The pairwise units of ``m`` classes (:func:`differences`): ``m (m - 1) / 2``."""
    return m * (m - 1) // 2


def separator_width(m: int, units: int) -> int | None:
    """The hidden units L1 logistic regression's separator of ``m`` classes takes in one hidden layer
    of ``units`` step units, None where it does not fit (:func:`logistic_network`; model selection's
    logistic settings, :mod:`annc.training.modelselect.cvselect`, by the same rule):

    * ``m = 2``: 1, the one hyperplane;
    * else ``pairs(m) = m (m - 1) / 2`` where the layer holds them: the regression's own argmax, a
      unit per pairwise comparison ``s_i - s_j`` (:func:`differences`) and an output layer that counts
      each class's wins (:func:`votes`);
    * else, where the layer holds ``ceil(log2 m)`` units, the most units one of :func:`fewer_units`'
      readings takes: the ``m - 1`` of a decision list (:mod:`~annc.training.warmstart.pool.decisionlist`)
      where the layer holds them, or an output code's bits
      (:func:`~annc.training.warmstart.pool.outputcode.code_bits`: ``ceil(log2 m)``, up to two more
      where the layer holds them); the reading chosen may use fewer, and the rest stay off;
    * else None.

    Where both fit (``units >= m (m - 1) / 2 >= m - 1``) the pairwise units are used: they compute what
    the regression predicts."""
    if m == 2:
        return 1
    if units >= pairs(m):
        return pairs(m)
    bits = code_bits(m, units)
    if bits is None:
        return None
    return max(bits, m - 1) if units >= m - 1 else bits


def fewer_units(problem: TrainingProblem, order: list[int], units: int, C: float):
    """``(W, b, (Wo, bo))``: L1 logistic regression at ``C`` read in a layer of ``units`` step units,
    fewer than the pairwise comparisons of its argmax: of the decision list of its one-vs-rest
    hyperplanes (where ``units >= m - 1``) and the output codes of ``ceil(log2 m)`` up to
    :func:`~annc.training.warmstart.pool.outputcode.code_bits` bits, the one whose network fits the
    training rows best, weighted by their counts (class weights included); ties go to fewer units.
    Measured on the training rows of five 4-class public sets (split 0, C = 1): the output code of
    2 bits fitted 66.7%, 49.7%, 65.3%, 47.2%, 65.0% (hpc_data, yogurt, modechoice, fishing,
    commute_mode) where the decision list of 3 units fitted 64.1%, 50.2%, 59.2%, 44.5%, 58.7%, and
    with balanced class weights 59.5% against 42.8% on hpc_data (docs/decisions.md)."""
    X, y, weight = problem.class_rows()
    J, m = len(problem.classes), len(order)
    readings = [code_separators(problem, order, bits, C)
                for bits in range(least_bits(m), (code_bits(m, units) or 0) + 1)]
    if units >= m - 1:
        fitted = one_vs_rest(problem, lambda: logistic(C))
        readings.append(decision_list(X, y, weight, *fitted, order, J))

    def fit(reading) -> float:
        W, b, (Wo, bo) = reading
        said = np.argmax((X @ W + b >= 0).astype(float) @ Wo + bo, axis=1)
        return float(weight[said == y].sum())
    readings.sort(key=lambda r: r[0].shape[1])  # fewer units first: they win a tie
    fits = [fit(r) for r in readings]
    best = 0
    for i in range(1, len(readings)):
        if fits[i] > fits[best] + 1e-9:
            best = i
    return readings[best]


def code_separators(problem: TrainingProblem, order: list[int], bits: int, C: float):
    """``(W, b, (Wo, bo))``: the output code of the classes ``order`` (most frequent first) in
    ``bits`` units (:func:`~annc.training.warmstart.pool.outputcode.output_code`, on the problem's
    scaled rows), unit ``j`` L1 logistic regression at ``C`` fitted to "bit ``j`` of the row's class's
    word is one" (rows weighted by their sample counts), and the output layer that decodes to the
    nearest word (:func:`~annc.training.warmstart.pool.outputcode.code_layer`)."""
    X, y, weight = problem.class_rows()
    code = output_code(X, y, order, bits)
    words = np.zeros((len(problem.classes), code.shape[1]), bool)  # each class's word, by class index
    words[order] = code.astype(bool)
    keep = np.isin(y, order)
    fits = [hyperplane(logistic(C), X[keep], words[y[keep], j], weight[keep]) for j in range(code.shape[1])]
    W, b = np.column_stack([w for w, _ in fits]), np.array([b for _, b in fits])
    return W, b, code_layer(code, order, len(problem.classes))


def differences(W: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(W2, b2)``: the scores ``s_i = W[:, i].x + b[i]`` of ``m`` classes as the ``pairs(m)``
    pairwise comparisons, unit ``(i, j)`` (``i < j``, :func:`_units`' order) ``s_i - s_j``."""
    units = _units(W.shape[1])
    return (np.column_stack([W[:, i] - W[:, j] for i, j in units]), np.array([b[i] - b[j] for i, j in units]))


def _units(m: int) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, of ``m`` classes in the order of the units."""
    return [(i, j) for i in range(m) for j in range(i + 1, m)]


def votes(targets: list[int], classes: int) -> tuple[np.ndarray, np.ndarray]:
    """``(Wo, bo)``: the output layer of ``pairs(m)`` step units, unit ``(i, j)`` (``i < j``,
    :func:`_units`' order) ``h_ij = 1`` when class ``targets[i]`` beats ``targets[j]``, that
    counts each class's wins: class ``targets[i]``'s output is

        o_i = sum_{j > i} h_ij + sum_{j < i} (1 - h_ji) - (m - 1) / 2,

    its wins centred on 0.  ``Wo`` is ``pairs(m) x classes`` (``+1`` from ``h_ij`` to ``i``, ``-1``
    to ``j``) and ``bo`` holds each class's ``#{j < i} - (m - 1) / 2``; classes outside ``targets``
    get ``-(m - 1) / 2 - 1``, below every output of a target's.  The argmax is the class with
    the most wins; where the units' wins are transitive (they compare scores, ``h_ij = 1[s_i >= s_j]``,
    :func:`differences`) that is the class of the largest score, won by a whole vote."""
    m = len(targets)
    units = _units(m)
    Wo, bo = np.zeros((len(units), classes)), np.full(classes, -(m - 1) / 2 - 1.0)
    for u, (i, j) in enumerate(units):
        Wo[u, targets[i]], Wo[u, targets[j]] = 1.0, -1.0
    for i in range(m):
        bo[targets[i]] = i - (m - 1) / 2
    return Wo, bo
