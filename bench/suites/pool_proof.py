"""The start pool's proof test (``annc.training.bounds.proof.PoolTest``) on data whose optimum the
bounds that need no sub-MIP reach, and on data where they do not: each set trained with the
test and without it (the baseline: a test that never passes, as before), in the same run,
alternating, ``--reps`` times; medians of the wall time, and each run's objective and status.

    python bench/run.py pool_proof --reps 3 --time-limit 60
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.datasets import make_blobs, make_moons

import annc
from annc.training.bounds.proof import PoolTest

SPEC = "input 2\nhidden {h} binary\noutput 2\n"


def sets():
    X, y = make_blobs(60, centers=3, n_features=2, random_state=0)
    pair = np.isin(y, (0, 1))
    yield "blobs pair (40 rows, separable)", X[pair] * 10, y[pair], 2
    X, y = make_blobs(400, centers=2, n_features=2, cluster_std=1.0, random_state=3)
    yield "blobs (400 rows, separable)", X, y, 4
    rng = np.random.default_rng(0)
    X = np.column_stack([np.linspace(0, 1, 200), rng.random(200)])
    yield "one threshold (200 rows)", X, (X[:, 0] > 0.5).astype(int), 4
    X, y = make_moons(300, noise=0.25, random_state=0)
    yield "moons (300 rows, not proven)", X, y, 4


def run(X, y, h, limit, test: bool):
    real = PoolTest.__call__
    if not test:
        PoolTest.__call__ = lambda self, objective: False  # never passes: its floor stays -inf
    try:
        t = time.perf_counter()
        r = annc.train(SPEC.format(h=h), (X, y), time_limit=limit, out_dir=None, select=False)
        return time.perf_counter() - t, r.steps[0].verdict
    finally:
        PoolTest.__call__ = real


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60)
    a = ap.parse_args()
    print("| set | units | with the test: median s | objective, status | without: median s | objective, status |")
    print("|---|---|---|---|---|---|")
    for name, X, y, h in sets():
        times = {True: [], False: []}
        last = {}
        for _ in range(a.reps):
            for test in (True, False):
                s, v = run(X, y, h, a.time_limit, test)
                times[test].append(s)
                last[test] = f"{v.objective:g}, {v.status.value}"
        print(f"| {name} | {h} | {statistics.median(times[True]):.2f} | {last[True]} | "
              f"{statistics.median(times[False]):.2f} | {last[False]} |", flush=True)


if __name__ == "__main__":
    main()
