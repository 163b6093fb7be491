"""Reading the user's input files and arrays: one place for what can go wrong.

Every reader (specs, CSV data, weights files) and every array entry point (the Python
API, :func:`annc.io.problem.make_problem`) goes through these checks, so a missing file, a
folder, an unreadable file or a non-numeric array gets the same kind of message from each,
as the caller's own error type (``SpecError``, ``DataError``, ``WeightsError``, ...).

A trained network's inputs (:func:`input_matrix`) are found by name
(:func:`annc.core.columns.match_columns`) and, with text columns, encoded
(:mod:`annc.core.encoding`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .columns import Columns, frame_columns, listed, match_columns
from .encoding import encode_table
from .errors import AnncError, DataError, UsageError
from .missing import missing_mask, settle


def read_bytes(path: str | Path, what: str, error: type[AnncError] = AnncError) -> bytes:
    """The bytes of ``path``; ``error("<path>: <what> not found")`` and the like otherwise."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: {what} not found") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a {what}") from None
    except OSError as err:
        raise error(f"{path}: cannot read {what} ({err.strerror or err})") from None


def sample_arrays(X, y, name: str, error: type[AnncError], allow_nan: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``X`` as an N x d array of finite floats (N, d >= 1) and ``y`` as a 1-D array of N
    labels; ``error`` naming ``name`` and what is wrong otherwise.  ``allow_nan``: NaN (a
    missing cell, :mod:`annc.core.missing`) is let through for the caller's rule."""
    try:
        X = np.asarray(X) if not allow_nan else as_floats(X)  # missing cells (None, pandas' NA) as NaN
        if np.iscomplexobj(X):
            raise TypeError("complex numbers")
        X = X.astype(float)
    except (TypeError, ValueError, OverflowError) as e:
        raise error(f"{name}: X must be a 2-D array of numbers ({e})") from None
    try:
        y = np.asarray(y)
    except (TypeError, ValueError) as e:
        raise error(f"{name}: y must be a 1-D array of labels ({e})") from None
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
        raise error(f"{name}: X must be 2-D and y 1-D with one label per row of X "
                    f"(got shapes {X.shape} and {y.shape})")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise error(f"{name}: X has no {'samples' if X.shape[0] == 0 else 'feature columns'} "
                    f"(shape {X.shape})")
    if not np.all(np.isfinite(X) | (np.isnan(X) if allow_nan else False)):
        raise error(f"{name}: X has values that are not finite numbers")
    return X, y



# -- a network's inputs and their names -----------------------------------------------------------
def input_matrix(X, width: int, columns: Columns | None, unknown: str | None = None) -> np.ndarray:
    """``X`` as a float matrix of finite rows as wide as the input layer (``width``): a
    data frame's columns found by name when the network records ``columns``
    (:func:`annc.core.columns.match_columns`), an array's as they are.  A
    :class:`~annc.core.errors.UsageError` (wrong shape or type) or
    :class:`~annc.core.errors.DataError` (NaN or inf, a missing or extra column) otherwise.
    ``unknown``: the rule for a category of a text column not seen in training
    (:data:`annc.core.categories.UNKNOWN_RULES`; None: ``ignore``, all zeros with a warning)."""
    order = match_columns(frame_columns(X), columns, width, "X")
    if columns is not None and columns.categories:
        return _encoded_input(X, order, width, columns, unknown)
    try:
        a = as_floats(X)
    except (TypeError, ValueError) as e:
        raise UsageError(f"X must be a matrix of numbers (samples x {width} features): {e}") from None
    if order is not None:
        a = a[:, order]
    if a.ndim != 2 or a.shape[1] != width:
        raise UsageError(f"X must be a matrix of shape (samples, {width}); got shape {a.shape}")
    a = _filled(a, columns)
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        r, c = bad[0]
        raise DataError(f"X row {r}, column {c}: {a[r, c]} is not a finite number")
    return a


def as_floats(X) -> np.ndarray:
    """``X`` as floats, its missing cells (None, pandas' NA: :func:`annc.core.missing.is_missing`)
    NaN; ``TypeError`` or ``ValueError`` for cells that are not numbers."""
    try:
        return np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        cells = np.asarray(X, dtype=object)
        mask = missing_mask(cells) if cells.ndim == 2 else None
        if mask is None or not mask.any():
            raise
        return np.where(mask, np.nan, cells).astype(float)


def _filled(a: np.ndarray, columns: Columns | None) -> np.ndarray:
    """The float inputs ``a`` of a network that records ``columns`` with their NaN (missing
    cells) filled as it records (:func:`annc.core.missing.settle`: a
    :class:`~annc.core.errors.MissingValuesError` for a column without a fill)."""
    if not np.isnan(a).any():
        return a
    names = list(columns.features) if columns is not None else [f"x{j + 1}" for j in range(a.shape[1])]
    fills = dict(columns.imputed) if columns is not None else {}
    return settle(a, names, [None] * len(names), rule=None, fills=fills, source="X").cells


def _encoded_input(X, order, width: int, columns: Columns, unknown: str | None) -> np.ndarray:
    """:func:`input_matrix` for a network with text columns: a data frame's columns (by
    name, ``order``) or raw rows as wide as the table (one cell per column, by position)
    encoded (:func:`encode_cells`); an array of numbers as wide as the input layer is
    taken as already encoded."""
    sources = columns.sources
    if order is not None:
        return encode_table(np.asarray(X, dtype=object)[:, order], columns, "X", unknown=unknown).X
    a = np.asarray(X) if not isinstance(X, list) else np.asarray(X, dtype=object)
    if a.ndim == 2 and a.dtype.kind in "biuf" and a.shape[1] == width:  # numbers only: no category text
        return input_matrix(_filled(a.astype(float), columns), width, None)
    if a.ndim != 2 or a.shape[1] != len(sources):
        raise UsageError(f"X must be raw rows of {len(sources)} cells ({listed(columns.raw)}; text columns as "
                         f"text), a data frame with these columns, or {width} already encoded numbers per row; "
                         f"got shape {a.shape}")
    return encode_table(a.astype(object), columns, "X", unknown=unknown).X
