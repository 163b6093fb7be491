"""Compile benchmark: annc's writer against PuLP's on three problem sizes.

Cases (spec files next to this script; data generated here from a seeded numpy
generator, nothing is downloaded):

  xor     xor.ann     1000 x 5 noisy XOR (annc.io.datasets), 5 binary units, 2 classes
  digits  digits.ann  1797 x 64 digits-like: pixels 0..16, ~50% non-zero, 10 classes
  mnist   mnist.ann   2000 x 784 MNIST-like: pixels 0..255, ~19% non-zero, 10 classes

(one hidden layer of 16 binary units for digits and mnist).  Every run is a fresh
subprocess, so peak memory (``ru_maxrss`` of that process) is not polluted by
another case; each (case, writer) is run ``--repeats`` times and the median reported.

* ``annc``: the full ``annc compile --no-start`` pipeline,
  :func:`annc.training.mip.compiling.compile_files` with ``start=False`` (spec + CSV -> ``.mps``
  + ``.map.json``; the MIP start search is left out: it runs for a time budget, whatever the
  writer).
* ``pulp``: the same pipeline with ``writer="pulp"``: formulate, then
  :func:`annc.io.writers.pulp.write_with_pulp` (an ``LpProblem`` built from the arrays
  and written by PuLP's ``writeMPS``).

Stages are timed inside the pipeline: ``load`` (spec + CSV), ``formulate`` (the arrays:
problem, lowering, model assembly, variable map) and ``write`` (the model file; the
map, a few kB, is written after it); ``compile`` is the whole :func:`compile_files` call and
``process`` the child's wall time from spawn to exit, which adds the interpreter's start and
the imports a user's ``annc compile`` pays.  Throughput is matrix non-zeros per second of the
whole compile.  PuLP is skipped for a case where a run exceeds ``--pulp-timeout``.

The table gives per-field medians; the ratios below it are taken pair by pair (repeat ``i``
of annc against repeat ``i`` of PuLP, run back to back) and given as median (min-max), so
that a burst of load from another user of the machine falls on one pair, not on one writer.

    python bench/run.py compile                              # all cases, 3 repeats
    python bench/run.py compile --cases digits --repeats 5   # the figure docs/benchmarks.md quotes
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CASES = {
    # name: (spec file, description)
    "xor": ("xor.ann", "(a) XOR 1000 x 5, 5 units (annc merges identical inputs: 32 distinct rows)"),
    "digits": ("digits.ann", "(b) digits-size 1797 x 64, 16 units, 10 classes"),
    "mnist": ("mnist.ann", "(c) MNIST-size 2000 x 784, 16 units, 10 classes"),
}
WRITERS = ("annc", "pulp")


# ----------------------------------------------------------------------------- data

def synthetic_images(seed: int, n: int, side: int, classes: int, levels: int,
                     density: float) -> tuple[np.ndarray, np.ndarray]:
    """``n`` images of ``side x side`` pixels in ``0..levels``, about ``density`` non-zero.

    Each class has its own ink probability per pixel (a random template scaled to the
    target density); an inked pixel gets a value in ``1..levels``.
    """
    rng = np.random.default_rng(seed)
    d = side * side
    templates = rng.random((classes, d)) ** 3
    templates = np.clip(templates * density / templates.mean(), 0.0, 0.95)
    y = rng.integers(0, classes, n)
    ink = rng.random((n, d)) < templates[y]
    X = np.where(ink, rng.integers(1, levels + 1, (n, d)), 0)
    return X, y


def make_data(case: str, folder: Path) -> Path:
    """Write the CSV of ``case`` into ``folder`` (deterministic) and return its path."""
    path = folder / f"{case}.csv"
    if path.exists():
        return path
    if case == "xor":
        from annc.io.datasets import xor_data
        X, y = xor_data(1000, noise=0.1, seed=0)
    elif case == "digits":
        X, y = synthetic_images(seed=1, n=1797, side=8, classes=10, levels=16, density=0.5)
    elif case == "mnist":
        X, y = synthetic_images(seed=2, n=2000, side=28, classes=10, levels=255, density=0.19)
    else:
        raise ValueError(case)
    X = np.asarray(X, dtype=np.int64)
    header = ",".join([f"x{i + 1}" for i in range(X.shape[1])] + ["label"])
    tmp = path.with_suffix(".tmp")
    np.savetxt(tmp, np.column_stack([X, y]), fmt="%d", delimiter=",", header=header, comments="")
    tmp.replace(path)
    return path


# ----------------------------------------------------------------------------- one run (child)

def run_once(case: str, writer: str, work: Path) -> dict:
    """Compile ``case`` with ``writer`` in this process; stage times, sizes and peak RSS."""
    import annc.solve.compiler as compiler
    import annc.training.mip.compiling as compiling

    stages: dict[str, float] = {}

    def timed(stage, fn):
        def wrapper(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                stages[stage] = stages.get(stage, 0.0) + time.perf_counter() - t
        return wrapper

    # compile_files and compile_model look these names up in annc.training.mip.compiling at call
    # time, write_artifacts the writers in annc.solve.compiler
    compiling.load_spec_of = timed("load", compiling.load_spec_of)
    compiling.load_data = timed("load", compiling.load_data)
    compiling.build = timed("formulate", compiling.build)
    compiler.write_model = timed("write", compiler.write_model)
    compiler.write_with_pulp = timed("write", compiler.write_with_pulp)

    data = make_data(case, work)
    out = work / f"out-{case}-{writer}-{os.getpid()}"
    t, cpu = time.perf_counter(), time.process_time()
    # start=False: the MIP start search runs for a time budget, not in proportion to the model,
    # and is the same for both writers (``annc compile --no-start``)
    c = compiling.compile_files(BENCH / CASES[case][0], data, out_dir=out,
                                options=compiling.CompileOptions(fmt="mps", writer=writer, start=False))
    total, cpu = time.perf_counter() - t, time.process_time() - cpu
    size = c.model_path.stat().st_size
    for p in out.iterdir():
        p.unlink()
    out.rmdir()
    return {
        "case": case, "writer": writer, "total": total, "cpu": cpu, **stages,
        "nnz": int(c.model.A.nnz), "rows": c.model.num_rows, "cols": c.model.num_cols,
        "file_mb": size / 1e6,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # KiB on Linux
    }


# ----------------------------------------------------------------------------- driver

def run_child(case: str, writer: str, work: Path, timeout: float | None) -> dict | None:
    """One run in a fresh process; ``process`` is its wall time from spawn to exit (the
    interpreter's start and annc's imports included, as a user's ``annc compile`` pays them)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", case, writer, str(work)]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired:
        return None
    process = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"{case}/{writer} failed:\n{p.stderr}")
    return {**json.loads(p.stdout.strip().splitlines()[-1]), "process": process}


