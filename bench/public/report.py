"""The summary of the ``public`` suite: per-set means, the done-when figures per half, a comparison
of two runs, and the section of docs/benchmarks.md.

Per (set, method) the means over the splits (:func:`set_means`): test, train and balanced test
accuracy (points), non-zero weights (trees: split nodes), seconds, runs, errors.  The figures of
one half (:func:`figures`), on the sets of that half with the needed rows:

* ``within``: the share of sets where annc's ``default`` mean test accuracy is within
  :data:`WITHIN` point of the best of the references :data:`REFERENCES` (L1 logistic regression with
  C by cross-validation, STreeD depth 3, ConTree depth 3), and the same over the multi-class sets;
* ``weights_ratio``: the mean over sets of annc's mean non-zero weights over L1 CV's (sets where
  L1 CV has at least one);
* ``mean_gap`` / ``worst_gap``: annc's train - test gap (points), its mean over the sets of the
  per-set means, and the largest per-set mean (with its set);
* ``minority``: on the minority sets (``bench.public.facts``), annc ``balanced``'s mean balanced test
  accuracy against ``logreg_l1_cv_balanced``'s: how many within :data:`BALANCED_WITHIN` points;
* ``late``: annc runs (default and balanced) that ended more than :data:`LATE` s past their limit;
* ``reference_within``: how hard ``within`` is: the same count for each reference alone and for
  ``cv_choice`` (the best of the three by 3-fold CV on the training rows), on the judged sets
  where that method ran;
* ``missed_by``: the sets annc misses, counted by the reference with the best mean there;
* ``held_within``: annc's count against the best of :data:`HELD` instead (L1 CV, ConTree depth 2 and
  STreeD depth 3 with at most H splits), on the judged sets where all three ran: the trees of
  :data:`REFERENCES` have up to 7 splits, and a network of H step units holds a tree of at most H
  (one unit a split); this is a diagnostic beside the target, not the target.

:func:`compare` lists, for two runs (say 30 s against 120 s), the sets where the second is more
than a point worse in mean test accuracy or more than 1.5 times denser (for "time helps and never
hurts").
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from bench.public.facts import FACTS, HALF_NAMES, MINORITY, half_of

ANNC, BALANCED = "default", "balanced"
REFERENCES = ("logreg_l1_cv", "streed3", "contree3")
HELD = ("logreg_l1_cv", "streed3_h", "contree2")  # references whose trees a width-H network holds exactly
CV_CHOICE = "cv_choice"  # the references chosen among by CV on the training rows (bench.public.methods)
L1, L1_BALANCED = "logreg_l1_cv", "logreg_l1_cv_balanced"
WITHIN, BALANCED_WITHIN, LATE = 1.0, 2.0, 2.0  # points, points, seconds
WORSE, DENSER = 1.0, 1.5  # compare: points worse, times denser
COLUMNS = ("logreg_l1_cv", "logreg_l1_cv_balanced", "streed3", "streed3_h", "contree2", "contree3", "tree3", "mlp_best5")


def _mean(values):
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def _pts(x):
    return None if x is None else 100 * x


def set_means(records) -> dict:
    """(set, method) -> means over the runs that produced a model (accuracies in points)."""
    groups: dict = {}
    for r in records:
        groups.setdefault((r["set"], r["method"]), []).append(r)
    out = {}
    for key, rs in groups.items():
        ok = [r for r in rs if r.get("status") != "error" and r.get("test_accuracy") is not None]
        both = [r for r in ok if r.get("train_accuracy") is not None]
        out[key] = {
            "runs": len(rs), "errors": len(rs) - len(ok),
            "test": _pts(_mean(r["test_accuracy"] for r in ok)), "train": _pts(_mean(r["train_accuracy"] for r in both)),
            "gap": _pts(_mean(r["train_accuracy"] - r["test_accuracy"] for r in both)),
            "balanced": _pts(_mean(r.get("balanced_test_accuracy") for r in ok)),
            "weights": _mean(r.get("nonzero_weights") for r in ok), "splits": _mean(r.get("splits") for r in ok),
            "seconds": _mean(r.get("seconds") for r in rs),
            "late": sum(1 for r in rs if _late(r)),
        }
    return out


def _late(r) -> bool:
    return r.get("seconds") is not None and r.get("time_limit") is not None and r["seconds"] > r["time_limit"] + LATE


def _share(k: int, n: int) -> dict:
    return {"count": k, "of": n, "share": round(k / n, 4) if n else None}


def _ran(means: dict, name: str, methods) -> bool:
    """Every one of ``methods`` has a mean test accuracy on set ``name``."""
    return all((means.get((name, m)) or {}).get("test") is not None for m in methods)


def _meets(means: dict, name: str, method: str, targets=REFERENCES) -> bool:
    """``method``'s mean test accuracy on set ``name`` is within :data:`WITHIN` of the best of ``targets``'."""
    return means[(name, method)]["test"] >= max(means[(name, m)]["test"] for m in targets) - WITHIN


def figures(records, half: str) -> dict:
    """The done-when figures over the sets of ``half`` (``tuning`` or ``report``) in ``records``."""
    means = set_means(records)
    names = list(dict.fromkeys(r["set"] for r in records if half_of(r["set"]) == half))
    judged = [n for n in names if _ran(means, n, (ANNC, *REFERENCES))]
    within, multi_within, multi, ratios, gaps = [], [], [], [], []
    missed_by = dict.fromkeys(REFERENCES, 0)  # the sets annc misses, by the reference that scored best
    for n in judged:
        a = means[(n, ANNC)]
        ok = _meets(means, n, ANNC)
        within.append(ok)
        if not ok:
            missed_by[max(REFERENCES, key=lambda m: means[(n, m)]["test"])] += 1
        if n in FACTS and FACTS[n][2] > 2:
            multi.append(n)
            multi_within.append(ok)
        l1 = means[(n, L1)]["weights"]
        if a["weights"] is not None and l1:
            ratios.append(a["weights"] / l1)
        if a["gap"] is not None:
            gaps.append((a["gap"], n))
    reference_within = {}
    for m in (*REFERENCES, CV_CHOICE):
        ran = [n for n in judged if _ran(means, n, (m,))]
        if ran:
            reference_within[m] = _share(sum(_meets(means, n, m) for n in ran), len(ran))
    minority = []
    for n in names:
        if n in FACTS and FACTS[n][3] < MINORITY:
            b, l1b = means.get((n, BALANCED)) or {}, means.get((n, L1_BALANCED)) or {}
            if b.get("balanced") is not None and l1b.get("balanced") is not None:
                minority.append({"set": n, "balanced": round(b["balanced"], 2), "l1_balanced": round(l1b["balanced"], 2),
                                 "within": b["balanced"] >= l1b["balanced"] - BALANCED_WITHIN})
    held = [n for n in judged if _ran(means, n, HELD)]
    held_hits = sum(_meets(means, n, ANNC, HELD) for n in held)
    annc_runs = [r for r in records if half_of(r["set"]) == half and r["method"] in (ANNC, BALANCED)]
    worst = max(gaps) if gaps else None
    return {
        "half": half, "sets": len(names), "judged": len(judged),
        "within": _share(sum(within), len(within)), "multiclass_within": _share(sum(multi_within), len(multi)),
        "weights_ratio": None if not ratios else round(statistics.fmean(ratios), 3),
        "mean_gap": None if not gaps else round(statistics.fmean(g for g, _ in gaps), 2),
        "worst_gap": None if worst is None else {"gap": round(worst[0], 2), "set": worst[1]},
        "minority": {**_share(sum(m["within"] for m in minority), len(minority)), "sets": minority},
        "late": {"count": sum(_late(r) for r in annc_runs), "of": len(annc_runs)},
        "reference_within": reference_within,
        "held_within": _share(held_hits, len(held)),
        "missed_by": missed_by,
        "errors": {m: sum(1 for r in annc_runs if r["method"] == m and r.get("status") == "error")
                   for m in (ANNC, BALANCED)},
    }


def _f(x, digits=1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _frac(s: dict) -> str:
    return f"{s['count']} of {s['of']}" + (f" ({100 * s['share']:.0f}%)" if s.get("share") is not None else "")


def figure_rows(by_half: dict, references: bool = True) -> list[str]:
    """The figures of each half side by side (a markdown table); ``references``: with the row of how
    often each reference alone meets the target (the README leaves it to docs/benchmarks.md)."""
    halves = [h for h in HALF_NAMES if h in by_half]
    rows = [
        ("sets (judged: annc and the references ran)", lambda f: f"{f['sets']} ({f['judged']})"),
        ("within 1 point of max(L1 CV, STreeD 3, ConTree 3)", lambda f: _frac(f["within"])),
        ("... multi-class sets", lambda f: _frac(f["multiclass_within"])),
        ("... met by L1 CV / STreeD 3 / ConTree 3 alone (/ their CV choice)",
         lambda f: " / ".join(str(f["reference_within"][m]["count"]) for m in (*REFERENCES, CV_CHOICE)
                              if m in f.get("reference_within", {}))),
        ("... within 1 point of the trees 4 units hold: max(L1 CV, ConTree 2, STreeD 3 of 4 splits)",
         lambda f: _frac(f["held_within"]) if f.get("held_within", {}).get("of") else "-"),
        ("weights / L1 CV's (mean ratio)", lambda f: _f(f["weights_ratio"], 2)),
        ("train - test, mean (points)", lambda f: _f(f["mean_gap"])),
        ("train - test, largest set mean", lambda f: "-" if not f["worst_gap"] else
         f"{f['worst_gap']['gap']:.1f} ({f['worst_gap']['set']})"),
        ("minority sets: balanced within 2 points of balanced L1 CV", lambda f: _frac(f["minority"])),
        ("annc runs past limit + 2 s", lambda f: f"{f['late']['count']} of {f['late']['of']}"),
        ("annc errors (default, balanced)", lambda f: f"{f['errors'][ANNC]}, {f['errors'][BALANCED]}"),
    ]
    rows = [r for r in rows if references or not r[0].startswith(("... met by", "... within"))]
    out = ["| figure | " + " | ".join(f"{h} half" for h in halves) + " |", "|---" * (1 + len(halves)) + "|"]
    out += [f"| {title} | " + " | ".join(get(by_half[h]) for h in halves) + " |" for title, get in rows]
    return out


def _cell(m: dict | None, balanced: bool = False) -> str:
    if not m or m.get("test") is None:
        return "-" if not m else f"({m['errors']} errors)"
    acc = _f(m["balanced"] if balanced else m["test"])
    size = m["weights"] if m["weights"] is not None else m["splits"]
    return acc if size is None else f"{acc} / {size:.0f}" if size >= 100 else f"{acc} / {size:.1f}"


def report_table(records) -> list[str]:
    """The user page's table: per set, annc against the references."""
    means = set_means(records)
    out = ["| set | annc | L1 CV | STreeD 3 | ConTree 3 |", "|---|---|---|---|---|"]
    for n in sorted(dict.fromkeys(r["set"] for r in records)):
        got = [means.get((n, m)) for m in (ANNC, *REFERENCES)]
        out.append(f"| {n} | {_cell(got[0])} | {_cell(got[1])} | " + " | ".join(_f(g["test"] if g else None)
                                                                          for g in got[2:]) + " |")
    return out



