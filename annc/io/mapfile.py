"""Reading a variable map file: every field checked before ``annc decode`` trusts it.

:func:`load_map` reads a map and :func:`validate_map` checks each field a map may hold (:mod:`annc.io.varmap` says what they
mean): types, ranges and fingerprints, the tensors' shapes against the recorded spec and the
data's columns, the layers' widths against the classes, the MIP start's record.  A problem is a
:class:`~annc.core.errors.MapError` naming the map, the field and what is wrong, so a map edited
by hand or cut short is refused with a message, never half-read.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

from ..core.activations import HIDDEN
from ..core.errors import AnncError, MapError, SpecError, UsageError
from ..core.missing import RULES
from ..core.names import BLOCK_RE
from ..core.scaling import Scaling
from .recipe import NAMES, SOURCES
from .spec import parse_spec
from .varmap import SCHEMA, column_names, columns_of, names_digest
from .writers.startfiles import START_FILES

MAX_COLUMNS = 50_000_000  # far beyond any model annc can solve: a larger count is a corrupt map
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def load_map(path: str | Path) -> dict:
    """Read the map at ``path`` and :func:`validate_map` it; :class:`MapError` otherwise."""
    path = Path(path)
    try:
        vmap = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MapError(f"{path}: variable map not found") from None
    except IsADirectoryError:
        raise MapError(f"{path}: is a folder, not a variable map") from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        # ValueError: bad JSON, or an integer of more than 4,300 digits
        raise MapError(f"{path}: not a readable annc variable map ({e})") from None
    if not isinstance(vmap, dict) or vmap.get("schema") != SCHEMA:
        found = vmap.get("schema") if isinstance(vmap, dict) else type(vmap).__name__
        raise MapError(f"{path}: not an annc variable map of schema {SCHEMA} (found {_show(found)})")
    validate_map(vmap, path)
    return vmap


def _show(value) -> str:
    """``value`` as (at most 60 characters of) JSON, for messages."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):  # e.g. an integer of 5,000 digits
        text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_finite(v) -> bool:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    return math.isfinite(v) if isinstance(v, float) else abs(v) < 10 ** 300


class _Fields:
    """Field access on a map that names the map and the field in every error."""

    def __init__(self, path):
        self.path = path

    def error(self, field: str, what: str) -> MapError:
        return MapError(f"{self.path}: field {field} {what}")

    def get(self, obj: dict, key: str, field: str, ok, what: str, *, optional=False):
        """``obj[key]``, which must satisfy ``ok`` (described by ``what``); None if it is
        ``optional`` and absent."""
        if key not in obj:
            if optional:
                return None
            raise self.error(field, "is missing")
        value = obj[key]
        if not ok(value):
            raise self.error(field, f"must be {what} (found {_show(value)})")
        return value

    def section(self, obj: dict, key: str) -> dict:
        return self.get(obj, key, key, lambda v: isinstance(v, dict), "an object")


