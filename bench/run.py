"""annc's benchmark suite: one entry point for every suite, and for the page made from their results.

    python bench/run.py list                       # the suites, what each measures, its defaults
    python bench/run.py SUITE [ARGS...]            # run one suite (ARGS are the suite's own options)
    python bench/run.py docs                       # write docs/benchmarks.md and the README's tables

A suite run goes to ``bench/results/<YYYY-MM-DD>_<short commit>/<SUITE>/`` (``bench/results.py``):
what the suite writes, its console output (``log.txt``) and a header (``run.json``: command,
machine, date, load before and after).  ARGS override the suite's defaults option by option
(``bench/registry.py``); ``--results DIR`` writes under another results folder, ``--note TEXT``
adds a line to the header (what else ran on the machine, say).  ``python -m bench`` is the same
command.  The suites take the machine for minutes to an hour: run them on a quiet machine, one
at a time, never in CI.
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import results as layout  # noqa: E402
from bench.registry import SUITES, Suite  # noqa: E402


def _groups(args: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Positional arguments, and each option with the values after it (``--sets a,b``)."""
    positional, options, current = [], {}, None
    for a in args:
        if a.startswith("-") and len(a) > 1 and not a[1:2].isdigit():
            current = a.split("=", 1)[0]
            options[current] = [a] if "=" in a else []
            if "=" in a:
                options[current] = [a.split("=", 1)[1]]
                current = None
        elif current is not None:
            options[current].append(a)
        else:
            positional.append(a)
    return positional, options


def suite_args(suite: Suite, given: list[str]) -> list[str]:
    """The suite's defaults with ``given`` laid over them, option by option."""
    dpos, dopts = _groups(list(suite.defaults))
    gpos, gopts = _groups(given)
    merged = {**dopts, **gopts}
    out = list(gpos or dpos)
    for flag, values in merged.items():
        out += [flag, *values]
    return out


def suite_command(suite: Suite, args: list[str], folder: Path) -> list[str]:
    module = "bench." + suite.script[:-3].replace("/", ".")
    cmd = [sys.executable, "-m", module, *args]
    if suite.out is not None:
        option, name = suite.out
        cmd += [option, str((folder / name) if name else folder)]
    return cmd


def run_suite(name: str, given: list[str], results: Path = layout.RESULTS, note: str = "") -> int:
    suite = SUITES[name]
    args = suite_args(suite, given)
    started = datetime.now(timezone.utc)
    folder = layout.run_folder(name, results, started)
    cmd = suite_command(suite, args, folder)
    header = dict(suite=name, command=shlex.join(["python", "bench/run.py", name, *args]),
                  suite_command=shlex.join(["python", *cmd[1:]]), argv=args, date=f"{started:%Y-%m-%d}",
                  started=started.isoformat(timespec="seconds"), commit=layout.short_commit(), dirty=layout.dirty(),
                  machine=layout.machine(), load={"before": layout.load_average()}, note=note)
    previous = layout.read_header(folder)  # an earlier run into the same folder (a suite split by --sets, say)
    if previous:
        header["earlier"] = previous.pop("earlier", []) + [previous]
    layout.write_header(folder, **header)
    print(f"bench: {name} -> {folder}", flush=True)
    t0 = time.perf_counter()
    env = {**__import__("os").environ, "PYTHONPATH": str(layout.ROOT)}
    with (folder / "log.txt").open("a") as log, subprocess.Popen(
            cmd, cwd=layout.ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        for line in proc.stdout:
            sys.stdout.write(line)
            log.write(line)
        code = proc.wait()
    header.update(ended=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                  seconds=round(time.perf_counter() - t0, 1), exit_code=code)
    header["load"]["after"] = layout.load_average()
    layout.write_header(folder, **header)
    print(f"bench: {name} exit {code}; results in {folder.relative_to(layout.ROOT) if folder.is_relative_to(layout.ROOT) else folder}")
    return code


def list_suites() -> str:
    lines = []
    for s in SUITES.values():
        lines.append(f"{s.name:20} {s.what}")
        lines.append(f"{'':20} default: python bench/run.py {s.name} {shlex.join(s.defaults)}".rstrip())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = argparse.ArgumentParser(prog="python bench/run.py", description=__doc__.splitlines()[0], allow_abbrev=False,
                                 epilog="suites: " + ", ".join(SUITES) + "; also: list, docs")
    ap.add_argument("suite", choices=[*SUITES, "list", "docs"])
    ap.add_argument("--results", type=Path, default=layout.RESULTS, help="the results folder (default bench/results)")
    ap.add_argument("--note", default="", help="a line for the run's header (what else ran on the machine)")
    ap.add_argument("--page", type=Path, default=layout.ROOT / "docs" / "benchmarks.md", help="docs: the page to write")
    ap.add_argument("--readme", type=Path, default=layout.ROOT / "README.md", help="docs: the README whose tables to fill")
    a, rest = ap.parse_known_args(argv)
    if a.suite == "list":
        print(list_suites())
        return 0
    if a.suite == "docs":
        if rest:
            ap.error(f"docs takes no suite arguments: {' '.join(rest)}")
        from bench.render import write_docs
        for path in write_docs(a.results, a.page, a.readme):
            print(f"wrote {path}")
        return 0
    return run_suite(a.suite, rest, a.results, a.note)


if __name__ == "__main__":
    sys.exit(main())