def set_table(records, methods: tuple[str, ...] = COLUMNS) -> list[str]:
    """Per set: its half, annc (test % / weights, train - test, balanced's balanced accuracy) and the
    baselines ``methods`` (test % / weights or split nodes; the balanced L1's balanced accuracy)."""
    means = set_means(records)
    names = list(dict.fromkeys(r["set"] for r in records))
    methods = [m for m in methods if any(k[1] == m for k in means)]
    out = ["| set | half | classes | minority % | annc default | train - test | annc balanced (bal. acc.) | "
           + " | ".join(m + (" (bal. acc.)" if m == L1_BALANCED else "") for m in methods) + " |",
           "|---" * (7 + len(methods)) + "|"]
    for n in sorted(names, key=lambda n: (HALF_NAMES.index(half_of(n)), n)):
        facts = FACTS.get(n)
        a = means.get((n, ANNC))
        cells = [n, half_of(n), str(facts[2]) if facts else "-", _f(100 * facts[3]) if facts else "-", _cell(a),
                 _f(a["gap"]) if a else "-", _cell(means.get((n, BALANCED)), True)]
        cells += [_cell(means.get((n, m)), m == L1_BALANCED) for m in methods]
        out.append("| " + " | ".join(cells) + " |")
    return out


def by_half(records) -> dict:
    present = {half_of(r["set"]) for r in records}
    return {h: figures(records, h) for h in HALF_NAMES if h in present}


