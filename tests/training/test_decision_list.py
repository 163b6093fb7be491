"""The one-vs-rest separators as a decision list in k - 1 step units (annc.training.warmstart.pool.decisionlist):
the output layer makes the first listed unit that is on win, the order fitted is the best one, and a
logistic setting of four classes in a layer of four units is that list.  The separator's width rule
(pairs, list, output code: tests/training/test_output_code.py) is checked here too."""
from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from annc.training.warmstart.pool.decisionlist import decision_list, list_predict, priority
from test_cvselect import logistic_fold_network


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 6), st.integers(0, 2**31 - 1))
def test_the_output_layer_computes_the_list(k, seed):
    """For any one-vs-rest scores of k classes, the step units h_r = 1[s_{c_r} >= 0] of the chosen order
    and the output layer of decision_list give, by argmax and by a margin of at least 1/2, the class
    the list names: the first listed class whose score is >= 0, else the most frequent class."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(80, 3))
    W, b = rng.normal(size=(3, k)), rng.normal(size=k)
    order = [int(c) for c in rng.permutation(k)]
    y = rng.integers(0, k, size=80)
    W1, b1, (Wo, bo) = decision_list(X, y, np.ones(80), W, b, order, k)
    assert W1.shape == (3, k - 1) and Wo.shape == (k - 1, k)
    H = (X @ W1 + b1 >= 0).astype(float)
    o = H @ Wo + bo
    units = [list(W.T.tolist()).index(col) for col in W1.T.tolist()]  # the columns in their order
    assert np.array_equal(np.argmax(o, axis=1), list_predict(X @ W + b, units, order[0], order))
    top2 = np.sort(o, axis=1)[:, -2:]
    assert np.all(top2[:, 1] - top2[:, 0] >= 0.5 - 1e-9)


def test_the_order_fitted_is_the_best_of_every_order():
    """priority: no order of the units fits the weighted rows better than the one it returns."""
    rng = np.random.default_rng(0)
    S, y, w = rng.normal(size=(200, 4)), rng.integers(0, 4, size=200), rng.uniform(0.5, 2, size=200)
    classes, columns = [0, 1, 2, 3], [1, 2, 3]
    fit = lambda order: float(w[list_predict(S, list(order), 0, classes) == y].sum())  # noqa: E731
    best = priority(S, y, w, columns, classes, 0)
    assert sorted(best) == columns
    assert fit(best) >= max(fit(o) for o in itertools.permutations(columns)) - 1e-12


def test_a_four_class_logistic_setting_in_four_units_is_the_reading_that_fits_best():
    """Four classes at width 4 (the k (k - 1) / 2 = 6 pairwise units do not fit): the folds score L1
    logistic settings of width 4, whose network is the decision list of the one-vs-rest hyperplanes
    or an output code of 2 to 4 bits, whichever fits the rows best (fewer_units), and fits the rows
    at least as well as each of those readings, but for the rows the repair moved off the eps gap."""
    from annc.training.warmstart.pool.readings import code_separators
    from annc.training.warmstart.pool.regression import logistic, one_vs_rest
    score, (W, b), problem = logistic_fold_network(320, 4, cluster_std=2.0, seed=5)
    Xs, ys, w = problem.class_rows()
    order = [int(c) for c in np.argsort(-problem.counts.sum(0), kind="stable")]
    Wf, bf = one_vs_rest(problem, lambda: logistic(1.0))
    readings = [decision_list(Xs, ys, w, Wf, bf, order, 4)] + [code_separators(problem, order, bits, 1.0)
                                                               for bits in (2, 3, 4)]
    fits = [np.average(np.argmax((Xs @ W1 + b1 >= 0).astype(float) @ Wo + bo, axis=1) == ys, weights=w)
            for W1, b1, (Wo, bo) in readings]
    assert score.fit_accuracy >= max(fits) - 0.05


def test_the_separator_width_prefers_the_pairwise_units_and_falls_back_to_the_list():
    """One rule for the logistic separator's width (model selection's settings and the start pool's
    network): two classes one unit; k classes the k (k - 1) / 2 pairwise units where the layer holds
    them, else the k - 1 units of the decision list, else none."""
    from annc.training.warmstart.pool.readings import separator_width
    assert separator_width(2, 1) == separator_width(2, 8) == 1
    assert separator_width(4, 6) == separator_width(4, 20) == 6
    assert separator_width(4, 5) == separator_width(4, 4) == 4  # a list of 3 units or a code of up to 4 bits
    assert separator_width(4, 3) == 3 and separator_width(4, 2) == 2  # 4 words of 2 bits
    assert separator_width(10, 4) == 4 and separator_width(10, 3) is None
    for k, units in itertools.product(range(3, 12), range(1, 30)):
        width = separator_width(k, units)
        assert (width is None) == (2 ** units < k)  # no pattern of the units per class: nothing fits
        assert width is None or width <= units
        assert (width == k * (k - 1) // 2) == (units >= k * (k - 1) // 2)
        if width is not None and units >= k - 1:
            assert width >= k - 1
