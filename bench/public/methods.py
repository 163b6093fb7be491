"""The methods of the ``public`` suite: each ``(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict``.

annc (``annc.app.api.train_api`` on the raw features, text columns as they are, HiGHS, one
thread, the run's time limit, through ``bench.real.recipes.run_annc``):

  default     annc's default recipe, ``input auto / hidden 4 binary / output k``; on a set with
              empty cells with ``missing="impute"`` (annc fills them from the training rows);
  balanced    the same with ``class_weight="balanced"``; while ``train_api`` has no such keyword
              the run is recorded as an error saying so.

Baselines (``bench.real.baselines``' where they exist; on a set with empty cells each reads its
features behind a ``SimpleImputer`` fitted on the training part: the median of a numeric column,
the most frequent text of a text column):

  logreg_l1_cv           L1 logistic regression with C chosen by 5-fold cross-validation:
                         ``LogisticRegressionCV(Cs=10, cv=5, l1_ratios=(1,), solver="liblinear",
                         scoring="accuracy")`` (``penalty="l1"`` before scikit-learn 1.8), one-vs-rest
                         for k > 2 (liblinear is binary only), every binary model's coefficients counted;
  logreg_l1_cv_balanced  the same with ``class_weight="balanced"``, scored by balanced accuracy;
  streed3, tree3, mlp_best5   as in ``bench.real.baselines`` (STreeD's and CART's depth-3 trees,
                         the best of 5 lbfgs MLPs of width H);
  streed3_h              STreeD's optimal depth-3 tree with at most H branching nodes: the largest
                         tree a network of H step units holds exactly (one unit a split), so the
                         best tree the spec can be compared with (a depth-3 tree has up to 7);
  cv_choice              the best of logreg_l1_cv, streed3 and contree3 by 3-fold stratified
                         cross-validation on the training rows (mean validation accuracy; ties in
                         that order), refitted on all of them: what choosing among the references
                         by their own folds achieves (the report's target picks the best of the three
                         on the test rows);
  contree2, contree3     ConTree's optimal tree of depth 2 / 3 on the continuous features (no
                         binarisation; text columns one-hot, ``bench.real.baselines.features``):
                         ``pycontree.ConTree(max_depth=d, time_limit=<the run's limit>)``; status
                         ``optimal``, or ``time limit`` where ConTree warned that it hit it.

Every row records test and train accuracy, ``balanced_test_accuracy``, non-zero weights (trees:
``splits``, their branching nodes) and ``seconds``.
"""
from __future__ import annotations

import inspect
import time
import warnings
from functools import partial

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegressionCV
from sklearn.multiclass import OneVsRestClassifier

from bench.real.baselines import (_fit_scaled, _nonzero, _row, balanced_accuracy, features, run_mlp_best5,
                                  run_streed3, run_tree3)
from bench.public.report import REFERENCES
from bench.real.recipes import RECIPES, run_annc
from bench.real.sets import text_columns

H = 4  # the default recipe's hidden width (and the MLP's)
TREES = ("streed3", "streed3_h", "tree3", "contree2", "contree3")


def has_empty_cells(*tables) -> bool:
    return any(bool(pd.isna(pd.DataFrame(t)).to_numpy().any()) for t in tables)


def impute(Xtr, Xte):
    """``(Xtr, Xte)`` with empty cells filled from the training part (median of a numeric column,
    most frequent text of a text column); unchanged where there are none."""
    if not has_empty_cells(Xtr, Xte):
        return Xtr, Xte
    if not hasattr(Xtr, "columns"):
        from sklearn.impute import SimpleImputer
        f = SimpleImputer(strategy="median").fit(Xtr)
        return f.transform(Xtr), f.transform(Xte)
    Xtr, Xte, texts = Xtr.copy(), Xte.copy(), text_columns(Xtr)
    for c in Xtr.columns:
        text = c in texts
        filled = Xtr[c].mode(dropna=True).iloc[0] if text else Xtr[c].median()
        if pd.isna(filled):  # a column empty in every training row
            filled = "" if text else 0.0
        Xtr[c], Xte[c] = Xtr[c].fillna(filled), Xte[c].fillna(filled)
    return Xtr, Xte


