"""annc on real and synthetic classification data, against strong baselines.

What is measured.  On each data set of ``SETS`` (a few hundred rows, some label noise;
each with a hidden width H) and each of the first N of the stratified splits
``StratifiedShuffleSplit(n_splits=N, test_size=0.3, random_state=0)``, every method of
``METHODS`` is trained on the training part and scored on the held-out part.

Sets: breast_cancer and wine (scikit-learn's, real), moons, circles, class3/4/10
(``make_classification``), ``sparse60`` (150 rows, 60 features of which 5 informative:
few rows, many dimensions) and ``xor`` (300 rows, the label the XOR of the signs of two
uniform features, 8 uniform noise features, 5% of the labels flipped).

Methods:

  annc recipes   a spec ``input d / hidden H binary / output k`` plus the recipe's lines
                 (``RECIPES``; ``default`` adds nothing, so annc's own defaults apply,
                 including its input scaling), trained by ``annc.app.api.train_api`` on the
                 RAW features with HiGHS, one thread, ``--time-limit`` seconds;
  mlp            ``MinMaxScaler`` + ``MLPClassifier(hidden_layer_sizes=(H,), max_iter=2000,
                 random_state=split)``; non-zero weights = non-zero entries of ``coefs_``;
  sgd            annc's full-batch momentum SGD with straight-through binary units
                 (``annc.training.sgd.train_sgd``, the trainer of annc's MIP starts, at its paper
                 settings: 10,000 epochs, lr 0.02, momentum 0.9, seed = split) of the same
                 width, on min-max scaled features (scaler fitted on the training part).
  Baselines, each on min-max scaled features (the scaler fitted on the training part),
  non-zero weights = coefficients with |w| > 1e-9, intercepts not counted:
  logreg_l2      ``LogisticRegression(C=1, max_iter=5000)`` (lbfgs; multinomial for k > 2);
  logreg_l1      ``LogisticRegression(l1_ratio=1, solver="liblinear", C=1, max_iter=5000)``
                 (scikit-learn >= 1.8 spells ``penalty="l1"`` as ``l1_ratio=1``); for k > 2
                 one-vs-rest (``OneVsRestClassifier``: liblinear is binary only), all the
                 k binary models' coefficients counted;
  tree3          ``DecisionTreeClassifier(max_depth=3, random_state=split)``; its "weights"
                 are its SPLIT NODES (internal nodes, at most 7), not coefficients;
  mlp_best5      ``MLPClassifier(hidden_layer_sizes=(H,), solver="lbfgs", max_iter=2000,
                 random_state=seed)`` for seeds 0..4; the one with the highest TRAINING
                 accuracy is kept (ties: the lowest seed; test accuracy is never used to
                 choose) and reported on the test part; time = the five fits.

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

One JSON line per (set, split, method) is appended to ``<out>/runs.jsonl``; runs already
there are skipped (resume: delete a line to redo it).  ``<out>/summary.md`` then has:

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

    python bench/realdata.py [--sets moons,circles] [--methods default,logreg_l1,mlp_best5]
                             [--splits 5] [--time-limit 30] [--out bench/realdata_results]
                             [--check default]
    python bench/realdata.py --summary-only [--out bench/realdata_results] [--check default]

Smoke test (seconds, not a measurement):
    python bench/realdata.py --sets moons --methods default,logreg_l1,logreg_l2,tree3,mlp_best5 \
        --splits 1 --time-limit 4 --out /tmp/benchsmoke
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import shlex
import statistics
import sys
import time
import warnings
from datetime import date
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_wine, make_circles, make_classification, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.multiclass import OneVsRestClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.tree import DecisionTreeClassifier

from annc.app.api import train_api
from annc.core.errors import AnncError
from annc.training.sgd import train_sgd
from annc.solve.verdict import search_record


# -- data sets: name -> (loader returning (X, y), hidden width H) ------------------------
def _classification(n_samples, n_classes, n_features=10, n_informative=5, n_redundant=2):
    return make_classification(n_samples=n_samples, n_features=n_features, n_informative=n_informative,
                               n_redundant=n_redundant, n_classes=n_classes, n_clusters_per_class=1,
                               flip_y=0.05, random_state=0)


def _xor(n_samples=300, n_noise=8, flip=0.05, seed=0):
    """Parity: the label is the XOR of the signs of two uniform features in [-1, 1], beside
    ``n_noise`` uniform noise features; a ``flip`` share of the labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, 2 + n_noise))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(int)
    flipped = rng.choice(n_samples, size=int(round(flip * n_samples)), replace=False)
    y[flipped] = 1 - y[flipped]
    return X, y


