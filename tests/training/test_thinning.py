"""The kept models thinned (step 5 of :mod:`annc.training.modelselect.cvpath`): every weight whose
removal costs no training accuracy is dropped, no other, and the folds score the thinned twin
beside its setting so that the rule, not a constant, decides whether the dropped weights mattered."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from annc.app.api import as_data
from annc.io.spec import parse_spec
from annc.solve.compiler import build
from annc.solve.decode import decode_network
from annc.training.context import RunContext
from annc.training.modelselect.cvpath import fold_path
from annc.training.modelselect.kept import kept_point, thin
from annc.training.modelselect.cvselect import plan_for
from annc.training.modelselect.policy import DEFAULT_POLICY
from annc.training.modelselect.settings import Setting
from annc.training.search.local import _lifted
from annc.training.warmstart.pool.candidates import network_start
from annc.training.warmstart.pool.point import feasible, hidden_network

SPEC = "input {d}\nhidden {h} binary\noutput {k}\npenalty l0 {lam}\neps 0.001\n"


def compiled(X, y, h=3, k=2, lam=0.5):
    return build(parse_spec(SPEC.format(d=X.shape[1], h=h, k=k, lam=lam)), as_data((X, y)), name="t")


def net(c, x):
    return decode_network(c.varmap, x).with_scaling(c.scaling)


def errors(c, x) -> int:
    return int(np.sum(net(c, x).predict_index(c.data.X) != c.data.y))


def noisy_rows(seed, n=60, d=4, k=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(1)
    score = X[:, 0] - 0.7 * X[:, 1] + 0.3 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1])) if k > 2 else (score > 0)
    return X, y.astype(int)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.sampled_from([2, 3]), C=st.sampled_from([1.0, 10.0]))
def test_thinning_drops_only_weights_that_carry_no_training_accuracy(seed, k, C):
    """Brute force on the result: the thinned network makes no more training errors than the kept
    one, has no more non-zero weights, and zeroing any one of its remaining weights (the biases
    moved off the gap as the thinning moves them) either leaves no network or costs a training row."""
    X, y = noisy_rows(seed, k=k)
    c = compiled(X, y, h=1 if k == 2 else 3, k=k)
    ctx = RunContext()
    x = kept_point(c, Setting(None, 0.5, 0.001, logistic=C), ctx)
    assert x is not None  # a regression's separator always lifts: its rows in the gap are repaired
    t = thin(c, x, ctx)
    assert feasible(c.model, t)
    assert errors(c, t) <= errors(c, x)
    assert net(c, t).nonzero_weights() <= net(c, x).nonzero_weights()
    W, b = hidden_network(c.model, t)
    for li, w in enumerate(W):
        for i, j in zip(*np.nonzero(np.abs(w) > 1e-9)):
            tw = [v.copy() for v in W]
            tw[li][i, j] = 0.0
            y, _, _ = _lifted(c.model, c.problem, (tw, b), refit=False)
            assert y is None or errors(c, y) > errors(c, t), (li, i, j)


def test_a_weight_on_a_feature_the_rows_do_not_need_is_dropped():
    """Two features, the class is the sign of the first, with a wide margin; a network whose unit
    also reads the second with a weight too small to change any row's class loses that weight, and
    keeps the first's."""
    rng = np.random.default_rng(3)
    y = np.r_[np.zeros(40), np.ones(40)].astype(int)
    X = np.column_stack([np.where(y == 1, rng.uniform(1, 3, 80), rng.uniform(-3, -1, 80)), rng.uniform(-1, 1, 80)])
    c = compiled(X, y, h=1)  # scaled inputs: a bias of -0.25 sets the boundary between the classes
    ctx = RunContext()
    x = network_start(c.model, c.problem, [np.array([[0.5], [0.01]]), np.array([[-1.0, 1.0]])],
                      [np.array([-0.25]), np.array([0.5, -0.5])], scale=False, refit=False, ctx=ctx)
    before = net(c, x)
    assert before.layers[0].weight[1, 0] != 0 and errors(c, x) == 0
    t = thin(c, x, ctx)
    after = net(c, t)
    assert after.layers[0].weight[1, 0] == 0 and after.layers[0].weight[0, 0] != 0
    assert errors(c, t) == 0 and after.nonzero_weights() < before.nonzero_weights()


def test_nothing_is_dropped_at_an_l0_weight_of_one_or_more():
    """At ``lambda >= 1`` a drop may cost a training row, so thinning (which drops only weights that
    carry no training accuracy) leaves the point as it is."""
    X, y = noisy_rows(5)
    c = compiled(X, y, h=1, lam=2.0)
    ctx = RunContext()
    x = kept_point(c, Setting(None, 2.0, 0.001, logistic=10.0), ctx)
    assert thin(c, x, ctx) is x


def test_the_plan_scores_a_thinned_twin_of_every_kept_setting_and_the_folds_score_both():
    spec = parse_spec("input 4\nhidden 3 binary\noutput 2\n")
    plan = plan_for(spec, 120, 60, 0.001)
    kept = [s for s in plan.settings if s.kept and not s.thinned]
    twins = [s for s in plan.settings if s.thinned]
    assert len(kept) >= len(DEFAULT_POLICY.logistic_path) and {replace(s, thinned=False) for s in twins} == set(kept)
    X, y = noisy_rows(11, n=90)
    fit, val = as_data((X[:60], y[:60])), as_data((X[60:], y[60:]))
    scores = fold_path(spec, fit, val, plan, ctx=RunContext(), groups=[], kept=True)
    for s in kept:
        a, b = scores[s], scores[replace(s, thinned=True)]
        assert a.accuracy is not None and b.accuracy is not None
        assert b.nonzero_weights <= a.nonzero_weights and b.fit_accuracy >= a.fit_accuracy - 1e-12
