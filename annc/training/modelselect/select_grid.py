"""The candidate specs of model selection (``--select``): :func:`candidates`.

**The default grid** (:data:`DEFAULT_GRID`), the product of the axes that apply:

* penalty weight: as written, 0.1x and 10x, when the spec has a penalty (``l0`` or
  ``l1``, same kind); else no penalty and ``l0 0.01``;
* margin: as written and half of it, only when the loss takes a margin
  (:data:`MARGIN_LOSSES`);
* hidden widths: as written and half of each (rounded up), every hidden layer
  together, only when that changes a width (not for width 1).

Duplicates are skipped (e.g. a written penalty weight of 0).  At most
:data:`MAX_DEFAULT_CANDIDATES` (8) are kept: those that change the fewest settings of
the spec first (the spec itself is always the first candidate), ties in grid order;
only a spec with a penalty, a margin and a hidden width >= 2 has more (12): it keeps
the spec, the 4 candidates that change one setting and 3 of the 5 that change two.

**A user grid** is a dict with optional keys ``penalty_weight`` (absolute weights;
0 means no penalty, another weight keeps the spec's penalty kind, ``l0`` if it has
none), ``margin`` (absolute margins > 0; only for a loss in :data:`MARGIN_LOSSES`)
and ``width_factor`` (factors in (0, 1] applied to every hidden width, rounded up);
a key left out keeps the spec's setting.  Its full product is used, up to
:data:`MAX_CANDIDATES`.
"""
from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import replace
from typing import Callable, Sequence

from ...core.errors import UsageError
from ...core.losses import takes, with_argument
from ...core.penalties import PENALTY
from ...io.spec import NetworkSpec, format_spec, penalty_at

__all__ = ["DEFAULT_GRID", "GRID_KEYS", "MARGIN_LOSSES", "MAX_CANDIDATES", "MAX_DEFAULT_CANDIDATES", "candidates"]

MARGIN_LOSSES = tuple(with_argument("margin"))  # the losses whose spec takes a margin (spec.margin): annc.core.losses
DEFAULT_GRID = {
    "penalty_factor": (1.0, 0.1, 10.0),  # times the spec's penalty weight, when it has a penalty
    "no_penalty": (0.0, 0.01),  # l0 weights tried when the spec has no penalty (0: none)
    "margin_factor": (1.0, 0.5),  # times the spec's margin, for a loss in MARGIN_LOSSES
    "width_factor": (1.0, 0.5),  # times every hidden width, rounded up
}
MAX_DEFAULT_CANDIDATES = 8
MAX_CANDIDATES = 64  # a user grid larger than this is surely a mistake (one MIP each)
GRID_KEYS = ("penalty_weight", "margin", "width_factor")


# -- the candidates -----------------------------------------------------------------
def _times(x: float, factor: float) -> float:
    """``x * factor`` to 12 significant digits (0.01 * 0.1 is 0.001, not 0.0010000000000000002);
    ``x`` itself, exactly, for the factor 1 (the setting as written)."""
    return float(x) if factor == 1 else float(f"{x * factor:.12g}")


def _numbers(grid: dict, key: str, ok: Callable[[float], bool], what: str) -> list[float]:
    values = grid[key]
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) == 0:
        raise UsageError(f"grid key {key!r} takes a non-empty list of numbers, not {values!r}")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) or not ok(v):
            raise UsageError(f"grid key {key!r}: {v!r} is not {what}")
        out.append(float(v))
    return out


def _widths(spec: NetworkSpec, factor: float) -> tuple[int, ...]:
    return tuple(max(1, math.ceil(h.units * factor - 1e-9)) for h in spec.hidden)


