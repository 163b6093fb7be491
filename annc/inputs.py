"""Reading the user's input files and arrays: one place for what can go wrong.

Every reader (specs, CSV data, weights files) and every array entry point (the Python
API, :func:`annc.problem.make_problem`) goes through these checks, so a missing file, a
folder, an unreadable file or a non-numeric array gets the same kind of message from each,
as the caller's own error type (``SpecError``, ``DataError``, ``WeightsError``, ...).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .errors import AnncError


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


def sample_arrays(X, y, name: str, error: type[AnncError]) -> tuple[np.ndarray, np.ndarray]:
    """``X`` as an N x d array of finite floats (N, d >= 1) and ``y`` as a 1-D array of N
    labels; ``error`` naming ``name`` and what is wrong otherwise."""
    try:
        X = np.asarray(X)
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
    if not np.all(np.isfinite(X)):
        raise error(f"{name}: X has values that are not finite numbers")
    return X, y
