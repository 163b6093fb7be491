"""Formatting: a :class:`~.types.NetworkSpec` as canonical ``.ann`` text."""
from __future__ import annotations

from collections import Counter

from ...core.activations import takes_pieces
from ...core.losses import LOSS
from ...core.penalties import PENALTY
from .types import GRID_FIELDS, LAYER_FIELDS, LayerSpec, NetworkSpec, default


def _fmt(x: float) -> str:
    """Shortest text for a number that parses back to the same float."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _bounds_text(bounds) -> str:
    return f"[{_fmt(bounds[0])}, {_fmt(bounds[1])}]"


def _setting(layer: LayerSpec, key: str):
    """What the setting ``key`` sets on ``layer``: the box and its grid, or M."""
    if key in GRID_FIELDS:
        return getattr(layer, LAYER_FIELDS[key]), getattr(layer, GRID_FIELDS[key])
    return getattr(layer, LAYER_FIELDS[key])


def _setting_default(key: str):
    if key in GRID_FIELDS:
        return default(LayerSpec, LAYER_FIELDS[key]), default(LayerSpec, GRID_FIELDS[key])
    return default(LayerSpec, LAYER_FIELDS[key])


def _text(key: str, value) -> str:
    """The statement that sets ``value`` (of :func:`_setting`) for ``key``."""
    if key not in GRID_FIELDS:
        return f"{key} {_m_text(value)}"
    bounds, grid = value
    return f"{key} {_bounds_text(bounds)}" + ("" if grid is None else f" grid {grid}")


def _m_text(big_m) -> str:
    return "auto" if big_m is None else _fmt(big_m)


def _most_common(values: list, default_value):
    """The most frequent value; ties go to the default, then to the output layer's."""
    counts = Counter(values)
    return max(counts, key=lambda v: (counts[v], v == default_value, v == values[-1]))


def format_spec(spec: NetworkSpec) -> str:
    """Canonical ``.ann`` text for ``spec``; ``parse_spec`` of it gives an equal spec.

    Every setting is written explicitly.  The global ``weights``/``bias``/``M`` are
    the values most layers share (ties: the default); layers that differ get a
    ``{ }`` block.  ``P`` is only written when the net has a ReLU layer.
    """
    common = {key: _most_common([_setting(layer, key) for layer in spec.layers], _setting_default(key))
              for key in LAYER_FIELDS}

    def block(layer: LayerSpec) -> str:
        opts = [_text(key, _setting(layer, key)) for key in LAYER_FIELDS
                if _setting(layer, key) != common[key]]
        return " { " + "; ".join(opts) + " }" if opts else ""

    out = [f"input {'auto' if spec.inputs is None else spec.inputs}"]
    out += [f"hidden {h.units} {h.activation}{block(h)}" for h in spec.hidden]
    out.append(f"output {spec.output.units}{block(spec.output)}")
    out += [_text(key, common[key]) for key in LAYER_FIELDS]
    out.append(f"eps {_fmt(spec.eps)}")
    if any(takes_pieces(h.activation) for h in spec.hidden):
        out.append(f"P {spec.partitions}")
    argument = LOSS[spec.loss].argument  # hinge: its margin
    out.append(f"loss {spec.loss}" + (f" {_fmt(getattr(spec, argument.name))}" if argument else ""))
    out.append(f"training {spec.training}" + (f" {spec.batches}" if spec.training == "batches" else ""))
    weight = "auto" if spec.penalty_auto else _fmt(spec.penalty_weight)
    out.append(f"penalty {spec.penalty}" + (f" {weight}" if PENALTY[spec.penalty].weighted else ""))
    if spec.max_weights is not None:
        out.append(f"max_weights {spec.max_weights}")
    out.append(f"symmetry {spec.symmetry}")
    out.append(f"scale {spec.scale}")
    return "\n".join(out) + "\n"
