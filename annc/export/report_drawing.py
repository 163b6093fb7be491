"""The SVG pictures of the HTML report (:mod:`annc.export.html_report`): the network drawing and
the heat maps of its weight matrices.

The drawing has a column per layer and an edge per non-zero weight (blue positive, red
negative, width ``0.6 + 3 |w| / max |w|``); a unit is dead (dashed grey) when no non-zero
weight leads from it to a live unit of the next layer, decided from the last layer back
(:func:`used_units`, the hidden units :meth:`~annc.core.network.TrainedNetwork.pruned` removes).
Labels longer than :data:`MAX_LABEL_CHARS` are cut with an ellipsis, and the outer columns
stand in far enough for their longest label (:func:`text_width`, generous).  A heat map
shows a layer's weights and bias in diverging colours (:func:`colour`), the value in a tooltip.
"""
from __future__ import annotations

import unicodedata

import numpy as np

from ..core.network import TrainedNetwork

__all__ = ["MAX_HEAT", "MAX_LABEL_CHARS", "colour", "drawing", "heatmaps", "text_width", "used_units"]

MAX_UNITS_DRAWN = 40  # units per column of the drawing; more are summarised
MAX_HEAT = 64  # rows / columns of a heat map
MAX_LABEL_CHARS = 24  # a longer unit label is cut to this many characters, ending in '...'
LABEL_PX = 11  # the font size of the drawing's text (the template's "svg text")
LABEL_GAP = 12  # from a unit's centre to its label


def text_width(text: str) -> float:
    """A generous estimate of ``text``'s width in pixels at :data:`LABEL_PX`: per character,
    about the widest a common sans-serif draws its class (DejaVu Sans: 'W' 0.99 em,
    capitals and digits up to 0.79, lower case up to 0.63, 'i' or '.' about 0.3)."""
    def em(c: str) -> float:
        if c in "MWmw@%" or unicodedata.east_asian_width(c) in "WF":
            return 1.0
        if c in "fijlrtI.,:;!|'()[] ":
            return 0.45
        return 0.8 if c.isupper() or c.isdigit() else 0.65
    return LABEL_PX * sum(em(c) for c in text)


def _label(text: str) -> dict:
    """A unit's label as drawn: cut to :data:`MAX_LABEL_CHARS` (ending in an ellipsis) when
    longer, with the whole text kept for its tooltip."""
    shown = text if len(text) <= MAX_LABEL_CHARS else text[:MAX_LABEL_CHARS - 1] + "\u2026"
    return {"label": shown, "full": text, "cut": shown != text}


def colour(v: float, vmax: float) -> str:
    """Diverging colour of ``v`` in ``[-vmax, vmax]``: red (negative), white (0), blue (positive)."""
    t = 0.0 if vmax <= 0 else max(-1.0, min(1.0, v / vmax))
    if t >= 0:
        r, g, b = 255 - 200 * t, 255 - 140 * t, 255 - 10 * t
    else:
        r, g, b = 255 + 20 * t, 255 + 190 * t, 255 + 200 * t
    return f"rgb({int(r)},{int(g)},{int(b)})"


def used_units(net: TrainedNetwork, tol: float = 1e-9) -> list[np.ndarray]:
    """``used[c][j]``: whether unit ``j`` of column ``c`` (0: the inputs, then the hidden
    layers) reaches the output through non-zero weights.  Decided from the last layer
    back, as :meth:`~annc.core.network.TrainedNetwork.pruned` does: a unit is used if a
    non-zero weight leads from it to a used unit of the next column (every output unit
    is used), so the hidden units not used are exactly those ``pruned()`` removes."""
    live = np.ones(net.layers[-1].units, dtype=bool)
    used: list[np.ndarray] = []
    for L in reversed(net.layers):
        live = (np.abs(L.weight[:, live]) > tol).any(axis=1)
        used.insert(0, live)
    return used


