"""docs/benchmarks.md (the current tables), docs/benchmarks-runs.md (the runs behind them, for the
lab) and the README's real-data table, written from ``bench/results/``.

``python bench/run.py docs`` calls :func:`write_docs`.  Every figure on the page comes from a
results file: per suite (``bench/registry.py``, in its order) the newest run folder's header
(command, machine, date, load) and

* for ``real``: tables computed from the runs' JSON lines (``bench/real/render.py``).  For each
  (set, method) the rows of the newest folder that has that pair, so a run of annc alone supersedes
  annc's rows and keeps the baselines of an earlier run; every folder that supplied rows is listed
  under the table with its header (``bench/headers.py``).  Accuracies and non-zero weights are means
  over the splits; times are medians (and the largest) of the runs' wall times;
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
from pathlib import Path

from bench import results as layout
from bench.headers import header_lines, rel
from bench.real.render import readme_block, real_latest, real_section, real_verdict, verdict_line
from bench.registry import SUITES

MARK_START, MARK_END = "<!-- bench:real -->", "<!-- /bench:real -->"
PUBLIC_START, PUBLIC_END = "<!-- bench:public -->", "<!-- /bench:public -->"
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
        out += [f"From `{rel(md)}`:", ""] + _demote(md.read_text()) + [""]
    if not out and (folder / "log.txt").exists():
        log = (folder / "log.txt").read_text().rstrip().splitlines()
        out += [f"Console output (`{rel(folder / 'log.txt')}`):", "", "```text", *log, "```"]
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
             "Each suite's newest tables. The runs that made them (command, machine, date, load) and the "
             f"suites' notes: [Benchmark runs]({LAB_PAGE}); earlier findings: "
             "[Benchmark history](benchmarks-history.md).",
             "",  # what each suite measures: `python bench/run.py list`; its newest run: the runs page
             "Suites: " + ", ".join(f"[`{s.name}`](#{_anchor(s.title)})" for s in SUITES.values()) + "."]
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
                lines += header_lines(folder)
            continue
        if not runs:
            lines.append("No results yet.")
            continue
        lines += ["Newest run:", ""] + header_lines(runs[-1]) + [""] + markdown_section(runs[-1])
        if len(runs) > 1:
            lines += ["Earlier runs kept: " + ", ".join(f"`{rel(r)}`" for r in reversed(runs[:-1])) + "."]
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
