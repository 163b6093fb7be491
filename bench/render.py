"""docs/benchmarks.md (the current tables), docs/benchmarks-runs.md (the runs behind them, for the
lab) and the README's real-data table, written from ``bench/results/``.

``python bench/run.py docs`` calls :func:`write_docs`.  Every figure on the page comes from a
results file: per suite (``bench/registry.py``, in its order) the newest run folder's header
(command, machine, date, load) and

* for ``real``: tables computed here from the runs' JSON lines.  For each (set, method) the rows of
  the newest folder that has that pair, so a run of annc alone supersedes annc's rows and keeps the
  baselines of an earlier run; every folder that supplied rows is listed under the table with its
  header.  Accuracies and non-zero weights are means over the splits; times are medians (and the
  largest) of the runs' wall times;
* for ``public``: the same from its runs, with each set's half and the two halves' figures side by
  side (``bench/public/report.py``);
* for every other suite: the markdown the suite wrote (its headings moved two levels down), or,
  where it wrote none, its console output.

The README's figures lie between ``<!-- bench:public -->`` and ``<!-- /bench:public -->`` (the public
suite's done-when figures per half, :func:`bench.public.report.readme_lines`); a README may also hold
the real suite's table between ``<!-- bench:real -->`` and ``<!-- /bench:real -->``.
"""
from __future__ import annotations

import re
import statistics
from pathlib import Path

from bench import results as layout
from bench.registry import SUITES

MARK_START, MARK_END = "<!-- bench:real -->", "<!-- /bench:real -->"
PUBLIC_START, PUBLIC_END = "<!-- bench:public -->", "<!-- /bench:public -->"
BASELINE_COLUMNS = (("logreg_l1", "L1 logreg"), ("mlp_best5", "best-of-5 MLP"), ("streed3", "STreeD depth 3"))
README_COLUMNS = (("logreg_l1", "L1 logreg"), ("streed3", "STreeD depth 3"))  # the README's room: the page has all
ANNC = "default"
# The benchmark scripts before bench/run.py (moved on 2026-12-04: docs/benchmarks-history.md) and
# their suites: a moved run's header and markdown name the old script; the page shows the command
# that runs it today (bench/run.py gives the suite its output option, so the old one is dropped).
FORMER_SCRIPTS = {"realdata.py": "real", "scaling.py": "scaling", "compile_bench.py": "compile",
                  "formulation_bench.py": "formulations", "relu_bench.py": "relu", "start_bench.py": "start",
                  "decomposition.py": "decomposition", "bounds_bench.py": "bounds", "fuzz.py": "fuzz",
                  "cli_time.py": "cli_time", "margin_errors.py": "margin_errors"}
_FORMER = re.compile(r"(?<![\w/.-])(python )?bench/(" + "|".join(map(re.escape, FORMER_SCRIPTS))
                     + r")(?![\w.])([^`;()\n]*)")


def as_today(text: str) -> str:
    """``text`` with each former script named as today's: ``python bench/<former> ARGS`` becomes
    ``python bench/run.py SUITE ARGS`` and a bare ``bench/<former>`` the suite's script."""
    def today(m: re.Match) -> str:
        suite = SUITES[FORMER_SCRIPTS[m.group(2)]]
        if not m.group(1):
            return f"bench/{suite.script}{m.group(3)}"
        args = re.sub(r" (?:-o|--out|--output) \S+", "", m.group(3))
        return f"python bench/run.py {suite.name}{args}"
    return _FORMER.sub(today, text)


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(layout.ROOT))
    except ValueError:
        return str(path)


# -- the real suite ------------------------------------------------------------------------------
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


def _header_lines(folder: Path) -> list[str]:
    h = layout.read_header(folder)
    machine = h.get("machine")
    if isinstance(machine, dict):
        machine = (f"{machine.get('processor')}, {machine.get('cpus')} CPUs, {machine.get('memory_gb')} GiB, "
                   f"Python {machine.get('python')}, {machine.get('platform')}")
    load = h.get("load")
    if isinstance(load, dict):
        load = "1-min load average " + ", ".join(f"{k} {v}" for k, v in load.items() if v is not None)
    out = [f"- `{_rel(folder)}`: {h.get('date', folder.parent.name[:10])}, commit {h.get('commit', '?')}"
           + (" (uncommitted changes)" if h.get("dirty") else "")
           + (f", {h['seconds']:.0f} s" if h.get("seconds") is not None else "")]
    out.append(f"    - command: `{h.get('command', '(not recorded)')}`")
    out.append(f"    - machine: {machine or '(not recorded)'}")
    out.append(f"    - load: {load or '(not recorded)'}")
    if h.get("note"):
        out.append(f"    - note: {h['note']}")
    for e in h.get("earlier", []):
        out.append(f"    - an earlier run into this folder: `{e.get('command')}` ({e.get('started')}, "
                   f"load {e.get('load')})")
    if h.get("migrated_from"):
        out.append(f"    - moved from: {', '.join(f'`{p}`' for p in h['migrated_from'])}")
    return out


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
        out += _header_lines(folder)
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


