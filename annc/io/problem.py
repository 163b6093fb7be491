"""The training problem: a spec plus its data, with identical input rows merged.

Samples with the same input ``x`` have the same activations in every layer, so the
MIP needs one set of activation variables per *distinct* input ``u``; the loss weights
row ``u`` by ``c[u, j]``, the number of training samples with input ``x_u`` and class
``j``.  The NLL surrogate ``sum_n sum_j y_nj (omega_n - h_njL)`` becomes
``sum_u sum_j c_uj (omega_u - h_ujL)``: the same function of the weights, so the same
optimum, with far fewer binaries (1000 XOR samples have at most 32 distinct inputs).

**Weights.**  With per-sample weights ``w_n`` (class weight x sample weight,
:mod:`annc.core.rowweights`) ``c[u, j]`` is the sum of the weights of those samples instead
of their number: every loss, floor and bound that reads ``counts`` then weighs each sample
exactly by its weight.  ``counts`` may then be fractional; :attr:`TrainingProblem.whole` says
whether they are whole numbers, the condition of every bound that rounds a number of errors up.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.errors import UsageError
from ..core.inputs import sample_arrays
from .spec import NetworkSpec


@dataclass
class TrainingProblem:
    spec: NetworkSpec
    X: np.ndarray  # U x d distinct inputs (all N samples when not merged)
    counts: np.ndarray  # U x J: samples of each class with this input (the sum of their weights, if weighted)
    sample_row: np.ndarray  # N: row u of every original sample
    y: np.ndarray  # N: class index of every original sample
    classes: list
    merged: bool = True
    # per-layer McCormick breakpoints (n_in x K x (P + 1)) chosen by adaptive refinement;
    # empty: the uniform partition of the spec's P (annc.formulations.relu.weight_pieces)
    partitions: dict = field(default_factory=dict)
    weights: np.ndarray | None = None  # N: each sample's weight (annc.core.rowweights); None: 1 each

    @property
    def num_rows(self) -> int:
        return self.X.shape[0]

    @property
    def num_samples(self) -> int:
        return len(self.y)

    @property
    def row_samples(self) -> np.ndarray:
        """The number of training samples with each distinct input (``U``, float): ``c[u, :].sum()``."""
        return self.counts.sum(axis=1).astype(float)

    @property
    def whole(self) -> bool:
        """Every ``c[u, j]`` is a whole number (always, without weights): every network's
        ``errors`` loss is then a whole number, and a lower bound on it may be rounded up."""
        return bool(np.all(self.counts == np.round(self.counts)))

    def sample_accuracy(self, scores: np.ndarray) -> float:
        """The share of the samples (not weighted) whose row's top score ``scores`` (U x J) is their class."""
        return float(np.mean(scores[self.sample_row].argmax(1) == self.y)) if len(self.y) else float("nan")

    @property
    def X_samples(self) -> np.ndarray:
        return self.X[self.sample_row]

    def class_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One row per (distinct input, class) present, with its number of samples as its
        weight: ``(X, y, weight)``.  A full-batch loss that is a sum over samples is the
        weighted sum over these rows (the same function, far fewer rows when inputs repeat)."""
        u, j = np.nonzero(self.counts)
        return self.X[u], j, self.counts[u, j]


def make_problem(spec: NetworkSpec, X, y, classes, merge: bool = True, weights=None) -> TrainingProblem:
    """Group the samples ``(X, y)`` by distinct input row (if ``merge``); ``weights`` (N, or
    None: 1 each) weigh each sample in ``counts`` (module docstring)."""
    X, y = _samples(X, y, len(classes))
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    if w.shape != (len(y),):
        raise UsageError(f"make_problem needs one weight per sample ({len(y)}), not shape {w.shape}")
    J = len(classes)
    if merge:
        U, inverse = np.unique(X, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
    else:
        U, inverse = X, np.arange(len(X))
    counts = np.zeros((len(U), J))
    np.add.at(counts, (inverse, y), w)
    return TrainingProblem(spec, U, counts, inverse, y, list(classes), merge,
                           weights=None if weights is None else w)


def _samples(X, y, classes: int) -> tuple[np.ndarray, np.ndarray]:
    """``X`` as an N x d array of finite floats and ``y`` as N class indices in
    ``0..classes-1``; anything else is a :class:`UsageError` (Python API callers)."""
    X, y = sample_arrays(X, y, "make_problem", UsageError)
    whole = np.issubdtype(y.dtype, np.integer) or (
        np.issubdtype(y.dtype, np.floating) and bool(np.all(y == np.round(y))))
    if y.size and (not whole or y.min() < 0 or y.max() >= classes):
        raise UsageError(f"make_problem needs y as class indices in 0..{classes - 1}")
    return X, y.astype(int)
