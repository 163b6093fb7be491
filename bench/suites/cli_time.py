"""``annc train`` as its user times it: the wall time of the command, from the shell, against its
``--time-limit`` (imports, reading the data and Python's exit included), for one or more copies of
annc's code (a checkout or an unpacked ``git archive``), run alternately so that each repeat sees
the same machine.

    python bench/run.py cli_time --code now=. --code before=/tmp/annc_before --sets breast_cancer,moons \\
        --limits 10,30 --repeats 2

Writes ``runs.jsonl`` (one line per run) and ``summary.md`` (medians) in ``--out``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: bench.real


def _write_set(name: str, folder: Path) -> tuple[Path, Path]:
    """The set's training rows of split 0 (``bench.real.sets.splits``) as a CSV, and the default recipe's spec."""
    from bench.real.sets import splits
    from annc.io.datasets import write_csv
    _, Xtr, ytr, _, _ = next(iter(splits(name, 1)))
    import numpy as np
    classes = len(np.unique(ytr))
    csv = write_csv(folder / f"{name}.csv", np.asarray(Xtr, float), np.asarray(ytr))
    spec = folder / f"{name}.ann"
    spec.write_text(f"input {np.asarray(Xtr).shape[1]}\nhidden 4 binary\noutput {classes}\n")
    return spec, csv


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--code", action="append", required=True, metavar="NAME=PATH")
    p.add_argument("--sets", default="breast_cancer,moons")
    p.add_argument("--limits", default="10,30")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    codes = [c.split("=", 1) for c in a.code]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="cli_time."))
    inputs = {name: _write_set(name, work) for name in a.sets.split(",")}
    rows = []
    with open(out / "runs.jsonl", "w") as fh:
        for rep in range(a.repeats):
            for name, (spec, csv) in inputs.items():
                for limit in (float(x) for x in a.limits.split(",")):
                    for code, path in codes:  # alternately: each repeat sees the same machine
                        env = dict(os.environ, PYTHONPATH=str(Path(path).resolve()))
                        t0 = time.perf_counter()
                        proc = subprocess.run([sys.executable, "-m", "annc.app.cli", "train", str(spec), str(csv),
                                               "--time-limit", f"{limit:g}", "-q", "-o", str(work / "o")],
                                              capture_output=True, text=True, env=env, cwd=work)
                        wall = time.perf_counter() - t0
                        row = {"code": code, "set": name, "limit": limit, "repeat": rep, "wall": round(wall, 2),
                               "exit": proc.returncode}
                        rows.append(row)
                        fh.write(json.dumps(row) + "\n")
                        fh.flush()
                        print(row, flush=True)
    lines = [f"# `annc train` timed from the shell against its --time-limit",
             "", f"{date.today()}, {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}.",
             "Command: `python bench/suites/cli_time.py " + " ".join(argv if argv is not None else sys.argv[1:]) + "`", "",
             "| set | limit (s) | " + " | ".join(f"{c} median wall (s) | {c} over the limit (s)" for c, _ in codes) + " |",
             "|---|---|" + "---|---|" * len(codes)]
    for name in inputs:
        for limit in (float(x) for x in a.limits.split(",")):
            cells = []
            for code, _ in codes:
                w = statistics.median(r["wall"] for r in rows if r["code"] == code and r["set"] == name
                                      and r["limit"] == limit)
                cells += [f"{w:.1f}", f"{w - limit:+.1f}"]
            lines.append(f"| {name} | {limit:g} | " + " | ".join(cells) + " |")
    lines += ["", "Exit codes: " + ", ".join(sorted({f"{r['code']} {r['exit']}" for r in rows})) + "."]
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
