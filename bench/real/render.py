"""The real suite's tables on the benchmark pages and in the README, from its runs' JSON lines.

For each (set, method) the rows of the newest folder that has that pair (:func:`real_latest`), so a
run of annc alone supersedes annc's rows and keeps the baselines of an earlier run; every folder
that supplied rows is listed under the table with its header.  Accuracies and non-zero weights are
means over the splits; times are medians (and the largest) of the runs' wall times.
``bench/render.py`` puts :func:`real_section` on the lab page, :func:`real_verdict` on the user's
page and :func:`readme_block` between the README's ``<!-- bench:real -->`` markers.
"""
from __future__ import annotations

import statistics
from pathlib import Path

from bench import results as layout
from bench.headers import header_lines

BASELINE_COLUMNS = (("logreg_l1", "L1 logreg"), ("mlp_best5", "best-of-5 MLP"), ("streed3", "STreeD depth 3"))
README_COLUMNS = (("logreg_l1", "L1 logreg"), ("streed3", "STreeD depth 3"))  # the README's room: the page has all
ANNC = "default"


def real_latest(results: Path) -> dict[tuple[str, str], tuple[Path, list[dict]]]:
    """(set, method) -> (the newest folder with rows of that pair, those rows)."""
    return layout.latest_pairs("real", results)


def set_order(latest) -> list[str]:
    """The sets in the order the runs met them, newest folder first (the harness runs ``--sets`` in order)."""
    folders = sorted({f for f, _ in latest.values()}, key=lambda f: f.parent.name, reverse=True)
    order = []
    for folder in folders:
        order += [s for (s, _), (f, rows) in latest.items() if f == folder]
    return list(dict.fromkeys(order))


def _mean(values):
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def stats(rows: list[dict]) -> dict:
    ok = [r for r in rows if r.get("status") != "error" and r.get("test_accuracy") is not None]
    seconds = [r["seconds"] for r in rows if r.get("seconds") is not None]
    test, train = _mean(r["test_accuracy"] for r in ok), _mean(r.get("train_accuracy") for r in ok)
    return {
        "runs": len(rows), "errors": len(rows) - len(ok),
        "test": None if test is None else 100 * test, "train": None if train is None else 100 * train,
        "gap": None if test is None or train is None else 100 * (train - test),
        "weights": _mean(r.get("nonzero_weights") for r in ok), "splits": _mean(r.get("splits") for r in ok),
        "median_s": statistics.median(seconds) if seconds else None, "max_s": max(seconds) if seconds else None,
        "limit": rows[0].get("time_limit"),
        "proven": sum(1 for r in ok if r.get("proven") or r.get("status") == "optimal"),
    }


