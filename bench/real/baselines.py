"""The baselines of ``bench/real/harness.py``: each ``(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict``.

Features.  Every scikit-learn baseline and annc's SGD read min-max scaled features (the
scaler fitted on the training part); a set's text columns (a data frame's, see
``bench.real.sets``) are one-hot encoded beside them (``OneHotEncoder``, fitted on the
training part, 0/1, not scaled).  STreeD reads the raw table (below).

Every run records its ``balanced_test_accuracy`` (:func:`balanced_accuracy`) beside its accuracy.

Non-zero weights: coefficients (or MLP weights) with |w| > 1e-9, intercepts not counted.
The trees have no weights: their "parameters" are their split (internal) nodes, recorded
as ``splits`` (``nonzero_weights`` None).

  logreg_l2   ``LogisticRegression(C=1, max_iter=5000)`` (lbfgs; multinomial for k > 2);
  logreg_l1   ``LogisticRegression(l1_ratio=1, solver="liblinear", C=1, max_iter=5000)``
              (scikit-learn >= 1.8 spells ``penalty="l1"`` as ``l1_ratio=1``); for k > 2
              one-vs-rest (liblinear is binary only), all k binary models' coefficients counted;
  tree3       ``DecisionTreeClassifier(max_depth=3, random_state=split)`` (greedy, CART);
  streed3     the optimal tree of depth at most 3 (at most 7 split nodes: ``max_num_nodes``
              not set) that minimises training misclassifications, by STreeD (``pystreed``'s
              ``STreeDClassifier(max_depth=3, optimization_task="accuracy",
              time_limit=<the run's time limit>)``).  STreeD needs binary features and
              binarises them itself (its defaults): each continuous column becomes 5 ``x <=
              t`` tests at quantile thresholds (``continuous_binarize_strategy="quantile"``,
              ``n_thresholds=5``, fitted on the training part), a text column one test per
              category (at most 5 categories, ``n_categories=5``), 0/1 columns are kept.  Its
              ``proven`` is ``fit_result.is_optimal()``: optimal among depth-3 trees over
              THESE binary tests (not over every threshold); False when its time limit cut it;
  mlp         ``MLPClassifier(hidden_layer_sizes=(H,), max_iter=2000, random_state=split)``;
  mlp_best5   ``MLPClassifier(hidden_layer_sizes=(H,), solver="lbfgs", max_iter=2000,
              random_state=seed)`` for seeds 0..4; the one with the highest TRAINING accuracy
              is kept (ties: the lowest seed) and reported on the test part; time = the 5 fits;
  sgd         annc's full-batch momentum SGD with straight-through binary units
              (``annc.training.warmstart.sgd.train_sgd`` at its paper settings, seed = split), width H.
"""
from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from bench.real.sets import text_columns

TREES = ("tree3", "streed3")  # methods whose "parameters" are split nodes


def features(Xtr):
    """The fitted transformer of the baselines: min-max scaling, text columns one-hot."""
    text = text_columns(Xtr)
    if not text:
        return MinMaxScaler().fit(Xtr)
    numeric = [c for c in Xtr.columns if c not in text]
    return ColumnTransformer([("num", MinMaxScaler(), numeric),
                              ("text", OneHotEncoder(handle_unknown="ignore", sparse_output=False), text)]).fit(Xtr)


def _nonzero(*arrays) -> int:
    """Entries with |w| > 1e-9 over ``arrays``."""
    return int(sum(np.count_nonzero(np.abs(np.asarray(a)) > 1e-9) for a in arrays))


def _fit_scaled(clf, Xtr, ytr, Xte, yte):
    """Fit ``clf`` on the transformed features (:func:`features`, fitted on the training part):
    (clf, seconds, test accuracy, train accuracy, balanced test accuracy)."""
    f = features(Xtr)
    Str, Ste = f.transform(Xtr), f.transform(Xte)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(Str, ytr)
    seconds = time.perf_counter() - t0
    predicted = clf.predict(Ste)
    return (clf, seconds, float(np.mean(predicted == yte)), float(clf.score(Str, ytr)),
            balanced_accuracy(yte, predicted))


def balanced_accuracy(y, predicted) -> float:
    """The mean over the classes present in ``y`` of the share of their rows predicted right."""
    y, predicted = np.asarray(y), np.asarray(predicted)
    return float(np.mean([np.mean(predicted[y == c] == c) for c in np.unique(y)]))


def _row(status, seconds, test_acc, train_acc, nnz, **extra) -> dict:
    return {"status": status, "seconds": round(seconds, 2), "test_accuracy": test_acc, "train_accuracy": train_acc,
            "nonzero_weights": nnz, "gap": None, **extra}


