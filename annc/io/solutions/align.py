"""A solution's values as a vector in a model's column order: the alignment that
``annc decode`` and the file-based solver drivers share.

A solution is aligned by column name (or, for index-only formats such as GLPK's
``-w``, by position).  Names the model does not know, or a column count that differs,
mean the solution belongs to another model: :class:`~annc.core.errors.SolutionError`.
A NaN or infinite value is no solution: :class:`~annc.core.errors.VerificationError`.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from ...core.errors import SolutionError, VerificationError
from .common import RawSolution


def solution_vector(sol: RawSolution, names: list[str], sol_path: str | Path = "solution") -> np.ndarray:
    """Values of the columns ``names`` in order (0 where a zero-omitting format left one out).

    Vectorised: the usual file lists every column in the model's order, which one list
    comparison recognises; otherwise one dict lookup per value.  A million columns take
    well under a second.
    """
    n = len(names)
    if sol.num_columns is not None and sol.num_columns != n:
        raise SolutionError(f"{sol_path}: the solution has {sol.num_columns} columns but the model of "
                            f"this map has {n}: it is from another model")
    _check_indices(sol.index_values.keys(), n, sol_path)
    _check_indices(sol.positions.values(), n, sol_path)
    x = np.zeros(n)
    if sol.index_values:
        idx = np.fromiter(sol.index_values.keys(), dtype=np.int64, count=len(sol.index_values))
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise SolutionError(f"{sol_path}: column index {int(idx.max()) + 1} is beyond the {n} columns "
                                "of this map's model: it is from another model")
        x[idx] = np.fromiter(sol.index_values.values(), dtype=float, count=idx.size)
        return x
    keys = list(sol.values)
    vals = np.fromiter(sol.values.values(), dtype=float, count=len(keys))
    pos = None
    if keys == names:  # every column, in the model's order
        idx = np.arange(n)
    else:
        pos = dict(zip(names, range(n)))
        idx = np.array(list(map(pos.get, keys, itertools.repeat(-1))), dtype=np.int64)
        if idx.size and idx.min() < 0:
            unknown = [keys[i] for i in np.flatnonzero(idx < 0)]
            raise SolutionError(f"{sol_path}: {len(unknown)} column(s) of the solution are not in the map, "
                                f"e.g. {', '.join(unknown[:3])}: the solution is from another model")
    if not sol.omits_zeros and keys and len(keys) < n:
        seen = np.zeros(n, dtype=bool)
        seen[idx] = True
        missing = [names[i] for i in np.flatnonzero(~seen)]
        raise SolutionError(f"{sol_path}: the solution lacks {len(missing)} of the map's {n} columns, "
                            f"e.g. {', '.join(missing[:3])}: it is from another model")
    if sol.positions:
        pkeys = list(sol.positions)
        given = np.fromiter(sol.positions.values(), dtype=np.int64, count=len(pkeys))
        if pkeys == names:
            where = np.arange(n)
        else:
            pos = pos if pos is not None else dict(zip(names, range(n)))
            where = np.array(list(map(pos.__getitem__, pkeys)), dtype=np.int64)
        moved = np.flatnonzero(given != where)
        if moved.size:
            k = pkeys[moved[0]]
            raise SolutionError(f"{sol_path}: column {k} is column {given[moved[0]] + 1} of the solved model "
                                f"but column {where[moved[0]] + 1} of this map's model ({moved.size} columns "
                                "differ): the solution is from another model")
    x[idx] = vals
    return x


def _check_indices(indices, n: int, sol_path) -> None:
    """Column indices the file states (0-based) must lie in ``[0, n)``; one far outside,
    even past what an int64 holds, means another model."""
    bad = next((i for i in indices if not 0 <= i < n), None)
    if bad is not None:
        raise SolutionError(f"{sol_path}: column index {str(bad + 1)[:20]} is outside the {n} columns "
                            "of this map's model: the solution is from another model")


def check_finite(x: np.ndarray, names: list[str], sol_path: str | Path = "solution") -> None:
    """Refuse a point with a NaN or infinite value (no comparison would catch it):
    :class:`VerificationError` naming the first such column."""
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        more = f" ({bad.size} non-finite values in all)" if bad.size > 1 else ""
        raise VerificationError(f"{sol_path}: column {names[bad[0]]} has the value {x[bad[0]]}{more}: "
                                "not a solution; no weights written")
