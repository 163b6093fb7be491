"""``spec + data -> model file + variable map``: the compile pipeline as pure steps.

Everything is validated (options, output folder, spec, data) and the whole model is
built in memory before the first byte is written.  The model file and the map (and
the data CSV the map names, when the data came as arrays) are written to temporary
files and then renamed back to back (:class:`annc.outputs.Staging`): they appear
together or not at all, and an error never leaves a half-written output.

:func:`check_compile_options` and :func:`check_name` are the one check of the
options, for the CLI and the Python API alike.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .data import Dataset, check_against_spec, load_data
from .errors import UsageError
from .formulations import ACTIVATIONS, formulate
from .limits import check_size, data_size
from .magnitudes import check_numbers
from .model import Model
from .outputs import Staging, check_out_dir, prepare_out_dir, write_to
from .problem import TrainingProblem, make_problem
from .spec import NetworkSpec, format_spec, load_spec
from .varmap import build_map, file_digest
from .writers import write_model
from .writers.pulp import write_with_pulp

FORMATS = ("mps", "lp")
WRITERS = ("annc", "pulp")
MAX_NAME_BYTES = 180  # file names have 255: room for a temporary prefix and ".layer12.map.json"


@dataclass
class Compiled:
    spec: NetworkSpec
    data: Dataset
    problem: TrainingProblem
    model: Model
    varmap: dict
    model_path: Path | None = None
    map_path: Path | None = None


def layer_table(spec: NetworkSpec) -> list[dict]:
    """How to read each layer out of a solution: tensors, activation and bias shift.

    The shift is the activation module's ``export_bias_shift`` (binary and sign units of
    the MIP fire iff ``pre >= eps`` and are off iff ``pre <= 0``; exporting the bias
    ``b - eps/2`` makes the standard step agree); the linear output layer has none.
    """
    out = []
    for i, ls in enumerate(spec.layers):
        shift = ACTIVATIONS[ls.activation].export_bias_shift(spec.eps) if i < len(spec.hidden) else 0.0
        out.append({"activation": ls.activation, "weight": f"a{i}", "bias": f"b{i}",
                    "units": ls.units, "bias_shift": shift})
    return out


def build(spec: NetworkSpec, data: Dataset, *, name: str = "annc", merge: bool = True,
          allow_small_m: bool = False, max_nonzeros: int | None = None) -> Compiled:
    """Validate ``data`` against ``spec`` and build the training MIP (no files).

    Before anything model-sized is allocated, the model's size is counted in closed form
    and refused over ``max_nonzeros`` (default :data:`annc.limits.MAX_NONZEROS`), and its
    numbers are bounded and refused if a solver could not use them
    (:mod:`annc.magnitudes`).
    """
    check_against_spec(spec, data)
    check_size(data_size(spec, data.X, merge=merge), max_nonzeros,
               f"the model of {spec.source} on {data.path}")
    check_numbers(spec, data)
    problem = make_problem(spec, data.X, data.y, data.classes, merge=merge)
    model = formulate(problem, name=name, allow_small_m=allow_small_m)
    options = {"merge": merge, "allow_small_m": allow_small_m, "label": data.label}
    varmap = build_map(
        model, spec_text=format_spec(spec), spec_source=spec.source, classes=data.classes,
        eps=spec.eps, options=options, layers=layer_table(spec), model_file={},
        data={"file": str(Path(data.path).resolve()), "sha256": data.sha256, "samples": len(data.y),
              "rows": problem.num_rows, "features": list(data.features), "label": data.label},
    )
    return Compiled(spec, data, problem, model, varmap)


def check_name(name) -> str:
    """``name`` if it can name annc's files inside an output folder: a non-empty text
    without a path separator, ``..`` or a NUL; else :class:`~annc.errors.UsageError`."""
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


def check_compile_options(*, fmt="mps", gzip=False, writer="annc", label=None, merge=True,
                          allow_small_m=False, max_nonzeros=None) -> None:
    """The model options of ``annc compile`` / ``annc.compile`` (and of ``annc.train``):
    :class:`~annc.errors.UsageError` for a value that is not one of the documented ones."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown model format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if writer not in WRITERS:
        raise UsageError(f"unknown writer {writer!r}: choose one of {', '.join(WRITERS)}")
    if label is not None and not isinstance(label, str):
        raise UsageError(f"label must be a column name (text), not {type(label).__name__} {label!r}")
    for value, what in ((gzip, "gzip"), (merge, "merge"), (allow_small_m, "allow_small_m")):
        _flag(value, what)
    if max_nonzeros is not None and (isinstance(max_nonzeros, (bool, np.bool_))
                                     or not isinstance(max_nonzeros, (int, np.integer)) or max_nonzeros < 1):
        raise UsageError(f"max_nonzeros (--max-nonzeros) must be a whole number >= 1, not {max_nonzeros!r}")


def compile_files(spec_path, data_path, *, out_dir="out", fmt: str = "mps", label: str | None = None,
                  merge: bool = True, allow_small_m: bool = False, gzip: bool = False,
                  writer: str = "annc", max_nonzeros: int | None = None) -> Compiled:
    """``annc compile``: write ``<out>/<stem>.mps`` (or ``.lp``) and ``<out>/<stem>.map.json``."""
    check_compile_options(fmt=fmt, gzip=gzip, writer=writer, label=label, merge=merge,
                          allow_small_m=allow_small_m, max_nonzeros=max_nonzeros)
    stem = check_name(Path(spec_path).stem)
    out = check_out_dir(out_dir)
    spec = load_spec(spec_path)
    data = load_data(data_path, label=label)
    c = build(spec, data, name=stem, merge=merge, allow_small_m=allow_small_m, max_nonzeros=max_nonzeros)
    write_artifacts(c, out, stem, fmt=fmt, gzip=gzip, writer=writer)
    return c


def write_artifacts(c: Compiled, out: Path, stem: str, *, fmt: str = "mps", gzip: bool = False,
                    writer: str = "annc", data_csv: bytes | None = None) -> list[Path]:
    """Write ``<out>/<stem>.<fmt>`` (the model) and ``<out>/<stem>.map.json`` (its map),
    together or not at all (see the module docstring); with ``data_csv``, also those
    bytes as the data file the map names (``c.data.path``), first.  Returns the paths
    written: ``[data CSV,] model, map``."""
    out = prepare_out_dir(out)
    model_path = out / f"{stem}.{fmt}{'.gz' if gzip else ''}"
    map_path = out / f"{stem}.map.json"
    with Staging() as staged:
        if data_csv is not None:
            write_to(staged.temp_for(c.data.path), lambda fh: fh.write(data_csv))
        tmp = staged.temp_for(model_path)
        (write_with_pulp if writer == "pulp" else write_model)(c.model, tmp, fmt)
        c.varmap["model"].update({"file": model_path.name, "format": fmt, "sha256": file_digest(tmp),
                                  "writer": writer})
        text = json.dumps(c.varmap, indent=1).encode()
        write_to(staged.temp_for(map_path), lambda fh: fh.write(text))
        written = staged.commit()
    c.model_path, c.map_path = model_path, map_path
    return written