def _fair():
    """statsmodels' ``fair`` (6,366 survey rows, real): the label is ``affairs > 0``; ``occupation``
    and ``occupation_husb`` (codes 1-6) one-hot, the six other answers as they are."""
    import pandas as pd
    import statsmodels.api as sm
    d = sm.datasets.fair.load_pandas().data
    y = (d.pop("affairs") > 0).astype(int).to_numpy()
    X = pd.get_dummies(d, columns=["occupation", "occupation_husb"], dtype=float)
    return X.to_numpy(float), y


def _anes96():
    """statsmodels' ``anes96`` (944 rows of the 1996 American National Election Study, real):
    the label is the vote (Clinton / Dole); the ten other columns as they are."""
    import statsmodels.api as sm
    d = sm.datasets.anes96.load_pandas().data
    return d.drop(columns=["vote"]).to_numpy(float), d["vote"].to_numpy(int)


SETS = {
    "breast_cancer": (lambda: load_breast_cancer(return_X_y=True), 4),
    "moons": (lambda: make_moons(n_samples=300, noise=0.25, random_state=0), 4),
    "circles": (lambda: make_circles(n_samples=300, noise=0.1, factor=0.5, random_state=0), 4),
    "class3": (lambda: _classification(300, 3), 4),  # a.k.a. blobs3
    "class4": (lambda: _classification(400, 4), 6),
    "class10": (lambda: _classification(600, 10, n_features=20, n_informative=10), 8),
    "wine": (lambda: load_wine(return_X_y=True), 4),  # real: 178 rows, 13 features, 3 classes
    # few rows, many dimensions (the kind of set where annc ended at the constant classifier)
    "sparse60": (lambda: _classification(150, 2, n_features=60, n_informative=5), 4),
    "xor": (lambda: _xor(), 4),  # parity of two features plus 8 noise features
    # real sets that ship inside PyPI packages (statsmodels' datasets)
    "anes96": (_anes96, 4),
    # thousands of rows (issue 39): a 2-feature nonlinear set, a real survey set, a 10-class set
    "moons10k": (lambda: make_moons(n_samples=10000, noise=0.3, random_state=0), 4),
    "fair": (_fair, 4),
    "class10_3k": (lambda: _classification(3000, 10, n_features=20, n_informative=10), 8),
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


def run_annc(Xtr, ytr, Xte, yte, H, split, time_limit, *, recipe: tuple[str, str], select: bool | None = None) -> dict:
    act, extra = recipe
    d, k = Xtr.shape[1], len(np.unique(ytr))
    if "{share" in extra:  # a weight per weight of share * rows / weights (all weights cost share of the rows)
        extra = extra.format(share=_Share(len(ytr) / (d * H + H * k)))
    spec = spec_text(d, H, k, extra, act)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        r = train_api(spec, (Xtr, ytr), (Xte, yte), time_limit=time_limit, threads=1, out_dir=None,
                      select=select)
    except AnncError as e:
        return {"status": "error", "error": str(e), "seconds": round(time.perf_counter() - t0, 2),
                "test_accuracy": None, "train_accuracy": None, "nonzero_weights": None, "gap": None,
                **search_fields({})}
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    v = r.verdict
    meta = getattr(r.network, "meta", None) or {}
    steps = meta.get("steps") if isinstance(meta.get("steps"), list) else []
    step0 = steps[0] if steps and isinstance(steps[0], dict) else {}
    bound = v.lower_bound if v is not None else step0.get("lower_bound")
    return {"status": r.status.value, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
            "test_accuracy": r.test_accuracy,
            "train_accuracy": r.train_accuracy, "nonzero_weights": r.network.nonzero_weights(),
            "gap": _gap(v.gap if v is not None else None),
            "objective": v.objective if v is not None else step0.get("objective"),  # the training objective
            "lower_bound": _num(bound),
            "source": v.source if v is not None else step0.get("network_from"),
            "bound_source": step0.get("bound_source"),
            "selected": (meta.get("selection") or {}).get("chosen_label"),  # model selection's choice, if any
            "cv_estimate": _num((meta.get("selection") or {}).get("cv_estimate")),
            **search_fields(meta)}


def _num(x):
    """A number for JSON: float, "inf"/"-inf" when infinite, None when not a number."""
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        return None
    x = float(x)
    if math.isnan(x):
        return None
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def search_fields(meta: dict) -> dict:
    """What ``meta["steps"][0]["search"]`` (:func:`annc.solve.verdict.search_record`) says about the start search and what the MIP added; every key
    read defensively (None when absent or malformed: annc writes these only from issue 30 on)."""
    s = search_record(meta) or {}  # meta["steps"][0]["search"] (older files: meta["search"])
    pool = s.get("pool")
    pool = ([{"name": str(e.get("name")), "objective": _num(e.get("objective"))} for e in pool if isinstance(e, dict)]
            if isinstance(pool, list) else None)
    cert = s.get("certificate")
    if isinstance(cert, dict):
        sub = cert.get("sub_mips")
        cert = {"size": None if cert.get("size") is None else str(cert.get("size")),
                "sub_mips": int(sub) if isinstance(sub, (int, np.integer)) and not isinstance(sub, bool) else None,
                "text": None if cert.get("text") is None else str(cert.get("text"))}
    else:
        cert = None
    added = s.get("added")
    found = s.get("found_by")
    return {"start_objective": _num(s.get("start_objective")), "pool": pool, "pool_best": _num(s.get("pool_best")),
            "best_linear": _num(s.get("best_linear")), "final_objective": _num(s.get("final_objective")),
            "found_by": None if found is None else str(found), "certificate": cert,
            "added": added if added in ("improved", "certificate", "none") else None}


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


def _nonzero(*arrays) -> int:
    """Entries with |w| > 1e-9 over ``arrays``."""
    return int(sum(np.count_nonzero(np.abs(np.asarray(a)) > 1e-9) for a in arrays))


def _fit_scaled(clf, Xtr, ytr, Xte, yte):
    """Fit ``clf`` on min-max scaled features (scaler fitted on the training part): (clf, seconds,
    test accuracy, train accuracy)."""
    scaler = MinMaxScaler().fit(Xtr)
    Str, Ste = scaler.transform(Xtr), scaler.transform(Xte)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(Str, ytr)
    seconds = time.perf_counter() - t0
    return clf, seconds, float(clf.score(Ste, yte)), float(clf.score(Str, ytr))


def _baseline_row(status, seconds, test_acc, train_acc, nnz, **extra) -> dict:
    return {"status": status, "seconds": round(seconds, 2), "test_accuracy": test_acc, "train_accuracy": train_acc,
            "nonzero_weights": nnz, "gap": None, **extra}


def run_logreg_l2(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    clf, sec, te, tr = _fit_scaled(LogisticRegression(C=1.0, max_iter=5000), Xtr, ytr, Xte, yte)
    status = "converged" if int(np.max(clf.n_iter_)) < clf.max_iter else "max_iter"
    return _baseline_row(status, sec, te, tr, _nonzero(clf.coef_))


def run_logreg_l1(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    # l1_ratio=1 is penalty="l1" (the spelling scikit-learn >= 1.8 asks for); liblinear is binary only
    lr = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=1.0, max_iter=5000)
    ovr = len(np.unique(ytr)) > 2
    clf, sec, te, tr = _fit_scaled(OneVsRestClassifier(lr) if ovr else lr, Xtr, ytr, Xte, yte)
    models = clf.estimators_ if ovr else [clf]
    status = "converged" if all(int(np.max(m.n_iter_)) < m.max_iter for m in models) else "max_iter"
    return _baseline_row(status, sec, te, tr, _nonzero(*(m.coef_ for m in models)))


def run_tree3(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    """A depth-3 tree; its "non-zero weights" are its split (internal) nodes."""
    clf, sec, te, tr = _fit_scaled(DecisionTreeClassifier(max_depth=3, random_state=split), Xtr, ytr, Xte, yte)
    return _baseline_row("trained", sec, te, tr, int(np.count_nonzero(clf.tree_.children_left != -1)),
                         depth=int(clf.get_depth()))


def run_mlp_best5(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    """The best of 5 lbfgs MLPs (seeds 0..4) by TRAINING accuracy (ties: the lowest seed),
    reported on the test part; the time is the five fits'."""
    fits = [_fit_scaled(MLPClassifier(hidden_layer_sizes=(H,), solver="lbfgs", max_iter=2000, random_state=seed),
                        Xtr, ytr, Xte, yte) for seed in range(5)]
    best = max(range(5), key=lambda i: (fits[i][3], -i))
    clf, _, te, tr = fits[best]
    return _baseline_row("converged" if clf.n_iter_ < clf.max_iter else "max_iter", sum(f[1] for f in fits),
                         te, tr, _nonzero(*clf.coefs_), seed=best,
                         train_accuracies=[round(f[3], 6) for f in fits])


BASELINES = {"mlp": run_mlp, "sgd": run_sgd, "logreg_l2": run_logreg_l2, "logreg_l1": run_logreg_l1,
             "tree3": run_tree3, "mlp_best5": run_mlp_best5}
METHODS = {name: partial(run_annc, recipe=recipe) for name, recipe in RECIPES.items()}
METHODS.update({**BASELINES,
                # the default recipe chosen by --select (annc.training.selection's default grid, 25% held
                # out of the training part; each candidate and the final run get the time limit)
                "default_select": partial(run_annc, recipe=RECIPES["default"], select=True),
                # the default recipe as written, without cross-validation (annc before issue 36)
                "default_no_select": partial(run_annc, recipe=RECIPES["default"], select=False)})


# -- running ------------------------------------------------------------------------
def splits(name: str, n: int):
    """``(split, Xtr, ytr, Xte, yte)`` for the first ``n`` stratified splits of set ``name``."""
    X, y = SETS[name][0]()
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    sss = StratifiedShuffleSplit(n_splits=n, test_size=0.3, random_state=0)
    for i, (tr, te) in enumerate(sss.split(X, y)):
        yield i, X[tr], y[tr], X[te], y[te]


def _split_chance(ytr, yte) -> float:
    """The test accuracy of always predicting the training part's majority class (ties: the
    smallest label)."""
    labels, counts = np.unique(ytr, return_counts=True)
    return float(np.mean(np.asarray(yte) == labels[np.argmax(counts)]))


def load_runs(jsonl: Path) -> list[dict]:
    if not jsonl.exists():
        return []
    return [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]


def run_all(sets, methods, n_splits, time_limit, jsonl: Path, command: str) -> None:
    done = {(r["set"], r["split"], r["method"]) for r in load_runs(jsonl)}
    for name in sets:
        H = SETS[name][1]
        for split, Xtr, ytr, Xte, yte in splits(name, n_splits):
            chance = _split_chance(ytr, yte)
            for method in methods:
                if (name, split, method) in done:
                    continue
                r = {"set": name, "split": split, "method": method, "H": H, "time_limit": time_limit,
                     **METHODS[method](Xtr, ytr, Xte, yte, H, split, time_limit), "chance": chance,
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
            "| median gap | median time (s) | max time (s) | mean train acc. % |"),
           "|---|---|---|---|---|---|---|---|---|---|"]
    for name in _ordered(records, "set", SETS):
        for method in _ordered([r for r in records if r["set"] == name], "method", METHODS):
            rs = [r for r in records if r["set"] == name and r["method"] == method]
            accs = [r["test_accuracy"] for r in rs if r.get("test_accuracy") is not None]
            nnz = _means(rs)[1]
            out.append(f"| {name} | {rs[0]['H']} | {method} | {_mean_std(accs)} | "
                       f"{'-' if nnz is None else f'{nnz:.1f}'} | {_statuses(rs)} | {_median_gap(rs)} | "
                       f"{statistics.median(r['seconds'] for r in rs):.1f} | {max(r['seconds'] for r in rs):.1f} | "
                       f"{_train_mean(rs)} |")
    return "\n".join(out)


def _train_mean(rs) -> str:
    accs = [r["train_accuracy"] for r in rs if r.get("train_accuracy") is not None]
    return "-" if not accs else f"{100 * statistics.mean(accs):.1f}"


def _chance(name: str) -> float:
    """The accuracy of always predicting the majority class of set ``name``."""
    _, y = SETS[name][0]()
    return float(np.max(np.unique(y, return_counts=True)[1]) / len(y))


def done_when(records, check: str = "default") -> list[str]:
    """Per set and reference (mlp, mlp_best5, logreg_l1): is ``check`` within 1 point of the
    reference with at most half its non-zero weights, and more than 5 points above chance?"""
    lines = []
    for name in _ordered(records, "set", SETS):
        rs = [r for r in records if r["set"] == name]
        for ref in ("mlp", "mlp_best5", "logreg_l1"):
            label = name if ref == "mlp" else f"{name} vs {ref}"
            (a_acc, a_nnz), (m_acc, m_nnz) = (_means([r for r in rs if r["method"] == m]) for m in (check, ref))
            if None in (a_acc, a_nnz, m_acc, m_nnz):
                lines.append(f"- {label}: n/a (needs runs of both {check} and {ref})")
                continue
            ok_acc = a_acc >= m_acc - 0.01
            ok_nnz = a_nnz <= 0.5 * m_nnz
            chance = _chance(name)
            ok_chance = a_acc >= chance + 0.05
            lines.append(f"- {label}: {'PASS' if ok_acc and ok_nnz and ok_chance else 'FAIL'}: accuracy "
                         f"{100 * a_acc:.1f} vs {100 * m_acc:.1f} ({'within' if ok_acc else 'not within'} 1 point), "
                         f"non-zero weights {a_nnz:.1f} vs {m_nnz:.1f} ({'at most' if ok_nnz else 'more than'} half), "
                         f"chance {100 * chance:.1f} ({'above' if ok_chance else 'NEAR CHANCE: within 5 points of'} "
                         "the majority class)")
    return lines


# -- issue 30: what the MIP search does, and its done-when checks ----------------------
BOUND_TOL = 1e-6  # a lower bound above this is "> 0" (annc.solve.verdict.ABS_TOL)


def _f(x, fmt="{:.6g}") -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return fmt.format(x)


def _pts(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _median(values):
    vals = [math.inf if v == "inf" else v for v in values if v is not None and v != "-inf"]
    return statistics.median(vals) if vals else None


def _counts(values) -> str:
    counts = {}
    for v in values:
        if v is not None:
            counts[v] = counts.get(v, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) if counts else "-"


def _lb_positive(r) -> bool:
    lb = r.get("lower_bound")
    return lb == "inf" or (isinstance(lb, (int, float)) and lb > BOUND_TOL)


_CHANCE_CACHE: dict = {}


def _run_chance(r) -> float | None:
    """The run's ``chance`` (majority class of its training part, on its test part); rows written
    before it was recorded get it recomputed from their split."""
    if r.get("chance") is not None:
        return r["chance"]
    key = (r["set"], r["split"])
    if key not in _CHANCE_CACHE:
        _CHANCE_CACHE[key] = None
        if r["set"] in SETS:
            for split, _, ytr, _, yte in splits(r["set"], r["split"] + 1):
                if split == r["split"]:
                    _CHANCE_CACHE[key] = _split_chance(ytr, yte)
    return _CHANCE_CACHE[key]


def _is_annc(method: str) -> bool:
    return method not in BASELINES


def search_table(records) -> str:
    """Per (set, annc recipe): the start search and what the MIP added (``meta["steps"][0]["search"]``)."""
    out = [("| set | method | runs | median start obj. | median best linear | median final obj. "
            "| median training obj. | found by | added: improved / certificate / none / not recorded "
            "| lower bound > 0 | bound sources | median wall time (s) |"),
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in _ordered(records, "set", SETS):
        for method in _ordered([r for r in records if r["set"] == name and _is_annc(r["method"])], "method",
                               METHODS):
            rs = [r for r in records if r["set"] == name and r["method"] == method]
            added = [r.get("added") for r in rs]
            ad = " / ".join(str(sum(a == k for a in added)) for k in ("improved", "certificate", "none"))
            ad += f" / {sum(a is None for a in added)}"
            out.append(f"| {name} | {method} | {len(rs)} | {_f(_median(r.get('start_objective') for r in rs))} | "
                       f"{_f(_median(r.get('best_linear') for r in rs))} | "
                       f"{_f(_median(r.get('final_objective') for r in rs))} | "
                       f"{_f(_median(r.get('objective') for r in rs))} | {_counts(r.get('found_by') for r in rs)} | "
                       f"{ad} | {sum(_lb_positive(r) for r in rs)} of {len(rs)} | "
                       f"{_counts(r.get('bound_source') for r in rs)} | "
                       f"{statistics.median(r['seconds'] for r in rs):.1f} | {max(r['seconds'] for r in rs):.1f} | "
                       f"{_train_mean(rs)} |")
    return "\n".join(out)


def _certificate_ok(cert) -> bool:
    """A certificate of at least one hidden unit plus the output layer, judged from its ``size``
    text: empty, naming only the output layer, or starting with "0 hidden" does not count."""
    if not isinstance(cert, dict) or not cert.get("size"):
        return False
    size = str(cert["size"]).strip().lower()
    if re.match(r"0\s*hidden", size):
        return False
    return not ("output" in size and "hidden" not in size and "unit" not in size)


def _run_verdicts(records, check):
    """Per set: [(split, {check number: (verdict 'PASS'/'FAIL'/'n/a', text)})] for the ``check`` runs."""
    l1 = {(r["set"], r["split"]): r.get("test_accuracy") for r in records if r["method"] == "logreg_l1"}
    per_set = {}
    for name in _ordered(records, "set", SETS):
        rows = []
        for r in sorted((r for r in records if r["set"] == name and r["method"] == check), key=lambda r: r["split"]):
            v = {}
            obj, bl = r.get("objective"), r.get("best_linear")
            if obj is None or bl is None or isinstance(bl, str):
                v[1] = ("n/a", f"objective {_f(obj)}, best linear {_f(bl)} (not recorded)")
            else:
                ok = obj <= bl + 1e-6 * max(1.0, abs(bl))
                v[1] = ("PASS" if ok else "FAIL", f"objective {obj:.6g} {'<=' if ok else '>'} best linear {bl:.6g}")
            acc, ch, ref = r.get("test_accuracy"), _run_chance(r), l1.get((name, r["split"]))
            if acc is None or ch is None or ref is None:
                v[2] = ("n/a", f"accuracy {_pts(acc)}, chance {_pts(ch)}, logreg_l1 {_pts(ref)} "
                               f"({'no network' if acc is None else 'needs logreg_l1 on this split'})")
            else:
                near, ref_above = acc <= ch + 0.02 + 1e-9, ref >= ch + 0.10 - 1e-9
                v[2] = ("FAIL" if near and ref_above else "PASS",
                        f"accuracy {_pts(acc)}, chance {_pts(ch)} ({'within' if near else 'more than'} 2 points), "
                        f"logreg_l1 {_pts(ref)} ({'>=' if ref_above else '<'} 10 points above chance)")
            added, cert = r.get("added"), r.get("certificate")
            if added is None:
                v[3] = ("n/a", "added not recorded")
            else:
                ok = added == "improved" or (added == "certificate" and _certificate_ok(cert))
                size = f" (size {cert.get('size')!r}, {cert.get('sub_mips')} sub-MIPs)" if isinstance(cert, dict) else ""
                v[3] = ("PASS" if ok else "FAIL", f"added {added}{size}")
            lb = r.get("lower_bound")
            v[4] = ("PASS" if _lb_positive(r) else "FAIL",
                    f"lower bound {_f(lb)}" + (f" ({r['bound_source']})" if r.get("bound_source") else "")
                    + (" (error: no network)" if r.get("status") == "error" else ""))
            rows.append((r["split"], v))
        if rows:
            per_set[name] = rows
    return per_set


CHECKS = {
    1: "no run's exported network has a higher training objective than best_linear (where recorded)",
    2: "no run ends within 2 points of the majority class where logreg_l1 is >= 10 points above it",
    3: ("in >= 2/3 of the runs the MIP added something: 'improved', or 'certificate' of at least one hidden "
        "unit plus the output layer"),
    4: f"the lower bound is > 0 (> {BOUND_TOL:g}) on every run of every set",
}


def issue30_checks(records, check: str = "default") -> list[str]:
    """Issue 30's done-when checks on the ``check`` recipe: per set and per run, PASS/FAIL lines."""
    per_set = _run_verdicts(records, check)
    if not per_set:
        return [f"n/a: no runs of {check}"]
    lines = []
    for c, what in CHECKS.items():
        lines += [f"#### {c}. {what}", ""]
        set_verdicts, all_marks = [], []
        for name, rows in per_set.items():
            marks = [v[c][0] for _, v in rows]
            judged = [m for m in marks if m != "n/a"]
            all_marks += marks
            if c == 3:
                if judged:
                    k = judged.count("PASS")
                    sv = "PASS" if k >= 2 / 3 * len(judged) else "FAIL"
                    text = f"{k} of {len(judged)} recorded runs added something (needs >= 2/3)"
                else:
                    sv, text = "n/a", "added not recorded"
            else:
                sv = "FAIL" if "FAIL" in judged else ("PASS" if judged else "n/a")
                text = f"{judged.count('PASS')} of {len(judged)} judged runs pass" if judged else "no run judged"
            if len(judged) < len(marks):
                text += f"; {len(marks) - len(judged)} of {len(marks)} runs n/a"
            set_verdicts.append(sv)
            lines.append(f"- {name}: {sv}: {text}")
            lines += [f"  - split {split}: {v[c][0]}: {v[c][1]}" for split, v in rows]
        judged = [m for m in all_marks if m != "n/a"]
        if c == 3 and judged:
            k = judged.count("PASS")
            overall = "PASS" if k >= 2 / 3 * len(judged) else "FAIL"
            lines.append(f"- all runs: {overall}: {k} of {len(judged)} recorded runs added something (needs >= 2/3)")
        else:
            sj = [v for v in set_verdicts if v != "n/a"]
            overall = "FAIL" if "FAIL" in sj else ("PASS" if sj else "n/a")
            lines.append(f"- all sets: {overall}: {sj.count('PASS')} of {len(set_verdicts)} sets pass"
                         + (f", {len(set_verdicts) - len(sj)} n/a" if len(sj) < len(set_verdicts) else ""))
        lines.append("")
    return lines


def summary(records, command: str, check: str = "default") -> str:
    limits = sorted({r["time_limit"] for r in records})
    run_cmds = list(dict.fromkeys(r.get("command") for r in records if r.get("command")))
    return "\n".join([
        "# annc on real data: annc recipes vs. MLPClassifier, annc SGD and baselines", "",
        (f"{date.today()}, {platform.platform()}, {platform.processor() or platform.machine()}, "
         f"{os.cpu_count()} CPUs, Python {platform.python_version()}; annc with HiGHS on one thread, "
         f"time limit {', '.join(f'{t:g}' for t in limits)} s per run; 70/30 stratified splits "
         f"(random_state=0); accuracy in points over the splits of each row.  Baselines on min-max scaled "
         f"features; tree3's non-zero weights are its split nodes; mlp_best5 is chosen by training accuracy."), "",
        f"Summary command: `{command}`", "",
        "Run commands:", *[f"- `{c}`" for c in run_cmds], "",
        table(records), "",
        ("MIP search per annc recipe (from the network's meta[\"search\"] and meta[\"steps\"][0]; \"-\" where "
         "a run did not record it; objectives are training objectives, medians over the runs):"), "",
        search_table(records), "",
        f"### Done-when checks of issue 30 (recipe {check}; per set, then per run)", "",
        *issue30_checks(records, check),
        (f"### Earlier done-when check (the {check} recipe within 1 point of the reference's mean test accuracy, "
         "with at most half its mean non-zero weights; references mlp, mlp_best5, logreg_l1)"), "",
        *done_when(records, check), ""])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--out", "-o", default="bench/realdata_results")
    ap.add_argument("--summary-only", action="store_true", help="only rebuild summary.md from runs.jsonl")
    ap.add_argument("--check", default="default", help="the annc recipe the done-when checks judge")
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
    md = summary(records, command, a.check)
    (out / "summary.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
