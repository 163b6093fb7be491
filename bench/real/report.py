"""The summary of ``bench/real/harness.py``'s runs: ``summary.md`` and ``table.csv`` / ``table.json``.

:func:`overview` is the table of issues 36 and 37 (per set and method: mean test and train
accuracy, their gap, non-zero weights or tree splits, wall time against the time limit,
annc's relative gap and proofs, STreeD's proofs); :func:`overview_rows` gives the same rows
as dicts for the CSV and JSON files.  :func:`table` and the search table and done-when checks of
``bench/real/checks.py`` are the earlier issues' (every table reads its keys defensively, so older
``runs.jsonl`` rows still summarise).
"""
from __future__ import annotations

import csv
import json
import math
import os
import platform
import statistics
from datetime import date
from pathlib import Path

from bench.real.baselines import TREES
from bench.real.checks import done_when, issue30_checks, search_table
from bench.real.recipes import METHODS
from bench.real.rows import is_annc, means, median, ordered, train_mean
from bench.real.sets import SETS


# -- summary ------------------------------------------------------------------------
def _mean_std(values) -> str:
    if not values:
        return "-"
    pts = [100 * v for v in values]
    sd = statistics.stdev(pts) if len(pts) > 1 else 0.0
    return f"{statistics.mean(pts):.1f} ± {sd:.1f}"


def _median_gap(rs) -> str:
    gaps = [math.inf if r.get("gap") == "inf" else r["gap"] for r in rs if r.get("gap") is not None]
    if not gaps:
        return "-"
    g = statistics.median(gaps)
    return "inf" if math.isinf(g) else f"{100 * g:.1f}%"


def _statuses(rs) -> str:
    counts = {}
    for r in rs:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))



def table(records) -> str:
    out = [("| set | H | method | test acc. % (mean ± std) | mean non-zero weights | statuses "
            "| median gap | median time (s) | max time (s) | mean train acc. % |"),
           "|---|---|---|---|---|---|---|---|---|---|"]
    for name in ordered(records, "set", SETS):
        for method in ordered([r for r in records if r["set"] == name], "method", METHODS):
            rs = [r for r in records if r["set"] == name and r["method"] == method]
            accs = [r["test_accuracy"] for r in rs if r.get("test_accuracy") is not None]
            nnz = means(rs)[1]
            out.append(f"| {name} | {rs[0]['H']} | {method} | {_mean_std(accs)} | "
                       f"{'-' if nnz is None else f'{nnz:.1f}'} | {_statuses(rs)} | {_median_gap(rs)} | "
                       f"{statistics.median(r['seconds'] for r in rs):.1f} | {max(r['seconds'] for r in rs):.1f} | "
                       f"{train_mean(rs)} |")
    return "\n".join(out)


# -- the table of issues 36 and 37 --------------------------------------------------------
def _splits_of(r):
    """A tree run's split (internal) nodes: ``splits``, or, in rows written before it was
    recorded apart, the tree's ``nonzero_weights``."""
    if r.get("splits") is not None:
        return r["splits"]
    return r.get("nonzero_weights") if r["method"] in TREES else None


def _mean_of(values):
    vals = [v for v in values if v is not None]
    return statistics.mean(vals) if vals else None


def _proven(rs, method):
    """(proven runs, runs judged) for annc (status optimal) and STreeD (``proven``); None for the rest."""
    if is_annc(method):
        return sum(r.get("status") == "optimal" for r in rs), len(rs)
    judged = [r for r in rs if r.get("proven") is not None]
    return (sum(bool(r["proven"]) for r in judged), len(judged)) if judged else None


def overview_rows(records) -> list[dict]:
    """Per (set, method), in ``SETS`` and ``METHODS`` order: the figures of :func:`overview`
    as numbers (accuracies and gaps in points, times in seconds, None where not defined)."""
    rows = []
    for name in ordered(records, "set", SETS):
        for method in ordered([r for r in records if r["set"] == name], "method", METHODS):
            rs = [r for r in records if r["set"] == name and r["method"] == method]
            both = [r for r in rs if r.get("test_accuracy") is not None and r.get("train_accuracy") is not None]
            secs = [r["seconds"] for r in rs if r.get("seconds") is not None]
            limits = sorted({r["time_limit"] for r in rs})
            gaps = [r.get("gap") for r in rs] if is_annc(method) else []
            med_gap = median(gaps)
            proven = _proven(rs, method)
            tree = method in TREES
            rows.append({
                "set": name, "method": method, "H": rs[0].get("H"), "runs": len(rs),
                "errors": sum(r.get("status") == "error" for r in rs),
                "test_acc": _round(_mean_of(100 * r["test_accuracy"] for r in rs if r.get("test_accuracy") is not None)),
                "train_acc": _round(_mean_of(100 * r["train_accuracy"] for r in rs
                                             if r.get("train_accuracy") is not None)),
                "train_test_gap": _round(_mean_of(100 * (r["train_accuracy"] - r["test_accuracy"]) for r in both)),
                "nonzero_weights": None if tree else _round(_mean_of(r.get("nonzero_weights") for r in rs)),
                "tree_splits": _round(_mean_of(_splits_of(r) for r in rs)) if tree else None,
                "median_seconds": _round(statistics.median(secs)) if secs else None,
                "max_seconds": _round(max(secs)) if secs else None,
                "time_limit": limits[0] if len(limits) == 1 else limits,
                "over_limit_2s": sum(s > lim + 2 for s, lim in ((r.get("seconds"), r["time_limit"]) for r in rs)
                                     if s is not None) if is_annc(method) else None,
                "median_rel_gap": None if med_gap is None else ("inf" if math.isinf(med_gap) else _round(100 * med_gap)),
                "proven": None if proven is None else proven[0],
                "proven_of": None if proven is None else proven[1],
            })
    return rows


