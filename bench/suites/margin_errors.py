"""Margin errors of SGD's units at eps 0.1 on the real-data sets: what the default recipe's
eps (:func:`annc.training.warmstart.margin.default_eps`) sees, split by split.

For each set and split of ``bench/real/harness.py`` (same data, same scaling, same width), one
SGD network of the default spec (seed 0), each hidden unit refitted by the LP of
:func:`annc.training.warmstart.pool.repair.refit_unit` to keep SGD's activations clear of the gap (0, 0.1):
the share of training samples it cannot keep clear, per unit, the eps chosen
(0.1 when no unit leaves more than ``NU`` = 2%) and the seconds :func:`default_eps` took.

    python bench/run.py margin_errors [--sets breast_cancer,moons] [--splits 5]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: bench.real
from bench.real.harness import SETS, spec_text, splits  # noqa: E402

from annc.app.api import as_data, as_spec  # noqa: E402
from annc.solve.compiler import build  # noqa: E402
from annc.training.warmstart.margin import WIDE, default_eps, margin_errors  # noqa: E402
from annc.training.warmstart.pool.seeding import sgd_net  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--splits", type=int, default=5)
    a = ap.parse_args(argv)
    print("| set | split | margin errors per unit at eps 0.1 (% of samples) | worst | eps chosen | seconds to choose |")
    print("|---|---|---|---|---|---|")
    for name in a.sets.split(","):
        H = SETS[name][1]
        for i, Xtr, ytr, _, _ in splits(name, a.splits):
            d, k = Xtr.shape[1], len(np.unique(ytr))
            p = build(as_spec(spec_text(d, H, k, f"eps {WIDE}")), as_data((Xtr, ytr))).problem
            t0 = time.perf_counter()
            chosen = default_eps(p)  # what compile and train call (it reads the rows, not the spec's eps)
            seconds = time.perf_counter() - t0
            errors = [100 * e for e in margin_errors(p, sgd_net(p, seed=0), WIDE)]
            print(f"| {name} | {i} | {', '.join(f'{e:.1f}' for e in errors)} | {max(errors):.1f} | {chosen:g} "
                  f"| {seconds:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
