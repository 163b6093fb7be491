"""Moving a step unit off the eps gap by refitting its weights (:func:`annc.training.warmstart.pool.repair.refit_unit`).

The bias alone cannot widen a unit's margin; an LP over the unit's weights can. These
tests hold for any BLAS: the data are exact or the assertions are inequalities.
"""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import annc.training.warmstart.pool.repair as repair
from annc.formulations import formulate
from annc.io.problem import make_problem
from annc.io.spec import parse_spec
from annc.training.warmstart.pool import complete
from annc.training.warmstart.pool.repair import off_gap, refit_unit, threshold

EPS = 0.001


def problem(text, X, y):
    spec = parse_spec(text)
    pb = make_problem(spec, X, y, sorted(set(np.asarray(y).tolist())))
    return formulate(pb, name="p"), pb


def pattern(X, W, b):
    return (np.asarray(X) @ np.asarray(W) + b) >= 0


def test_a_refit_keeps_a_pattern_the_bias_alone_must_flip():
    # x1 separates the two rows by 0.0004 < eps; x2 separates them by 1
    X = np.array([[0.5002, 0.0], [0.4998, 1.0]])
    W, b = np.array([[1.0], [1e-4]]), np.array([-0.5])
    pre = (X @ W + b)[:, 0]
    assert list(pre >= 0) == [True, False]
    nb = threshold(pre * 0.9, b[0] * 0.9, EPS, -1, 1)  # what the bias alone does, after the box scaling
    assert np.sum(((pre * 0.9) - b[0] * 0.9 + nb >= EPS) != (pre >= 0)) == 1
    _, pb = problem(f"input 2\nhidden 1 binary\noutput 2\neps {EPS}\n", X, np.array([0, 1]))
    Wr, br, H = off_gap(pb, [W], [b])
    assert np.array_equal(H[:, 0], pattern(pb.X, W, b)[:, 0])  # both rows keep their activation
    pre_r = pb.X @ Wr[0][:, 0] + br[0][0]
    assert not np.any((pre_r > 0) & (pre_r < EPS))  # and are clear of the gap
    assert np.all(np.abs(Wr[0]) <= 1) and np.all(np.abs(br[0]) <= 1)


def test_a_repair_without_refit_keeps_the_units_hyperplane():
    """The rows of the test above: where the bias alone must flip a row, ``refit=False`` (a kept
    logistic separator's repair, annc.training.modelselect.kept.kept_point) moves the bias and keeps the
    unit's direction, flipping that row; the refit turns the unit to read x2 instead."""
    X = np.array([[0.5002, 0.0], [0.4998, 1.0]])
    W, b = np.array([[1.0], [1e-4]]), np.array([-0.5])
    model, pb = problem(f"input 2\nhidden 1 binary\noutput 2\neps {EPS}\nscale none\n", X, np.array([0, 1]))
    out = [np.array([[0.0, 1.0]]), np.array([0.5, 0.0])]
    kept = repair.repair_network(pb, [W, out[0]], [b, out[1]], scale=False, refit=False)
    refitted = repair.repair_network(pb, [W, out[0]], [b, out[1]], scale=False)
    w_kept, w_fit = kept[0][0][:, 0], refitted[0][0][:, 0]
    assert np.allclose(w_kept, W[:, 0])  # the same hyperplane's direction and scale, the bias moved
    assert abs(kept[1][0][0] - b[0]) <= 2 * EPS
    assert int(np.sum(kept[2][:, 0] != pattern(pb.X, W, b)[:, 0])) == 1  # the row the bias alone flips
    assert abs(w_fit @ W[:, 0]) / np.linalg.norm(w_fit) / np.linalg.norm(W[:, 0]) < 0.99  # the refit turned it
    assert np.array_equal(refitted[2][:, 0], pattern(pb.X, W, b)[:, 0])


def test_a_refit_keeps_zero_weights_at_zero():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (40, 5))
    w = np.array([0.7, 0.0, -0.4, 0.0, 0.2])
    on = X @ w - 0.1 >= 0
    fit = refit_unit(X, on, w, EPS, (-1, 1), (-1, 1), np.ones(40))
    assert fit is not None
    w2, b2 = fit
    assert w2[1] == 0 and w2[3] == 0
    assert np.all(pattern(X, w2, b2 - EPS / 2) == on)  # separable: every row keeps its side


def test_the_bias_stays_where_it_is_clear_of_the_gap_even_at_its_bound():
    # nothing in (0, eps); the middle of the gap at 0 would need the bias 1.4495
    pre = np.array([-0.9, 0.002, 0.5])
    assert threshold(pre, 1.0, EPS, -1, 1) == 1.0  # not 0.7495, which turns the row at 0.002 off


