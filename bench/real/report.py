"""The summary of ``bench/real/harness.py``'s runs: ``summary.md`` and ``table.csv`` / ``table.json``.

:func:`overview` is the table of issues 36 and 37 (per set and method: mean test and train
accuracy, their gap, non-zero weights or tree splits, wall time against the time limit,
annc's relative gap and proofs, STreeD's proofs); :func:`overview_rows` gives the same rows
as dicts for the CSV and JSON files.  The tables and checks after it are the earlier issues'
(every table reads its keys defensively, so older ``runs.jsonl`` rows still summarise).
"""
from __future__ import annotations

import csv
import json
import math
import os
import platform
import re
import statistics
from datetime import date
from pathlib import Path

from bench.real.recipes import METHODS
from bench.real.baselines import BASELINES, TREES
from bench.real.sets import SETS, chance as set_chance, split_chance, splits

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


def _means(rs):
    """Mean test accuracy and mean non-zero weights over the runs that produced a network."""
    accs = [r["test_accuracy"] for r in rs if r.get("test_accuracy") is not None]
    nnz = [r["nonzero_weights"] for r in rs if r.get("nonzero_weights") is not None]
    return (statistics.mean(accs) if accs else None), (statistics.mean(nnz) if nnz else None)


def _ordered(records, key, order):
    seen = list(dict.fromkeys(r[key] for r in records))
    return [k for k in order if k in seen] + [k for k in seen if k not in order]


def table(records) -> str:
    out = [("| set | H | method | test acc. % (mean ± std) | mean non-zero weights | statuses "
            "| median gap | median time (s) | max time (s) | mean train acc. % |"),
           "|---|---|---|---|---|---|---|---|---|---|"]
    for name in _ordered(records, "set", SETS):
        for method in _ordered([r for r in records if r["set"] == name], "method", METHODS):
            rs = [r for r in records if r["set"] == name and r["method"] == method]
            accs = [r["test_accuracy"] for r in rs if r.get("test_accuracy") is not None]
            nnz = _means(rs)[1]
            out.append(f"| {name} | {rs[0]['H']} | {method} | {_mean_std(accs)} | "
                       f"{'-' if nnz is None else f'{nnz:.1f}'} | {_statuses(rs)} | {_median_gap(rs)} | "
                       f"{statistics.median(r['seconds'] for r in rs):.1f} | {max(r['seconds'] for r in rs):.1f} | "
                       f"{_train_mean(rs)} |")
    return "\n".join(out)


def _train_mean(rs) -> str:
    accs = [r["train_accuracy"] for r in rs if r.get("train_accuracy") is not None]
    return "-" if not accs else f"{100 * statistics.mean(accs):.1f}"


def done_when(records, check: str = "default") -> list[str]:
    """Per set and reference (mlp, mlp_best5, logreg_l1): is ``check`` within 1 point of the
    reference with at most half its non-zero weights, and more than 5 points above chance?"""
    lines = []
    for name in _ordered(records, "set", SETS):
        rs = [r for r in records if r["set"] == name]
        for ref in ("mlp", "mlp_best5", "logreg_l1"):
            label = name if ref == "mlp" else f"{name} vs {ref}"
            (a_acc, a_nnz), (m_acc, m_nnz) = (_means([r for r in rs if r["method"] == m]) for m in (check, ref))
            if None in (a_acc, a_nnz, m_acc, m_nnz):
                lines.append(f"- {label}: n/a (needs runs of both {check} and {ref})")
                continue
            ok_acc = a_acc >= m_acc - 0.01
            ok_nnz = a_nnz <= 0.5 * m_nnz
            chance = set_chance(name)
            ok_chance = a_acc >= chance + 0.05
            lines.append(f"- {label}: {'PASS' if ok_acc and ok_nnz and ok_chance else 'FAIL'}: accuracy "
                         f"{100 * a_acc:.1f} vs {100 * m_acc:.1f} ({'within' if ok_acc else 'not within'} 1 point), "
                         f"non-zero weights {a_nnz:.1f} vs {m_nnz:.1f} ({'at most' if ok_nnz else 'more than'} half), "
                         f"chance {100 * chance:.1f} ({'above' if ok_chance else 'NEAR CHANCE: within 5 points of'} "
                         "the majority class)")
    return lines


# -- issue 30: what the MIP search does, and its done-when checks ----------------------
BOUND_TOL = 1e-6  # a lower bound above this is "> 0" (annc.solve.verdict.ABS_TOL)


def _f(x, fmt="{:.6g}") -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return fmt.format(x)