def validate_map(vmap: dict, path: str | Path = "map") -> None:
    """Check every field that decoding and verification read, and that they agree:
    tensors tile the columns exactly, the layers name tensors of matching shapes, the
    classes are as many as the output units, the spec text parses to these layers.
    Raises :class:`MapError` naming ``path`` and the field."""
    f = _Fields(path)
    model, data, options = f.section(vmap, "model"), f.section(vmap, "data"), f.section(vmap, "options")
    recorded = f.section(vmap, "spec")
    columns = f.get(model, "columns", "model.columns", lambda v: _is_int(v) and 0 <= v <= MAX_COLUMNS,
                    f"an integer in 0..{MAX_COLUMNS}")
    f.get(model, "name", "model.name", lambda v: isinstance(v, str) and v.strip() == v and v != "",
          "a non-empty name")
    f.get(model, "columns_sha256", "model.columns_sha256", _is_hex, "a SHA-256 in hex")
    f.get(model, "file", "model.file", lambda v: isinstance(v, str), "a file name", optional=True)
    f.get(data, "file", "data.file", lambda v: isinstance(v, str) and v != "" and "\0" not in v, "a file name")
    f.get(data, "sha256", "data.sha256", _is_hex, "a SHA-256 in hex")
    f.get(data, "content_sha256", "data.content_sha256", _is_hex, "a SHA-256 in hex", optional=True)
    f.get(recorded, "source", "spec.source", lambda v: isinstance(v, str), "a string")
    text = f.get(recorded, "text", "spec.text", lambda v: isinstance(v, str), "a string")
    f.get(options, "merge", "options.merge", lambda v: isinstance(v, bool), "true or false")
    f.get(options, "allow_small_m", "options.allow_small_m", lambda v: isinstance(v, bool), "true or false",
          optional=True)
    f.get(options, "label", "options.label", lambda v: v is None or isinstance(v, str), "a column name or null",
          optional=True)
    f.get(options, "missing", "options.missing", lambda v: v in RULES, "one of " + ", ".join(map(repr, RULES)),
          optional=True)
    classes = f.get(vmap, "classes", "classes", _good_classes,
                    "a list of at least 2 distinct class labels (strings or integers)")
    if "objective" in vmap:
        objective = f.section(vmap, "objective")
        f.get(objective, "sense", "objective.sense", lambda v: v == "min", '"min"', optional=True)
        f.get(objective, "constant", "objective.constant", _is_finite, "a finite number", optional=True)
    if "start" in vmap:
        _start(f, vmap)
    if "recipe" in vmap:
        _recipe(f, vmap)
    if "weights" in vmap:  # absent (older maps, unweighted runs): no weights
        _weights(f, vmap, len(classes))
    spec = _recorded_spec(f, text)
    if "scaling" in vmap:
        _scaling(f, vmap["scaling"], spec)
    _columns(f, vmap, spec)
    tensors = _tensors(f, vmap, columns)
    units = _layers(f, vmap, tensors, len(classes))
    want = [("input", spec.inputs)] + [(L.activation, L.units) for L in spec.layers]
    if want != units:
        raise MapError(f"{path}: the spec recorded in this map ({_describe(want)}) disagrees with its "
                       f"layers and tensors ({_describe(units)})")
    if names_digest(column_names(vmap)) != model["columns_sha256"]:
        raise f.error("tensors", "does not give the columns recorded in model.columns_sha256 "
                                 "(the map was edited, or is corrupt)")


def _plain_file_name(v) -> bool:
    return isinstance(v, str) and v not in ("", ".", "..") and not any(c in v for c in "/\\\0")


def _start(f: _Fields, vmap: dict) -> None:
    """Check the optional ``start`` record (module docstring): a start with its objective,
    point digest and files (plain names, known formats, each at most once), or none
    (objective null, no files)."""
    start = f.section(vmap, "start")
    formats = [s.format for s in START_FILES]
    files = f.get(start, "files", "start.files", lambda v: isinstance(v, list) and len(v) <= len(formats),
                  f"a list of at most {len(formats)} files")
    objective = f.get(start, "objective", "start.objective", lambda v: v is None or _is_finite(v),
                      "a finite number, or null for no start")
    f.get(start, "reason", "start.reason", lambda v: isinstance(v, str), "a string", optional=True)
    f.get(start, "search_seconds", "start.search_seconds", lambda v: _is_finite(v) and v >= 0,
          "a number of seconds >= 0", optional=True)
    if objective is None:
        if files:
            raise f.error("start.files", "must be empty when start.objective is null (no start)")
        return
    f.get(start, "sha256", "start.sha256", _is_hex, "a SHA-256 in hex")
    seen: set = set()
    for i, entry in enumerate(files):
        where = f"start.files[{i}]"
        if not isinstance(entry, dict):
            raise f.error(where, f"must be an object (found {_show(entry)})")
        name = f.get(entry, "file", f"{where}.file", _plain_file_name, "a file name (no folder)")
        fmt = f.get(entry, "format", f"{where}.format", lambda v: v in formats,
                    "one of " + ", ".join(map(repr, formats)))
        f.get(entry, "sha256", f"{where}.sha256", _is_hex, "a SHA-256 in hex")
        if ("file", name) in seen or ("format", fmt) in seen:
            raise f.error(where, f"repeats the file {name!r} or the format {fmt!r}")
        seen |= {("file", name), ("format", fmt)}


