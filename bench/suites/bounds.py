"""Lower bounds (annc.training.bounds) on real-like data: each bound's value, its work and seconds.

Sets: sklearn's breast_cancer, make_moons(300, noise 0.3), make_classification (300
samples, 6 features, 3 classes); a stratified 70/30 split (seed 0), the training part
min-max scaled as annc scales it; spec ``input d / hidden 4 binary / output k``, loss
``errors``, penalty ``l0 0.5``, eps 0.1 and 0.001.  An incumbent network comes from
annc's MIP start (:func:`annc.training.search.mip_start`, a short budget): its objective is the
upper bound the gap is measured against.  Then, each timed on its own: the loss floor,
the conflict bound, the support bound, the subset bounds (``WORK``), and the dual bound
of the whole MIP after ``WHOLE_NODES`` nodes.  Last, the subset bound with each
symmetry order of the sub-MIPs on one set.  Writes the markdown table to ``--out``.

    python bench/run.py bounds
"""
from __future__ import annotations

import datetime
import platform
import sys
import time
from pathlib import Path

from importlib.metadata import version

import numpy as np
from sklearn.datasets import load_breast_cancer, make_classification, make_moons
from sklearn.model_selection import train_test_split

from annc.training.bounds import Bound, Work, best, conflict_bound, subset_bounds, support_bound
from annc.formulations import floor, formulate
from annc.io.problem import make_problem
from annc.core.scaling import fit_scaling
from annc.solve.solvers import SolveOptions, solve
from annc.io.spec import parse_spec
from annc.training.search import mip_start
from annc.training.warmstart.pool.point import hidden_network

START_BUDGET = 3.0  # seconds of MIP start per set (it may overrun: see its docstring)
WORK = Work(subsets=4, rows=6, node_limit=200, time_cap=20.0, seed=0, symmetry="bias", disjoint=True)
WHOLE_NODES = 50  # nodes of the whole MIP for the solver's bound
WHOLE_CAP = 15.0  # ... with this wall-clock cap (a safety)
SYMMETRY_SET = ("moons", 0.001)


def sets() -> dict:
    return {"breast_cancer": load_breast_cancer(return_X_y=True),
            "moons": make_moons(n_samples=300, noise=0.3, random_state=0),
            "classification3": make_classification(n_samples=300, n_features=6, n_informative=4, n_redundant=0,
                                                   n_classes=3, random_state=0)}


def problem_of(X, y, eps: float):
    Xtr, _, ytr, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    Xtr = fit_scaling("minmax", Xtr).apply(Xtr)
    k = len(np.unique(y))
    spec = parse_spec(f"input {X.shape[1]}\nhidden 4 binary\noutput {k}\nloss errors\npenalty l0 0.5\neps {eps}\n")
    return make_problem(spec, Xtr, ytr, list(range(k)))


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


def run_set(name: str, X, y, eps: float) -> tuple[list[str], str]:
    p = problem_of(X, y, eps)
    model = formulate(p)
    x, t_start = timed(lambda: mip_start(model, p, budget=START_BUDGET))
    upper = model.objective(x) if x is not None else None
    incumbent = hidden_network(model, x) if x is not None else None
    rows = []

    def add(bound, seconds, work):
        if bound is not None:
            rows.append((bound, seconds, work))

    fl, s = timed(lambda: floor(p))
    add(Bound(fl, "loss floor", "rows with several classes"), s, "-")
    c, s = timed(lambda: conflict_bound(p))
    add(c, s, "one max flow / LP")
    sup, s = timed(lambda: support_bound(p, full=c.value))
    add(sup, s, "see detail")
    subs, s = timed(lambda: subset_bounds(p, incumbent=incumbent, work=WORK))
    for b in subs:
        add(b, s, "see detail")
    res, s = timed(lambda: solve(model, "highs", SolveOptions(node_limit=WHOLE_NODES, time_limit=WHOLE_CAP, threads=1,
                                                              start=x)))
    if res.bound is not None:
        add(Bound(max(res.bound, 0.0), "solver", f"whole MIP, {res.extra['nodes']} nodes ({res.status_text})"), s,
            f"{res.extra['nodes']} nodes")
    top = best(b for b, _, _ in rows)
    gap = "-" if upper is None else f"{100 * (upper - top.value) / upper:.1f}%"
    head = (f"| {name} | {eps:g} | {p.num_rows} | {upper if upper is None else f'{upper:g}'} ({t_start:.0f} s) "
            f"| {top.value:g} ({top.source}) | {gap} |")
    lines = [f"| {name} | {eps:g} | {b.source} | {b.value:g} | {sec:.2f} | {b.detail} |" for b, sec, _ in rows]
    return lines, head


def symmetry_rows() -> list[str]:
    name, eps = SYMMETRY_SET
    X, y = sets()[name]
    p = problem_of(X, y, eps)
    out = []
    for sym in (None, "bias", "count"):
        (b,), s = timed(lambda: subset_bounds(p, work=Work(subsets=3, rows=8, node_limit=300, time_cap=20.0, seed=1,
                                                           symmetry=sym)))
        out.append(f"| {name} | {eps:g} | {sym or 'none (spec)'} | {b.value:g} | {s:.1f} | {b.detail} |")
    return out


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", type=Path, required=True, help="the markdown results file")
    out = ap.parse_args(argv).out
    t0 = time.perf_counter()
    heads, lines = [], []
    for name, (X, y) in sets().items():
        for eps in (0.1, 0.001):
            body, head = run_set(name, X, y, eps)
            heads.append(head)
            lines += body
            print(head, flush=True)
    sym = symmetry_rows()
    total = time.perf_counter() - t0
    text = "\n".join([
        "# Lower bounds on real-like data (bench/suites/bounds.py)",
        "",
        f"Machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}, "
        f"highspy {version('highspy')}, threads 1 per solve.  Date: {datetime.date.today()}.  "
        f"Command: `python bench/suites/bounds.py` ({total:.0f} s in all).",
        "",
        f"Spec: hidden 4 binary, loss errors, penalty l0 0.5; 70/30 split (seed 0), min-max scaled.  "
        f"Incumbent: annc's MIP start, budget {START_BUDGET:g} s.  Subsets: {WORK}.  "
        f"Whole MIP: {WHOLE_NODES} nodes (cap {WHOLE_CAP:g} s).",
        "",
        "| set | eps | rows | incumbent (s) | best bound | gap |",
        "|---|---|---|---|---|---|",
        *heads,
        "",
        "| set | eps | source | value | seconds | detail |",
        "|---|---|---|---|---|---|",
        *lines,
        "",
        "Symmetry order of the sub-MIPs (3 subsets of 8 random stratified rows, 300 nodes each):",
        "",
        "| set | eps | symmetry | subset bound | seconds | detail |",
        "|---|---|---|---|---|---|",
        *sym,
        "",
    ])
    out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
