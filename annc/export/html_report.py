"""One self-contained HTML page about a trained network (``annc report``, ``annc train --report``).

What it answers, each from annc's own forward pass or from what the weights file
records (never from a solver's claim presented as more than it is):

* the verdict in words: proven optimal, or feasible with the gap to the lower bound;
  every MIP's objective, bound, time and whether its network passed verification
  (``meta["steps"]``); for the weights of ``annc decode`` (``meta["decoded_from"]``), the
  solution file, the verdict on its network (the bound with its source) and what its
  verification checked (``meta["steps"][0]["verification"]``);
* the network as an SVG drawing: a column per layer, an edge per non-zero weight
  (blue positive, red negative, width ``0.6 + 3 |w| / max |w|``), dead units dashed
  grey: a unit is dead when no non-zero weight leads from it to a live unit of the next
  layer (the output units are live), decided from the last layer back - exactly the
  hidden units :meth:`~annc.core.network.TrainedNetwork.pruned` removes; an input is unused
  by the same rule.  Feature and class names label the outer columns: one longer than
  MAX_LABEL_CHARS is cut with an ellipsis (the whole name in its tooltip), and those
  columns stand in far enough for their longest label (:func:`text_width`, generous);
* each layer's weight matrix as a heat map (diverging colours, the value in a tooltip);
* the hidden units' activations over the distinct input rows of ``--data`` (the
  MAX_PATTERNS most frequent rows, with their counts and the predicted class);
* each MIP's incumbent and bound over time (``meta["steps"][k]["trace"]``: points
  ``[seconds, incumbent or null, bound or null]``, drawn as step lines held to the end);
* train and test accuracy with confusion matrices (forward pass on the CSVs given);
* the training objective recomputed: the loss of the network on ``--data`` (rows merged
  as in :mod:`annc.io.problem`, the loss and penalty of the recorded spec,
  :func:`annc.formulations.network_loss`), next to the objective the weights file
  records; both are the same number when ``--data`` is the training data;
* the text columns one-hot encoded, with their categories (:mod:`annc.core.categories`);
* the fills of missing cells, when the network records them (:mod:`annc.core.missing`);
* the input scaling (``x' = (x - center) / width``, which the forward pass applies) and
  the spec text.

An ensemble (:class:`~annc.core.ensemble.Ensemble`) gets a summary per member: its drawing
(at most MAX_MEMBERS_DRAWN), its row of the MIP table (``meta["members"]``), its trace
if recorded; accuracy and confusion matrices are the vote's.

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

from .. import __version__
from ..core.errors import AnncError
from ..core.network import TrainedNetwork
from ..formulations import network_loss
from ..io.outputs import atomic_write_text, check_out_file
from ..io.spec import parse_spec
from ..solve.verdict import closes
from .report_drawing import MAX_HEAT, MAX_LABEL_CHARS, colour, drawing, heatmaps, text_width, used_units  # noqa: F401

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
    return Evaluation(name, str(data.path), len(data.y), float(np.mean(pred == data.y)), conf.tolist())


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return "inf" if math.isinf(v) else f"{v:.6g}"
    return str(v)


NOTHING_PROVEN = ("the lower bound is 0: nothing is proven beyond 'the objective cannot be negative', so judge "
                  "this network by its accuracy on held-out data")


def verdict_words(meta: dict) -> str:
    """The status of the network in words, from what the weights file records (a network
    of ``annc decode`` says so, and whether its verification passed)."""
    steps = meta.get("steps") or []
    if meta.get("training") == "ovo":
        members = meta.get("members") or []
        proven = sum(m.get("status") == "optimal" for m in members)
        return (f"a one-vs-one ensemble of {len(members)} networks, {proven} of them proven optimal on their "
                "own pair of classes; the vote itself has no optimality claim")
    if meta.get("training") == "batches":
        return ("batch training, a heuristic: each batch's MIP is judged on its own rows, and the exported "
                "network has no bound")
    decoded = meta.get("decoded_from")
    if not steps:
        if decoded:
            return (f"decoded from {decoded} by annc decode --no-verify: not verified, nothing is proven about it "
                    f"(the solution file says {meta.get('status', 'nothing')})")
        return "no training record (a network written by hand or by another tool): nothing is proven about it"
    words = _steps_words(meta.get("status"), steps)
    if len(steps) == 1 and steps[0].get("bound_says_nothing"):
        words += "; " + NOTHING_PROVEN
    if decoded:
        passed = "passed" if steps[0].get("verified") else "FAILED"
        words = f"decoded from {decoded} by annc decode, verification {passed}: {words}"
    return words


def _steps_words(status: str | None, steps: list[dict]) -> str:
    """The verdict in words of one MIP (its gap to its bound), or of greedy training's MIPs."""
    if status == "optimal" and all(_proven(s) for s in steps):
        return ("proven optimal: no network of this architecture has a lower training objective"
                if len(steps) == 1 else
                f"every one of the {len(steps)} MIPs of greedy training was proven optimal")
    if status == "optimal":
        return "optimal within the gap asked (--gap), not proven optimal: " + "; ".join(
            f"{s.get('name', 'the MIP')} objective {_fmt(s.get('objective'))}, lower bound {_fmt(s.get('lower_bound'))}"
            for s in steps)
    if len(steps) == 1:
        s = steps[0]
        gap = s.get("gap")
        if status == "feasible" and isinstance(gap, (int, float)) and math.isfinite(gap):
            source = s.get("bound_source")
            return (f"feasible, gap {100 * gap:.1f}% to the lower bound {_fmt(s.get('lower_bound'))} "
                    f"(objective {_fmt(s.get('objective'))}" + (f"; the bound is {source}" if source else "")
                    + "): a network found, not proven optimal")
        return s.get("describe", "")
    weakest = [s["name"] for s in steps if s.get("status") != "optimal"]
    return f"not proven optimal for {', '.join(weakest)} (greedy training: each MIP's verdict below)"