def median_run(runs: list[dict]) -> dict:
    """Per-field medians of numeric fields (each field on its own)."""
    out = dict(runs[0])
    for k, v in runs[0].items():
        if isinstance(v, int) and not isinstance(v, bool):  # sizes: the same in every run
            out[k] = statistics.median_low(r[k] for r in runs)
        elif isinstance(v, float):
            out[k] = statistics.median(r[k] for r in runs)
    return out


def pair_ratios(annc: list[dict], pulp: list[dict], field: str) -> list[float]:
    """PuLP's ``field`` over annc's, run by run: repeat ``i`` of each writer ran back to back
    (interleaved), so a pair saw about the same load on the shared machine."""
    return [p[field] / a[field] for a, p in zip(annc, pulp)]


def spread(ratios: list[float], digits: int = 1, unit: str = "x") -> str:
    """``12.3x (10.1-14.2x over 3 pairs)``: the median of ``ratios``, then their range."""
    return (f"{statistics.median(ratios):.{digits}f}{unit} ({min(ratios):.{digits}f}-{max(ratios):.{digits}f}"
            f"{unit} over {len(ratios)} pairs)")


def cpu_model() -> str:
    """The processor's name as Linux gives it (``/proc/cpuinfo``), else what Python knows."""
    info = Path("/proc/cpuinfo")
    lines = info.read_text().splitlines() if info.exists() else []
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")),
                platform.processor() or "processor unknown")


def machine_info() -> str:
    import scipy

    try:
        import pulp
        pulp_version = pulp.__version__
    except ImportError:
        pulp_version = "not installed"
    return (f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {cpu_model()}, "
            f"{platform.machine()} {platform.system()}, "
            f"nproc {os.cpu_count()}, Python {platform.python_version()}, numpy {np.__version__}, "
            f"scipy {scipy.__version__}, PuLP {pulp_version}")