def _f(x, digits=1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _acc_weights(s: dict | None) -> str:
    if s is None:
        return "-"
    if s["weights"] is not None:
        return f"{_f(s['test'])} / {_f(s['weights'], 0 if s['weights'] >= 100 else 1)}"
    return _f(s["test"])


def _sets_with_annc(latest) -> list[str]:
    """The sets with annc's rows: the real sets in ``bench/real/sets.py``'s order, then the others."""
    from bench.real.sets import REAL_SETS
    names = {s for s, m in latest if m == ANNC}
    known = [s for s in REAL_SETS if s in names]
    return known + [s for s in set_order(latest) if s in names and s not in known]


def real_headline(latest, times: bool = True) -> list[str]:
    """The short table (README and page): annc's default recipe against the baselines; ``times``:
    with the train-test gap, annc's median wall time and all of :data:`BASELINE_COLUMNS` (the page),
    else :data:`README_COLUMNS` alone (the README, for room)."""
    columns = BASELINE_COLUMNS if times else README_COLUMNS
    lines = ["| set | annc: test % / weights | " + ("train - test | median time (s) | " if times else "")
             + " | ".join(title for _, title in columns) + " |",
             "|---" * (2 + 2 * times + len(columns)) + "|"]
    for name in _sets_with_annc(latest):
        a = stats(latest[(name, ANNC)][1])
        cells = [name, _acc_weights(a)] + ([_f(a["gap"]), _f(a["median_s"])] if times else [])
        for method, _ in columns:
            cells.append(_acc_weights(stats(latest[(name, method)][1])) if (name, method) in latest else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def real_verdict(latest) -> dict | None:
    """Over the sets with annc's, L1 logistic regression's and STreeD's rows: on how many annc's mean
    test accuracy is within a point of the better of the two; annc's mean non-zero weights against
    L1 logistic regression's (the mean of the per-set ratios, and the ratio of the sums); the mean of
    the per-set train-test gaps and the largest gap of one run; the runs past their limit + 2 s."""
    from bench.real.sets import REAL_SETS
    names = [n for n in _sets_with_annc(latest) if n in REAL_SETS and (n, "logreg_l1") in latest
             and (n, "streed3") in latest]
    if not names:
        return None
    within, ratios, ours, l1s, gaps, worst, late, runs = 0, [], 0.0, 0.0, [], None, 0, 0
    for n in names:
        a, l1, st = (stats(latest[(n, m)][1]) for m in (ANNC, "logreg_l1", "streed3"))
        within += a["test"] >= max(l1["test"], st["test"]) - 1.0
        if a["weights"] is not None and l1["weights"]:
            ratios.append(a["weights"] / l1["weights"])
            ours, l1s = ours + a["weights"], l1s + l1["weights"]
        gaps.append(a["gap"])
        for r in latest[(n, ANNC)][1]:
            runs += 1
            if r.get("train_accuracy") is not None and r.get("test_accuracy") is not None:
                g = 100 * (r["train_accuracy"] - r["test_accuracy"])
                if worst is None or g > worst[0]:
                    worst = (g, n)
            late += r.get("seconds") is not None and r.get("time_limit") is not None \
                and r["seconds"] > r["time_limit"] + 2.0
    return {"sets": len(names), "within": within, "mean_ratio": statistics.fmean(ratios) if ratios else None,
            "ratio_of_means": ours / l1s if l1s else None, "mean_gap": statistics.fmean(gaps),
            "worst_gap": worst, "late": late, "runs": runs}


def verdict_line(v: dict, short: bool = False) -> str:
    worst = f"{v['worst_gap'][0]:.1f} ({v['worst_gap'][1]})" if v["worst_gap"] else "-"
    if short:  # the README's
        return (f"Within a point of the better of L1 logreg and STreeD on {v['within']} of {v['sets']} real sets, with "
                f"{v['mean_ratio']:.2f} times L1 logreg's weights; train - test {v['mean_gap']:.1f} points "
                f"({worst} at worst).")
    return (f"On {v['sets']} real sets with L1 logistic regression and STreeD beside it, annc is within a point of the "
            f"better of the two on {v['within']}; its non-zero weights are {v['mean_ratio']:.2f} times L1 logistic "
            f"regression's (mean of the per-set ratios; {v['ratio_of_means']:.2f} as a ratio of sums); train - test "
            f"is {v['mean_gap']:.1f} points on average, {worst} at worst in one run; {v['late']} of {v['runs']} "
            f"runs ended more than 2 s past their limit.")


def _proven(rows: list[dict], s: dict) -> str:
    """Proofs where the method can prove: annc (status optimal) and STreeD (``proven``); '-' elsewhere."""
    if any("proven" in r or "gap" in r for r in rows):
        return f"{s['proven']} of {s['runs']}"
    return "-"


def real_full(latest) -> list[str]:
    order = {s: i for i, s in enumerate(set_order(latest))}
    lines = ["| set | method | runs | test % | train % | train - test | non-zero weights | tree splits | "
             "median time (s) | max time (s) | limit (s) | proven | results |",
             "|---" * 13 + "|"]
    for (name, method) in sorted(latest, key=lambda p: (order.get(p[0], len(order)), p[0], p[1] != ANNC, p[1])):
        folder, rows = latest[(name, method)]
        s = stats(rows)
        lines.append("| " + " | ".join([
            name, method, str(s["runs"]) + (f" ({s['errors']} errors)" if s["errors"] else ""), _f(s["test"]),
            _f(s["train"]), _f(s["gap"]), _f(s["weights"]), _f(s["splits"]), _f(s["median_s"]), _f(s["max_s"]),
            _f(s["limit"], 0), _proven(rows, s), f"`{folder.parent.name}`"]) + " |")
    return lines


def real_sources(latest) -> list[Path]:
    return sorted({folder for folder, _ in latest.values()}, key=lambda f: f.parent.name, reverse=True)


def real_section(results: Path) -> list[str]:
    latest = real_latest(results)
    if not latest:
        return ["No results yet: `python bench/run.py real`."]
    out = ["annc's default recipe against the baselines, means over the splits (test accuracy %, non-zero "
           "weights; the trees' parameters are their split nodes), wall time as the median of the runs:", ""]
    out += real_headline(latest)
    verdict = real_verdict(latest)
    if verdict:
        out += ["", verdict_line(verdict)]
    out += ["", "Every method, from the newest results that have it:", ""]
    out += real_full(latest)
    out += ["", "Results these tables read (newest first):", ""]
    for folder in real_sources(latest):
        out += header_lines(folder)
    return out


def readme_block(results: Path) -> list[str]:
    latest = real_latest(results)
    if not latest:
        return ["No results yet: `python bench/run.py real`."]
    annc = sorted({latest[p][0].parent.name for p in latest if p[1] == ANNC})
    base = sorted({latest[p][0].parent.name for p in latest if p[1] != ANNC})
    limits = sorted({stats(latest[p][1])["limit"] for p in latest if p[1] == ANNC} - {None})
    splits = sorted({stats(latest[p][1])["runs"] for p in latest if p[1] == ANNC})
    lines = [f"Test accuracy % / non-zero weights, means over {', '.join(map(str, splits))} splits, annc at "
             f"`--time-limit {', '.join(f'{x:g}' for x in limits)}`:", ""]
    lines += real_headline(latest, times=False)
    verdict = real_verdict(latest)
    if verdict:
        lines += ["", verdict_line(verdict, short=True)]
    lines += ["", f"From `bench/results/`: annc {', '.join(f'`{n}`' for n in annc)}; baselines "
              f"{', '.join(f'`{n}`' for n in base)} ([all of it](docs/benchmarks.md#real-data-annc-against-baselines))."]
    return lines
