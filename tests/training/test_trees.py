"""Shallow trees as networks of the spec's class (:mod:`annc.training.warmstart.pool.trees`) and as kept
settings of model selection: a unit per split that reads one feature and goes right where the
tree does, an output layer that reads the splits as well as one layer can, and the folds' scores."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from annc.app.api import as_data
from annc.io.spec import parse_spec
from annc.solve.compiler import build
from annc.solve.decode import decode_network
from annc.training.context import RunContext
from annc.training.modelselect.settings import Setting
from annc.training.modelselect.kept import kept_point
from annc.training.warmstart.pool.candidates import network_start
from annc.training.warmstart.pool.trees import splits, tree_network, tree_networks

SPEC = "input {d}\nhidden {h} binary\noutput {k}\npenalty l0 0.01\neps 0.001\n"


def compiled(X, y, h=4, k=2):
    return build(parse_spec(SPEC.format(d=X.shape[1], h=h, k=k)), as_data((X, y)), name="t")


def grid_rows(n, d, seed, levels=5):
    """``n`` rows of ``d`` features on a grid of ``levels`` values: consecutive values a quarter
    apart once min-max scaled, far wider than eps, so every split's gap is clear."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, levels, size=(n, d)).astype(float)


def network_of(c, x):
    return decode_network(c.varmap, x).with_scaling(c.scaling)


def is_threshold_function(bits: np.ndarray, labels: np.ndarray) -> bool:
    """Whether a linear threshold of the bit patterns separates the two labels, by brute force over
    integer weights in [-4, 4] and half-integer thresholds (enough for 3 bits: every threshold
    function of 3 variables has such a realisation)."""
    k = bits.shape[1]
    for w in itertools.product(range(-4, 5), repeat=k):
        s = bits @ np.array(w, float)
        for t in np.arange(-12.5, 13.0, 1.0):
            if np.array_equal(s > t, labels.astype(bool)):
                return True
    return False


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 2))
def test_each_unit_reads_one_feature_and_goes_right_where_the_tree_does(seed, depth):
    X = grid_rows(80, 3, seed)
    rng = np.random.default_rng(seed + 1)
    y = ((X[:, 0] > 1) ^ (rng.random(80) < 0.2)).astype(int)
    c = compiled(X, y)
    placed = tree_network(c.problem, depth)
    found = splits(c.problem, depth, 4)
    if found is None:
        assert placed is None
        return
    features, thresholds = found
    x = network_start(c.model, c.problem, *placed, scale=False, refit=False)
    assert x is not None and c.model.check(x).ok
    net = decode_network(c.varmap, x)  # on the scaled rows, as the tree was fitted
    W0, b0 = net.layers[0].weight, net.layers[0].bias
    for u, (f, t) in enumerate(zip(features, thresholds)):
        assert np.count_nonzero(W0[:, u]) == 1 and W0[f, u] > 0  # one feature, going right above t
        on = c.problem.X @ W0[:, u] + b0[u] >= c.problem.spec.eps / 2  # the exported unit
        assert np.array_equal(on, c.problem.X[:, f] > t)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_the_output_layer_reproduces_a_tree_whose_leaves_are_a_threshold_function_of_its_splits(seed):
    """Where the tree's training predictions are a threshold function of its split bits (checked by
    brute force), the network makes no more training errors than the tree."""
    X = grid_rows(90, 3, seed)
    rng = np.random.default_rng(seed + 7)
    y = (((X[:, 0] > 2) | ((X[:, 1] > 1) & (X[:, 2] < 3))) ^ (rng.random(90) < 0.1)).astype(int)
    c = compiled(X, y)
    found = splits(c.problem, 2, 4)
    if found is None:
        return
    features, thresholds = found
    Xs, ys, weight = c.problem.class_rows()
    tree = DecisionTreeClassifier(max_depth=2, max_leaf_nodes=5, random_state=0).fit(Xs, ys, sample_weight=weight)
    bits = (c.problem.X[:, features] > thresholds).astype(float)
    says = tree.predict(c.problem.X)
    if not is_threshold_function(bits, says):
        return
    x = network_start(c.model, c.problem, *tree_network(c.problem, 2), scale=False, refit=False)
    net = network_of(c, x)
    tree_errors = int(np.sum(tree.predict(c.problem.X_samples) != c.problem.y))
    net_errors = int(np.sum(net.predict_index(as_data((X, y)).X) != y))
    assert net_errors <= tree_errors


def test_a_network_of_two_hidden_layers_or_relu_units_gets_no_tree():
    X, y = grid_rows(60, 2, 0), np.arange(60) % 2
    two = build(parse_spec("input 2\nhidden 3 binary\nhidden 2 binary\noutput 2\neps 0.01\n"), as_data((X, y)), name="t")
    relu = build(parse_spec("input 2\nhidden 3 relu\noutput 2\neps 0.01\n"), as_data((X, y)), name="t")
    assert tree_network(two.problem, 2) is None and tree_network(relu.problem, 2) is None
    assert list(tree_networks(two.problem)) == []


def test_trees_take_at_most_the_layers_width_in_splits_and_repeat_none():
    X = grid_rows(200, 4, 3)
    y = ((X[:, 0] > 1) & (X[:, 1] > 2) | (X[:, 2] > 3)).astype(int)
    for h in (1, 2, 3):
        c = compiled(X, y, h=h)
        nets = list(tree_networks(c.problem))
        assert nets and all(np.count_nonzero(np.abs(W[0]).sum(0)) <= h for _, W, _ in nets)
        firsts = [(W[0].tobytes(), b[0].tobytes()) for _, W, b in nets]
        assert len(set(firsts)) == len(firsts)


def test_a_tree_setting_is_scored_and_its_point_is_the_trees_network():
    """A kept tree setting's point (what the folds score and the final training keeps) is the tree's
    network: feasible, each unit on one feature, and as accurate on the rows as a stump must be."""
    X = grid_rows(120, 3, 5)
    y = (X[:, 1] > 2).astype(int)  # a stump is exact
    c = compiled(X, y, h=1)
    x = kept_point(c, Setting(1, 0.01, 0.001, tree=1), RunContext())
    assert x is not None and c.model.check(x).ok
    net = network_of(c, x)
    assert np.mean(net.predict_index(as_data((X, y)).X) == y) == 1.0
    assert np.count_nonzero(net.layers[0].weight) == 1


@pytest.mark.parametrize("classes", [2, 3])
def test_model_selection_scores_the_trees_on_every_fold(classes):
    from annc.training.modelselect.cvselect import cross_validate
    from annc.training.warmstart.pool.trees import DEPTHS
    X = grid_rows(150, 3, 11)
    y = np.minimum((X[:, 0] > 1).astype(int) + (X[:, 2] > 2).astype(int), classes - 1)
    spec = parse_spec(f"input 3\nhidden 4 binary\noutput {classes}\neps 0.001\n")
    sel = cross_validate(spec, as_data((X, y)))
    trees = [i for i, s in enumerate(sel.plan.settings) if s.tree is not None and not s.thinned]
    assert [sel.plan.settings[i].tree for i in trees if sel.plan.settings[i].tree_source == "cart"] == list(DEPTHS)
    assert all(sel.complete(i) for i in trees)
    assert all(sel.plan.settings[i].width <= 4 for i in trees)
    if sel.keeps and sel.plan.settings[sel.chosen].tree is not None:  # a kept tree: its units read a feature each
        W0 = sel.start_network[0][0]
        assert all(np.count_nonzero(W0[:, u]) <= 1 for u in range(W0.shape[1]))
