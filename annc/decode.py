"""``solution file + map -> TrainedNetwork``: find the map, align the values, read tensors.

A solution is aligned to the map by column name (or, for index-only formats such as
GLPK's ``-w``, by position in the map's column order).  Names the map does not know,
or a column count that differs, mean the solution belongs to another model: refused.
"""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

from .errors import AnncError, SolutionError, VerificationError
from .network import Layer, TrainedNetwork
from .solutions import RawSolution
from .varmap import column_names, load_map

OBJECTIVE_TOL = 1e-6  # relative: solvers print the objective with at least 6 or 7 digits


def _matches(sol: RawSolution, vmap: dict, names: list[str]) -> bool:
    if sol.index_values or (sol.num_columns is not None and not sol.values):
        return sol.num_columns == len(names)
    if sol.num_columns is not None and sol.num_columns != len(names):
        return False
    pos = {n: i for i, n in enumerate(names)}
    return (bool(sol.values) and all(k in pos for k in sol.values)
            and all(pos[k] == i for k, i in sol.positions.items()))


def find_map(sol: RawSolution, sol_path: str | Path, search: list[str | Path]) -> tuple[dict, Path]:
    """The one map in ``search`` folders whose columns match ``sol``; errors otherwise.

    A map that does not load (corrupt, edited, another schema) is skipped: it is only
    mentioned when no map matches, as a possible reason.
    """
    seen, found, skipped = set(), [], []
    for folder in search:
        try:
            paths = sorted(Path(folder).glob("*.map.json"))
        except OSError:  # not a folder, or not readable: nothing to find there
            continue
        for p in paths:
            if p.resolve() in seen:
                continue
            seen.add(p.resolve())
            try:
                vmap = load_map(p)
            except AnncError as e:
                skipped.append(str(e))
                continue
            if _matches(sol, vmap, column_names(vmap)):
                found.append((vmap, p))
    where = " or ".join(str(f) for f in search)
    if not found:
        why = "".join(f"\n  skipped {reason.splitlines()[0]}" for reason in skipped[:5])
        if len(skipped) > 5:
            why += f"\n  (and {len(skipped) - 5} more maps that do not load)"
        raise SolutionError(f"{sol_path}: no variable map in {where} matches this solution's columns; "
                            "pass --map MAP" + why)
    if len(found) > 1:
        raise SolutionError(f"{sol_path}: {len(found)} maps match this solution ("
                            + ", ".join(str(p) for _, p in found) + "); pass --map MAP")
    return found[0]


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


def check_same_model(sol: RawSolution, point_objective: float, sol_path: str | Path = "solution") -> None:
    """For a point that failed verification: refuse it as a solution of another model
    when the file names no column positions, omits zeros (so neither its names nor its
    column count tell) and states an objective that this model does not give at the point.

    A solution of this model (even a fractional one, stopped at a limit) has the
    objective it states; one of another model generally does not.
    """
    stated = sol.objective
    if (not sol.omits_zeros or sol.positions or stated is None
            or not (math.isfinite(stated) and math.isfinite(point_objective))):
        return
    if abs(stated - point_objective) > OBJECTIVE_TOL * max(1.0, abs(stated), abs(point_objective)):
        raise SolutionError(f"{sol_path}: the file states objective {stated:.9g} but this map's model has "
                            f"objective {point_objective:.9g} at the point it gives: the solution is from "
                            "another model (or the file is incomplete)")


def tensor(vmap: dict, x: np.ndarray, name: str) -> np.ndarray:
    """The values of the map's tensor ``name`` in the solution vector ``x``, shaped."""
    t = next(t for t in vmap["tensors"] if t["name"] == name)  # load_map checked it is there
    size = math.prod(t["shape"])
    return x[t["start"]:t["start"] + size].reshape(t["shape"])


def decode_network(vmap: dict, x: np.ndarray) -> TrainedNetwork:
    """The exported network: weights as solved, biases shifted per the map's layer table."""
    layers = [Layer(L["activation"], tensor(vmap, x, L["weight"]).copy(),
                    tensor(vmap, x, L["bias"]) + L["bias_shift"]) for L in vmap["layers"]]
    return TrainedNetwork(classes=list(vmap["classes"]), layers=layers,
                          meta={"spec": vmap["spec"]["source"], "model": vmap["model"].get("file")})
