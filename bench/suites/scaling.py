"""How annc's time, memory and accuracy grow with the rows: 1,000 to 100,000 rows of noisy moons.

Each size ``n`` is ``make_moons(n, noise=0.3, random_state=0)``, split 70/30 (stratified,
``random_state=0``).  annc trains the default recipe (``input 2 / hidden 4 binary / output 2``)
with HiGHS on one thread under ``--time-limit`` (``--limits``, one per size), in a fresh
process each (``multiprocessing`` spawn), which reports its own wall time and peak resident
memory (``ru_maxrss``).  ``--workers 0,2`` runs each size once per entry: 0 in one process,
N with ``workers=N`` (a local Dask cluster of N worker processes, which the large-data path
uses above 10,000 distinct rows).  **Memory of the whole run**: this process samples, every
0.1 s, the resident memory of the annc process and of every process below it (the Dask
nanny's worker processes included) and records the largest sum (``peak_gb_tree``; psutil).
``peak_gb`` is the annc process alone (``ru_maxrss``): the two agree without workers, up to
the sampling.  In the same run, on the same split: L1 logistic regression
(liblinear, C=1), a best-of-5 ``MLPClassifier(4)`` (lbfgs, the best training accuracy of seeds
0-4) and a depth-3 tree, each on min-max scaled features.

Writes one JSON line per (size, method) to ``<out>/runs.jsonl`` and a table to
``<out>/summary.md``.  Usage::

    python bench/run.py scaling --sizes 1000,10000,100000 --limits 60,60,120
    python bench/run.py scaling --sizes 1000,10000,100000 --limits 60,60,300 --workers 0,2
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import platform
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np


def _data(n: int):
    from sklearn.datasets import make_moons
    from sklearn.model_selection import train_test_split
    X, y = make_moons(n_samples=n, noise=0.3, random_state=0)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def _annc(n: int, limit: float, workers: int, queue) -> None:
    import resource

    import annc
    Xtr, Xte, ytr, yte = _data(n)
    lines = []
    t0 = time.perf_counter()
    r = annc.train("input 2\nhidden 4 binary\noutput 2\n", (Xtr, ytr), test=(Xte, yte), time_limit=limit,
                   threads=1, out_dir=None, **({"workers": workers} if workers else {}))
    v = r.verdict
    queue.put({"seconds": round(time.perf_counter() - t0, 2), "workers": workers,
               "where": (v.compression or {}).get("where") if v is not None else None,
               "times": r.steps[0].times if r.steps else None,
               "peak_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 3),
               "test_accuracy": r.test_accuracy, "train_accuracy": r.train_accuracy,
               "nonzero_weights": r.network.nonzero_weights(), "status": r.status.value,
               "compressed": bool(v is not None and v.compression)})


def _tree_rss(pid: int) -> int:
    """Resident bytes of process ``pid`` and every process below it (0 once it is gone)."""
    import psutil
    try:
        p = psutil.Process(pid)
        procs = [p] + p.children(recursive=True)
    except psutil.Error:
        return 0
    total = 0
    for q in procs:
        try:
            total += q.memory_info().rss
        except psutil.Error:
            pass
    return total


def _run_annc(ctx, n: int, limit: float, workers: int) -> dict:
    """One annc run in a fresh process, its process tree's memory sampled from here."""
    q = ctx.Queue()
    p = ctx.Process(target=_annc, args=(n, limit, workers, q))
    p.start()
    peak = 0
    rec = None
    while rec is None:
        peak = max(peak, _tree_rss(p.pid))
        try:
            rec = q.get(timeout=0.1)
        except Exception:  # queue.Empty: still running
            if not p.is_alive():
                raise RuntimeError(f"the annc run of {n} rows ended without a result (exit {p.exitcode})")
    p.join()
    rec["peak_gb_tree"] = round(peak / 1e9, 3)
    return rec


def _baselines(n: int) -> dict:
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import MinMaxScaler
    from sklearn.tree import DecisionTreeClassifier
    Xtr, Xte, ytr, yte = _data(n)
    s = MinMaxScaler().fit(Xtr)
    Xtr, Xte = s.transform(Xtr), s.transform(Xte)
    out = {}
    t0 = time.perf_counter()
    m = LogisticRegression(l1_ratio=1, solver="liblinear", C=1, max_iter=5000).fit(Xtr, ytr)
    out["logreg_l1"] = (m.score(Xte, yte), time.perf_counter() - t0)
    t0 = time.perf_counter()
    fits = [MLPClassifier((4,), solver="lbfgs", max_iter=2000, random_state=s).fit(Xtr, ytr) for s in range(5)]
    best = max(fits, key=lambda f: f.score(Xtr, ytr))
    out["mlp_best5"] = (best.score(Xte, yte), time.perf_counter() - t0)
    t0 = time.perf_counter()
    t = DecisionTreeClassifier(max_depth=3, random_state=0).fit(Xtr, ytr)
    out["tree3"] = (t.score(Xte, yte), time.perf_counter() - t0)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--limits", default="60,60,120")
    ap.add_argument("--workers", default="0", help="comma-separated: 0 (one process) or N Dask workers; "
                    "each size runs once per entry")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",")]
    workers = [int(w) for w in a.workers.split(",")]
    limits = [float(s) for s in a.limits.split(",")]
    if len(limits) != len(sizes):
        ap.error("give one limit per size")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    ctx = mp.get_context("spawn")
    rows = []
    with open(out / "runs.jsonl", "a") as f:
        for n, limit in zip(sizes, limits):
            for w in workers:
                rec = _run_annc(ctx, n, limit, w)
                rec.update({"n": n, "method": "annc", "time_limit": limit, "date": str(date.today())})
                f.write(json.dumps(rec) + "\n")
                f.flush()
                rows.append(rec)
            for name, (acc, secs) in _baselines(n).items():
                b = {"n": n, "method": name, "test_accuracy": acc, "seconds": round(secs, 2), "date": str(date.today())}
                f.write(json.dumps(b) + "\n")
                rows.append(b)
            f.flush()
    lines = [f"# Scaling: noisy moons, 1k to 100k rows ({date.today()}, {platform.processor() or platform.machine()}, "
             f"python {sys.version.split()[0]})", "",
             "| rows | workers | limit (s) | annc wall (s) | peak memory, annc process (GB) | peak memory, with its "
             "workers (GB) | annc test % | weights | representatives | L1 logreg % | best-of-5 MLP % | tree depth 3 % |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for n in sizes:
        r = {x["method"]: x for x in rows if x["n"] == n and x["method"] != "annc"}
        for an in (x for x in rows if x["n"] == n and x["method"] == "annc"):
            lines.append(f"| {n:,} | {an['workers'] or '-'} | {an['time_limit']:g} | {an['seconds']:.1f} | "
                         f"{an['peak_gb']:.2f} | {an['peak_gb_tree']:.2f} | {100 * an['test_accuracy']:.1f} | "
                         f"{an['nonzero_weights']} | {'yes' if an['compressed'] else 'no'} | "
                         + " | ".join(f"{100 * r[m]['test_accuracy']:.1f}" for m in ("logreg_l1", "mlp_best5", "tree3"))
                         + " |")
    text = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
