"""The variable map: the contract between a compiled model file and ``annc decode``.

Like MiniZinc's ``.ozn``, the map alone turns a solver's solution back into weight
matrices.  It records a schema version; fingerprints of the model file, of its column
names and of the training data (``data.sha256``, of the file's bytes, and
``data.content_sha256``, of its table read in the order of its feature columns:
:func:`annc.io.data.array_digest`); the names of the training data's feature and label
columns (``data.features``, null for data given as arrays, and ``data.label``), which
the decoded network records; the spec (canonical text); the class labels; the
objective sense and constant; and for every tensor its role, layer, shape and first
column.  Column names follow :mod:`annc.core.names`, so the map regenerates every name in
column order without storing them.

**One copy of each fact.**  eps and the loss's and penalty's arguments live in the spec's
text only (:func:`map_spec`); the exported biases' shift follows from it
(:func:`annc.formulations.export_bias_shifts`), and ``recipe`` says where each setting came
from (:meth:`annc.io.recipe.Recipe.from_record`).  Older maps' ``eps``,
``layers[i].bias_shift`` and recipe values are derived copies, ignored on load.

The optional ``start`` field records the MIP start that ``annc compile`` wrote beside
the model (:func:`annc.solve.compiler.start_record`)::

    "start": {"objective": 0.94, "sha256": "<SHA-256 of the point, float64 LE>",
              "search_seconds": 2.1,
              "files": [{"file": "xor.start.mst", "format": "cplex-mst", "sha256": "..."}, ...]}

or, when there is none, ``{"objective": null, "files": [], "reason": "..."}``.  Decoding
does not read it; :func:`annc.io.mapfile.validate_map` checks it like every other field.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from .. import __version__
from ..core.columns import Columns
from ..core.model import Block, Model
from ..core.names import name_table, table_strings
from ..core.scaling import Scaling
from .spec import parse_spec

SCHEMA = "annc-map/1"


def names_digest(names: list[str]) -> str:
    return hashlib.sha256("\n".join(names).encode()).hexdigest()


def file_digest(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_map(model: Model, *, spec_text: str, spec_source: str, classes: list,
              data: dict, model_file: dict, options: dict, layers: list[dict], scaling: Scaling) -> dict:
    """Assemble the map of ``model`` (plain JSON-able dict)."""
    return {
        "schema": SCHEMA,
        "annc_version": __version__,
        "model": {**model_file, "name": model.name, "columns": model.num_cols, "rows": model.num_rows,
                  "columns_sha256": names_digest(model.col_names())},
        "data": data,
        "spec": {"source": spec_source, "text": spec_text},
        "classes": list(classes),
        "objective": {"sense": "min", "constant": model.obj_const},
        "options": options,
        "layers": layers,
        "scaling": scaling.to_dict(),
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


def columns_of(vmap: dict) -> Columns | None:
    """The names of the training columns a (validated) map records, with the categories of its
    text columns and the fills of missing cells (``data.imputed``); None for data without
    names (arrays)."""
    data, cats = vmap["data"], vmap["data"].get("categories") or {}
    if data.get("features") is None:
        return None
    return Columns(tuple(data["features"]), data.get("label"), cats, data.get("imputed") or {})


def scaling_of(vmap: dict):
    """The :class:`~annc.core.scaling.Scaling` a (validated) map records; None for maps written
    before annc scaled its inputs."""
    return Scaling.from_dict(vmap["scaling"]) if "scaling" in vmap else None


def map_spec(vmap: dict):
    """The spec a (validated) map records, parsed: the one place the map keeps eps, and the
    loss and penalty with their arguments (:func:`annc.formulations.export_bias_shifts`
    derives the exported biases' shift from it)."""
    return parse_spec(vmap["spec"]["text"], f"{vmap['spec']['source']} (recorded in the map)")