def _weights(f: _Fields, vmap: dict, classes: int) -> None:
    """Check the optional ``weights`` record (:func:`annc.core.rowweights.weights_record`): a
    finite weight >= 0 per class (or null), and optionally one per sample."""
    weights = f.section(vmap, "weights")
    good = lambda v: isinstance(v, list) and all(_is_finite(w) and w >= 0 for w in v)  # noqa: E731
    f.get(weights, "class_weight", "weights.class_weight", lambda v: v is None or (good(v) and len(v) == classes),
          f"null or a list of {classes} finite weights >= 0")
    f.get(weights, "sample_weight", "weights.sample_weight", good, "a list of finite weights >= 0", optional=True)


def _recipe(f: _Fields, vmap: dict) -> None:
    """Check the optional ``recipe`` record: for each of loss, penalty and eps, a source of
    :data:`annc.io.recipe.SOURCES` and a reason (text or null)."""
    recipe = f.section(vmap, "recipe")
    for name in NAMES:
        setting = f.get(recipe, name, f"recipe.{name}", lambda v: isinstance(v, dict), "an object")
        f.get(setting, "source", f"recipe.{name}.source", lambda v: v in SOURCES,
              "one of " + ", ".join(map(repr, SOURCES)))
        f.get(setting, "reason", f"recipe.{name}.reason", lambda v: v is None or isinstance(v, str),
              "a text or null", optional=True)


def _scaling(f: _Fields, value, spec) -> None:
    """Check the optional ``scaling`` record (:mod:`annc.core.scaling`): the spec's kind, one
    center and one positive width per input feature."""
    try:
        scaling = Scaling.from_dict(value)
    except AnncError as e:
        raise f.error("scaling", f"is not a scaling: {e}") from None
    if scaling.kind != spec.scale:
        raise f.error("scaling.kind", f"is {scaling.kind!r} but the spec recorded in this map says "
                                      f"scale {spec.scale}")
    if scaling.features != spec.inputs:
        raise f.error("scaling", f"has {scaling.features} features but the spec has input {spec.inputs}")


def _columns(f: _Fields, vmap: dict, spec) -> None:
    """Check the optional names of the training columns (``data.features``: one distinct
    name per input feature, or null for data without names; ``data.label``)."""
    data = vmap["data"]
    f.get(data, "label", "data.label", lambda v: isinstance(v, str) and v != "", "a column name", optional=True)
    features = f.get(data, "features", "data.features", lambda v: v is None or isinstance(v, list),
                     "a list of column names or null", optional=True)
    f.get(data, "imputed", "data.imputed", lambda v: isinstance(v, dict), "an object: column -> its fill",
          optional=True)
    try:
        columns = columns_of(vmap)
    except UsageError as e:
        raise f.error("data.features", f"is not a list of column names (with data.categories and data.imputed): "
                                       f"{e}") from None
    if columns is not None and len(features) != spec.inputs:
        raise f.error("data.features", f"names {len(features)} columns but the spec has input {spec.inputs}")


def _is_hex(v) -> bool:
    return isinstance(v, str) and bool(_HEX64.match(v))


def _good_classes(v) -> bool:
    if not (isinstance(v, list) and len(v) >= 2):
        return False
    if not all(isinstance(c, str) or _is_int(c) for c in v):
        return False
    return len({str(c).strip() for c in v}) == len(v)


