"""Formulation strength on the paper's XOR instance, solved by HiGHS (issue: formulation strength).

For two nets, the paper's 5-5-2 (`specs/xor.ann`) and a 3-hidden-layer 5-5-5-5-2, on
1000 XOR samples (noise 0.1) per seed, it solves with HiGHS's default options:

  global M         the paper's single M = 100 on every big-M row
  compounded M     the authors' per-layer M: 6, 31, 156, ... (M_l = 5 M_{l-1} + 1)
  auto             annc's tightest valid M per row (the default)
  unmerged         one row per sample instead of one per distinct input
  sym=bias/count   the spec's `symmetry bias` / `symmetry count` unit orderings
  without loss floor   auto without the valid rows ``lf`` (see annc/formulations/nll.py)
  + start          annc's MIP start (SGD, then fix-and-optimise), as `annc train` does

and reports per variant the median over seeds of: wall time to proven optimum
(formulation + MIP start + solve; the limit when not proven), status counts, objective
and bound at the end, root gap (best objective vs. the bound after the root node),
nodes and test accuracy.

    python bench/run.py formulations --seeds 3 --time-limit 60 [--nets xor,deep3]
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

from annc.io.datasets import xor_split
from annc.solve.decode import decode_network
from annc.formulations import formulate
from annc.solve.compiler import layer_table
from annc.io.problem import make_problem
from annc.solve.solvers import SolveOptions, solve
from annc.io.spec import format_spec, parse_spec
from annc.training.search import mip_start

NETS = {
    "xor": ("5-5-2", [5]),
    "deep3": ("5-5-5-5-2", [5, 5, 5]),
}


def spec_text(hidden: list[int], m: str, symmetry: str = "none") -> str:
    """The spec with big-M setting ``m``: "auto", "global" (100) or "compound" (6, 31, ...)."""
    lines = ["input 5"]
    ms = [6.0]
    for _ in hidden:
        ms.append(5 * ms[-1] + 1)
    for i, k in enumerate(hidden):
        lines.append(f"hidden {k} binary" + (f" {{ M {ms[i]:g} }}" if m == "compound" else ""))
    lines.append("output 2" + (f" {{ M {ms[len(hidden)]:g} }}" if m == "compound" else ""))
    lines += ["weights [-1, 1]", "bias [-1, 1]", "eps 0.01", "M 100" if m == "global" else "M auto",
              f"symmetry {symmetry}", "loss nll"]  # the paper's
    return "\n".join(lines)


VARIANTS = {  # name: (M setting, merge, MIP start, symmetry, loss-floor rows)
    "global M = 100": ("global", True, False, "none", True),
    "compounded M": ("compound", True, False, "none", True),
    "auto": ("auto", True, False, "none", True),
    "auto unmerged": ("auto", False, False, "none", True),
    "auto sym=bias": ("auto", True, False, "bias", True),
    "auto sym=count": ("auto", True, False, "count", True),
    "global M = 100 + start": ("global", True, True, "none", True),
    "auto + start (annc train)": ("auto", True, True, "none", True),
    "auto unmerged + start": ("auto", False, True, "none", True),
    "auto sym=bias + start": ("auto", True, True, "bias", True),
    "auto sym=count + start": ("auto", True, True, "count", True),
    "auto without loss floor": ("auto", True, False, "none", False),
    "auto without loss floor + start": ("auto", True, True, "none", False),
}


def run(net: str, variant: str, seed: int, time_limit: float) -> dict:
    m_setting, merge, start, symmetry, floor = VARIANTS[variant]
    spec = parse_spec(spec_text(NETS[net][1], m_setting, symmetry), f"{net}.ann")
    Xtr, ytr, Xte, yte = xor_split(1000, 250, 0.1, seed)
    pb = make_problem(spec, Xtr, ytr, [0, 1], merge=merge)
    t0 = time.perf_counter()
    model = formulate(pb, name=net)
    x0 = mip_start(model, pb) if start else None
    model = model if floor else model.without_rows("lf")
    r = solve(model, "highs", SolveOptions(time_limit=time_limit, start=x0))
    total = time.perf_counter() - t0
    acc = None
    if r.x is not None:
        vmap = {"tensors": [{"name": b.name, "shape": list(b.shape), "start": b.start}
                            for b in model.var_blocks],
                "layers": layer_table(spec), "classes": [0, 1], "spec": {"source": net, "text": format_spec(spec)},
                "model": {}, "data": {"features": None}}
        acc = float(np.mean(decode_network(vmap, r.x).predict_index(Xte) == yte))
    return {"net": net, "variant": variant, "seed": seed, "status": r.status.value,
            "seconds": round(total, 2), "objective": r.objective, "bound": r.bound,
            "nodes": r.extra.get("nodes"), "root_bound": r.extra.get("root_bound"), "test_accuracy": acc,
            "binaries": model.stats()["binary"], "big_m_range": model.stats()["big_m_range"]}


def table(records: list[dict], time_limit: float) -> str:
    """Medians over seeds per net and variant.  The root gap of a run is
    ``(best - root bound) / best``, with ``best`` the best objective any variant found on
    that net and seed (the optimum wherever one run proved it)."""
    best = {}
    for r in records:
        if r["objective"] is not None:
            key = (r["net"], r["seed"])
            best[key] = min(best.get(key, np.inf), r["objective"])
    out = ["| net | variant | binaries | big-M range | proven optimal | median time (s) | "
           "median objective | median root gap | median nodes | median test acc. |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    med = lambda v: statistics.median(v) if v else None  # noqa: E731
    for net in NETS:
        for variant in VARIANTS:
            rs = [r for r in records if r["net"] == net and r["variant"] == variant]
            if not rs:
                continue
            opt = sum(r["status"] == "optimal" for r in rs)
            objs = [r["objective"] for r in rs if r["objective"] is not None]
            gaps = [(best[(net, r["seed"])] - r["root_bound"]) / abs(best[(net, r["seed"])])
                    for r in rs if r.get("root_bound") is not None and (net, r["seed"]) in best]
            accs = [r["test_accuracy"] for r in rs if r["test_accuracy"] is not None]
            t = med([r["seconds"] for r in rs])
            mr = rs[0]["big_m_range"]
            out.append(f"| {NETS[net][0]} | {variant} | {rs[0]['binaries']} | "
                       f"{mr[0]:g} to {mr[1]:g} | {opt}/{len(rs)} | "
                       f"{t:.1f}{'' if opt == len(rs) else f' (limit {time_limit:g})'} | "
                       f"{'-' if not objs else f'{med(objs):.4g}'} ({len(objs)} with a solution) | "
                       f"{'-' if not gaps else f'{100 * max(med(gaps), 0.0):.1f}%'} | "
                       f"{med([r['nodes'] for r in rs if r['nodes'] is not None])} | "
                       f"{'-' if not accs else f'{med(accs):.3f}'} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--nets", default="xor,deep3")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    jsonl = out / "runs.jsonl"
    records = [json.loads(line) for line in jsonl.read_text().splitlines()] if jsonl.exists() else []
    done = {(r["net"], r["variant"], r["seed"]) for r in records}
    for net in a.nets.split(","):
        for seed in range(a.seeds):
            for variant in a.variants.split(","):
                if (net, variant, seed) in done:
                    continue
                r = run(net, variant, seed, a.time_limit)
                print(json.dumps(r), flush=True)
                records.append(r)
                with jsonl.open("a") as fh:
                    fh.write(json.dumps(r) + "\n")
    md = (f"# Formulation benchmark\n\n{date.today()}, {platform.node()}, Python {platform.python_version()}, "
          f"HiGHS via highspy, time limit {a.time_limit:g} s per solve, seeds 0..{a.seeds - 1}, "
          f"1000 XOR training samples (noise 0.1), 250 test samples.\n\n"
          f"Command: `python bench/suites/formulations.py --seeds {a.seeds} --time-limit {a.time_limit:g}`\n\n"
          + table(records, a.time_limit) + "\n")
    (out / "results.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
