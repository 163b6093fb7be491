"""``annc.MIPNetClassifier``: scikit-learn's estimator checks, and the estimator in
pipelines, cross-validation and grid search (:mod:`annc.app.estimator`).

The estimator checks run on :data:`FAST`, the output-layer-only model with the hinge
loss: an LP that HiGHS solves in milliseconds on every data set of the checks, so the
repeated fits the checks compare give the same network, and all of them take about a
second.  (The default ``nll`` loss has one binary per sample and class pair: on
``check_classifiers_train``'s 300 samples of 3 classes HiGHS finds nothing better than
the constant network in 30 s.)  :data:`EXPECTED_FAILED_CHECKS` is empty: no check is
skipped or expected to fail.  Checks that scikit-learn itself skips for want of an
optional package (pandas, array API) are reported as skipped by pytest.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import annc  # noqa: E402
from annc.core.errors import AnncError, SpecError  # noqa: E402
from annc.app.estimator import MIPNetClassifier
from annc.app.estimator_spec import spec_text  # noqa: E402
from conftest import ROOT  # noqa: E402

FAST = dict(hidden_layer_sizes=(), loss="hinge", time_limit=30.0)

# check name -> why it fails (none do); parametrize_with_checks marks these xfail
EXPECTED_FAILED_CHECKS: dict[str, str] = {}


@parametrize_with_checks([MIPNetClassifier(**FAST)], expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def blobs(n=60, seed=0):
    return make_blobs(n_samples=n, centers=2, cluster_std=1.0, random_state=seed)


# -- the package binds it lazily -------------------------------------------------------------------
def test_import_annc_does_not_import_sklearn():
    code = ("import sys, annc; assert 'sklearn' not in sys.modules; "
            "c = annc.MIPNetClassifier; assert 'sklearn' in sys.modules; print(c.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "annc.app.estimator"
    assert annc.MIPNetClassifier is MIPNetClassifier


# -- fitting ---------------------------------------------------------------------------------------
def test_fit_sets_the_fitted_attributes():
    X, y = blobs()
    est = MIPNetClassifier(hidden_layer_sizes=(), time_limit=30).fit(X, y)
    assert est.spec_ == "input 2\noutput 2\n"
    assert est.n_features_in_ == 2 and list(est.classes_) == [0, 1]
    assert est.status_ == "optimal"  # the output-layer-only nll model of 60 samples is proven at once
    assert est.status_ == est.result_.status.value
    assert est.network_ is est.result_.network
    assert est.n_nonzero_weights_ == est.network_.nonzero_weights()
    assert est.score(X, y) == pytest.approx(est.result_.train_accuracy)
    assert est.score(X, y) > 0.9


def test_the_spec_written_from_the_parameters():
    est = MIPNetClassifier(hidden_layer_sizes=(3, 2), activation="relu", loss="hinge", margin=0.5,
                           penalty="l1", penalty_weight=0.01, scale="standard", weights=(-2, 2),
                           extra="eps 0.05\nbias [-2, 2]")
    assert spec_text(est, 4, 3) == ("input 4\nhidden 3 relu\nhidden 2 relu\noutput 3\nloss hinge 0.5\n"
                                    "penalty l1 0.01\nscale standard\nweights [-2, 2]\neps 0.05\nbias [-2, 2]\n")
    assert spec_text(MIPNetClassifier(hidden_layer_sizes=5), 2, 2) == "input 2\nhidden 5 binary\noutput 2\n"
    assert spec_text(MIPNetClassifier(), 2, 2) == "input 2\nhidden 4 binary\noutput 2\n"


@pytest.mark.parametrize("params", [dict(scale="standard"), dict(scale="none"), dict(weights=(-3.0, 3.0)),
                                    dict(penalty="l1", penalty_weight=0.001)])
def test_optional_settings_train(params):
    X, y = blobs(40)
    est = MIPNetClassifier(hidden_layer_sizes=(), time_limit=30, **params).fit(X, y)
    assert est.score(X, y) > 0.8


def test_annc_errors_propagate():
    X, y = blobs(20)
    with pytest.raises(SpecError):
        MIPNetClassifier(hidden_layer_sizes=(), extra="bogus 1").fit(X, y)
    with pytest.raises(SpecError):
        MIPNetClassifier(hidden_layer_sizes=(2,), activation="tanh").fit(X, y)
    with pytest.raises(AnncError):
        MIPNetClassifier(hidden_layer_sizes=(), penalty="l1").fit(X, y)  # no penalty_weight
    with pytest.raises(AnncError):
        MIPNetClassifier(hidden_layer_sizes=(), time_limit=-1).fit(X, y)


def test_one_class_is_a_value_error():
    X, _ = blobs(10)
    with pytest.raises(ValueError, match="class"):
        MIPNetClassifier(hidden_layer_sizes=()).fit(X, np.zeros(10))


# -- labels ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("labels", [np.array(["cat", "dog", "emu"]), np.array([-7, 3, 10]),
                                    np.array([2.0, -1.0, 0.0]), np.array(["b", "c", "a"], dtype=object)])
def test_labels_of_any_type_round_trip(labels):
    X, y = make_blobs(n_samples=45, centers=3, cluster_std=0.5, random_state=1)
    y_lab = labels[y]
    est = MIPNetClassifier(**FAST).fit(X, y_lab)
    assert list(est.classes_) == list(np.unique(y_lab))
    assert est.classes_.dtype == y_lab.dtype
    pred = est.predict(X)
    assert pred.dtype == y_lab.dtype and set(pred.tolist()) <= set(labels.tolist())
    assert est.score(X, y_lab) > 0.8
    d = est.decision_function(X)
    assert d.shape == (45, 3)
    assert np.array_equal(est.classes_[np.argmax(d, axis=1)], pred)


def test_non_integer_float_labels_are_a_regression_target():
    """scikit-learn's rule (type_of_target): floats that are not whole numbers are continuous."""
    X, y = blobs(20)
    with pytest.raises(ValueError, match="Unknown label type"):
        MIPNetClassifier(**FAST).fit(X, y + 0.5)