def table(results: dict, runs: dict, timeout: float) -> str:
    """The medians of ``results`` as a table, then per case the ratios of PuLP's runs to
    annc's, each pair of the same repeat (:func:`pair_ratios`), as median (min-max)."""
    lines = [
        "| case | writer | non-zeros | rows x cols | load s | formulate s | write s | compile s "
        "| CPU s | process s | M nnz/s | peak MB | MPS MB |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    notes = []
    for case, by_writer in results.items():
        for writer in WRITERS:
            r = by_writer.get(writer)
            if writer not in by_writer:
                continue
            if r is None:
                lines.append(f"| {case} | {writer} | | | | | | > {timeout:.0f} (skipped) | | | | | |")
                continue
            lines.append(
                f"| {case} | {writer} | {r['nnz']:,} | {r['rows']:,} x {r['cols']:,} | {r.get('load', 0):.2f} "
                f"| {r.get('formulate', 0):.2f} | {r.get('write', 0):.2f} | {r['total']:.2f} | {r['cpu']:.2f} "
                f"| {r['process']:.2f} | {r['nnz'] / r['total'] / 1e6:.2f} | {r['peak_mb']:.0f} | {r['file_mb']:.1f} |")
        a, p = runs[case].get("annc"), runs[case].get("pulp")
        if a and p:
            memory = [1 / x for x in pair_ratios(a, p, "peak_mb")]
            notes.append(
                f"- {case}: annc's throughput is {spread(pair_ratios(a, p, 'total'))} PuLP's for the whole "
                f"compile ({spread(pair_ratios(a, p, 'cpu'))} in CPU time; "
                f"{spread(pair_ratios(a, p, 'write'), 0)} for the write stage alone; "
                f"{spread(pair_ratios(a, p, 'process'))} for the whole process); "
                f"annc's peak memory is {spread(memory, 3, '')} of PuLP's")
    return "\n".join(lines) + "\n\n" + "\n".join(notes) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    ap.add_argument("--writers", default=",".join(WRITERS))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--pulp-timeout", type=float, default=600.0, help="seconds; PuLP runs beyond are skipped")
    ap.add_argument("--work", help="folder for data and outputs (default: a temporary folder)")
    ap.add_argument("--out", default="", help="markdown results (bench/run.py gives its run folder's results.md)")
    ap.add_argument("--child", nargs=3, metavar=("CASE", "WRITER", "WORK"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        case, writer, work = args.child
        print(json.dumps(run_once(case, writer, Path(work))))
        return 0

    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    writers = [w.strip() for w in args.writers.split(",") if w.strip()]
    load_before = "/".join(f"{x:.1f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="annc-bench-") as tmp:
        work = Path(args.work) if args.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        results: dict = {}
        all_runs: dict = {}
        for case in cases:
            make_data(case, work)
            runs: dict = {w: [] for w in writers}
            for i in range(args.repeats):  # interleaved, so that both writers see the same load
                for writer in writers:
                    if runs[writer] is None:
                        continue
                    r = run_child(case, writer, work, args.pulp_timeout if writer == "pulp" else None)
                    if r is None:
                        print(f"{case}/{writer}: over {args.pulp_timeout:.0f} s, skipped", file=sys.stderr)
                        runs[writer] = None
                        continue
                    print(f"{case}/{writer} run {i + 1}: {r['total']:.2f} s, {r['peak_mb']:.0f} MB",
                          file=sys.stderr)
                    runs[writer].append(r)
            results[case] = {w: median_run(rs) if rs else None for w, rs in runs.items()}
            all_runs[case] = runs
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    text = (f"# annc compile benchmark\n\n{machine_info()}; median of {args.repeats} runs, "
            f"each in a fresh process, annc and PuLP runs interleaved; load average (1/5/15 min; the "
            f"machine is shared) {load_before} at the start, {load} at the end.\n\n"
            + "\n".join(f"- {c}: {CASES[c][1]}" for c in cases) + "\n\n"
            + table(results, all_runs, args.pulp_timeout)
            + "\nReproduce: `python bench/run.py compile"
            + (f" --cases {args.cases}" if args.cases != ",".join(CASES) else "")
            + (f" --repeats {args.repeats}" if args.repeats != 3 else "") + "`\n")
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
