"""Optimal trees (ConTree, STreeD) as candidates beside CART's (:mod:`annc.training.warmstart.pool.treemakers`):
written as step networks a unit per split, in the start pool and on model selection's path, and
without their libraries annc keeps CART's trees alone and says once what it leaves out."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_trees import is_threshold_function, network_of

from annc.app.api import as_data
from annc.io.spec import parse_spec
from annc.solve.compiler import build
from annc.training.context import RunContext
from annc.training.modelselect.cvpath import Setting
from annc.training.modelselect.cvselect import cross_validate, plan_for
from annc.training.modelselect.kept import kept_point
from annc.training.modelselect.policy import DEFAULT_POLICY
from annc.training.warmstart.pool.candidates import network_start, start_pool
from annc.training.warmstart.pool.treemakers import (TREE_MAKERS, binary_tests, missing_note, snapped,
                                                     work_rows)
from annc.training.warmstart.pool.trees import DEPTHS, splits, tree_network, tree_networks

SPEC = "input {d}\nhidden {h} binary\noutput {k}\neps 0.001\n"


def decoyed(n=200, seed=0, classes=2):
    """Rows on a 5-level grid where greedy CART is fooled: the label is a rule of two features
    (an AND for two classes; a decision list for three) and a third feature, a decoy, agrees with
    it on 88% of the rows, so a single split on the decoy separates more rows than one on either
    true feature, and CART's depth-2 tree starts there.  The depth-2 rule itself is exact."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 3)).astype(float)
    if classes == 2:
        y = ((X[:, 0] > 1) & (X[:, 1] > 1)).astype(int)
    else:
        y = np.where(X[:, 0] <= 1, 0, np.where(X[:, 1] <= 2, 1, 2))
    noisy = np.where(rng.random(n) < 0.12, (y + 1) % classes, y)
    X[:, 2] = noisy + rng.integers(0, 2, n) * 0.5  # the decoy: the label, 12% wrong, blurred
    return X, y


def compiled(X, y, h=3, k=2):
    return build(parse_spec(SPEC.format(d=X.shape[1], h=h, k=k)), as_data((X, y)), name="t")


def tree_predict(problem, features, thresholds, leaves_from):
    """A tree's predictions on the problem's samples, from its split bits: each pattern of bits takes
    the class ``leaves_from`` (an estimator fitted on the same samples) gives its rows."""
    bits = problem.X_samples[:, features] > thresholds
    return bits, leaves_from.predict(problem.X_samples)


def accuracy(c, x, X, y):
    return float(np.mean(network_of(c, x).predict_index(as_data((X, y)).X) == y))


def placed_point(c, depth, source):
    return network_start(c.model, c.problem, *tree_network(c.problem, depth, source), scale=False, refit=False)


def test_the_optimal_depth_2_tree_beats_carts_and_its_network_reproduces_it():
    pytest.importorskip("pycontree", reason="ConTree's optimal trees: pip install annc[trees]")
    from pycontree import ConTree
    from sklearn.tree import DecisionTreeClassifier
    X, y = decoyed()
    c = compiled(X, y)
    p = c.problem
    assert int(p.class_rows()[2].max()) > 1  # rows repeat: the trees see their counts
    optimal = ConTree(max_depth=2).fit(*work_rows(*p.class_rows(), 2))
    greedy = DecisionTreeClassifier(max_depth=2, max_leaf_nodes=4, random_state=0).fit(*p.class_rows()[:2],
                                                                                         sample_weight=p.class_rows()[2])
    assert np.mean(optimal.predict(p.X_samples) == p.y) > np.mean(greedy.predict(p.X_samples) == p.y)
    features, thresholds = splits(p, 2, 3, "contree")
    bits, says = tree_predict(p, features, thresholds, optimal)
    x = placed_point(c, 2, "contree")
    assert x is not None and c.model.check(x).ok
    net = network_of(c, x)
    assert is_threshold_function(bits.astype(float), says)  # the AND: so the network is the tree
    assert np.array_equal(net.predict_index(as_data((X, y)).X), says)
    W0 = net.layers[0].weight
    assert all(np.count_nonzero(W0[:, u]) == 1 for u in range(len(features)))  # a unit per split
    assert accuracy(c, x, X, y) >= accuracy(c, placed_point(c, 2, "cart"), X, y)
    names = [name for name, _, _ in tree_networks(p)]
    assert "decision tree, depth 2 (ConTree, optimal)" in names
    assert names[:len(DEPTHS)] == [f"decision tree, depth {d} (CART)" for d in DEPTHS]  # CART's first


