"""L1 logistic regression as the start pool and model selection fit it: one hyperplane per class.

:func:`logistic` is scikit-learn's liblinear at a given ``C`` (deterministic, ``random_state=0``),
the L1 penalty spelled as the installed scikit-learn spells it (:func:`l1_penalty`);
:func:`one_vs_rest` fits one hyperplane per class (one for two classes) on a problem's distinct
rows weighted by their sample counts (class weights included), and :func:`hyperplane` fits one to
a boolean target.  How those hyperplanes become step units is :mod:`.readings` (many classes in a
layer) and :mod:`.linear` (the start pool's separators).  scikit-learn, because its liblinear
path is the reference L1 logistic regression the bench compares against.
"""
from __future__ import annotations

import warnings

import numpy as np
import sklearn
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from ....io.problem import TrainingProblem

__all__ = ["hyperplane", "l1_penalty", "logistic", "one_vs_rest"]


def logistic(C: float) -> LogisticRegression:
    """L1-regularised logistic regression at ``C`` (liblinear, deterministic)."""
    return LogisticRegression(**l1_penalty(), solver="liblinear", C=C, max_iter=2000, random_state=0)


def one_vs_rest(problem: TrainingProblem, make) -> tuple[np.ndarray, np.ndarray] | None:
    """``(W, b)`` of the model ``make()`` fitted on the problem's (scaled) rows with their sample
    counts as weights: ``W`` is ``d x m`` (one column per separator, ``m = 1`` for two classes,
    "not the majority class"; else one per class, most frequent first) and ``b`` has ``m``
    entries; a column says ``class c`` where ``X @ W[:, i] + b[i] > 0``.  None for one class."""
    X, y, weight = problem.class_rows()
    J = len(problem.classes)
    present = np.flatnonzero(problem.counts.sum(0) > 0)
    if len(present) < 2:
        return None
    order = present[np.argsort(-problem.counts.sum(0)[present], kind="stable")]
    targets = [order[0]] if J == 2 and len(present) == 2 else list(order)
    fits = [hyperplane(make(), X, (y == c) if len(targets) > 1 or J > 2 else (y != c), weight) for c in targets]
    return np.column_stack([w for w, _ in fits]), np.array([b for _, b in fits])


def hyperplane(model, X: np.ndarray, positive: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, float]:
    """``(w, b)`` of the linear ``model`` fitted to the boolean ``positive`` (a row's class is
    positive where ``X @ w + b > 0``), rows weighted by ``weight``; liblinear's convergence
    warning is silenced (its iteration cap is a work limit)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, positive.astype(int), sample_weight=weight)
    return np.ravel(model.coef_), float(np.ravel(model.intercept_)[0])


def l1_penalty() -> dict:
    """The L1 penalty in the words of the installed scikit-learn (``l1_ratio=1`` from 1.8
    on, where ``penalty`` is deprecated; ``penalty="l1"`` before)."""
    major, minor = (int(p) for p in sklearn.__version__.split(".")[:2])
    return {"l1_ratio": 1.0} if (major, minor) >= (1, 8) else {"penalty": "l1"}
