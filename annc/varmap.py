"""The variable map: the contract between a compiled model file and ``annc decode``.

Like MiniZinc's ``.ozn``, the map alone turns a solver's solution back into weight
matrices.  It records a schema version; fingerprints of the model file, of its column
names and of the training data; the spec (canonical text); the class labels; the
objective sense and constant; and for every tensor its role, layer, shape and first
column.  Column names follow :mod:`annc.names`, so the map regenerates every name in
column order without storing them.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from . import __version__
from .errors import SolutionError
from .model import Block, Model, name_table, table_strings

SCHEMA = "annc-map/1"


def names_digest(names: list[str]) -> str:
    return hashlib.sha256("\n".join(names).encode()).hexdigest()


def file_digest(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_map(model: Model, *, spec_text: str, spec_source: str, classes: list, eps: float,
              data: dict, model_file: dict, options: dict, layers: list[dict]) -> dict:
    """Assemble the map of ``model`` (plain JSON-able dict)."""
    return {
        "schema": SCHEMA,
        "annc_version": __version__,
        "model": {**model_file, "name": model.name, "columns": model.num_cols, "rows": model.num_rows,
                  "columns_sha256": names_digest(model.col_names())},
        "data": data,
        "spec": {"source": spec_source, "text": spec_text},
        "classes": list(classes),
        "eps": eps,
        "objective": {"sense": "min", "constant": model.obj_const},
        "options": options,
        "layers": layers,
        "tensors": [{"name": b.name, "role": b.role, "layer": b.layer, "shape": list(b.shape),
                     "start": b.start} for b in model.var_blocks],
        "stats": model.stats(),
        "warnings": list(model.warnings),
    }


def column_names(vmap: dict) -> list[str]:
    """Every column name in the model file's order, regenerated from the tensors."""
    blocks = [Block(t["name"], t.get("role", ""), t.get("layer"), tuple(t["shape"]), t["start"])
              for t in vmap["tensors"]]
    return table_strings(name_table(blocks))


def load_map(path: str | Path) -> dict:
    path = Path(path)
    try:
        vmap = json.loads(path.read_text())
    except FileNotFoundError:
        raise SolutionError(f"{path}: variable map not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SolutionError(f"{path}: not a readable annc variable map ({e})") from None
    if not isinstance(vmap, dict) or vmap.get("schema") != SCHEMA:
        raise SolutionError(f"{path}: not an annc variable map of schema {SCHEMA} "
                            f"(found {vmap.get('schema') if isinstance(vmap, dict) else type(vmap).__name__})")
    return vmap


def save_json(obj: dict, path: Path) -> None:
    """Write JSON atomically (temp file + rename)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1))
    tmp.replace(path)
