"""``solution file + map -> TrainedNetwork``: find the map, align the values, read tensors.

A solution is aligned to the map by column name (or, for index-only formats such as
GLPK's ``-w``, by position in the map's column order).  Names the map does not know,
or a column count that differs, mean the solution belongs to another model: refused
(:mod:`annc.io.solutions.align`, which the file-based solver drivers use too).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..core.errors import AnncError, SolutionError
from ..core.network import Layer, TrainedNetwork
from ..formulations import export_bias_shifts
from ..io.recipe import Recipe
from ..io.solutions import RawSolution
from ..io.mapfile import load_map
from ..io.varmap import column_names, columns_of, map_spec
from .verdict import Verdict, verdict_record

OBJECTIVE_TOL = 1e-6  # relative: solvers print the objective with at least 6 or 7 digits


def _matches(sol: RawSolution, vmap: dict, names: list[str]) -> bool:
    if sol.index_values or (sol.num_columns is not None and not sol.values):
        return sol.num_columns == len(names)
    if sol.num_columns is not None and sol.num_columns != len(names):
        return False
    pos = {n: i for i, n in enumerate(names)}
    return (bool(sol.values) and all(k in pos for k in sol.values)
            and all(pos[k] == i for k, i in sol.positions.items()))


def _resolved(folder) -> str:
    try:
        return str(Path(folder).resolve())
    except (OSError, RuntimeError):
        return str(folder)


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
    folders = {}  # each folder once, as first given ("out or ." rather than "out or out or .")
    for f in search:
        folders.setdefault(_resolved(f), str(f))
    where = " or ".join(folders.values())
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


SNAP_TOL = 1e-6  # relative to the grid's step: a solver's value this close to a grid value is it


def snap(values: np.ndarray, grid: list | None) -> np.ndarray:
    """``values`` with every entry within :data:`SNAP_TOL` of a grid step of a value of ``grid``
    replaced by that value (a solver's ``-4e-16`` for the grid's 0); others as they are
    (verification judges them)."""
    values = np.array(values, dtype=float)
    if not grid:
        return values
    g = np.asarray(grid, float)
    step = np.min(np.diff(g)) if len(g) > 1 else 1.0
    nearest = g[np.abs(values[..., None] - g).argmin(-1)]
    close = np.abs(values - nearest) <= SNAP_TOL * step
    return np.where(close, nearest, values)


def decode_network(vmap: dict, x: np.ndarray) -> TrainedNetwork:
    """The exported network: weights as solved (snapped to their grid values, if any),
    biases shifted as the recorded spec's eps says (:func:`annc.formulations.export_bias_shifts`), the
    recipe the map records (with its values, read off that spec), and the names of the training columns the
    map records."""
    spec = map_spec(vmap)
    layers = [Layer(L["activation"], snap(tensor(vmap, x, L["weight"]), L.get("weight_values")),
                    snap(tensor(vmap, x, L["bias"]), L.get("bias_values")) + shift)
              for L, shift in zip(vmap["layers"], export_bias_shifts(spec))]
    recipe = {"recipe": Recipe.from_record(vmap["recipe"], spec).to_dict()} if "recipe" in vmap else {}
    return TrainedNetwork(classes=list(vmap["classes"]), layers=layers,
                          meta={"spec": vmap["spec"]["source"], "model": vmap["model"].get("file"), **recipe},
                          columns=columns_of(vmap))


def decode_record(sol: RawSolution, sol_path: str | Path, verdict: Verdict, verification, spec_text: str) -> dict:
    """What the weights of a decoded solution record in their ``meta`` (as ``annc train``
    records each MIP, :func:`annc.solve.verdict.verdict_record`): the solution file, the verdict
    on the exported network, what the file claims, and the verification
    (``verification``: the :class:`~annc.solve.verify.Verification` of the point)."""
    v = verification
    step = {"name": Path(sol_path).name, **verdict_record(verdict),
            "solver": {"status": sol.status.value, "objective": sol.objective, "bound": None,
                       "describe": f"{sol.format} file: {sol.status.value} ({sol.status_text}), objective "
                                   f"{sol.objective if sol.objective is not None else '-'}"},
            "seconds": None, "verified": v.ok,
            "verification": {"samples": int(v.samples), "train_accuracy": float(v.train_accuracy),
                             "point_objective": float(v.point_objective),
                             "violations": {k: float(w["max"]) for k, w in v.violations.items()}},
            "trace": []}
    return {"decoded_from": str(sol_path), "spec_text": spec_text, "status": verdict.status.value, "steps": [step]}
