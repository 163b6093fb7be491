"""How many hidden activations of an SGD net the start's repair flips, with and without the LP refit.

annc's MIP starts begin from SGD nets whose units must be moved off the eps gap ``(0, eps)``
(:mod:`annc.training.warmstart.pool.repair`).  For each set and eps, on the first ``--splits`` splits of
``bench/real/harness.py`` (features min-max scaled as annc does), one SGD run (``--epochs``,
seed 0, annc's ``train_sgd``) is repaired by :func:`~annc.training.warmstart.pool.repair.repair_network`
twice: as annc does it (bias moved, and where that flips rows the unit's weights refitted by
an LP, :func:`~annc.training.warmstart.pool.repair.refit_unit`), and with the bias alone (the refit switched
off).  Printed: the share of (row, unit) activations that differ from SGD's, and the time.

    python bench/run.py repair_flips [--sets class10,class4,breast_cancer] [--eps 0.01,0.001]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: bench.real
import annc.training.warmstart.pool.repair as repair  # noqa: E402
from annc.app.api import as_data, as_spec  # noqa: E402
from annc.solve.compiler import build  # noqa: E402
from annc.training.warmstart.sgd import SgdSettings, train_sgd  # noqa: E402
from bench.real.harness import SETS, spec_text, splits  # noqa: E402


def flip_share(problem, net, refit: bool) -> tuple[float, float]:
    """(share of flipped activations, seconds) of one repair of ``net``."""
    W0, b0 = net.layers[0].weight, net.layers[0].bias
    before = (problem.X @ W0 + b0) >= 0
    saved = repair.refit_unit
    if not refit:
        repair.refit_unit = lambda *a, **k: None
    try:
        t0 = time.perf_counter()
        done = repair.repair_network(problem, [L.weight for L in net.layers], [L.bias for L in net.layers])
        seconds = time.perf_counter() - t0
    finally:
        repair.refit_unit = saved
    if done is None:
        return float("nan"), seconds
    rows = problem.row_samples
    return float((rows @ (done[2] != before)).sum() / (rows.sum() * before.shape[1])), seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="class10,class4,breast_cancer")
    ap.add_argument("--eps", default="0.01,0.001")
    ap.add_argument("--splits", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3000)
    a = ap.parse_args(argv)
    print("| set | split | eps | flipped, bias alone | flipped, with refit | seconds (refit) |")
    print("|---|---|---|---|---|---|")
    for name in a.sets.split(","):
        H = SETS[name][1]
        for split, Xtr, ytr, _, _ in splits(name, a.splits):
            net = None
            for eps in (float(e) for e in a.eps.split(",")):
                d, k = Xtr.shape[1], len(np.unique(ytr))
                pb = build(as_spec(spec_text(d, H, k, f"eps {eps:g}")), as_data((Xtr, ytr))).problem
                if net is None:  # one SGD net per split (the scaled rows do not depend on eps)
                    net = train_sgd(pb.X_samples, pb.y, [H], "binary", classes=list(range(len(pb.classes))),
                                    settings=SgdSettings(epochs=a.epochs, seed=0))
                alone, _ = flip_share(pb, net, refit=False)
                refit, sec = flip_share(pb, net, refit=True)
                print(f"| {name} | {split} | {eps:g} | {100 * alone:.2f}% | {100 * refit:.2f}% | {sec:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
