"""Run the fuzz targets of ``tests/fuzzing.py`` many times and tally the outcomes.

    python bench/run.py fuzz --examples 10000            # spread over the targets
    python bench/run.py fuzz --examples 2000 --target map

Each example runs ``annc`` in-process on one generated input and is judged by
``fuzzing.judge``: a documented exit code, no internal error or traceback, nothing left
behind on failure.  Unlike the CI tests, a failure does not stop the run: every broken
example is counted, the first few of each kind are kept (``fuzz_failures.txt`` beside
``--out``), and ``--out`` gets the tally with the date, machine and command.
"""
from __future__ import annotations

import argparse
import collections
import os
import platform
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests"))

import fuzzing  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

# the share of the examples each target gets (train runs a solver: fewer)
WEIGHTS = {"spec": 25, "csv": 15, "solution": 15, "other-solution": 10, "map": 15, "weights": 10,
           "data": 8, "train": 2}


def run_target(name: str, examples: int, failures: dict) -> collections.Counter:
    strategy, runner = fuzzing.targets()[name]
    tally = collections.Counter()

    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(args):
        r, bad = runner(*args)
        tally[f"exit {r.code}"] += 1
        if bad:
            kind = bad.split(":")[0]
            tally["broken"] += 1
            kept = failures.setdefault(f"{name}: {kind}", [])
            if len(kept) < 3:
                kept.append(f"{bad}\n  args: {args!r}"[:3000])

    one()
    return tally


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--examples", type=int, default=10000, help="examples in all (default 10000)")
    p.add_argument("--target", choices=list(WEIGHTS), action="append", help="only these targets")
    p.add_argument("--out", type=Path, required=True, help="the tally (markdown); give an absolute path")
    a = p.parse_args(argv)
    names = a.target or list(WEIGHTS)
    total_w = sum(WEIGHTS[n] for n in names)
    os.chdir(tempfile.mkdtemp(prefix="annc-fuzz-cwd-"))  # the map search looks in ./out
    failures: dict = {}
    rows, t0 = [], time.perf_counter()
    for name in names:
        n = max(1, round(a.examples * WEIGHTS[name] / total_w))
        t = time.perf_counter()
        tally = run_target(name, n, failures)
        rows.append((name, tally, time.perf_counter() - t))
        print(f"{name}: {sum(v for k, v in tally.items() if k.startswith('exit'))} examples, "
              f"{tally['broken']} broken, {dict(sorted(tally.items()))}", flush=True)
    seconds = time.perf_counter() - t0
    ran = sum(sum(v for k, v in t.items() if k.startswith("exit")) for _, t, _ in rows)
    broken = sum(t["broken"] for _, t, _ in rows)
    codes = sorted({k for _, t, _ in rows for k in t if k.startswith("exit")}, key=lambda k: int(k.split()[1]))
    lines = [
        "# Fuzzing annc's command line",
        "",
        f"`python bench/suites/fuzz.py --examples {a.examples}" + "".join(f" --target {n}" for n in a.target or [])
        + f"` on {datetime.now(timezone.utc):%Y-%m-%d}, {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}: {ran} examples in {seconds / 60:.1f} min, "
        f"**{broken} broken** (an internal error or traceback, an undocumented exit code, or files left "
        "behind).",
        "",
        "| target | examples | broken | " + " | ".join(codes) + " | minutes |",
        "|---|---:|---:|" + "---:|" * len(codes) + "---:|",
    ]
    for name, t, s in rows:
        lines.append(f"| {name} | {sum(v for k, v in t.items() if k.startswith('exit'))} | {t['broken']} | "
                     + " | ".join(str(t.get(c, 0)) for c in codes) + f" | {s / 60:.1f} |")
    lines += ["", "The targets are described in `tests/fuzzing.py`; exit codes: 0 success, 2 bad input, "
              "3 no solution, 4 verification failed."]
    if failures:
        lines += ["", "First failures of each kind:", ""] + [f"- {k}: {len(v)} kept" for k, v in failures.items()]
        (a.out.parent / "fuzz_failures.txt").write_text(
            "\n\n".join(f"## {k}\n" + "\n".join(v) for k, v in failures.items()) + "\n")
    a.out.write_text("\n".join(lines) + "\n")
    print(f"{ran} examples, {broken} broken; wrote {a.out}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