def _proven(step: dict) -> bool:
    """A step's bound meets its objective within the verdict's own tolerance (not only a ``--gap``)."""
    obj, lb = step.get("objective"), step.get("lower_bound")
    return isinstance(obj, (int, float)) and isinstance(lb, (int, float)) and closes(obj, lb)


def _bound(step: dict) -> str:
    """A MIP's lower bound, with where it comes from when recorded (``bound_source``)."""
    source = step.get("bound_source")
    return _fmt(step.get("lower_bound")) + (f" ({source})" if isinstance(source, str) else "")


def decoded_check(meta: dict) -> dict | None:
    """What ``annc decode`` recorded of its verification (None for other weights)."""
    steps = meta.get("steps") or []
    record = steps[0].get("verification") if meta.get("decoded_from") and len(steps) == 1 else None
    if not isinstance(record, dict):
        return None
    viol = record.get("violations") or {}
    return {"path": meta["decoded_from"], "samples": _fmt(record.get("samples")),
            "accuracy": _fmt(record.get("train_accuracy")), "passed": bool(steps[0].get("verified")),
            "violations": ", ".join(f"{k} {_fmt(viol.get(k))}" for k in ("integrality", "bound", "row"))}


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
                cells.append({"value": _fmt(float(v)), "fill": colour(float(v), top), "dark": abs(v) > 0.6 * top})
        table.append({"x": " ".join(_fmt(float(v)) for v in rows[r][:12]) + (" ..." if rows.shape[1] > 12 else ""),
                      "count": int(counts[r]), "cells": cells, "pred": str(net.classes[pred[r]])})
    heads = [f"h{li + 1}.{j + 1}" for li, a in enumerate(hidden) for j in range(a.shape[1])]
    distinct = len(np.unique(data.X, axis=0))
    return {"heads": heads, "rows": table, "distinct": distinct, "shown": len(rows)}


def recomputed_objective(net: TrainedNetwork, data) -> dict | None:
    """The training objective of ``net`` on ``data``, recomputed by annc's forward pass
    with the recorded spec's loss and penalty, next to the objective recorded by training
    (one MIP of full training only: a greedy step's objective is its own layer's).
    ``None`` when there is nothing to recompute (no data, no spec text, an ensemble)."""
    meta = net.meta or {}
    steps = meta.get("steps") or []
    if data is None or not meta.get("spec_text") or len(steps) != 1 or meta.get("training", "full") != "full":
        return None
    try:
        spec = parse_spec(meta["spec_text"], str(meta.get("spec", "<spec>")))
    except AnncError:  # a spec this version of annc cannot read: show the recorded figures only
        return None
    weights = meta.get("weights") or {}
    if weights.get("sample_weight"):  # per-sample weights are not in the weights file: nothing to recompute
        return None
    cw = weights.get("class_weight")
    rows, inverse = np.unique(data.X, axis=0, return_inverse=True)
    counts = np.zeros((len(rows), len(net.classes)))
    np.add.at(counts, (inverse.reshape(-1), data.y), 1.0 if cw is None else np.asarray(cw, float)[data.y])
    loss = float(network_loss(spec, net.forward(rows)[-1], counts, [L.weight for L in net.layers]))
    recorded = steps[0].get("objective")
    if not math.isfinite(loss):
        return {"loss": "not finite", "recorded": _fmt(recorded), "agrees": False}
    agrees = isinstance(recorded, (int, float)) and abs(loss - recorded) <= 1e-6 * max(1.0, abs(recorded))
    return {"loss": _fmt(loss), "recorded": _fmt(recorded), "agrees": agrees, "path": str(data.path)}