def summary(records, command: str) -> str:
    limits = sorted({r["time_limit"] for r in records if r.get("time_limit") is not None})
    return "\n".join([
        "# annc on the public sets, by half", "",
        (f"annc with HiGHS on one thread, time limit {', '.join(f'{t:g}' for t in limits)} s; 70/30 stratified "
         "splits (random_state=0); means over the splits.  The tuning half chooses annc's rules; the report "
         "half is quoted as it came out (bench/public/facts.py)."), "",
        f"Command: `{command}`", "", "## Done-when figures per half", "", *figure_rows(by_half(records)), "",
        "## Per set (test % / non-zero weights or split nodes)", "", *set_table(records), ""])


def write_tables(records, out: Path) -> None:
    """``table.json``: per (set, method) the means and the set's half; ``figures.json``: per half."""
    rows = [{"set": s, "method": m, "half": half_of(s), **{k: None if v is None else round(v, 3) if isinstance(v, float)
                                                              else v for k, v in v_.items()}}
            for (s, m), v_ in set_means(records).items()]
    (out / "table.json").write_text(json.dumps(rows, indent=1) + "\n")
    (out / "figures.json").write_text(json.dumps(by_half(records), indent=1) + "\n")


def compare(first, second, method: str = ANNC) -> list[str]:
    """The sets where ``second``'s ``method`` is more than :data:`WORSE` point worse in mean test
    accuracy than ``first``'s, or more than :data:`DENSER` times its non-zero weights."""
    a, b = set_means(first), set_means(second)
    names = [s for (s, m) in a if m == method and (s, method) in b]
    worse, denser = [], []
    for n in sorted(names, key=lambda n: (HALF_NAMES.index(half_of(n)), n)):
        x, y = a[(n, method)], b[(n, method)]
        if x["test"] is not None and y["test"] is not None and y["test"] < x["test"] - WORSE:
            worse.append(f"| {n} | {half_of(n)} | {x['test']:.1f} | {y['test']:.1f} | {y['test'] - x['test']:+.1f} |")
        if x["weights"] and y["weights"] is not None and y["weights"] > DENSER * x["weights"]:
            denser.append(f"| {n} | {half_of(n)} | {x['weights']:.1f} | {y['weights']:.1f} | "
                          f"{y['weights'] / x['weights']:.2f}x |")
    return [f"Sets compared ({method}): {len(names)}.", "",
            f"More than {WORSE:g} point worse in the second run: {len(worse)}", "",
            "| set | half | first % | second % | change |", "|---|---|---|---|---|", *worse, "",
            f"More than {DENSER:g} times denser in the second run: {len(denser)}", "",
            "| set | half | first weights | second weights | ratio |", "|---|---|---|---|---|", *denser, ""]


