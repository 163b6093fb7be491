"""``spec + data -> model file + variable map``: the compile pipeline as pure steps.

Everything is validated (options, output folder, spec, data) and the whole model is
built in memory before the first byte is written.  The model file and the map (and
the data CSV the map names, when the data came as arrays) are written to temporary
files and then renamed back to back (:class:`annc.io.outputs.Staging`): they appear
together or not at all, and an error never leaves a half-written output.

:func:`check_compile_options` and :func:`check_name` are the one check of the
options, for the CLI and the Python API alike.

**MIP start.**  The compile pipeline (:mod:`annc.training.mip.compiling`, above this layer: it
resolves the recipe, builds, searches for a start and writes, in that order) hands the start
search's point to :func:`attach_start`, which checks it against every row and
bound (:meth:`annc.core.model.Model.check` at :data:`annc.core.feasibility.START_TOL`, the rule
for points annc hands to a solver) and writes it beside the model in every format of
:data:`annc.io.writers.startfiles.START_FILES`, in the same :class:`~annc.io.outputs.Staging`
as the model and the map: model, start files, then the map, so they appear together
or not at all.  The map records the start under ``start`` (:func:`start_record`): its
objective, the SHA-256 of the point (:func:`~annc.io.writers.startfiles.point_digest`),
and each file with its format and SHA-256; or, with no start, why there is none.  A
point that fails the check is not written (the map and the message say why).
"""
from __future__ import annotations

import hashlib
import json
import math
import numbers
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..core.errors import UsageError
from ..core.feasibility import START_TOL
from ..core.limits import check_size, data_size
from ..core.model import Model
from ..core.rowweights import weights_record
from ..core.scaling import SCALINGS, Scaling, fit_scaling
from ..formulations import formulate
from ..io.data import Dataset, array_digest
from ..io.datacheck import check_against_spec
from ..io.magnitudes import check_numbers
from ..io.outputs import Staging, prepare_out_dir, remove_files, write_to
from ..io.problem import TrainingProblem, make_problem
from ..io.recipe import Recipe, recipe_of
from ..io.spec import NetworkSpec, format_spec
from ..io.varmap import build_map, file_digest
from ..io.writers import FORMATS, MODEL_FORMATS, write_model
from ..io.writers.pulp import write_with_pulp
from ..io.writers.startfiles import START_FILES, point_digest, start_bytes, start_file_name

WRITERS = ("annc", "pulp")
MAX_NAME_BYTES = 180  # file names have 255: room for a temporary prefix and ".layer12.map.json"
MAX_START_BUDGET = 1e9  # seconds, as for a time limit (annc.solve.solvers.base.MAX_TIME_LIMIT)
NO_START = "no MIP start: not asked for (--no-start, start=False)"


@dataclass
class Compiled:
    spec: NetworkSpec
    data: Dataset
    problem: TrainingProblem
    model: Model
    varmap: dict
    model_path: Path | None = None
    map_path: Path | None = None
    start: np.ndarray | None = None  # the MIP start (checked feasible), in column order
    start_message: str | None = None  # what the start search found, or why there is no start
    start_seconds: float = 0.0  # how long the search took
    start_paths: list[Path] = field(default_factory=list)  # the start files written
    scaling: Scaling | None = None  # fitted on ``data`` (the spec's ``scale``); the problem is on scaled data
    recipe: Recipe | None = None  # the loss, penalty and eps in force, and where each came from (annc.io.recipe)

    @property
    def scaled_data(self) -> Dataset:
        """``data`` with its features scaled as the MIP sees them (:mod:`annc.core.scaling`): the
        problem's inputs, sample by sample."""
        return replace(self.data, X=self.problem.X_samples)


def layer_table(spec: NetworkSpec) -> list[dict]:
    """How to read each layer out of a solution: its tensors, activation and units.

    A layer on a grid (``weights [lo, hi] grid K``) also lists its grid values
    (``weight_values``, ``bias_values``): decoding snaps the solver's values to them, so the
    exported network is exactly quantised.  The bias shift of an exported hidden layer is
    not stored: it follows from the spec's eps (:func:`annc.formulations.export_bias_shifts`).
    """
    out = []
    for i, ls in enumerate(spec.layers):
        entry = {"activation": ls.activation, "weight": f"a{i}", "bias": f"b{i}", "units": ls.units}
        for key, grid in (("weight_values", ls.weight_values), ("bias_values", ls.bias_values)):
            if grid is not None:
                entry[key] = list(grid)
        out.append(entry)
    return out