def drawing(net: TrainedNetwork, features: list[str] | None) -> dict:
    """Coordinates of the network drawing: units per column and the non-zero edges."""
    sizes = [net.layers[0].weight.shape[0], *[L.units for L in net.layers]]
    cols = len(sizes)
    width, height, pad = 1040, max(260, 22 * min(max(sizes), MAX_UNITS_DRAWN) + 60), 40
    shown = [list(range(min(s, MAX_UNITS_DRAWN))) for s in sizes]
    inputs = [_label(features[j] if features and j < len(features) else f"x{j + 1}") for j in shown[0]]
    outputs = [_label(str(net.classes[j])) for j in shown[-1]]
    # the outer columns stand far enough in for their labels (inputs' on the left, classes' on the right)
    left, right = (max(pad + 60, LABEL_GAP + 6 + max(text_width(t["label"]) for t in labels))
                   for labels in (inputs, outputs))
    xs = [left + i * (width - left - right) / max(cols - 1, 1) for i in range(cols)]

    def y(col, j):
        n = len(shown[col])
        return pad + (height - 2 * pad) * (0.5 if n == 1 else j / (n - 1))

    used = used_units(net)
    vmax = max((float(np.abs(L.weight).max(initial=0.0)) for L in net.layers), default=0.0) or 1.0
    edges = []
    for li, L in enumerate(net.layers):
        for i in shown[li]:
            for j in shown[li + 1]:
                w = float(L.weight[i, j])
                if abs(w) > 1e-9:
                    edges.append({"x1": xs[li], "y1": y(li, i), "x2": xs[li + 1], "y2": y(li + 1, j),
                                  "colour": "#1f5fbf" if w > 0 else "#c8322d",
                                  "width": round(0.6 + 3 * abs(w) / vmax, 2), "title": f"w = {w:.6g}"})
    names = {0: "input", cols - 1: "output"}
    columns = []
    for c in range(cols):
        units = []
        for j in shown[c]:
            label = inputs[j] if c == 0 else outputs[j] if c == cols - 1 else {"label": "", "full": "", "cut": False}
            dead = c < cols - 1 and not bool(used[c][j])
            units.append({"x": xs[c], "y": y(c, j), **label, "dead": dead, "input": c == 0,
                          "label_x": xs[c] - LABEL_GAP if c == 0 else xs[c] + LABEL_GAP,
                          "title": f"{'input' if c == 0 else 'unit'} {j + 1}"
                                   + (f" ({label['full']})" if c == 0 else "")
                                   + (": no non-zero weight to a live unit (pruned() removes it)"
                                      if dead and c > 0 else ": unused" if dead else "")})
        act = "" if c == 0 else net.layers[c - 1].activation
        columns.append({"x": xs[c], "units": units, "more": sizes[c] - len(shown[c]),
                        "title": f"{names.get(c, f'hidden {c}')} ({sizes[c]}{', ' + act if act else ''})"})
    return {"width": width, "height": height + 30, "columns": columns, "edges": edges,
            "dead_inputs": int(np.sum(~used[0])), "dead_hidden": int(sum(np.sum(~u) for u in used[1:])),
            "nonzero": net.nonzero_weights()}


def heatmaps(net: TrainedNetwork) -> list[dict]:
    maps = []
    for li, L in enumerate(net.layers):
        W = np.vstack([L.weight, L.bias[None, :]])  # the last row is the bias
        rows, cols = min(W.shape[0], MAX_HEAT + 1), min(W.shape[1], MAX_HEAT)
        vmax = float(np.abs(W).max(initial=0.0)) or 1.0
        cell = max(6, min(26, 520 // max(rows, cols)))
        x0, y0 = 40, 22
        cells, labels = [], []
        for i in range(rows):
            src = W.shape[0] - 1 if i == rows - 1 else i
            if cell >= 12 or i == rows - 1:  # row labels where they fit; always the bias row's
                labels.append({"x": x0 - 4, "y": y0 + i * cell + cell / 2 + 4, "anchor": "end",
                               "text": "bias" if src == W.shape[0] - 1 else str(src + 1)})
            for j in range(cols):
                v = float(W[src, j])
                cells.append({"x": x0 + j * cell, "y": y0 + i * cell, "fill": colour(v, vmax),
                              "title": f"{'bias' if src == W.shape[0] - 1 else f'in {src + 1}'} -> unit {j + 1}: {v:.6g}"})
        for j in range(cols):
            if cell >= 12 or j in (0, cols - 1):
                labels.append({"x": x0 + j * cell + cell / 2, "y": y0 - 6, "anchor": "middle", "text": str(j + 1)})
        maps.append({"title": f"layer {li + 1} ({L.activation}): {L.weight.shape[0]} inputs + bias x {L.units} units",
                     "cell": cell, "cells": cells, "labels": labels,
                     "width": x0 + 20 + cols * cell, "height": y0 + 10 + rows * cell,
                     "cut": W.shape[0] > rows or W.shape[1] > cols, "vmax": vmax,
                     "nonzero": int(np.count_nonzero(np.abs(L.weight) > 1e-9)), "size": L.weight.size})
    return maps