def _charts(meta: dict) -> list[dict]:
    """Incumbent and bound over time for every MIP (an ensemble's members, batches, steps);
    ``{"empty": True}`` for a MIP without a recorded trace."""
    return [_chart(s) for s in (meta.get("members") or meta.get("batch_runs") or []) + (meta.get("steps") or [])]


def _chart(s: dict) -> dict:
    """One MIP's chart: step lines through its ``trace`` points ``[seconds, incumbent, bound]``."""
    trace = [p for p in (s.get("trace") or []) if isinstance(p, list) and len(p) == 3
             and isinstance(p[0], (int, float)) and math.isfinite(p[0]) and p[0] >= 0]
    vals = [v for p in trace for v in p[1:] if isinstance(v, (int, float)) and math.isfinite(v)]
    if not trace or not vals:
        return {"name": s.get("name", "?"), "empty": True}
    t_max = max(p[0] for p in trace) or 1.0
    lo, hi = min(vals), max(vals)
    # a first incumbent far above the rest (before the search improves it) would flatten
    # the chart: the axis stops at the highest value after it, and the line is clipped
    later = [v for p in trace[1:] for v in p[1:] if isinstance(v, (int, float)) and math.isfinite(v)]
    if later and max(later) > lo:
        hi = max(later)
    if hi - lo < 1e-12:  # a flat chart (found and proven at once): a band around the value
        pad = max(0.1 * abs(lo), 1e-3)
        lo, hi = lo - pad, hi + pad
    W, H, L, B = 520, 220, 60, 30

    def pt(t, v):
        v = min(v, hi)
        return f"{L + (W - L - 10) * t / t_max:.1f},{H - B - (H - B - 10) * (v - lo) / (hi - lo):.1f}"

    def line(k):  # a step function: the value holds until the next report, and to the end
        pts, marks, last = [], [], None
        for p in trace:
            v = p[k]
            if isinstance(v, (int, float)) and math.isfinite(v):
                if last is not None:
                    pts.append(pt(p[0], last))
                pts.append(pt(p[0], v))
                marks.append([float(c) for c in pt(p[0], v).split(",")])
                last = v
        if last is not None:
            pts.append(pt(t_max, last))
        return " ".join(pts), marks

    yticks = [{"y": float(pt(0, lo + k * (hi - lo) / 4).split(",")[1]), "label": f"{lo + k * (hi - lo) / 4:.4g}"}
              for k in range(5)]
    xticks = [{"x": float(pt(t_max * k / 4, lo).split(",")[0]), "label": f"{t_max * k / 4:.3g} s"}
              for k in range(5)]
    (incumbent, incumbent_marks), (bound, bound_marks) = line(1), line(2)
    return {"name": s.get("name", "?"), "empty": False, "W": W, "H": H, "L": L, "B": B,
            "yticks": yticks, "xticks": xticks, "incumbent": incumbent, "bound": bound,
            "incumbent_marks": incumbent_marks, "bound_marks": bound_marks, "t_max": _fmt(float(t_max)),
            "lo": _fmt(float(lo)), "hi": _fmt(float(hi)), "points": len(trace)}