# -- docs/benchmarks.md (bench/render.py) ----------------------------------------------------------
def latest_rows(results: Path) -> dict:
    """(set, method) -> (the newest ``public`` run folder with rows of that pair, those rows)."""
    from bench import results as layout
    return layout.latest_pairs("public", results)


def docs_lines(latest: dict, full: bool = True) -> list[str]:
    """The page's section: the figures of the two halves side by side, then the per-set table (each
    set's half named): every set and method where ``full`` (the lab page), else the report half's sets
    against the references alone, and the tuning half's sets by name (the user's page); the run
    folders it read are the caller's to list."""
    if not latest:
        return ["No results yet: `python bench/run.py public --half tuning` (then `--half report`)."]
    records = [r for _, rows in latest.values() for r in rows]
    halves = by_half(records)
    head = ["The tuning half chooses annc's rules; the report half is run once per change, quoted as it came "
            "out. Means over the splits:", "", *figure_rows(halves), ""]
    for line in (reading(halves[h]) for h in HALF_NAMES if h in halves):
        head += [line, ""] if line else []
    if full:
        return head + ["Per set (test % / non-zero weights, trees: split nodes; the balanced methods: balanced "
                       "accuracy):", "", *set_table(records), "", "Results these tables read (newest first):", ""]
    tuning = sorted({r["set"] for r in records if half_of(r["set"]) == "tuning"})
    return head + ["The report half's sets (test % / non-zero weights; trees: test %; balanced accuracy and "
                   "every method on the lab page):", "",
                   *report_table([r for r in records if half_of(r["set"]) == "report"]), "",
                   f"The tuning half's sets: {', '.join(tuning)}."]