# -- the other suites ----------------------------------------------------------------------------
def _demote(text: str, levels: int = 2) -> list[str]:
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        out.append("#" * levels + line if not fenced and re.match(r"#{1,4} ", line) else line)
    return out


def markdown_section(folder: Path) -> list[str]:
    out = []
    for md in sorted(folder.rglob("*.md"), key=lambda p: (len(p.relative_to(folder).parts), str(p))):
        out += [f"From `{_rel(md)}`:", ""] + _demote(md.read_text()) + [""]
    if not out and (folder / "log.txt").exists():
        log = (folder / "log.txt").read_text().rstrip().splitlines()
        out += [f"Console output (`{_rel(folder / 'log.txt')}`):", "", "```text", *log, "```"]
    return out or ["(the run folder holds no markdown and no console output)"]


# -- the pages and the README --------------------------------------------------------------------
MAX_ROWS = 5  # of a suite's table on the user's page (the lab page has them all)
LAB_PAGE = "benchmarks-runs.md"  # beside the user's page: every run's header, command, notes and prose


def tables_only(lines: list[str]) -> list[str]:
    """The first table of a suite's markdown (its summary), with the heading just above it: the
    user's page; the prose, the other tables and the run notes stay on the lab page."""
    heading, out = None, []
    for line in lines:
        if line.startswith("|"):
            out.append(line)
        elif out:
            break
        elif re.match(r"#{3,6} ", line):
            heading = line
    if len(out) > 2 + MAX_ROWS:  # header, rule, rows
        out = out[:2 + MAX_ROWS] + ["", f"({len(out) - 2 - MAX_ROWS} more rows on the lab page.)"]
    return ([heading, ""] if heading else []) + out


def user_page(results: Path) -> str:
    """docs/benchmarks.md: each suite's newest tables, nothing else; the runs' headers, commands,
    machines and notes are on the lab page (:data:`LAB_PAGE`, :func:`page`)."""
    lines = ["# Benchmarks", "",
             "<!-- Written by `python bench/run.py docs` from bench/results/: edit bench/render.py, not this page. -->",
             "",
             "What annc measures today: each suite's newest tables. Which run made them (command, machine, "
             f"date, load) and what the suite wrote around them is on [Benchmark runs]({LAB_PAGE}); what "
             "earlier runs found is in [Benchmark history](benchmarks-history.md).",
             "", "| suite | section |", "|---|---|"]
    for s in SUITES.values():  # what each measures: `python bench/run.py list`; its newest run: the runs page
        lines.append(f"| `{s.name}` | [{s.title}](#{_anchor(s.title)}) |")
    for s in SUITES.values():
        runs = layout.suite_runs(s.name, results)
        lines += ["", f"## {s.title}", ""]
        if s.render == "real":
            latest = real_latest(results)
            if not latest:
                lines.append("No results yet.")
                continue
            verdict = real_verdict(latest)
            if verdict:  # the older suite: its rules were chosen on these sets
                lines += [verdict_line(verdict)]
            lines += ["", f"Every set and method, and the runs these tables read: [Benchmark runs]"
                          f"({LAB_PAGE}#{_anchor(s.title)})."]
            continue
        if s.render == "public":  # the report half's figures beside the tuning half's, each set's half named
            from bench.public.report import docs_lines, latest_rows
            latest = latest_rows(results)
            lines += docs_lines(latest, full=False) if latest else ["No results yet."]
            lines += ["", f"Every method and both halves, and the runs these tables read: [Benchmark runs]"
                          f"({LAB_PAGE}#{_anchor(s.title)})."]
            continue
        tables = tables_only(markdown_section(runs[-1])) if runs else []
        more = f"[Benchmark runs]({LAB_PAGE}#{_anchor(s.title)})"
        lines += tables + ["", f"The run, its other tables and notes: {more}."] if tables else \
            [f"No table: see {more}."]
    return as_today("\n".join(lines).rstrip() + "\n")