def _pts(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _median(values):
    vals = [math.inf if v == "inf" else v for v in values if v is not None and v != "-inf"]
    return statistics.median(vals) if vals else None


def _counts(values) -> str:
    counts = {}
    for v in values:
        if v is not None:
            counts[v] = counts.get(v, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) if counts else "-"


def _lb_positive(r) -> bool:
    lb = r.get("lower_bound")
    return lb == "inf" or (isinstance(lb, (int, float)) and lb > BOUND_TOL)


_CHANCE_CACHE: dict = {}


def _run_chance(r) -> float | None:
    """The run's ``chance`` (majority class of its training part, on its test part); rows written
    before it was recorded get it recomputed from their split."""
    if r.get("chance") is not None:
        return r["chance"]
    key = (r["set"], r["split"])
    if key not in _CHANCE_CACHE:
        _CHANCE_CACHE[key] = None
        if r["set"] in SETS:
            for split, _, ytr, _, yte in splits(r["set"], r["split"] + 1):
                if split == r["split"]:
                    _CHANCE_CACHE[key] = split_chance(ytr, yte)
    return _CHANCE_CACHE[key]


def _is_annc(method: str) -> bool:
    return method not in BASELINES


def search_table(records) -> str:
    """Per (set, annc recipe): the start search and what the MIP added (``meta["steps"][0]["search"]``)."""
    out = [("| set | method | runs | median start obj. | median best linear | median final obj. "
            "| median training obj. | found by | added: improved / certificate / none / kept / not recorded "
            "| lower bound > 0 | bound sources | median wall time (s) |"),
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in _ordered(records, "set", SETS):
        for method in _ordered([r for r in records if r["set"] == name and _is_annc(r["method"])], "method",
                               METHODS):
            rs = [r for r in records if r["set"] == name and r["method"] == method]
            added = [r.get("added") for r in rs]
            ad = " / ".join(str(sum(a == k for a in added)) for k in ("improved", "certificate", "none", "kept"))
            ad += f" / {sum(a is None for a in added)}"
            out.append(f"| {name} | {method} | {len(rs)} | {_f(_median(r.get('start_objective') for r in rs))} | "
                       f"{_f(_median(r.get('best_linear') for r in rs))} | "
                       f"{_f(_median(r.get('final_objective') for r in rs))} | "
                       f"{_f(_median(r.get('objective') for r in rs))} | {_counts(r.get('found_by') for r in rs)} | "
                       f"{ad} | {sum(_lb_positive(r) for r in rs)} of {len(rs)} | "
                       f"{_counts(r.get('bound_source') for r in rs)} | "
                       f"{statistics.median(r['seconds'] for r in rs):.1f} | {max(r['seconds'] for r in rs):.1f} | "
                       f"{_train_mean(rs)} |")
    return "\n".join(out)


def _certificate_ok(cert) -> bool:
    """A certificate of at least one hidden unit plus the output layer, judged from its ``size``
    text: empty, naming only the output layer, or starting with "0 hidden" does not count."""
    if not isinstance(cert, dict) or not cert.get("size"):
        return False
    size = str(cert["size"]).strip().lower()
    if re.match(r"0\s*hidden", size):
        return False
    return not ("output" in size and "hidden" not in size and "unit" not in size)


def _run_verdicts(records, check):
    """Per set: [(split, {check number: (verdict 'PASS'/'FAIL'/'n/a', text)})] for the ``check`` runs."""
    l1 = {(r["set"], r["split"]): r.get("test_accuracy") for r in records if r["method"] == "logreg_l1"}
    per_set = {}
    for name in _ordered(records, "set", SETS):
        rows = []
        for r in sorted((r for r in records if r["set"] == name and r["method"] == check), key=lambda r: r["split"]):
            v = {}
            obj, bl = r.get("objective"), r.get("best_linear")
            if obj is None or bl is None or isinstance(bl, str):
                v[1] = ("n/a", f"objective {_f(obj)}, best linear {_f(bl)} (not recorded)")
            else:
                ok = obj <= bl + 1e-6 * max(1.0, abs(bl))
                v[1] = ("PASS" if ok else "FAIL", f"objective {obj:.6g} {'<=' if ok else '>'} best linear {bl:.6g}")
            acc, ch, ref = r.get("test_accuracy"), _run_chance(r), l1.get((name, r["split"]))
            if acc is None or ch is None or ref is None:
                v[2] = ("n/a", f"accuracy {_pts(acc)}, chance {_pts(ch)}, logreg_l1 {_pts(ref)} "
                               f"({'no network' if acc is None else 'needs logreg_l1 on this split'})")
            else:
                near, ref_above = acc <= ch + 0.02 + 1e-9, ref >= ch + 0.10 - 1e-9
                v[2] = ("FAIL" if near and ref_above else "PASS",
                        f"accuracy {_pts(acc)}, chance {_pts(ch)} ({'within' if near else 'more than'} 2 points), "
                        f"logreg_l1 {_pts(ref)} ({'>=' if ref_above else '<'} 10 points above chance)")
            added, cert = r.get("added"), r.get("certificate")
            if added is None:
                v[3] = ("n/a", "added not recorded")
            elif added == "kept":  # model selection kept a logistic separator: the MIP bounds it
                v[3] = ("n/a", "added kept: model selection kept the logistic separator")
            else:
                ok = added == "improved" or (added == "certificate" and _certificate_ok(cert))
                size = f" (size {cert.get('size')!r}, {cert.get('sub_mips')} sub-MIPs)" if isinstance(cert, dict) else ""
                v[3] = ("PASS" if ok else "FAIL", f"added {added}{size}")
            lb = r.get("lower_bound")
            v[4] = ("PASS" if _lb_positive(r) else "FAIL",
                    f"lower bound {_f(lb)}" + (f" ({r['bound_source']})" if r.get("bound_source") else "")
                    + (" (error: no network)" if r.get("status") == "error" else ""))
            rows.append((r["split"], v))
        if rows:
            per_set[name] = rows
    return per_set


CHECKS = {
    1: "no run's exported network has a higher training objective than best_linear (where recorded)",
    2: "no run ends within 2 points of the majority class where logreg_l1 is >= 10 points above it",
    3: ("in >= 2/3 of the runs the MIP added something: 'improved', or 'certificate' of at least one hidden "
        "unit plus the output layer"),
    4: f"the lower bound is > 0 (> {BOUND_TOL:g}) on every run of every set",
}


def issue30_checks(records, check: str = "default") -> list[str]:
    """Issue 30's done-when checks on the ``check`` recipe: per set and per run, PASS/FAIL lines."""
    per_set = _run_verdicts(records, check)
    if not per_set:
        return [f"n/a: no runs of {check}"]
    lines = []
    for c, what in CHECKS.items():
        lines += [f"#### {c}. {what}", ""]
        set_verdicts, all_marks = [], []
        for name, rows in per_set.items():
            marks = [v[c][0] for _, v in rows]
            judged = [m for m in marks if m != "n/a"]
            all_marks += marks
            if c == 3:
                if judged:
                    k = judged.count("PASS")
                    sv = "PASS" if k >= 2 / 3 * len(judged) else "FAIL"
                    text = f"{k} of {len(judged)} recorded runs added something (needs >= 2/3)"
                else:
                    sv, text = "n/a", "added not recorded"
            else:
                sv = "FAIL" if "FAIL" in judged else ("PASS" if judged else "n/a")
                text = f"{judged.count('PASS')} of {len(judged)} judged runs pass" if judged else "no run judged"
            if len(judged) < len(marks):
                text += f"; {len(marks) - len(judged)} of {len(marks)} runs n/a"
            set_verdicts.append(sv)
            lines.append(f"- {name}: {sv}: {text}")
            lines += [f"  - split {split}: {v[c][0]}: {v[c][1]}" for split, v in rows]
        judged = [m for m in all_marks if m != "n/a"]
        if c == 3 and judged:
            k = judged.count("PASS")
            overall = "PASS" if k >= 2 / 3 * len(judged) else "FAIL"
            lines.append(f"- all runs: {overall}: {k} of {len(judged)} recorded runs added something (needs >= 2/3)")
        else:
            sj = [v for v in set_verdicts if v != "n/a"]
            overall = "FAIL" if "FAIL" in sj else ("PASS" if sj else "n/a")
            lines.append(f"- all sets: {overall}: {sj.count('PASS')} of {len(set_verdicts)} sets pass"
                         + (f", {len(set_verdicts) - len(sj)} n/a" if len(sj) < len(set_verdicts) else ""))
        lines.append("")
    return lines


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
    if _is_annc(method):
        return sum(r.get("status") == "optimal" for r in rs), len(rs)
    judged = [r for r in rs if r.get("proven") is not None]
    return (sum(bool(r["proven"]) for r in judged), len(judged)) if judged else None


def overview_rows(records) -> list[dict]:
    """Per (set, method), in ``SETS`` and ``METHODS`` order: the figures of :func:`overview`
    as numbers (accuracies and gaps in points, times in seconds, None where not defined)."""
    rows = []
    for name in _ordered(records, "set", SETS):
        for method in _ordered([r for r in records if r["set"] == name], "method", METHODS):
            rs = [r for r in records if r["set"] == name and r["method"] == method]
            both = [r for r in rs if r.get("test_accuracy") is not None and r.get("train_accuracy") is not None]
            secs = [r["seconds"] for r in rs if r.get("seconds") is not None]
            limits = sorted({r["time_limit"] for r in rs})
            gaps = [r.get("gap") for r in rs] if _is_annc(method) else []
            med_gap = _median(gaps)
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
                                     if s is not None) if _is_annc(method) else None,
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