def test_the_optimal_tree_joins_the_start_pool():
    pytest.importorskip("pycontree", reason="ConTree's optimal trees: pip install annc[trees]")
    X, y = decoyed(seed=1)
    c = compiled(X, y)
    pool, _ = start_pool(c.model, c.problem, seeds=1)
    names = [cand.name for cand in pool]
    assert "decision tree, depth 2 (ConTree, optimal)" in names
    best_cart = min(cand.objective for cand in pool if cand.name.endswith("(CART)"))
    assert min(cand.objective for cand in pool if "optimal" in cand.name) <= best_cart


def test_three_classes():
    pytest.importorskip("pycontree", reason="ConTree's optimal trees: pip install annc[trees]")
    from pycontree import ConTree
    X, y = decoyed(n=240, seed=2, classes=3)
    c = compiled(X, y, h=3, k=3)
    p = c.problem
    optimal = ConTree(max_depth=2).fit(*work_rows(*p.class_rows(), 2))
    x = placed_point(c, 2, "contree")
    assert x is not None and c.model.check(x).ok
    tree_accuracy = float(np.mean(optimal.predict(p.X_samples) == p.y))
    assert tree_accuracy == 1.0  # the decision list is a depth-2 tree
    # a decision list's classes are an argmax of scores linear in its split bits: the network is the tree
    assert accuracy(c, x, X, y) == tree_accuracy >= accuracy(c, placed_point(c, 2, "cart"), X, y)


def test_streed_trees_take_at_most_the_layers_width_in_splits():
    pytest.importorskip("pystreed", reason="STreeD's optimal trees: pip install annc[trees]")
    X, y = decoyed(seed=3)
    for h in (1, 2, 3):
        c = compiled(X, y, h=h)
        found = splits(c.problem, 3, h, "streed")
        assert found is not None and 1 <= len(found[0]) <= h
        x = placed_point(c, 3, "streed")
        assert x is not None and c.model.check(x).ok


def test_contree_is_asked_only_where_its_full_tree_fits():
    X, y = decoyed(seed=4)
    c = compiled(X, y, h=2)
    assert not TREE_MAKERS["contree"].fits(2, 2) and TREE_MAKERS["contree"].fits(1, 2)
    assert splits(c.problem, 2, 2, "contree") is None  # 3 splits in 2 units: not fitted at all


def test_a_kept_optimal_tree_setting_is_its_trees_network():
    pytest.importorskip("pycontree", reason="ConTree's optimal trees: pip install annc[trees]")
    X, y = decoyed(seed=5)
    c = compiled(X, y)
    s = Setting(3, 0.5, 0.001, tree=2, tree_source="contree")
    assert "ConTree" in s.label(c.problem.spec)
    x = kept_point(c, s, RunContext())
    assert x is not None and c.model.check(x).ok
    assert accuracy(c, x, X, y) == accuracy(c, placed_point(c, 2, "contree"), X, y)


def test_the_path_holds_the_optimal_trees_where_installed():
    spec = parse_spec("input 3\nhidden 4 binary\noutput 2\n")
    plain = plan_for(spec, 200, 50, 0.001, replace(DEFAULT_POLICY, tree_makers={}))
    assert {s.tree_source for s in plain.settings if s.tree is not None} == {"cart"}
    assert [s.tree for s in plain.trees] == list(DEPTHS)
    full = plan_for(spec, 200, 50, 0.001)
    got = {(s.tree, s.tree_source) for s in full.trees}
    assert {(d, "cart") for d in DEPTHS} <= got
    if TREE_MAKERS["contree"].installed():  # width 4: ConTree's depth 1 and 2; depth 3 (7 splits) is STreeD's
        assert {(1, "contree"), (2, "contree")} <= got and (3, "contree") not in got
    if TREE_MAKERS["streed"].installed() and TREE_MAKERS["contree"].installed():
        assert (3, "streed") in got


def test_without_the_libraries_the_candidates_are_carts_and_the_run_says_so_once():
    X, y = decoyed(seed=6)
    c = compiled(X, y, h=4)
    names = [name for name, _, _ in tree_networks(c.problem, makers={})]
    assert names and all(name.endswith("(CART)") for name in names)
    note = missing_note({})
    assert "pycontree" in note and "annc[trees]" in note
    said: list[str] = []
    spec = parse_spec("input 3\nhidden 4 binary\noutput 2\neps 0.001\n")
    # a context already past its deadline: the plan is made and logged, no fold runs
    cross_validate(spec, as_data((X, y)), ctx=RunContext.create(limit=0.0), policy=replace(DEFAULT_POLICY, tree_makers={}), log=said.append)
    assert sum("pycontree" in line for line in said) == 1
    if missing_note() is None:  # everything installed: nothing to say
        said.clear()
        cross_validate(spec, as_data((X, y)), ctx=RunContext.create(limit=0.0), log=said.append)
        assert not any("not installed" in line for line in said)