def _axes(spec: NetworkSpec, grid: dict | None):
    """The values of each axis: penalties ``(kind, weight)``, margins, hidden widths."""
    if grid is None:
        if PENALTY[spec.penalty].weighted:
            penalties = [(spec.penalty, _times(spec.penalty_weight, f)) for f in DEFAULT_GRID["penalty_factor"]]
        else:
            penalties = [penalty_at(spec, w) for w in DEFAULT_GRID["no_penalty"]]
        margins = [_times(spec.margin, f) for f in DEFAULT_GRID["margin_factor"]] \
            if takes(spec.loss, "margin") else [spec.margin]
        widths = [_widths(spec, f) for f in DEFAULT_GRID["width_factor"]]
        return penalties, margins, widths
    if not isinstance(grid, dict):
        raise UsageError(f"the selection grid must be a dict with keys {', '.join(GRID_KEYS)}, "
                         f"not {type(grid).__name__}")
    for key in grid:
        if key not in GRID_KEYS:
            raise UsageError(f"unknown selection grid key {key!r}: the keys are {', '.join(GRID_KEYS)}")
    penalties = [(spec.penalty, spec.penalty_weight)]
    if "penalty_weight" in grid:
        weights = _numbers(grid, "penalty_weight", lambda v: v >= 0, "a penalty weight >= 0")
        penalties = [penalty_at(spec, w) for w in weights]
    margins = [spec.margin]
    if "margin" in grid:
        if not takes(spec.loss, "margin"):
            raise UsageError(f"grid key 'margin': 'loss {spec.loss}' takes no margin (only "
                             + ", ".join(f"'loss {m}'" for m in with_argument("margin")) + ")")
        margins = _numbers(grid, "margin", lambda v: v > 0, "a margin > 0")
    widths = [_widths(spec, 1.0)]
    if "width_factor" in grid:
        widths = [_widths(spec, f) for f in _numbers(grid, "width_factor", lambda v: 0 < v <= 1,
                                                     "a width factor in (0, 1]")]
    return penalties, margins, widths


def _label(spec: NetworkSpec) -> str:
    parts = [f"{spec.penalty} {spec.penalty_weight:g}" if PENALTY[spec.penalty].weighted else "no penalty"]
    if takes(spec.loss, "margin"):
        parts.append(f"margin {spec.margin:g}")
    if spec.hidden:
        widths = [h.units for h in spec.hidden]
        parts.append(f"width {widths[0]}" if len(widths) == 1 else "widths " + ",".join(map(str, widths)))
    return ", ".join(parts)


def candidates(spec: NetworkSpec, grid: dict | None = None) -> list[tuple[str, NetworkSpec]]:
    """The candidate specs of the selection grid, each with a short label (e.g.
    ``"l0 0.01, margin 0.5, width 4"``); ``grid`` None: the default grid.  See the
    module docstring for both grids.  A bad grid (an unknown key, a value out of range,
    too many candidates) is a :class:`~annc.core.errors.UsageError` naming the key."""
    if not isinstance(spec, NetworkSpec):
        raise UsageError(f"candidates takes a NetworkSpec, not {type(spec).__name__}")
    penalties, margins, widths = _axes(spec, grid)
    written = ((spec.penalty, spec.penalty_weight), spec.margin, _widths(spec, 1.0))
    found: dict[str, tuple[int, int, NetworkSpec]] = {}  # canonical text: (changes, order, spec)
    for order, (penalty, margin, width) in enumerate(itertools.product(penalties, margins, widths)):
        cand = replace(spec, penalty=penalty[0], penalty_weight=penalty[1], margin=margin,
                       hidden=tuple(replace(h, units=u) for h, u in zip(spec.hidden, width)))
        text = format_spec(cand)
        if text not in found:
            changes = sum(a != b for a, b in zip((penalty, margin, width), written))
            found[text] = (changes, order, cand)
    chosen = sorted(found.values(), key=lambda t: t[:2]) if grid is None else list(found.values())
    if grid is None:
        chosen = chosen[:MAX_DEFAULT_CANDIDATES]
    elif len(chosen) > MAX_CANDIDATES:
        raise UsageError(f"the selection grid has {len(chosen)} candidates; at most {MAX_CANDIDATES} "
                         "(each is one training run)")
    return [(_label(c), c) for _, _, c in chosen]
