"""Stratified splits of the training data: the fit and validation parts of ``--select``
(:func:`validation_split`), and the held-out rows of batch training (:func:`split_rows`).

For each class with ``n`` rows, a permutation seeded by ``seed`` (one generator for all
the classes, in class order) sends ``round(fraction * n)`` rows to validation, at least 1
and at most ``n - 1``, so that every class is both fitted and validated.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import replace
from typing import Sequence

import numpy as np

from ...core.errors import DataError, UsageError
from ...io.data import Dataset, array_digest

__all__ = ["DEFAULT_FRACTION", "split_rows", "validation_split"]

DEFAULT_FRACTION = 0.25


# -- the split ----------------------------------------------------------------------
def _check_fraction(fraction) -> float:
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) \
            or not (math.isfinite(fraction) and 0 < fraction < 1):
        raise UsageError(f"the validation fraction must be a number between 0 and 1 (exclusive), "
                         f"not {fraction!r}")
    return float(fraction)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise UsageError(f"the selection seed must be a whole number >= 0, not {seed!r}")
    return int(seed)


def _subset(data: Dataset, rows: np.ndarray, part: str) -> Dataset:
    """The rows ``rows`` of ``data`` as an in-memory Dataset named ``<path>[part]`` (as
    :func:`annc.training.mip.chain.layer_data` makes one: :func:`annc.io.data.array_digest`)."""
    X = np.ascontiguousarray(data.X[rows], dtype=float)
    y = np.ascontiguousarray(data.y[rows])
    return replace(data, X=X, y=y, classes=list(data.classes), features=list(data.features),
                   path=f"{data.path}[{part}]", sha256=array_digest(X, y),
                   lines=None if data.lines is None else np.asarray(data.lines)[rows],
                   weights=None if data.weights is None else np.asarray(data.weights)[rows])


def split_rows(y: np.ndarray, classes: Sequence, fraction: float = DEFAULT_FRACTION, seed: int = 0,
               name: str = "the data") -> tuple[np.ndarray, np.ndarray]:
    """The row indices ``(fit, validation)`` of a stratified split of the labels ``y``
    (class indices into ``classes``), each sorted; see :func:`validation_split`."""
    fraction, seed = _check_fraction(fraction), _check_seed(seed)
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    fit, val = [], []
    for c in range(len(classes)):
        rows = np.flatnonzero(y == c)
        n = len(rows)
        if n == 0:  # a class the data does not have: nothing to stratify
            continue
        if n < 2:
            raise DataError(f"{name}: class {classes[c]} has only {n} row; a validation split needs at "
                            "least 2 rows of every class (one to fit, one to validate)")
        k = min(max(round(fraction * n), 1), n - 1)
        rows = rng.permutation(rows)
        val.append(rows[:k])
        fit.append(rows[k:])
    if not fit:
        raise DataError(f"{name}: no rows to split")
    return np.sort(np.concatenate(fit)), np.sort(np.concatenate(val))


def validation_split(data: Dataset, fraction: float = DEFAULT_FRACTION, seed: int = 0) -> tuple[Dataset, Dataset]:
    """Split the training data into ``(fit, val)`` Datasets, stratified by class.

    For each class with ``n`` rows, a permutation seeded by ``seed`` (one generator for
    all the classes, in class order) sends ``round(fraction * n)`` rows to validation,
    at least 1 and at most ``n - 1``, so that every class is both fitted and
    validated.  Both parts keep the rows in their original order and the data's
    ``classes``, ``features`` and ``label``; their ``path`` is ``<path>[fit]`` /
    ``<path>[validation]`` and their ``sha256`` is that of the X bytes and the y bytes.

    Raises :class:`~annc.core.errors.DataError` when a class has a single row (it cannot be
    in both parts), :class:`~annc.core.errors.UsageError` for a fraction outside (0, 1) or
    a seed that is not a whole number >= 0.
    """
    if not isinstance(data, Dataset):
        raise UsageError(f"validation_split takes a Dataset, not {type(data).__name__}")
    fit, val = split_rows(data.y, data.classes, fraction, seed, name=data.path)
    return _subset(data, fit, "fit"), _subset(data, val, "validation")
