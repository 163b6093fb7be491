"""One self-contained HTML page about a trained network (``annc report``, ``annc train --report``).

What it answers, each from annc's own forward pass or from what the weights file
records (never from a solver's claim presented as more than it is):

* the verdict in words: proven optimal, or feasible with the gap to the lower bound;
  every MIP's objective, bound, time and whether its network passed verification
  (``meta["steps"]``);
* the network as an SVG drawing: a column per layer, an edge per non-zero weight
  (blue positive, red negative, width ``0.6 + 3 |w| / max |w|``), dead units (no
  non-zero outgoing weight: :meth:`~annc.network.TrainedNetwork.pruned` removes them)
  dashed, unused inputs grey;
* each layer's weight matrix as a heat map (diverging colours, the value in a tooltip);
* the hidden units' activations over the distinct input rows of the data;
* each MIP's incumbent and bound over time (``meta["steps"][k]["trace"]``);
* train and test accuracy with confusion matrices (forward pass on the CSVs given).

Why jinja2: the page is a template with loops over layers and cells, kept apart from the
Python that computes coordinates and colours; autoescaping makes any class name, feature
name or spec text safe to show.  No script and no network access: the CSS and the SVGs
are inline, so the file opens anywhere, and a laptop screen shows it at 1100 px wide.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import __version__
from .network import TrainedNetwork
from .outputs import atomic_write_text, check_out_file

MAX_UNITS_DRAWN = 40  # units per column of the drawing; more are summarised
MAX_HEAT = 64  # rows / columns of a heat map
MAX_PATTERNS = 64  # distinct input rows in the activation table
MAX_MEMBERS_DRAWN = 12  # members of an ensemble drawn


@dataclass
class Evaluation:
    """Accuracy and confusion matrix of the network on one data set."""
    name: str
    path: str
    n: int
    accuracy: float
    confusion: list[list[int]]  # rows: true class, columns: predicted class


def evaluate(net: TrainedNetwork, data, name: str) -> Evaluation:
    pred = net.predict_index(data.X)
    k = len(net.classes)
    conf = np.zeros((k, k), dtype=int)
    np.add.at(conf, (data.y, pred), 1)
    return Evaluation(name, str(data.path), int(len(data.y)), float(np.mean(pred == data.y)), conf.tolist())


def _colour(v: float, vmax: float) -> str:
    """Diverging colour of ``v`` in ``[-vmax, vmax]``: red (negative), white (0), blue (positive)."""
    t = 0.0 if vmax <= 0 else max(-1.0, min(1.0, v / vmax))
    if t >= 0:
        r, g, b = 255 - 200 * t, 255 - 140 * t, 255 - 10 * t
    else:
        r, g, b = 255 + 20 * t, 255 + 190 * t, 255 + 200 * t
    return f"rgb({int(r)},{int(g)},{int(b)})"


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return "inf" if math.isinf(v) else f"{v:.6g}"
    return str(v)


def verdict_words(meta: dict) -> str:
    """The status of the network in words, from what the weights file records."""
    steps = meta.get("steps") or []
    status = meta.get("status")
    if meta.get("training") == "ovo":
        members = meta.get("members") or []
        proven = sum(m.get("status") == "optimal" for m in members)
        return (f"a one-vs-one ensemble of {len(members)} networks, {proven} of them proven optimal on their "
                "own pair of classes; the vote itself has no optimality claim")
    if meta.get("training") == "batches":
        return ("batch training, a heuristic: each batch's MIP is judged on its own rows, and the exported "
                "network has no bound")
    if not steps:
        return "no training record (a network written by hand or by another tool): nothing is proven about it"
    if status == "optimal":
        return ("proven optimal: no network of this architecture has a lower training objective"
                if len(steps) == 1 else
                f"every one of the {len(steps)} MIPs of greedy training was proven optimal")
    if len(steps) == 1:
        s = steps[0]
        gap = s.get("gap")
        if status == "feasible" and isinstance(gap, (int, float)):
            return (f"a network found, not proven optimal: its objective {_fmt(s.get('objective'))} is "
                    f"{100 * gap:.1f}% (relative gap) above the lower bound {_fmt(s.get('lower_bound'))}")
        return s.get("describe", "")
    weakest = [s["name"] for s in steps if s.get("status") != "optimal"]
    return f"not proven optimal for {', '.join(weakest)} (greedy training: each MIP's verdict below)"


def _drawing(net: TrainedNetwork, features: list[str] | None) -> dict:
    """Coordinates of the network drawing: units per column and the non-zero edges."""
    sizes = [net.layers[0].weight.shape[0], *[L.units for L in net.layers]]
    cols = len(sizes)
    width, height, pad = 1040, max(260, 22 * min(max(sizes), MAX_UNITS_DRAWN) + 60), 40
    xs = [pad + 60 + i * (width - 2 * pad - 120) / max(cols - 1, 1) for i in range(cols)]
    shown = [list(range(min(s, MAX_UNITS_DRAWN))) for s in sizes]

    def y(col, j):
        n = len(shown[col])
        return pad + (height - 2 * pad) * (0.5 if n == 1 else j / (n - 1))

    # a unit is used if it has a non-zero outgoing weight (inputs and hidden units)
    used = [np.abs(L.weight).max(axis=1, initial=0.0) > 1e-9 for L in net.layers]
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
            label = ""
            if c == 0:
                label = features[j] if features and j < len(features) else f"x{j + 1}"
            elif c == cols - 1:
                label = str(net.classes[j])
            dead = c < cols - 1 and not bool(used[c][j])
            units.append({"x": xs[c], "y": y(c, j), "label": label, "dead": dead, "input": c == 0,
                          "title": f"{'input' if c == 0 else 'unit'} {j + 1}"
                                   + (": no non-zero outgoing weight" if dead else "")})
        act = "" if c == 0 else net.layers[c - 1].activation
        columns.append({"x": xs[c], "units": units, "more": sizes[c] - len(shown[c]),
                        "title": f"{names.get(c, f'hidden {c}')} ({sizes[c]}{', ' + act if act else ''})"})
    return {"width": width, "height": height + 30, "columns": columns, "edges": edges,
            "dead_inputs": int(np.sum(~used[0])), "nonzero": net.nonzero_weights()}


def _heatmaps(net: TrainedNetwork) -> list[dict]:
    maps = []
    for li, L in enumerate(net.layers):
        W = np.vstack([L.weight, L.bias[None, :]])  # the last row is the bias
        rows, cols = min(W.shape[0], MAX_HEAT + 1), min(W.shape[1], MAX_HEAT)
        vmax = float(np.abs(W).max(initial=0.0)) or 1.0
        cell = max(6, min(26, 520 // max(rows, cols)))
        cells = []
        for i in range(rows):
            src = W.shape[0] - 1 if i == rows - 1 else i
            for j in range(cols):
                v = float(W[src, j])
                cells.append({"x": 40 + j * cell, "y": 10 + i * cell, "fill": _colour(v, vmax),
                              "title": f"{'bias' if src == W.shape[0] - 1 else f'in {src + 1}'} -> unit {j + 1}: {v:.6g}"})
        maps.append({"title": f"layer {li + 1} ({L.activation}): {L.weight.shape[0]} inputs + bias x {L.units} units",
                     "cell": cell, "cells": cells, "width": 60 + cols * cell, "height": 20 + rows * cell,
                     "cut": W.shape[0] > rows or W.shape[1] > cols, "vmax": vmax,
                     "nonzero": int(np.count_nonzero(np.abs(L.weight) > 1e-9)), "size": L.weight.size})
    return maps


def _patterns(net: TrainedNetwork, data) -> dict | None:
    """Hidden activations over the distinct input rows of ``data`` (the first MAX_PATTERNS)."""
    if data is None or len(net.layers) < 2:
        return None
    rows, counts = np.unique(data.X, axis=0, return_counts=True)
    order = np.argsort(-counts, kind="stable")[:MAX_PATTERNS]
    rows, counts = rows[order], counts[order]
    outs = net.forward(rows)
    hidden = outs[:-1]
    pred = np.argmax(outs[-1], axis=1)
    table = []
    for r in range(len(rows)):
        cells = []
        for li, a in enumerate(hidden):
            top = float(np.abs(a).max(initial=0.0)) or 1.0
            for v in a[r]:
                cells.append({"value": _fmt(float(v)), "fill": _colour(float(v), top)})
        table.append({"x": " ".join(_fmt(float(v)) for v in rows[r][:12]) + (" ..." if rows.shape[1] > 12 else ""),
                      "count": int(counts[r]), "cells": cells, "pred": str(net.classes[pred[r]])})
    heads = [f"h{li + 1}.{j + 1}" for li, a in enumerate(hidden) for j in range(a.shape[1])]
    distinct = len(np.unique(data.X, axis=0))
    return {"heads": heads, "rows": table, "distinct": distinct, "shown": len(rows)}


def _charts(meta: dict) -> list[dict]:
    """Incumbent and bound over time for every MIP with a recorded trace."""
    charts = []
    for s in meta.get("steps") or []:
        trace = [p for p in (s.get("trace") or []) if isinstance(p, list) and len(p) == 3]
        vals = [v for p in trace for v in p[1:] if isinstance(v, (int, float)) and math.isfinite(v)]
        if not trace or not vals:
            charts.append({"name": s.get("name", "?"), "empty": True})
            continue
        t_max = max(p[0] for p in trace) or 1.0
        lo, hi = min(vals), max(vals)
        # a first incumbent far above the rest (before the search improves it) would flatten
        # the chart: the axis stops at the highest value after it, and the line is clipped
        later = [v for p in trace[1:] for v in p[1:] if isinstance(v, (int, float)) and math.isfinite(v)]
        if later and max(later) > lo:
            hi = max(later)
        if hi - lo < 1e-12:
            lo, hi = lo - 1, hi + 1
        W, H, L, B = 520, 220, 60, 30

        def pt(t, v):
            v = min(v, hi)
            return f"{L + (W - L - 10) * t / t_max:.1f},{H - B - (H - B - 10) * (v - lo) / (hi - lo):.1f}"

        def line(k):  # a step function: the value holds until the next report
            pts, last = [], None
            for p in trace:
                v = p[k]
                if isinstance(v, (int, float)) and math.isfinite(v):
                    if last is not None:
                        pts.append(pt(p[0], last))
                    pts.append(pt(p[0], v))
                    last = v
            return " ".join(pts)

        charts.append({"name": s.get("name", "?"), "empty": False, "W": W, "H": H, "L": L, "B": B,
                       "incumbent": line(1), "bound": line(2), "t_max": _fmt(float(t_max)),
                       "lo": _fmt(float(lo)), "hi": _fmt(float(hi)), "points": len(trace)})
    return charts


def context(net, *, data=None, test=None, source: str = "") -> dict:
    """Everything the template shows, computed here (the template only lays it out);
    ``net`` a :class:`~annc.network.TrainedNetwork` or an :class:`~annc.ensemble.Ensemble`
    (its members drawn, at most MAX_MEMBERS_DRAWN)."""
    from .ensemble import Ensemble
    meta = net.meta or {}
    ensemble = isinstance(net, Ensemble)
    steps = []
    for s in (meta.get("members") or meta.get("batch_runs") or []) + (meta.get("steps") or []):
        steps.append({k: _fmt(s.get(k)) for k in ("name", "status", "objective", "lower_bound", "seconds")}
                     | {"gap": "-" if not isinstance(s.get("gap"), (int, float)) else f"{100 * s['gap']:.2f}%",
                        "verified": "passed" if s.get("verified") else "failed",
                        "solver": (s.get("solver") or {}).get("describe", "-"),
                        "network_from": s.get("network_from", "-")})
    evals = [e for e in (evaluate(net, data, "train") if data is not None else None,
                         evaluate(net, test, "test") if test is not None else None) if e is not None]
    scaling = None
    if net.scaling is not None:
        scaling = {"kind": net.scaling.kind,
                   "rows": [(i + 1, _fmt(float(c)), _fmt(float(w)))
                            for i, (c, w) in enumerate(zip(net.scaling.center, net.scaling.width))][:MAX_HEAT]}
    features = data.features if data is not None else None
    if ensemble:
        drawings = [{"title": f"member {k + 1}: {net.classes[i]} vs {net.classes[j]}", "drawing": _drawing(m, features)}
                    for k, (m, (i, j)) in enumerate(zip(net.members, net.pairs)) if k < MAX_MEMBERS_DRAWN]
        architecture = (f"one-vs-one ensemble of {len(net.members)} networks "
                        + " - ".join([str(net.inputs)] + [f"{L.units} {L.activation}" for L in net.members[0].layers]))
    else:
        drawings = [{"title": "", "drawing": _drawing(net, features)}]
        architecture = " - ".join([str(net.layers[0].weight.shape[0])]
                                  + [f"{L.units} {L.activation}" for L in net.layers])
    layers = [] if ensemble else net.layers
    return {
        "title": f"annc report: {Path(source).name or 'network'}", "source": source, "version": __version__,
        "verdict": verdict_words(meta), "status": meta.get("status", "unknown"),
        "solver": meta.get("solver", "-"), "training": meta.get("training", "-"),
        "spec_path": meta.get("spec", "-"), "spec_text": meta.get("spec_text") or "",
        "classes": [str(c) for c in net.classes], "steps": steps, "evals": evals, "scaling": scaling,
        "architecture": architecture, "nonzero": net.nonzero_weights(),
        "weights": int(sum(L.weight.size for m in (net.members if ensemble else [net]) for L in m.layers)),
        "drawings": drawings, "members_cut": len(net.members) - len(drawings) if ensemble else 0,
        "heatmaps": _heatmaps(net) if layers else [], "patterns": None if ensemble else _patterns(net, data),
        "charts": _charts(meta), "truncated": meta.get("truncated"),
        "selection": meta.get("selection"),
    }


def render(net: TrainedNetwork, *, data=None, test=None, source: str = "") -> str:
    """The HTML page (a string)."""
    from jinja2 import Environment, PackageLoader, select_autoescape
    env = Environment(loader=PackageLoader("annc", "templates"), autoescape=select_autoescape(["j2", "html"]),
                      trim_blocks=True, lstrip_blocks=True)
    return env.get_template("report.html.j2").render(**context(net, data=data, test=test, source=source))


def write_report(net: TrainedNetwork, path: str | Path, *, data=None, test=None, source: str = "") -> Path:
    """Write the page to ``path`` atomically (:func:`annc.outputs.atomic_write_text`: never a
    half-written file; a missing folder is created); return the path."""
    path = check_out_file(path)
    return atomic_write_text(path, render(net, data=data, test=test, source=source))


__all__ = ["Evaluation", "context", "evaluate", "render", "verdict_words", "write_report"]