def reading(f: dict, brief: bool = False) -> str:
    """One half's target read (its figures ``f``): whom annc's misses go to, and what choosing among the
    references by CV gives (``brief``: that alone, for the README); '' where there is nothing to say."""
    missed = sum(f["missed_by"].values())
    if not f["judged"] or not missed:
        return ""
    trees = missed - f["missed_by"][L1]
    cv = f["reference_within"].get(CV_CHOICE)
    choice = "" if not cv else (
        f"The target takes the best reference on the test rows: choosing among the three by 3-fold CV on the "
        f"training rows, as annc chooses, meets it on {cv['count']} of {cv['of']} sets.")
    if brief:
        return choice
    out = (f"The {f['half']} half's misses, by the best reference there: {trees} a depth-3 tree (up to 7 splits; 4 "
           f"units hold 4), {f['missed_by'][L1]} L1 logistic regression.")
    return out + (f" {choice}" if choice else "")


def readme_lines(latest: dict, every_set: str = "docs/benchmarks.md") -> list[str]:
    """The README's block: the done-when figures of the report half beside the tuning half's, and the
    run folders they come from; ``every_set``: the link to the per-set table (docs/benchmarks.md's)."""
    if not latest:
        return ["No results yet: `python bench/run.py public --half tuning` (then `--half report`)."]
    records = [r for _, rows in latest.values() for r in rows]
    halves = by_half(records)
    limits = sorted({r["time_limit"] for r in records if r.get("method") in (ANNC, BALANCED) and r.get("time_limit")})
    folders = sorted({f.parent.name for f, _ in latest.values()}, reverse=True)
    read = reading(halves["report"], brief=True) if "report" in halves else ""
    return [f"annc's default recipe at `--time-limit {', '.join(f'{t:g}' for t in limits)}` against L1 logistic "
            "regression (C by CV), STreeD and ConTree depth 3 on 82 real sets from installed packages, 70/30 splits, "
            "means over the splits. The tuning half chose annc's rules; the report half was run once, after:", "",
            *figure_rows(halves, references=False), "", *([read, ""] if read else []),
            f"From `bench/results/`: {', '.join(f'`{n}`' for n in folders)} "
            f"([every set]({every_set}))."]