@dataclass
class Prepared:
    """Data checked against a spec, scaled as the spec says, and merged into the rows of the
    training problem (:func:`prepare`)."""

    scaling: Scaling
    scaled: Dataset
    problem: TrainingProblem

    def for_spec(self, spec: NetworkSpec) -> "Prepared":
        """The same data for ``spec``, the prepared spec with another eps (:func:`resolve`
        chooses it): the numbers checked again, as they depend on eps, and the problem's
        spec replaced (nothing else of the problem depends on the spec)."""
        check_numbers(spec, self.scaled)
        return replace(self, problem=replace(self.problem, spec=spec))


def prepare(spec: NetworkSpec, data: Dataset, *, merge: bool = True, max_nonzeros: int | None = None) -> Prepared:
    """Validate ``data`` against ``spec``, refuse a model over ``max_nonzeros`` (counted in
    closed form, before anything model-sized is allocated; default
    :data:`annc.core.limits.MAX_NONZEROS`), scale the features as the spec's ``scale`` says
    (:func:`annc.core.scaling.fit_scaling` on ``data``), refuse numbers a solver could not use
    (:mod:`annc.io.magnitudes`) and form the training problem of the scaled data."""
    check_against_spec(spec, data)
    check_size(data_size(spec, data.X, merge=merge), max_nonzeros,
               f"the model of {spec.source} on {data.path}")
    scaling = fit_scaling(spec.scale, data.X, data.columns.onehot if data.columns is not None else None)
    scaled = replace(data, X=scaling.apply(data.X))
    check_numbers(spec, scaled)
    return Prepared(scaling, scaled, make_problem(spec, scaled.X, data.y, data.classes, merge=merge,
                                                 weights=data.weights))


def build(spec: NetworkSpec, data: Dataset, *, name: str = "annc", merge: bool = True,
          allow_small_m: bool = False, max_nonzeros: int | None = None,
          recipe: Recipe | None = None, prepared: Prepared | None = None) -> Compiled:
    """Validate ``data`` against ``spec`` and build the training MIP (no files).

    ``spec`` must be concrete: a spec of the default recipe that names no eps
    (``eps_auto``) has its eps chosen on the data first, once, at the entry point
    (:func:`annc.training.warmstart.margin.resolve`, which returns the concrete spec and its
    :class:`~annc.io.recipe.Recipe`); this function refuses such a spec with a
    :class:`~annc.core.errors.UsageError`.  ``recipe`` says which loss, penalty and eps are
    in force and where each came from (``Compiled.recipe`` and the map's ``recipe``);
    without one it is read off ``spec`` (:func:`annc.io.recipe.recipe_of`).

    The features are scaled as the spec's ``scale`` says and the model's size and numbers
    are checked first (:func:`prepare`; ``prepared``, the data :func:`resolve` prepared for
    this very ``spec``, is used as it is): the MIP, its big-M values and its number checks
    are those of the scaled data; the map records the scaling under ``scaling``.
    """
    if spec.eps_auto:
        raise UsageError(f"{spec.source}: the default recipe chooses eps on the training data, and it has not been "
                         "chosen yet: compile it with annc.compile(spec, data) or `annc compile`, which choose "
                         "it, or write an eps in the spec")
    recipe = recipe or recipe_of(spec)
    if prepared is None:
        prepared = prepare(spec, data, merge=merge, max_nonzeros=max_nonzeros)
    elif prepared.problem.spec is not spec:
        raise ValueError(f"{spec.source}: the data were prepared for another spec")
    scaling, problem = prepared.scaling, prepared.problem
    model = formulate(problem, name=name, allow_small_m=allow_small_m)
    options = {"merge": merge, "allow_small_m": allow_small_m, "label": data.label,
               **({"missing": data.missing} if data.missing != "error" else {})}  # how decode reads the data again
    varmap = build_map(
        model, spec_text=format_spec(spec), spec_source=spec.source, classes=data.classes,
        options=options, layers=layer_table(spec), model_file={}, scaling=scaling,
        data={"file": str(Path(data.path).resolve()), "sha256": data.sha256,
              "content_sha256": array_digest(data.X, data.y), "samples": len(data.y), "rows": problem.num_rows,
              "features": list(data.features) if data.columns is not None else None, "label": data.label,
              **({"categories": {c: list(k) for c, k in data.categories.items()}} if data.categories else {}),
              **({"imputed": dict(data.imputed)} if data.imputed else {})},
    )
    varmap["recipe"] = recipe.to_record()
    weights = weights_record(data.classes, data.class_weight, data.weights, data.y)
    if weights is not None:  # a map without the key: no weights (annc.core.rowweights)
        varmap["weights"] = weights
    return Compiled(spec, data, problem, model, varmap, scaling=scaling, recipe=recipe)


