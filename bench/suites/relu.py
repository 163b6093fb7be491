"""ReLU training that delivers the network it reports (issue: ReLU verdicts), measured.

On the paper's XOR data (1000 training samples, noise 0.1, 250 test samples; seeds
0..S-1), for ReLU nets 5-3-2, 5-5-2 and 5-5-5-2 (weights and biases in [-1, 1]), trains
with ``annc.train`` (HiGHS, one time limit per run) in these variants:

  finish P=4 / P=10    the McCormick relaxation over P pieces, then the exact finish
                       (the solver's hidden layers, the exact output layer,
                       fix-and-optimise; the MIP start is a candidate too): --no-refine
  refine P=4 / P=10    the same, then adaptive refinement of the partitions in the
                       second half of the time limit (the default of `annc train`)
  grid K               `weights [-1, 1] grid K`: an exact MIP over K weight values

and reports, per variant, the medians over seeds of: the exported network's own train
and test accuracy, its objective (its loss by annc's forward pass), the lower bound,
the gap, wall time, and how many runs were proven optimal.

    python bench/run.py relu --seeds 3 --time-limit 60 [--nets 5-3-2,5-5-2] [--variants ...]
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

import annc
from annc.io.datasets import xor_split

NETS = {"5-3-2": [3], "5-5-2": [5], "5-5-5-2": [5, 5]}
VARIANTS = ["finish P=4", "finish P=10", "refine P=4", "refine P=10", "grid 9", "grid 17", "grid 33"]


def spec_text(hidden: list[int], variant: str) -> str:
    kind, _, arg = variant.partition(" ")
    lines = ["input 5"] + [f"hidden {k} relu" for k in hidden] + ["output 2", "bias [-1, 1]", "loss nll"]
    if kind == "grid":
        lines.append(f"weights [-1, 1] grid {arg}")
    else:
        lines += ["weights [-1, 1]", f"P {arg.split('=')[1]}"]
    return "\n".join(lines) + "\n"


def run(net: str, variant: str, seed: int, time_limit: float) -> dict:
    Xtr, ytr, Xte, yte = xor_split(1000, 250, 0.1, seed)
    t0 = time.perf_counter()
    r = annc.train(spec_text(NETS[net], variant), (Xtr, ytr), out_dir=None, time_limit=time_limit, threads=1,
                   refine=not variant.startswith("finish"))
    seconds = time.perf_counter() - t0
    v = r.verdict
    gap = v.gap
    return {"net": net, "variant": variant, "seed": seed, "status": v.status.value, "seconds": round(seconds, 2),
            "objective": v.objective, "lower_bound": v.lower_bound,
            "gap": None if gap is None or not math.isfinite(gap) else gap, "source": v.source,
            "train_accuracy": r.train_accuracy, "test_accuracy": float(np.mean(r.predict_index(Xte) == yte)),
            "nonzero_weights": r.network.nonzero_weights()}


def table(records: list[dict]) -> str:
    med = statistics.median
    out = ["| net | variant | proven optimal | median train acc. | median test acc. | median objective "
           "| median lower bound | median gap | median time (s) | median non-zero weights |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    keys = []
    for r in records:
        if (r["net"], r["variant"]) not in keys:
            keys.append((r["net"], r["variant"]))
    for net, variant in keys:
        rs = [r for r in records if r["net"] == net and r["variant"] == variant]
        lbs = [r["lower_bound"] for r in rs if r["lower_bound"] is not None]
        gaps = [r["gap"] for r in rs if r["gap"] is not None]
        out.append(f"| {net} | {variant} | {sum(r['status'] == 'optimal' for r in rs)}/{len(rs)} | "
                   f"{med(r['train_accuracy'] for r in rs):.3f} | {med(r['test_accuracy'] for r in rs):.3f} | "
                   f"{med(r['objective'] for r in rs):.4g} | {'-' if not lbs else format(med(lbs), '.4g')} | "
                   f"{'-' if not gaps else format(100 * med(gaps), '.1f') + '%'} | "
                   f"{med(r['seconds'] for r in rs):.1f} | {med(r['nonzero_weights'] for r in rs):g} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--nets", default=",".join(NETS))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    jsonl = out / "runs.jsonl"
    records = [json.loads(line) for line in jsonl.read_text().splitlines()] if jsonl.exists() else []
    done = {(r["net"], r["variant"], r["seed"]) for r in records}
    for net in a.nets.split(","):
        for variant in a.variants.split(","):
            for seed in range(a.seeds):
                if (net, variant, seed) in done:
                    continue
                r = run(net, variant, seed, a.time_limit)
                print(json.dumps(r), flush=True)
                records.append(r)
                with jsonl.open("a") as fh:
                    fh.write(json.dumps(r) + "\n")
    md = (f"# ReLU benchmark\n\n{date.today()}, {platform.node()}, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, HiGHS via highspy, one thread, time limit {a.time_limit:g} s per "
          f"run, seeds 0..{a.seeds - 1}, 1000 XOR training samples (noise 0.1), 250 test samples.\n\n"
          f"Command: `python bench/suites/relu.py --seeds {a.seeds} --time-limit {a.time_limit:g}`\n\n"
          + table(records) + "\n")
    (out / "results.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