def imputed(run):
    """``run`` on :func:`impute`'s tables (recorded as ``imputed``: were there empty cells)."""
    def wrapped(Xtr, ytr, Xte, yte, H, split, time_limit):
        empty = has_empty_cells(Xtr, Xte)
        Xtr, Xte = impute(Xtr, Xte)
        return {**run(Xtr, ytr, Xte, yte, H, split, time_limit), "imputed": empty}
    return wrapped


def l1_keywords() -> dict:
    """The L1 penalty as this scikit-learn spells it: ``l1_ratios=(1,)`` from 1.8 on (which also
    asks for ``use_legacy_attributes``), ``penalty="l1"`` before."""
    if "use_legacy_attributes" in inspect.signature(LogisticRegressionCV).parameters:
        return {"l1_ratios": (1.0,), "use_legacy_attributes": False}
    return {"penalty": "l1"}


def run_logreg_l1_cv(Xtr, ytr, Xte, yte, H, split, time_limit, *, balanced: bool = False) -> dict:
    lr = LogisticRegressionCV(Cs=10, cv=5, solver="liblinear", max_iter=5000, **l1_keywords(),
                              scoring="balanced_accuracy" if balanced else "accuracy",
                              class_weight="balanced" if balanced else None)
    ovr = len(np.unique(ytr)) > 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (ConvergenceWarning, UserWarning, FutureWarning))
        clf, sec, te, tr, bal = _fit_scaled(OneVsRestClassifier(lr) if ovr else lr, Xtr, ytr, Xte, yte)
    models = clf.estimators_ if ovr else [clf]
    return _row("trained", sec, te, tr, _nonzero(*(m.coef_ for m in models)), balanced_test_accuracy=bal,
                C=[float(np.ravel(m.C_)[0]) for m in models])


def run_contree(Xtr, ytr, Xte, yte, H, split, time_limit, *, depth: int) -> dict:
    """ConTree's optimal tree of depth ``depth`` (training accuracy) on the continuous features."""
    from pycontree import ConTree
    f = features(Xtr)
    Str, Ste = (np.ascontiguousarray(f.transform(X), dtype=float) for X in (Xtr, Xte))
    clf = ConTree(max_depth=depth, time_limit=time_limit)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(Str, np.asarray(ytr, dtype=int))
    seconds = time.perf_counter() - t0
    cut = any("time limit" in str(w.message) for w in caught)
    predicted = clf.predict(Ste)
    return _row("time limit" if cut else "optimal", seconds, float(np.mean(predicted == yte)), float(np.mean(clf.predict(Str) == ytr)),
                None, splits=int(clf.get_num_branching_nodes()), depth=int(clf.get_depth()),
                balanced_test_accuracy=balanced_accuracy(yte, predicted))