def check_name(name) -> str:
    """``name`` if it can name annc's files inside an output folder: a non-empty text
    without a path separator, ``..`` or a NUL; else :class:`~annc.core.errors.UsageError`."""
    if not isinstance(name, str):
        raise UsageError(f"name must be text, not {type(name).__name__} {name!r}")
    if name in ("", ".", "..") or any(c in name for c in "/\\\0"):
        raise UsageError(f"name {name!r} cannot name a file inside the output folder: "
                         "give a plain name (no '/', '\\', '..' or NUL)")
    if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        raise UsageError(f"name {name[:20]!r}... is too long for file names ({len(name)} characters; "
                         f"at most {MAX_NAME_BYTES} bytes)")
    return name


def _flag(value, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise UsageError(f"{what} must be True or False, not {value!r}")
    return bool(value)


def check_start_budget(value) -> float | None:
    """``--start-budget`` / ``start_budget``: seconds for the MIP start's search, a finite
    number > 0 and at most :data:`MAX_START_BUDGET` (None: the default budget)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise UsageError(f"the start budget (start_budget / --start-budget) must be a number of seconds, "
                         f"not {type(value).__name__} {value!r}")
    try:
        v = float(value)
    except (OverflowError, ValueError):  # an integer too large for a float
        v = math.inf
    if not 0 < v <= MAX_START_BUDGET:  # NaN fails too
        raise UsageError(f"start budget {v:g} is out of range: give seconds > 0 and at most "
                         f"{MAX_START_BUDGET:g} (--no-start for no start)")
    return v


def with_scale(spec: NetworkSpec, scale: str | None) -> NetworkSpec:
    """``spec`` with its ``scale`` setting replaced by ``scale`` (``--scale``, ``scale=``);
    ``spec`` itself for None.  :class:`~annc.core.errors.UsageError` for an unknown scaling."""
    return spec if check_scale(scale) is None else replace(spec, scale=scale)


def check_scale(scale: str | None) -> str | None:
    """``scale`` if it is None or a known scaling; else :class:`~annc.core.errors.UsageError`."""
    if scale is not None and (not isinstance(scale, str) or scale not in SCALINGS):
        raise UsageError(f"scale (--scale) must be one of {', '.join(SCALINGS)}, not {scale!r}")
    return scale


def check_compile_options(*, fmt="mps", gzip=False, writer="annc", label=None, merge=True,
                          allow_small_m=False, max_nonzeros=None, start=True, start_budget=None) -> None:
    """The model options of ``annc compile`` / ``annc.compile`` (and of ``annc.train``):
    :class:`~annc.core.errors.UsageError` for a value that is not one of the documented ones.
    ``start`` is whether a MIP start is asked for; ``start_budget`` needs it."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown model format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if writer not in WRITERS:
        raise UsageError(f"unknown writer {writer!r}: choose one of {', '.join(WRITERS)}")
    if writer == "pulp" and MODEL_FORMATS[fmt].pulp_method is None:
        raise UsageError(f"PuLP does not write the {fmt} format: use writer 'annc'")
    if label is not None and not isinstance(label, str):
        raise UsageError(f"label must be a column name (text), not {type(label).__name__} {label!r}")
    for value, what in ((gzip, "gzip"), (merge, "merge"), (allow_small_m, "allow_small_m"), (start, "start")):
        _flag(value, what)
    if check_start_budget(start_budget) is not None and not start:
        raise UsageError("a start budget (--start-budget, start_budget) with no MIP start (--no-start, "
                         "start=False): give one or the other")
    if max_nonzeros is not None and (isinstance(max_nonzeros, (bool, np.bool_))
                                     or not isinstance(max_nonzeros, (int, np.integer)) or max_nonzeros < 1):
        raise UsageError(f"max_nonzeros (--max-nonzeros) must be a whole number >= 1, not {max_nonzeros!r}")


def attach_start(c: Compiled, found) -> Compiled:
    """Keep the start search's point in ``c.start`` if it passes :func:`checked_start`;
    ``found`` is what the search returned, ``(point or None, seconds, message)``
    (:class:`annc.training.search.start.StartOutcome`), or None when no start was asked for.
    ``c.start_message`` says what was found, or why there is no start."""
    if found is None:
        c.start, c.start_message = None, NO_START
        return c
    x, seconds, message = found
    c.start_seconds = float(seconds)
    c.start, why = checked_start(c.model, x)
    c.start_message = message if why is None else f"no MIP start: {why}"
    return c


def checked_start(model: Model, x) -> tuple[np.ndarray | None, str | None]:
    """``(x, None)`` if ``x`` satisfies every row, bound and integrality of ``model`` (the
    one feasibility rule at :data:`~annc.core.feasibility.START_TOL`); else ``(None, why)``.
    ``x`` None gives ``(None, None)``."""
    if x is None:
        return None, None
    x = np.asarray(x, dtype=float)
    if x.shape != (model.num_cols,):
        return None, f"the start has {x.size} values for {model.num_cols} columns: not written"
    check = model.check(x, START_TOL)
    if not check.ok:
        return None, f"the start fails the feasibility check ({check.violations[0].describe()}): not written"
    return x, None


def start_record(objective: float | None, x: np.ndarray | None, files: list[dict], *, seconds: float,
                 note: str | None) -> dict:
    """The map's ``start`` field: the start's objective, the SHA-256 of the point and its
    files (``{"file", "format", "sha256"}``); with no start, ``objective`` null, no files
    and the ``reason``."""
    if x is None:
        return {"objective": None, "files": [], "reason": note or NO_START}
    return {"objective": objective, "sha256": point_digest(x), "search_seconds": round(seconds, 3),
            "files": files}


def write_artifacts(c: Compiled, out: Path, stem: str, *, fmt: str = "mps", gzip: bool = False,
                    writer: str = "annc", data_csv: bytes | None = None, start: np.ndarray | None = None,
                    start_note: str | None = None) -> list[Path]:
    """Write ``<out>/<stem>.<fmt>`` (the model) and ``<out>/<stem>.map.json`` (its map),
    together or not at all (see the module docstring); with ``data_csv``, also those
    bytes as the data file the map names (``c.data.path``), first; with a ``start``
    point that passes :func:`checked_start`, the start files ``<stem>.start.*`` between
    the model and the map.  With ``start`` or ``start_note`` (why there is no start) the
    map records the start (:func:`start_record`).  Start files ``<stem>.start.*`` left
    in ``out`` by an earlier model of this name, and not written now, are removed after
    the new files are in place: they are not this model's.  Returns the paths written:
    ``[data CSV,] model, [start files,] map``."""
    out = prepare_out_dir(out)
    model_path = out / f"{stem}.{fmt}{'.gz' if gzip else ''}"
    map_path = out / f"{stem}.map.json"
    x, why = checked_start(c.model, start)
    if why is not None:
        start_note = c.start_message = f"no MIP start: {why}"
    c.start = x if start is not None else c.start
    start_paths: list[Path] = []
    with Staging() as staged:
        if data_csv is not None:
            write_to(staged.temp_for(c.data.path), lambda fh: fh.write(data_csv))
        tmp = staged.temp_for(model_path)
        (write_with_pulp if writer == "pulp" else write_model)(c.model, tmp, fmt)
        c.varmap["model"].update({"file": model_path.name, "format": fmt, "sha256": file_digest(tmp),
                                  "writer": writer})
        files = []
        objective = None if x is None else c.model.objective(x)
        for f in START_FILES if x is not None else ():
            path = out / start_file_name(stem, f)
            data = start_bytes(f, c.model, x, objective)
            write_to(staged.temp_for(path), lambda fh, data=data: fh.write(data))
            files.append({"file": path.name, "format": f.format, "sha256": hashlib.sha256(data).hexdigest()})
            start_paths.append(path)
        if x is not None or start_note is not None:
            c.varmap["start"] = start_record(objective, x, files, seconds=c.start_seconds, note=start_note)
        text = json.dumps(c.varmap, indent=1).encode()
        write_to(staged.temp_for(map_path), lambda fh: fh.write(text))
        written = staged.commit()
    # start files of an earlier model of this name are not this model's: remove them
    remove_files(p for p in (out / start_file_name(stem, f) for f in START_FILES) if p not in start_paths)
    c.model_path, c.map_path, c.start_paths = model_path, map_path, start_paths
    return written