def context(net, *, data=None, test=None, source: str = "") -> dict:
    """Everything the template shows, computed here (the template only lays it out);
    ``net`` a :class:`~annc.core.network.TrainedNetwork` or an :class:`~annc.core.ensemble.Ensemble`
    (its members drawn, at most MAX_MEMBERS_DRAWN)."""
    from ..core.ensemble import Ensemble
    meta = net.meta or {}
    ensemble = isinstance(net, Ensemble)
    steps = []
    for s in (meta.get("members") or meta.get("batch_runs") or []) + (meta.get("steps") or []):
        steps.append({k: _fmt(s.get(k)) for k in ("name", "status", "objective", "seconds")}
                     | {"lower_bound": _bound(s)}
                     | {"gap": "-" if not isinstance(s.get("gap"), (int, float)) else f"{100 * s['gap']:.2f}%",
                        "verified": "passed" if s.get("verified") else "failed",
                        "rows": _fmt(s.get("rows")),
                        "solver": (s.get("solver") or {}).get("describe", "-"),
                        "network_from": s.get("network_from", "-")})
    evals = [e for e in (evaluate(net, data, "train") if data is not None else None,
                         evaluate(net, test, "test") if test is not None else None) if e is not None]
    scaling = None
    features = data.features if data is not None else (list(net.columns.features) if net.columns else None)
    if net.scaling is not None:
        scaling = {"kind": net.scaling.kind,
                   "rows": [(features[i] if features else i + 1, _fmt(float(c)), _fmt(float(w)))
                            for i, (c, w) in enumerate(zip(net.scaling.center, net.scaling.width))][:MAX_HEAT]}
    categories = [(c, ", ".join(k)) for c, k in net.columns.categories] if net.columns is not None else []
    imputed = [(c, v if isinstance(v, str) else _fmt(v)) for c, v in net.columns.imputed] if net.columns else []
    if ensemble:
        drawings = [{"title": f"member {k + 1}: {net.classes[i]} vs {net.classes[j]}", "drawing": drawing(m, features)}
                    for k, (m, (i, j)) in enumerate(zip(net.members, net.pairs)) if k < MAX_MEMBERS_DRAWN]
        architecture = (f"one-vs-one ensemble of {len(net.members)} networks "
                        + " - ".join([str(net.inputs)] + [f"{L.units} {L.activation}" for L in net.members[0].layers]))
    else:
        drawings = [{"title": "", "drawing": drawing(net, features)}]
        architecture = " - ".join([str(net.layers[0].weight.shape[0])]
                                  + [f"{L.units} {L.activation}" for L in net.layers])
    layers = [] if ensemble else net.layers
    return {
        "title": f"annc report: {Path(source).name or 'network'}", "source": source, "version": __version__,
        "verdict": verdict_words(meta), "status": meta.get("status", "unknown"), "decoded": decoded_check(meta),
        "solver": meta.get("solver", "-"), "training": meta.get("training", "-"),
        "spec_path": meta.get("spec", "-"), "spec_text": meta.get("spec_text") or "",
        "model_file": meta.get("model"), "recomputed": None if ensemble else recomputed_objective(net, data),
        "accuracy_recorded": _fmt(meta.get("train_accuracy")) if "train_accuracy" in meta else None,
        "classes": [str(c) for c in net.classes], "steps": steps, "evals": evals, "scaling": scaling, "categories": categories,
        "imputed": imputed,
        "architecture": architecture, "nonzero": net.nonzero_weights(),
        "weights": int(sum(L.weight.size for m in (net.members if ensemble else [net]) for L in m.layers)),
        "drawings": drawings, "members_cut": len(net.members) - len(drawings) if ensemble else 0,
        "heatmaps": heatmaps(net) if layers else [], "patterns": None if ensemble else _patterns(net, data),
        "charts": _charts(meta), "truncated": meta.get("truncated"),
        "selection": meta.get("selection"), "recipe": meta.get("recipe"),
        "class_weights": class_weights_line(meta, net.classes),
    }


def class_weights_line(meta: dict, classes) -> str | None:
    """The report's one line on the sample weights of the objective (:mod:`annc.core.rowweights`), or None."""
    weights = meta.get("weights") if isinstance(meta, dict) else None
    if not isinstance(weights, dict):
        return None
    cw = weights.get("class_weight")
    text = "none" if cw is None else ", ".join(f"{c}: {_fmt(w)}" for c, w in zip(classes, cw))
    return text + (" (times each sample's own weight)" if weights.get("sample_weight") else "")


def render(net: TrainedNetwork, *, data=None, test=None, source: str = "") -> str:
    """The HTML page (a string)."""
    from jinja2 import Environment, PackageLoader, select_autoescape
    env = Environment(loader=PackageLoader("annc.export", "templates"), autoescape=select_autoescape(["j2", "html"]),
                      trim_blocks=True, lstrip_blocks=True)
    return env.get_template("report.html.j2").render(**context(net, data=data, test=test, source=source))


def write_report(net: TrainedNetwork, path: str | Path, *, data=None, test=None, source: str = "") -> Path:
    """Write the page to ``path`` atomically (:func:`annc.io.outputs.atomic_write_text`: never a
    half-written file; a missing folder is created); return the path."""
    path = check_out_file(path)
    return atomic_write_text(path, render(net, data=data, test=test, source=source))


__all__ = ["Evaluation", "context", "decoded_check", "evaluate", "recomputed_objective", "render", "used_units", "verdict_words",
           "write_report"]