def run_mlp(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    clf, sec, te, tr, bal = _fit_scaled(MLPClassifier(hidden_layer_sizes=(H,), max_iter=2000, random_state=split),
                                        Xtr, ytr, Xte, yte)
    return _row("converged" if clf.n_iter_ < clf.max_iter else "max_iter", sec, te, tr,
                int(sum(np.count_nonzero(W) for W in clf.coefs_)), balanced_test_accuracy=bal)


def run_sgd(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    from annc.training.warmstart.sgd import SgdSettings, train_sgd
    f = features(Xtr)
    classes = sorted(np.unique(ytr).tolist())
    t0 = time.perf_counter()
    net = train_sgd(f.transform(Xtr), ytr, [H], "binary", classes=classes, settings=SgdSettings(seed=split))
    seconds = time.perf_counter() - t0
    idx = {c: i for i, c in enumerate(classes)}

    def acc(X, y):
        return float(np.mean(net.predict_index(f.transform(X)) == [idx[c] for c in y]))
    return _row("trained", seconds, acc(Xte, yte.tolist()), acc(Xtr, ytr.tolist()), net.nonzero_weights(),
                final_loss=net.meta.get("final_loss"))


def run_logreg_l2(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    clf, sec, te, tr, bal = _fit_scaled(LogisticRegression(C=1.0, max_iter=5000), Xtr, ytr, Xte, yte)
    status = "converged" if int(np.max(clf.n_iter_)) < clf.max_iter else "max_iter"
    return _row(status, sec, te, tr, _nonzero(clf.coef_), balanced_test_accuracy=bal)


def run_logreg_l1(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    # l1_ratio=1 is penalty="l1" (the spelling scikit-learn >= 1.8 asks for); liblinear is binary only
    lr = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=1.0, max_iter=5000)
    ovr = len(np.unique(ytr)) > 2
    clf, sec, te, tr, bal = _fit_scaled(OneVsRestClassifier(lr) if ovr else lr, Xtr, ytr, Xte, yte)
    models = clf.estimators_ if ovr else [clf]
    status = "converged" if all(int(np.max(m.n_iter_)) < m.max_iter for m in models) else "max_iter"
    return _row(status, sec, te, tr, _nonzero(*(m.coef_ for m in models)), balanced_test_accuracy=bal)


def run_tree3(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    """A greedy (CART) depth-3 tree; its parameters are its split (internal) nodes."""
    clf, sec, te, tr, bal = _fit_scaled(DecisionTreeClassifier(max_depth=3, random_state=split), Xtr, ytr, Xte, yte)
    return _row("trained", sec, te, tr, None, splits=int(np.count_nonzero(clf.tree_.children_left != -1)),
                depth=int(clf.get_depth()), balanced_test_accuracy=bal)


def run_streed3(Xtr, ytr, Xte, yte, H, split, time_limit, *, max_splits: int | None = None) -> dict:
    """STreeD's optimal depth-3 tree (training accuracy) on its own binarisation, with its proof;
    ``max_splits``: at most that many branching nodes (``max_num_nodes``; None: up to 7)."""
    from pystreed import STreeDClassifier
    nodes = {} if max_splits is None else {"max_num_nodes": int(max_splits)}
    clf = STreeDClassifier(max_depth=3, optimization_task="accuracy", time_limit=time_limit,
                           continuous_binarize_strategy="quantile", n_thresholds=5, n_categories=5, **nodes)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(Xtr, ytr)
    seconds = time.perf_counter() - t0
    if not clf.is_fitted():
        return _row("no tree", seconds, None, None, None, splits=None, proven=False)
    r = clf.fit_result
    proven = bool(r.is_optimal())
    predicted = clf.predict(Xte)
    return _row("optimal" if proven else "time limit", seconds, float(np.mean(predicted == yte)),
                float(clf.score(Xtr, ytr)), None, splits=int(r.tree_nodes()), depth=int(r.tree_depth()),
                proven=proven, balanced_test_accuracy=balanced_accuracy(yte, predicted))


def run_mlp_best5(Xtr, ytr, Xte, yte, H, split, time_limit) -> dict:
    """The best of 5 lbfgs MLPs (seeds 0..4) by TRAINING accuracy (ties: the lowest seed),
    reported on the test part; the time is the five fits'."""
    fits = [_fit_scaled(MLPClassifier(hidden_layer_sizes=(H,), solver="lbfgs", max_iter=2000, random_state=seed),
                        Xtr, ytr, Xte, yte) for seed in range(5)]
    best = max(range(5), key=lambda i: (fits[i][3], -i))
    clf, _, te, tr, bal = fits[best]
    return _row("converged" if clf.n_iter_ < clf.max_iter else "max_iter", sum(f[1] for f in fits),
                te, tr, _nonzero(*clf.coefs_), seed=best, train_accuracies=[round(f[3], 6) for f in fits],
                balanced_test_accuracy=bal)


BASELINES = {"mlp": run_mlp, "sgd": run_sgd, "logreg_l2": run_logreg_l2, "logreg_l1": run_logreg_l1,
             "tree3": run_tree3, "streed3": run_streed3, "mlp_best5": run_mlp_best5}