def test_binary_decision_function_agrees_with_predict_on_ties():
    X, y = blobs(40)
    y_lab = np.where(y == 1, "yes", "no")
    est = MIPNetClassifier(hidden_layer_sizes=(), time_limit=30).fit(X, y_lab)
    d = est.decision_function(X)
    assert d.shape == (40,)
    assert np.array_equal(np.where(d > 0, est.classes_[1], est.classes_[0]), est.predict(X))

    class Tied:  # a network whose scores tie on the first rows
        scores = staticmethod(lambda X: np.array([[0.3, 0.3], [-1.0, -1.0], [0.0, 0.5], [0.5, 0.0]]))

    est.network_ = Tied()
    d, pred = est.decision_function(X[:4]), est.predict(X[:4])
    assert list(d) == [0.0, 0.0, 0.5, -0.5]
    assert list(pred) == ["no", "no", "yes", "no"]  # a tie is classes_[0], as argmax's first


# -- scikit-learn's tools --------------------------------------------------------------------------
def test_in_a_pipeline_with_cross_validation():
    X, y = blobs(60)
    pipe = make_pipeline(StandardScaler(), MIPNetClassifier(hidden_layer_sizes=(), time_limit=30))
    scores = cross_val_score(pipe, X, y, cv=StratifiedKFold(3, shuffle=True, random_state=0))
    assert scores.shape == (3,)
    assert np.all((scores >= 0) & (scores <= 1))
    assert scores.mean() > 0.8  # two separated blobs: far above chance (0.5)


def test_grid_search_over_a_hidden_layer():
    X, y = make_blobs(n_samples=30, centers=2, cluster_std=1.5, random_state=0)
    grid = {"loss": ["errors", "hinge"]}
    search = GridSearchCV(MIPNetClassifier(hidden_layer_sizes=(2,), time_limit=2.0), grid,
                          cv=StratifiedKFold(2, shuffle=True, random_state=0), error_score="raise")
    search.fit(X, y)
    assert search.best_params_["loss"] in grid["loss"]
    assert search.best_estimator_.hidden_layer_sizes == (2,)
    pred = search.best_estimator_.predict(X)
    assert pred.shape == (30,) and set(pred.tolist()) <= {0, 1}
    assert search.best_estimator_.status_ in ("optimal", "feasible")


def test_get_params_set_params_and_clone():
    params = dict(hidden_layer_sizes=(3,), activation="sign", loss="hinge", margin=0.25, penalty="l0",
                  penalty_weight=0.1, max_weights=4, scale="none", weights=(-2.0, 2.0), time_limit=7.5, solver="highs",
                  threads=1, gap=0.01, solver_options=None, extra="eps 0.02", select=False, stall=3,
                  workers=2, scheduler=None, missing="impute", unknown="error", class_weight="balanced")
    est = MIPNetClassifier(**params)
    assert est.get_params() == params
    default = MIPNetClassifier()
    assert default.get_params()["hidden_layer_sizes"] == (4,) and default.get_params()["time_limit"] == 60.0
    assert default.set_params(**params) is default and default.get_params() == params
    twin = clone(est)
    assert twin is not est and twin.get_params() == params
    assert not hasattr(twin, "network_")
    X, y = blobs(30)
    fitted = MIPNetClassifier(**FAST).fit(X, y)
    again = clone(fitted)
    assert again.get_params() == fitted.get_params() and not hasattr(again, "classes_")
    assert np.array_equal(again.fit(X, y).predict(X), fitted.predict(X))  # deterministic refit


def test_max_weights_bounds_the_fitted_network():
    """``max_weights`` writes ``max_weights K``: the fitted network has at most K non-zero weights;
    with a penalty other than l0 it is annc's SpecError."""
    X, y = blobs(40)
    assert spec_text(MIPNetClassifier(hidden_layer_sizes=(2,), max_weights=2), 2, 2).endswith("max_weights 2\n")
    est = MIPNetClassifier(hidden_layer_sizes=(2,), max_weights=2, time_limit=30, select=False).fit(X, y)
    assert est.network_.nonzero_weights() <= 2 and est.get_params()["max_weights"] == 2
    with pytest.raises(SpecError, match="max_weights"):
        MIPNetClassifier(hidden_layer_sizes=(), penalty="l1", penalty_weight=0.1, max_weights=2).fit(X, y)