def _no_lp(*args, **kwargs):
    raise AssertionError("off_gap(refit=False) solved an LP")


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**16), st.sampled_from([0.001, 0.01, 0.05]))
def test_off_gap_never_flips_more_than_the_bias_alone(seed, eps):
    rng = np.random.default_rng(seed)
    n, d, units = 30, 3, 2
    X = np.round(rng.uniform(0, 1, (n, d)), 3)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    W = rng.normal(0, 1, (d, units)) * (rng.random((d, units)) < 0.8)
    b = rng.normal(0, 0.5, units)
    model, pb = problem(f"input {d}\nhidden {units} binary\noutput 2\neps {eps}\n", X, y)
    rows = pb.row_samples
    before = pattern(pb.X, W, b)
    got = off_gap(pb, [W], [b])
    saved = repair.refit_unit
    try:  # the same repair with the bias alone (refit=False): no LP is solved
        repair.refit_unit = _no_lp
        alone = off_gap(pb, [W], [b], refit=False)
    finally:
        repair.refit_unit = saved
    if alone is not None:
        assert got is not None
        flipped = rows @ (got[2] != before)
        assert np.all(flipped <= rows @ (alone[2] != before))
        pre = pb.X @ alone[0][0] + alone[1][0]
        assert not np.any((pre > 1e-9) & (pre < eps - 1e-9))  # the biases alone clear the gap too
    if got is not None:
        Wr, br, H = got
        assert np.all(Wr[0][W == 0] == 0)  # no weight appears
        assert np.all(np.abs(Wr[0]) <= 1) and np.all(np.abs(br[0]) <= 1)
        pre = pb.X @ Wr[0] + br[0]
        assert not np.any((pre > 1e-9) & (pre < eps - 1e-9))
        Wo, bo = np.zeros((units, 2)), np.zeros(2)
        assert complete(model, pb, [*Wr, Wo], [*br, bo]) is not None  # a point the model accepts


def _threshold_by_enumeration(pre, bias, eps, bl, bu):
    """:func:`threshold` as its docstring states it: every candidate zero, each one's flips counted
    on every sample, the fewest taken (ties to the earlier candidate)."""
    v = np.unique(pre)
    slack = 1e-6 * max(eps, 1.0)
    gaps = np.nonzero(np.diff(v) > eps + 2 * slack)[0]
    cands = [v[0] - eps - slack, v[-1] + slack] + list((v[gaps] + v[gaps + 1] - eps) / 2)
    if not np.any((v > -slack) & (v < eps + slack)):
        cands.append(0.0)
    best, fewest = None, None
    for c in cands:
        if bl <= bias - c <= bu:
            flips = int(np.sum((pre - c >= eps) != (pre >= 0)))
            if fewest is None or flips < fewest:
                best, fewest = float(bias - c), flips
    return best


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-40, 40), min_size=1, max_size=40), st.sampled_from([1e-5, 1e-3, 0.05, 0.2]),
       st.sampled_from([0.01, 0.1, 1.0]), st.floats(-2, 2), st.floats(-3, 0), st.floats(0, 3))
def test_threshold_counts_flips_as_enumeration_does(values, eps, step, bias, bl, bu):
    """The sorted, cumulative count of :func:`threshold` chooses the bias that enumerating every
    candidate on every sample chooses, ties included (values on a grid make ties and gaps of every size)."""
    pre = np.asarray(values, float) * step
    assert threshold(pre, bias, eps, bl, bu) == _threshold_by_enumeration(pre, bias, eps, bl, bu)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-40, 40), min_size=1, max_size=40), st.sampled_from([1e-3, 0.05, 0.2]),
       st.sampled_from([0.3, 1.0, 3.0]), st.floats(-2, 2))
def test_threshold_least_moves_least_among_the_fewest_flips(values, eps, step, bias):
    """``fires_at`` (step units' ``eps/2``): no zero ``c`` on a fine grid that clears the gap flips
    fewer of the exported unit's decisions (``pre >= eps/2``), nor flips as few and lies nearer 0
    (a brute-force scan of the line, the result's own gap kept clear; values on a grid of ``step``
    eps make gaps narrower and wider than eps, and ties)."""
    pre = np.asarray(values, float) * step * eps
    nb = threshold(pre, bias, eps, -10, 10, fires_at=eps / 2)
    c = bias - nb
    assert not np.any((pre > c) & (pre < c + eps))  # clear of the gap after the move
    got = int(np.sum((pre - c >= eps) != (pre >= eps / 2)))
    z = np.arange(pre.min() - 2 * eps, pre.max() + 2 * eps, eps / 8)
    clear = ~np.any((pre > z[:, None] - 1e-6) & (pre < z[:, None] + eps + 1e-6), axis=1)
    flips = np.sum((pre - z[clear, None] >= eps) != (pre >= eps / 2), axis=1)
    assert np.all(flips >= got)
    assert np.all(np.abs(z[clear][flips == got]) >= abs(c) - 1e-12)
    if not np.any((pre > -1e-6) & (pre < eps + 1e-6)):
        assert nb == bias  # clear of the gap (and of its edges, by the slack): kept


def test_a_unit_clear_of_the_gap_keeps_its_bias_when_moved_the_least():
    """The logistic separator's repair (``refit=False``): a unit whose rows are clear of ``(0, eps)``
    keeps its bias, where the middle of the gap around 0 moves it (and with it the boundary)."""
    pre = np.array([-0.3, -0.002, 0.0013, 0.4])
    assert threshold(pre, 0.25, EPS, -1, 1, fires_at=EPS / 2) == 0.25
    assert threshold(pre, 0.25, EPS, -1, 1) != 0.25