def _anchor(title: str) -> str:
    """The anchor MkDocs gives a heading (toc's default slugify)."""
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", title).strip().lower())


def page(results: Path) -> str:
    """The lab page (:data:`LAB_PAGE`): every suite's newest run, with its header and all it wrote."""
    lines = ["# Benchmark runs", "",
             "<!-- Written by `python bench/run.py docs` from bench/results/: edit bench/render.py, not this page. -->",
             "",
             "Each suite's newest results, with the command, machine, date and load of the run that made them "
             "(`bench/results/<date>_<commit>/<suite>/run.json`). Run a suite with `python bench/run.py SUITE` "
             "(`python bench/run.py list` names them); `python bench/run.py docs` then rewrites this page and "
             "the README's table. The suites take the machine for minutes to an hour: figures are comparable "
             "within one run, and each run says how busy the machine was. What the lab notes before this suite "
             "recorded, and no suite re-measures, is summarised in [Benchmark history](benchmarks-history.md).",
             "", "| suite | what it measures | newest results |", "|---|---|---|"]
    for s in SUITES.values():
        runs = layout.suite_runs(s.name, results)
        newest = f"`{runs[-1].parent.name}`" if runs else "none yet"
        lines.append(f"| `{s.name}` | {s.what} | {newest} |")
    for s in SUITES.values():
        runs = layout.suite_runs(s.name, results)
        lines += ["", f"## {s.title}", "", f"`python bench/run.py {s.name}` ({s.script}). {s.what}", ""]
        if s.render == "real":
            lines += real_section(results)
            continue
        if s.render == "public":  # bench/public/report.py: the figures per half, each set's half named
            from bench.public.report import docs_lines, latest_rows
            latest = latest_rows(results)
            lines += docs_lines(latest)
            for folder in sorted({f for f, _ in latest.values()}, key=lambda f: f.parent.name, reverse=True):
                lines += _header_lines(folder)
            continue
        if not runs:
            lines.append("No results yet.")
            continue
        lines += ["Newest run:", ""] + _header_lines(runs[-1]) + [""] + markdown_section(runs[-1])
        if len(runs) > 1:
            lines += ["Earlier runs kept: " + ", ".join(f"`{_rel(r)}`" for r in reversed(runs[:-1])) + "."]
    return as_today("\n".join(lines).rstrip() + "\n")


def fill_readme(text: str, block: list[str], marks: tuple[str, str] = (MARK_START, MARK_END)) -> str:
    """``text`` with the lines between the markers ``marks`` replaced by ``block``."""
    start, end = text.find(marks[0]), text.find(marks[1])
    if start < 0 or end < start:
        raise ValueError(f"the README has no {marks[0]} ... {marks[1]} markers")
    return text[:start + len(marks[0])] + "\n" + "\n".join(block) + "\n" + text[end:]


def fill_readme_blocks(text: str, results: Path) -> str:
    """The README's generated blocks filled from ``results``: the public suite's figures, and the real
    suite's table where the README has its markers; a README with neither is refused."""
    from bench.public.report import latest_rows, readme_lines
    every_set = f"docs/benchmarks.md#{_anchor(SUITES['public'].title)}"
    blocks = [((PUBLIC_START, PUBLIC_END), lambda: readme_lines(latest_rows(results), every_set)),
              ((MARK_START, MARK_END), lambda: readme_block(results))]
    present = [(marks, make) for marks, make in blocks if marks[0] in text]
    if not present:
        raise ValueError(f"the README has no {PUBLIC_START} ... {PUBLIC_END} (or {MARK_START} ... {MARK_END}) markers")
    for marks, make in present:
        text = fill_readme(text, make(), marks)
    return text


def write_docs(results: Path, page_path: Path, readme_path: Path | None) -> list[Path]:
    """The user's page ``page_path`` (tables only), the lab page beside it, the README's table."""
    page_path.write_text(user_page(results))
    lab = page_path.with_name(LAB_PAGE)
    lab.write_text(page(results))
    written = [page_path, lab]
    if readme_path is not None:
        readme_path.write_text(fill_readme_blocks(readme_path.read_text(), results))
        written.append(readme_path)
    return written