def _tensors(f: _Fields, vmap: dict, columns: int) -> dict[str, list[int]]:
    """Check ``tensors``: valid unique names, shapes of non-negative integers, each
    starting where the one before ends, together exactly ``columns``.  Shapes by name."""
    tensors = f.get(vmap, "tensors", "tensors", lambda v: isinstance(v, list) and v != [], "a non-empty list")
    shapes: dict[str, list[int]] = {}
    at = 0
    for i, t in enumerate(tensors):
        where = f"tensors[{i}]"
        if not isinstance(t, dict):
            raise f.error(where, f"must be an object (found {_show(t)})")
        name = f.get(t, "name", f"{where}.name", lambda v: isinstance(v, str) and bool(BLOCK_RE.match(v)),
                     "a block name ([a-z][a-z0-9]*)")
        if name in shapes:
            raise f.error(f"{where}.name", f"repeats the tensor name {name!r}")
        f.get(t, "role", f"{where}.role", lambda v: isinstance(v, str), "a string", optional=True)
        f.get(t, "layer", f"{where}.layer", lambda v: v is None or (_is_int(v) and v >= 0),
              "a layer number or null", optional=True)
        shape = f.get(t, "shape", f"{where}.shape",
                      lambda v: isinstance(v, list) and len(v) <= 8 and all(_is_int(d) and d >= 0 for d in v),
                      "a list of non-negative integers")
        size = math.prod(shape)
        f.get(t, "start", f"{where}.start", lambda v: _is_int(v) and v == at,
              f"{at}, where the tensor before it ends")
        at += size
        if at > columns:
            raise f.error(f"{where}.shape", f"takes the tensors to {at} columns, past model.columns ({columns})")
        shapes[name] = shape
    if at != columns:
        raise f.error("tensors", f"cover {at} columns but model.columns is {columns}")
    return shapes


def _layers(f: _Fields, vmap: dict, shapes: dict[str, list[int]], classes: int) -> list[tuple[str, int]]:
    """Check ``layers`` against the tensors they name; ``(activation, units)`` per layer."""
    layers = f.get(vmap, "layers", "layers", lambda v: isinstance(v, list) and v != [], "a non-empty list")
    out, inputs = [], None
    for i, L in enumerate(layers):
        where = f"layers[{i}]"
        if not isinstance(L, dict):
            raise f.error(where, f"must be an object (found {_show(L)})")
        last = i == len(layers) - 1
        allowed = ("linear",) if last else tuple(HIDDEN)
        act = f.get(L, "activation", f"{where}.activation", lambda v: v in allowed, " or ".join(map(repr, allowed)))
        w = f.get(L, "weight", f"{where}.weight", lambda v: isinstance(v, str) and v in shapes,
                  "the name of a tensor")
        b = f.get(L, "bias", f"{where}.bias", lambda v: isinstance(v, str) and v in shapes, "the name of a tensor")
        if len(shapes[w]) != 2 or (inputs is not None and shapes[w][0] != inputs):
            raise f.error(f"{where}.weight", f"names tensor {w!r} of shape {shapes[w]}; expected "
                          f"[{'inputs' if inputs is None else inputs}, units]")
        units = shapes[w][1]
        if shapes[b] != [units]:
            raise f.error(f"{where}.bias", f"names tensor {b!r} of shape {shapes[b]}; expected [{units}]")
        f.get(L, "units", f"{where}.units", lambda v: _is_int(v) and v == units, f"{units}, the columns of its weight tensor",
              optional=True)
        for key in ("weight_values", "bias_values"):  # a grid layer's values, increasing
            f.get(L, key, f"{where}.{key}", lambda v: isinstance(v, list) and len(v) >= 2
                  and all(_is_finite(e) for e in v) and all(a < b for a, b in zip(v, v[1:])),
                  "a list of at least two increasing finite numbers", optional=True)
        if units < 1 or (last and units != classes):
            raise f.error(f"{where}", f"has {units} units; expected {classes if last else 'at least 1'}"
                          + (" (one per class)" if last else ""))
        out.append((act, units))
        inputs = units
    return [("input", shapes[layers[0]["weight"]][0])] + out


def _recorded_spec(f: _Fields, text: str):
    """The spec text of the map, parsed and concrete (it names its eps); errors name the map."""
    try:
        spec = parse_spec(text, f"{f.path} (spec.text)")
    except SpecError as e:
        raise MapError(f"{f.path}: the spec recorded in this map does not parse:\n{e}") from None
    except (AnncError, RecursionError, ValueError, OverflowError, MemoryError) as e:
        raise MapError(f"{f.path}: the spec recorded in this map cannot be used: {e}") from None
    if not spec.eps_auto:
        return spec
    raise MapError(f"{f.path}: the spec recorded in this map names no eps "
                   "(a map records the eps its model was built with)")


def _describe(layers: list[tuple[str, int]]) -> str:
    return ", ".join(f"{act} {n}" for act, n in layers)