def test_binary_tests_and_snapping_keep_every_rows_side():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 30, size=(300, 2)).astype(float)
    features, thresholds = binary_tests(X, cuts=4)
    assert np.bincount(features, minlength=2).max() <= 4
    values = np.unique(X[:, 0])
    for t in (3.2, 10.0, 17.7):
        s = snapped(X[:, 0], t)
        assert np.array_equal(X[:, 0] > s, X[:, 0] > t) and not np.isin(s, values)


def test_work_rows_repeat_the_counts_and_sample_in_proportion():
    X = np.arange(20, dtype=float).reshape(10, 2)
    y = np.array([0, 1] * 5)
    weight = np.full(10, 3.0)
    Xs, ys = work_rows(X, y, weight, 2)
    assert len(ys) == 30 and np.array_equal(np.bincount(ys), [15, 15])
    big = np.full(10, 400.0)  # 4,000 samples: a stratified sample of the work limit
    Xs, ys = work_rows(X, y, big, 2)
    again = work_rows(X, y, big, 2)
    assert len(ys) < 4000 and abs(np.mean(ys) - 0.5) < 0.01
    assert np.array_equal(Xs, again[0])  # seeded: the same sample every time


@pytest.mark.skipif(not TREE_MAKERS["streed"].installed(), reason="pystreed is not installed (pip install annc[trees])")
def test_streed_is_fed_every_sample_that_contree_would_sample_and_its_tree_is_optimal_on_them():
    """STreeD's work grows with its binary tests, not the samples (treemakers' docstring): above
    ConTree's OPTIMAL_ROWS it still sees every sample, so its depth-2 tree makes no more errors on
    all of them than any tree of depth 2 over the same tests, checked by brute force."""
    from itertools import product

    from annc.training.warmstart.pool.treemakers import OPTIMAL_ROWS, STREED_ROWS, streed_splits
    rng = np.random.default_rng(3)
    n = OPTIMAL_ROWS + 500
    assert n <= STREED_ROWS
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    y = (((X[:, 0] > 1) ^ (X[:, 1] > 2)) ^ (rng.random(n) < 0.1)).astype(int)
    assert len(work_rows(X, y, np.ones(n), 2)[1]) == OPTIMAL_ROWS  # ConTree's sample
    assert len(work_rows(X, y, np.ones(n), 2, cap=STREED_ROWS)[1]) == n  # STreeD's: all of them
    found = streed_splits(X, y, np.ones(n), 2, 3)
    assert found is not None
    f, t = binary_tests(X)
    tests = (X[:, f] > t)

    def errors(root, left, right):  # the fewest errors of a depth-2 tree with these tests
        total = 0
        for side, child in ((~tests[:, root], left), (tests[:, root], right)):
            for leaf in (side & ~tests[:, child], side & tests[:, child]):
                total += leaf.sum() - np.bincount(y[leaf], minlength=2).max()
        return total
    best = min(errors(r, a, b) for r, a, b in product(range(len(f)), repeat=3))
    feats, thresholds = found
    # the found tree's splits read as a tree of the same tests: preorder root, left, right
    k = {(int(a), float(b)): i for i, (a, b) in enumerate(zip(f, t))}
    idx = [k.get((int(a), float(snapped_t)), None) for a, snapped_t in zip(feats, thresholds)]
    assert len(idx) == 3 and None not in idx  # an XOR needs all three splits, each one of the tests
    assert errors(*idx) == best


@pytest.mark.skipif(not TREE_MAKERS["streed"].installed(), reason="pystreed is not installed (pip install annc[trees])")
def test_streed_gives_no_depth_3_tree_where_classes_times_tests_cubed_pass_its_work_limit():
    from annc.training.warmstart.pool.treemakers import STREED_WORK, streed_splits
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 30))  # 30 features of 8 quantile cuts each: 240 tests
    y = rng.integers(0, 3, 300)
    tests = len(binary_tests(X)[0])
    assert 3 * tests ** 3 > STREED_WORK  # over the limit at depth 3 ...
    assert streed_splits(X, y, np.ones(300), 3, 7) is None
    assert streed_splits(X, y, np.ones(300), 2, 3) is not None  # ... while depth 2 has none