def _round(x, nd=2):
    return None if x is None else round(float(x), nd)


def _cell(x, fmt="{:.1f}") -> str:
    if x is None:
        return "-"
    if isinstance(x, (list, str)):
        return str(x)
    return fmt.format(x)


def overview(records) -> str:
    """The table of issues 36 and 37, per set and method (means and medians over the splits)."""
    out = [("| set | method | runs | test acc. % | train acc. % | train−test (pts) | non-zero weights | tree splits "
            "| median time (s) | max time (s) | time limit (s) | annc runs > limit + 2 s | median rel. gap "
            "| proven |"),
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in overview_rows(records):
        runs = f"{r['runs']}" + (f" ({r['errors']} errors)" if r["errors"] else "")
        proven = "-" if r["proven"] is None else f"{r['proven']} of {r['proven_of']}"
        gap = r["median_rel_gap"]
        out.append(f"| {r['set']} | {r['method']} | {runs} | {_cell(r['test_acc'])} | {_cell(r['train_acc'])} | "
                   f"{_cell(r['train_test_gap'])} | {_cell(r['nonzero_weights'])} | {_cell(r['tree_splits'])} | "
                   f"{_cell(r['median_seconds'])} | {_cell(r['max_seconds'])} | {_cell(r['time_limit'], '{:g}')} | "
                   f"{_cell(r['over_limit_2s'], '{}')} | {_cell(gap, '{:.1f}%')} | "
                   f"{proven} |")
    return "\n".join(out)


def write_tables(records, out: Path) -> None:
    """:func:`overview_rows` as ``out/table.csv`` and ``out/table.json`` (for the docs to quote)."""
    rows = overview_rows(records)
    (out / "table.json").write_text(json.dumps(rows, indent=1) + "\n")
    with (out / "table.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["set", "method"])
        w.writeheader()
        for r in rows:
            w.writerow({k: ";".join(map(str, v)) if isinstance(v, list) else ("" if v is None else v)
                        for k, v in r.items()})


def summary(records, command: str, check: str = "default") -> str:
    limits = sorted({r["time_limit"] for r in records})
    run_cmds = list(dict.fromkeys(r.get("command") for r in records if r.get("command")))
    return "\n".join([
        "# annc on real data: annc recipes vs. MLPClassifier, annc SGD and baselines", "",
        (f"{date.today()}, {platform.platform()}, {platform.processor() or platform.machine()}, "
         f"{os.cpu_count()} CPUs, Python {platform.python_version()}; annc with HiGHS on one thread, "
         f"time limit {', '.join(f'{t:g}' for t in limits)} s per run; 70/30 stratified splits "
         f"(random_state=0); accuracy in points over the splits of each row.  Baselines on min-max scaled "
         f"features (text columns one-hot); the trees' parameters are their split nodes (tree splits); "
         f"mlp_best5 is chosen by training accuracy; streed3 is STreeD's optimal depth-3 tree on its quantile "
         f"binarisation (5 thresholds a feature), proven = it proved optimality within the time limit."), "",
        f"Summary command: `{command}`", "",
        "Run commands:", *[f"- `{c}`" for c in run_cmds], "",
        "## Per set and method (issues 36 and 37; also in table.csv and table.json)", "",
        ("Means over the splits: test and train accuracy, their gap (train − test, points), non-zero weights "
         "(|w| > 1e-9, biases and intercepts not counted), tree splits; wall time median and max, with the time "
         "limit; annc's median relative gap (its verdict's) and proven runs (status optimal), STreeD's proven runs."),
        "", overview(records), "",
        "## Earlier tables and checks", "",
        table(records), "",
        ("MIP search per annc recipe (from the network's meta[\"search\"] and meta[\"steps\"][0]; \"-\" where "
         "a run did not record it; objectives are training objectives, medians over the runs):"), "",
        search_table(records), "",
        f"### Done-when checks of issue 30 (recipe {check}; per set, then per run)", "",
        *issue30_checks(records, check),
        (f"### Earlier done-when check (the {check} recipe within 1 point of the reference's mean test accuracy, "
         "with at most half its mean non-zero weights; references mlp, mlp_best5, logreg_l1)"), "",
        *done_when(records, check), ""])

