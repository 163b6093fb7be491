"""annc on real and synthetic classification data, against scikit-learn's MLP and annc's SGD.

What is measured.  On each data set of ``SETS`` (a few hundred rows, some label noise;
each with a hidden width H) and each of the first N of the stratified splits
``StratifiedShuffleSplit(n_splits=N, test_size=0.3, random_state=0)``, every method of
``METHODS`` is trained on the training part and scored on the held-out part:

  annc recipes   a spec ``input d / hidden H binary / output k`` plus the recipe's lines
                 (``RECIPES``; ``default`` adds nothing, so annc's own defaults apply,
                 including its input scaling), trained by ``annc.api.train_api`` on the
                 RAW features with HiGHS, one thread, ``--time-limit`` seconds;
  mlp            ``MinMaxScaler`` + ``MLPClassifier(hidden_layer_sizes=(H,), max_iter=2000,
                 random_state=split)``; non-zero weights = non-zero entries of ``coefs_``;
  sgd            annc's full-batch momentum SGD with straight-through binary units
                 (``annc.sgd.train_sgd``, the trainer of annc's MIP starts, at its paper
                 settings: 10,000 epochs, lr 0.02, momentum 0.9, seed = split) of the same
                 width, on min-max scaled features (scaler fitted on the training part).

Per run it records test and train accuracy, the network's non-zero weights (|w| > 1e-9,
biases not counted, as ``TrainedNetwork.nonzero_weights``), the status (annc's verdict on
the exported network: optimal / feasible; ``error`` with the message when annc raises one
of its own errors), the verdict's gap (None without a bound, "inf" when infinite), and
wall time (``time.perf_counter`` around the training call).

One JSON line per (set, split, method) is appended to ``<out>/runs.jsonl``; runs already
there are skipped (resume: delete a line to redo it).  ``<out>/summary.md`` then has one
row per (set, method): mean test accuracy +- standard deviation over splits (points, %),
mean non-zero weights, status counts, median gap and median time; and, per set, the
done-when check: is the ``default`` recipe within 1 point of ``mlp`` in mean test accuracy
with at most half of ``mlp``'s mean non-zero weights, and more than 5 points above chance
(always predicting the majority class)?

Caveat on non-zero weights: on a two-class set scikit-learn's MLP has ONE logistic output
unit (d*H + H weights) while annc and sgd have two linear output units (d*H + 2H), so with
no zero weight at all annc already counts H more than mlp (moons: 16 vs 12).

    python bench/realdata.py [--sets moons,circles] [--methods default,hinge,mlp,sgd]
                             [--splits 5] [--time-limit 30] [--out bench/realdata_results]
    python bench/realdata.py --summary-only [--out bench/realdata_results]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import statistics
import sys
import time
import warnings
from datetime import date
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, make_circles, make_classification, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler

from annc.api import train_api
from annc.errors import AnncError
from annc.sgd import train_sgd


# -- data sets: name -> (loader returning (X, y), hidden width H) ------------------------
def _classification(n_samples, n_classes, n_features=10, n_informative=5, n_redundant=2):
    return make_classification(n_samples=n_samples, n_features=n_features, n_informative=n_informative,
                               n_redundant=n_redundant, n_classes=n_classes, n_clusters_per_class=1,
                               flip_y=0.05, random_state=0)


SETS = {
    "breast_cancer": (lambda: load_breast_cancer(return_X_y=True), 4),
    "moons": (lambda: make_moons(n_samples=300, noise=0.25, random_state=0), 4),
    "circles": (lambda: make_circles(n_samples=300, noise=0.1, factor=0.5, random_state=0), 4),
    "class3": (lambda: _classification(300, 3), 4),  # a.k.a. blobs3
    "class4": (lambda: _classification(400, 4), 6),
    "class10": (lambda: _classification(600, 10, n_features=20, n_informative=10), 8),
}

# -- annc recipes: lines appended to the default spec (multi-line text, no ';') -------------
RECIPES = {  # name: (hidden activation, extra spec lines)
    "default": ("binary", ""),  # annc's recipe: loss errors + penalty l0 0.5 + eps 0.001
    "default_before": ("binary", "loss errors\npenalty l0 auto"),  # the recipe before 2026-11-23 (and its start search)
    "hinge_l0": ("binary", "loss hinge 0.5\npenalty l0 0.01"),
    "errors_l0": ("binary", "loss errors\npenalty l0 0.01"),
    "errors": ("binary", "loss errors"),  # no penalty: what parsimony costs or gains
    "nll": ("binary", "loss nll"),  # the paper's objective
    "relu_default": ("relu", ""),
    "errors_l0_0.25": ("binary", "loss errors\npenalty l0 0.25"),  # one weight costs a quarter of an error
    "errors_l0_0.5": ("binary", "loss errors\npenalty l0 0.5"),
    "errors_l0_1": ("binary", "loss errors\npenalty l0 1"),
    "errors_l0_2": ("binary", "loss errors\npenalty l0 2"),
    "errors_l0_4": ("binary", "loss errors\npenalty l0 4"),
    "errors_share_0.25": ("binary", "loss errors\npenalty l0 {share:0.25}"),
    "errors_l0_0.5_std": ("binary", "loss errors\npenalty l0 0.5\nscale standard"),
    "errors_l0_0.5_eps": ("binary", "loss errors\npenalty l0 0.5\neps 0.001"),
    "errors_l0_0.5_std_eps": ("binary", "loss errors\npenalty l0 0.5\nscale standard\neps 0.001"),
    "default_std": ("binary", "scale standard"),  # the default recipe on standardised features
    "default_eps_0.01": ("binary", "eps 0.01"),  # ... with the dataclass's eps
    "default_eps_0.003": ("binary", "eps 0.003"),
    "default_l0_0.25": ("binary", "penalty l0 0.25\neps 0.001"),  # the recipe with a quarter error per weight
    "hinge_0.5_l0_0.5": ("binary", "loss hinge 0.5\npenalty l0 0.5\neps 0.001"),  # the recipe with a hinge for errors
    "default_l0_0.1": ("binary", "penalty l0 0.1\neps 0.001"),
    "default_no_penalty": ("binary", "penalty none\neps 0.001"),
    "hinge_1_l0_0.5": ("binary", "loss hinge 1\npenalty l0 0.5\neps 0.001"),
    "default_l0_1": ("binary", "penalty l0 1\neps 0.001"),  # the recipe at one error per weight
    "default_eps_0.03": ("binary", "eps 0.03"),
    "default_eps_0.1": ("binary", "eps 0.1"),
    "default_eps_0.2": ("binary", "eps 0.2"),  # margins of the order of an l1-SVM's on breast_cancer
    "default_eps_0.3": ("binary", "eps 0.3"),
    "nll_l0_0.05": ("binary", "loss nll\npenalty l0 0.05"),  # the paper's loss, a weight worth 0.05 of it
    "nll_l0_0.01": ("binary", "loss nll\npenalty l0 0.01"),
}


def spec_text(d: int, H: int, k: int, extra: str = "", act: str = "binary") -> str:
    """The default spec (``input``, ``hidden H <act>``, ``output`` only) plus ``extra``."""
    lines = [f"input {d}", f"hidden {H} {act}", f"output {k}"]
    lines += [line for line in extra.splitlines() if line.strip()]
    return "\n".join(lines) + "\n"


def _gap(value):
    """A gap for JSON: None without a bound, "inf" when infinite."""
    if value is None:
        return None
    return "inf" if math.isinf(value) else float(value)


# -- methods: each (Xtr, ytr, Xte, yte, H, split, time_limit) -> dict ---------------------
class _Share:
    """``{share:C}`` in a recipe: the l0 weight ``C * rows / weights``."""

    def __init__(self, rows_per_weight: float):
        self.rows_per_weight = rows_per_weight

    def __format__(self, c: str) -> str:
        return f"{float(c) * self.rows_per_weight:.6g}"


def run_annc(Xtr, ytr, Xte, yte, H, split, time_limit, *, recipe: tuple[str, str], select: bool = False) -> dict:
    act, extra = recipe
    d, k = Xtr.shape[1], len(np.unique(ytr))
    if "{share" in extra:  # a weight per weight of share * rows / weights (all weights cost share of the rows)
        extra = extra.format(share=_Share(len(ytr) / (d * H + H * k)))
    spec = spec_text(d, H, k, extra, act)
    t0 = time.perf_counter()
    try:
        r = train_api(spec, (Xtr, ytr), (Xte, yte), time_limit=time_limit, threads=1, out_dir=None,
                      select=select)
    except AnncError as e:
        return {"status": "error", "error": str(e), "seconds": round(time.perf_counter() - t0, 2),
                "test_accuracy": None, "train_accuracy": None, "nonzero_weights": None, "gap": None}
    seconds = time.perf_counter() - t0
    v = r.verdict
    return {"status": r.status.value, "seconds": round(seconds, 2), "test_accuracy": r.test_accuracy,
            "train_accuracy": r.train_accuracy, "nonzero_weights": r.network.nonzero_weights(),
            "gap": _gap(v.gap if v is not None else None),
            "objective": v.objective if v is not None else None,
            "lower_bound": v.lower_bound if v is not None else None,
            "source": v.source if v is not None else None}


def run_mlp(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    clf = Pipeline([("scale", MinMaxScaler()),
                    ("mlp", MLPClassifier(hidden_layer_sizes=(H,), max_iter=2000, random_state=split))])
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(Xtr, ytr)
    seconds = time.perf_counter() - t0
    mlp = clf.named_steps["mlp"]
    return {"status": "converged" if mlp.n_iter_ < mlp.max_iter else "max_iter", "seconds": round(seconds, 2),
            "test_accuracy": float(clf.score(Xte, yte)), "train_accuracy": float(clf.score(Xtr, ytr)),
            "nonzero_weights": int(sum(np.count_nonzero(W) for W in mlp.coefs_)), "gap": None}


def run_sgd(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    scaler = MinMaxScaler().fit(Xtr)
    classes = sorted(np.unique(ytr).tolist())
    t0 = time.perf_counter()
    net = train_sgd(scaler.transform(Xtr), ytr, [H], "binary", classes=classes, seed=split)
    seconds = time.perf_counter() - t0
    idx = {c: i for i, c in enumerate(classes)}

    def acc(X, y):
        return float(np.mean(net.predict_index(scaler.transform(X)) == [idx[c] for c in y]))
    return {"status": "trained", "seconds": round(seconds, 2), "test_accuracy": acc(Xte, yte.tolist()),
            "train_accuracy": acc(Xtr, ytr.tolist()), "nonzero_weights": net.nonzero_weights(), "gap": None,
            "final_loss": net.meta.get("final_loss")}


METHODS = {name: partial(run_annc, recipe=recipe) for name, recipe in RECIPES.items()}
METHODS.update({"mlp": run_mlp, "sgd": run_sgd,
                # the default recipe chosen by --select (annc.selection's default grid, 25% held
                # out of the training part; each candidate and the final run get the time limit)
                "default_select": partial(run_annc, recipe=RECIPES["default"], select=True)})


# -- running ------------------------------------------------------------------------
def splits(name: str, n: int):
    """``(split, Xtr, ytr, Xte, yte)`` for the first ``n`` stratified splits of set ``name``."""
    X, y = SETS[name][0]()
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    sss = StratifiedShuffleSplit(n_splits=n, test_size=0.3, random_state=0)
    for i, (tr, te) in enumerate(sss.split(X, y)):
        yield i, X[tr], y[tr], X[te], y[te]


def load_runs(jsonl: Path) -> list[dict]:
    if not jsonl.exists():
        return []
    return [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]


def run_all(sets, methods, n_splits, time_limit, jsonl: Path, command: str) -> None:
    done = {(r["set"], r["split"], r["method"]) for r in load_runs(jsonl)}
    for name in sets:
        H = SETS[name][1]
        for split, Xtr, ytr, Xte, yte in splits(name, n_splits):
            for method in methods:
                if (name, split, method) in done:
                    continue
                r = {"set": name, "split": split, "method": method, "H": H, "time_limit": time_limit,
                     **METHODS[method](Xtr, ytr, Xte, yte, H, split, time_limit),
                     "date": str(date.today()), "command": command}
                print(json.dumps({k: v for k, v in r.items() if k != "command"}), flush=True)
                with jsonl.open("a") as fh:
                    fh.write(json.dumps(r) + "\n")


# -- summary ------------------------------------------------------------------------
def _mean_std(values) -> str:
    if not values:
        return "-"
    pts = [100 * v for v in values]
    sd = statistics.stdev(pts) if len(pts) > 1 else 0.0
    return f"{statistics.mean(pts):.1f} ± {sd:.1f}"


def _median_gap(rs) -> str:
    gaps = [math.inf if r.get("gap") == "inf" else r["gap"] for r in rs if r.get("gap") is not None]
    if not gaps:
        return "-"
    g = statistics.median(gaps)
    return "inf" if math.isinf(g) else f"{100 * g:.1f}%"


def _statuses(rs) -> str:
    counts = {}
    for r in rs:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))


def _means(rs):
    """Mean test accuracy and mean non-zero weights over the runs that produced a network."""
    accs = [r["test_accuracy"] for r in rs if r.get("test_accuracy") is not None]
    nnz = [r["nonzero_weights"] for r in rs if r.get("nonzero_weights") is not None]
    return (statistics.mean(accs) if accs else None), (statistics.mean(nnz) if nnz else None)


def _ordered(records, key, order):
    seen = list(dict.fromkeys(r[key] for r in records))
    return [k for k in order if k in seen] + [k for k in seen if k not in order]


def table(records) -> str:
    out = [("| set | H | method | test acc. % (mean ± std) | mean non-zero weights | statuses "
            "| median gap | median time (s) |"),
           "|---|---|---|---|---|---|---|---|"]
    for name in _ordered(records, "set", SETS):
        for method in _ordered([r for r in records if r["set"] == name], "method", METHODS):
            rs = [r for r in records if r["set"] == name and r["method"] == method]
            accs = [r["test_accuracy"] for r in rs if r.get("test_accuracy") is not None]
            nnz = _means(rs)[1]
            out.append(f"| {name} | {rs[0]['H']} | {method} | {_mean_std(accs)} | "
                       f"{'-' if nnz is None else f'{nnz:.1f}'} | {_statuses(rs)} | {_median_gap(rs)} | "
                       f"{statistics.median(r['seconds'] for r in rs):.1f} |")
    return "\n".join(out)


def _chance(name: str) -> float:
    """The accuracy of always predicting the majority class of set ``name``."""
    _, y = SETS[name][0]()
    return float(np.max(np.unique(y, return_counts=True)[1]) / len(y))


def done_when(records) -> list[str]:
    """Per set: is ``default`` within 1 point of ``mlp`` with at most half its non-zero weights?"""
    lines = []
    for name in _ordered(records, "set", SETS):
        rs = [r for r in records if r["set"] == name]
        (a_acc, a_nnz), (m_acc, m_nnz) = (_means([r for r in rs if r["method"] == m]) for m in ("default", "mlp"))
        if None in (a_acc, a_nnz, m_acc, m_nnz):
            lines.append(f"- {name}: n/a (needs runs of both default and mlp)")
            continue
        ok_acc = a_acc >= m_acc - 0.01
        ok_nnz = a_nnz <= 0.5 * m_nnz
        chance = _chance(name)
        ok_chance = a_acc >= chance + 0.05
        lines.append(f"- {name}: {'PASS' if ok_acc and ok_nnz and ok_chance else 'FAIL'}: accuracy "
                     f"{100 * a_acc:.1f} vs {100 * m_acc:.1f} ({'within' if ok_acc else 'not within'} 1 point), "
                     f"non-zero weights {a_nnz:.1f} vs {m_nnz:.1f} ({'at most' if ok_nnz else 'more than'} half), "
                     f"chance {100 * chance:.1f} ({'above' if ok_chance else 'NEAR CHANCE: within 5 points of'} "
                     "the majority class)")
    return lines


def summary(records, command: str) -> str:
    limits = sorted({r["time_limit"] for r in records})
    run_cmds = list(dict.fromkeys(r.get("command") for r in records if r.get("command")))
    return "\n".join([
        "# annc on real data: annc recipes vs. MLPClassifier vs. annc SGD", "",
        (f"{date.today()}, {platform.platform()}, {platform.processor() or platform.machine()}, "
         f"{os.cpu_count()} CPUs, Python {platform.python_version()}; annc with HiGHS on one thread, "
         f"time limit {', '.join(f'{t:g}' for t in limits)} s per run; 70/30 stratified splits "
         f"(random_state=0); accuracy in points over the splits of each row."), "",
        f"Summary command: `{command}`", "",
        "Run commands:", *[f"- `{c}`" for c in run_cmds], "",
        table(records), "",
        ("Done-when check (the default recipe within 1 point of mlp's mean test accuracy, with at most half "
         "its mean non-zero weights):"), "",
        *done_when(records), ""])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--out", "-o", default="bench/realdata_results")
    ap.add_argument("--summary-only", action="store_true", help="only rebuild summary.md from runs.jsonl")
    a = ap.parse_args(argv)
    sets, methods = a.sets.split(","), a.methods.split(",")
    for what, names, known in (("set", sets, SETS), ("method", methods, METHODS)):
        bad = [n for n in names if n not in known]
        if bad:
            ap.error(f"unknown {what} {', '.join(bad)}; known: {', '.join(known)}")
    command = shlex.join(["python", "bench/realdata.py", *(sys.argv[1:] if argv is None else argv)])
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    jsonl = out / "runs.jsonl"
    if not a.summary_only:
        run_all(sets, methods, a.splits, a.time_limit, jsonl, command)
    records = load_runs(jsonl)
    if not records:
        print(f"no runs in {jsonl}")
        return 1
    md = summary(records, command)
    (out / "summary.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
