"""Formatting: a :class:`~.types.NetworkSpec` as canonical ``.ann`` text."""
from __future__ import annotations

from collections import Counter

from .types import LAYER_FIELDS, LayerSpec, NetworkSpec, default


def _fmt(x: float) -> str:
    """Shortest text for a number that parses back to the same float."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _bounds_text(bounds) -> str:
    return f"[{_fmt(bounds[0])}, {_fmt(bounds[1])}]"


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
    common = {key: _most_common([getattr(layer, name) for layer in spec.layers],
                                default(LayerSpec, name))
              for key, name in LAYER_FIELDS.items()}

    def block(layer: LayerSpec) -> str:
        opts = []
        if layer.weight_bounds != common["weights"]:
            opts.append(f"weights {_bounds_text(layer.weight_bounds)}")
        if layer.bias_bounds != common["bias"]:
            opts.append(f"bias {_bounds_text(layer.bias_bounds)}")
        if layer.big_m != common["M"]:
            opts.append(f"M {_m_text(layer.big_m)}")
        return " { " + "; ".join(opts) + " }" if opts else ""

    out = [f"input {spec.inputs}"]
    out += [f"hidden {h.units} {h.activation}{block(h)}" for h in spec.hidden]
    out.append(f"output {spec.output.units}{block(spec.output)}")
    out.append(f"weights {_bounds_text(common['weights'])}")
    out.append(f"bias {_bounds_text(common['bias'])}")
    out.append(f"M {_m_text(common['M'])}")
    out.append(f"eps {_fmt(spec.eps)}")
    if any(h.activation == "relu" for h in spec.hidden):
        out.append(f"P {spec.partitions}")
    out.append(f"loss {spec.loss}" + (f" {_fmt(spec.margin)}" if spec.loss == "hinge" else ""))
    out.append(f"training {spec.training}")
    out.append(f"penalty {spec.penalty}"
               + (f" {_fmt(spec.penalty_weight)}" if spec.penalty != "none" else ""))
    out.append(f"symmetry {spec.symmetry}")
    return "\n".join(out) + "\n"