def run_streed3_h(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    """STreeD's optimal depth-3 tree with at most ``H`` splits: one step unit a split, the largest tree
    a network of width ``H`` holds exactly (module docstring)."""
    return run_streed3(Xtr, ytr, Xte, yte, H, split, time_limit, max_splits=H)


def run_cv_choice(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    """The reference of the report's target (:data:`bench.public.report.REFERENCES`) with the best mean accuracy on 3 stratified folds of the
    training rows (``random_state=split``), refitted on all of them (module docstring)."""
    from sklearn.model_selection import StratifiedKFold
    ytr = np.asarray(ytr)
    take = (lambda X, i: X.iloc[i]) if isinstance(Xtr, pd.DataFrame) else (lambda X, i: np.asarray(X)[i])
    t0 = time.perf_counter()
    cv = {name: [] for name in REFERENCES}
    for fit, val in StratifiedKFold(3, shuffle=True, random_state=split).split(np.zeros(len(ytr)), ytr):
        for name in REFERENCES:
            row = METHODS[name](take(Xtr, fit), ytr[fit], take(Xtr, val), ytr[val], H, split, time_limit)
            cv[name].append(row["test_accuracy"])
    means = {name: float(np.mean(v)) for name, v in cv.items()}
    chosen = max(REFERENCES, key=lambda name: means[name])  # max keeps the first of equals: REFERENCES' order
    row = METHODS[chosen](Xtr, ytr, Xte, yte, H, split, time_limit)
    return {**row, "chosen": chosen, "cv": means, "seconds": time.perf_counter() - t0}


def accepts_class_weight() -> bool:
    """Does ``train_api`` (or the ``train_request`` it hands its keywords to) take ``class_weight``?"""
    from annc.app import api
    return any("class_weight" in inspect.signature(f).parameters for f in (api.train_api, api.train_request))


def run_default(Xtr, ytr, Xte, yte, H, split, time_limit, *, class_weight=None, policy: dict | None = None) -> dict:
    """annc's default recipe; ``missing="impute"`` where the set has empty cells; ``policy``: fields of
    model selection's :class:`~annc.training.modelselect.policy.SelectionPolicy` that differ from
    its defaults (a variant for the tuning half, :func:`method`)."""
    keywords = {"missing": "impute"} if has_empty_cells(Xtr, Xte) else {}
    if policy:
        from dataclasses import replace

        from annc.training.modelselect.policy import DEFAULT_POLICY
        from annc.training.modelselect.strategy import Auto
        keywords["select"] = Auto(replace(DEFAULT_POLICY, **policy))
    if class_weight is not None:
        if not accepts_class_weight():
            return {"status": "error", "error": "train_api takes no class_weight keyword yet", "seconds": 0.0,
                    "test_accuracy": None, "train_accuracy": None, "nonzero_weights": None, "gap": None}
        keywords["class_weight"] = class_weight
    select = keywords.pop("select", None)
    return {**run_annc(Xtr, ytr, Xte, yte, H, split, time_limit, recipe=RECIPES["default"], keywords=keywords,
                       select=select), "imputed": "missing" in keywords}


METHODS = {
    "default": run_default,
    "balanced": partial(run_default, class_weight="balanced"),
    "logreg_l1_cv": imputed(run_logreg_l1_cv),
    "logreg_l1_cv_balanced": imputed(partial(run_logreg_l1_cv, balanced=True)),
    "streed3": imputed(run_streed3),
    "streed3_h": imputed(run_streed3_h),
    "contree2": imputed(partial(run_contree, depth=2)),
    "contree3": imputed(partial(run_contree, depth=3)),
    "tree3": imputed(run_tree3),
    "mlp_best5": imputed(run_mlp_best5),
    "cv_choice": run_cv_choice,
}
ANNC = ("default", "balanced")
METHOD_GROUPS = {"all": list(METHODS), "baselines": [m for m in METHODS if m not in ANNC]}


def _value(text: str):
    """A policy field's value as written in a method name: a number, or a tuple of numbers ``a/b/c``."""
    if "/" in text:
        return tuple(float(t) for t in text.split("/"))
    number = float(text)
    return int(number) if number.is_integer() and "." not in text else number


def method(name: str):
    """The method called ``name``: one of :data:`METHODS`, or a variant of annc's for the tuning half,
    ``default[FIELD=VALUE;...]`` or ``balanced[...]``, whose fields change model selection's policy
    (``default[se_rule=0.5;resolution=0.5]``: fields apart by ``;``, as ``,`` parts methods); None if there is no such method or field."""
    if name in METHODS:
        return METHODS[name]
    base, _, rest = name.partition("[")
    if base not in ANNC or not rest.endswith("]"):
        return None
    from dataclasses import fields

    from annc.training.modelselect.policy import SelectionPolicy
    known = {f.name for f in fields(SelectionPolicy)}
    try:
        policy = {k: _value(v) for k, v in (part.split("=", 1) for part in rest[:-1].split(";") if part)}
    except ValueError:
        return None
    if not policy or set(policy) - known:
        return None
    return partial(run_default, class_weight="balanced" if base == "balanced" else None, policy=policy)
