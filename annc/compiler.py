"""``spec + data -> model file + variable map``: the compile pipeline as pure steps.

Everything is validated and the whole model is built in memory before the first byte
is written; the model file and the map are each written atomically (temp + rename),
the map last, so an error never leaves a half-written output.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .data import Dataset, check_against_spec, load_data
from .formulations import formulate
from .model import Model
from .problem import TrainingProblem, make_problem
from .spec import NetworkSpec, format_spec, load_spec
from .varmap import build_map, file_digest, save_json
from .writers import write_model
from .writers.pulp import write_with_pulp

FORMATS = ("mps", "lp")


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

    Binary units of the MIP fire iff ``pre >= eps`` and are off iff ``pre <= 0``;
    exporting the bias ``b - eps/2`` makes the standard step ``1[pre >= 0]`` agree.
    """
    out = []
    for i, ls in enumerate(spec.layers):
        shift = -spec.eps / 2 if ls.activation == "binary" else 0.0
        out.append({"activation": ls.activation, "weight": f"a{i}", "bias": f"b{i}",
                    "units": ls.units, "bias_shift": shift})
    return out


def build(spec: NetworkSpec, data: Dataset, *, name: str = "annc", merge: bool = True,
          allow_small_m: bool = False) -> Compiled:
    """Validate ``data`` against ``spec`` and build the training MIP (no files)."""
    check_against_spec(spec, data)
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


def compile_files(spec_path, data_path, *, out_dir="out", fmt: str = "mps", label: str | None = None,
                  merge: bool = True, allow_small_m: bool = False, gzip: bool = False,
                  writer: str = "annc") -> Compiled:
    """``annc compile``: write ``<out>/<stem>.mps`` (or ``.lp``) and ``<out>/<stem>.map.json``."""
    spec = load_spec(spec_path)
    data = load_data(data_path, label=label)
    stem = Path(spec_path).stem
    c = build(spec, data, name=stem, merge=merge, allow_small_m=allow_small_m)
    write_artifacts(c, Path(out_dir), stem, fmt=fmt, gzip=gzip, writer=writer)
    return c


def write_artifacts(c: Compiled, out: Path, stem: str, *, fmt: str = "mps", gzip: bool = False,
                    writer: str = "annc") -> tuple[Path, Path]:
    """Write ``<out>/<stem>.<fmt>`` (the model) then ``<out>/<stem>.map.json`` (its map)."""
    out.mkdir(parents=True, exist_ok=True)
    model_path = out / f"{stem}.{fmt}{'.gz' if gzip else ''}"
    if writer == "pulp":
        write_with_pulp(c.model, model_path, fmt)
    else:
        write_model(c.model, model_path, fmt)
    c.varmap["model"].update({"file": model_path.name, "format": fmt, "sha256": file_digest(model_path),
                              "writer": writer})
    map_path = out / f"{stem}.map.json"
    save_json(c.varmap, map_path)
    c.model_path, c.map_path = model_path, map_path
    return model_path, map_path
