"""Annealed sigmoids (:mod:`annc.training.large.anneal`), the start pool's seed for step units, and the
recipe's eps on dense rows (:func:`annc.training.warmstart.margin.choose_eps`).

The data are built so that the answers hold for any run: four clusters in the XOR pattern
need two step units and no linear separator fits them; 3,000 rows of noisy moons are dense
enough that no hyperplane through them leaves a gap of 0.001 empty.
"""

import numpy as np
import pytest
from sklearn.datasets import make_moons

from annc.app.api import as_data, as_spec
from annc.solve.compiler import build
from annc.training.large.anneal import Rows, Schedule, best_annealed, train_annealed, weighted_accuracy
from annc.training.warmstart.pool import start_pool
from annc.training.warmstart.margin import FINER, FLIP_SHARE, NARROW, gap_flips, resolve


def xor_clusters(n=50, seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.2, 0.2], [0.8, 0.8], [0.2, 0.8], [0.8, 0.2]])
    X = np.concatenate([c + rng.uniform(-0.1, 0.1, (n, 2)) for c in centres])
    return X, np.repeat([0, 0, 1, 1], n)


def test_annealed_step_units_fit_what_no_line_fits():
    X, y = xor_clusters()
    net, scores = best_annealed(Rows(X, y, 2), [2], seeds=range(4))
    assert net.layers[0].activation == "binary" and net.layers[-1].activation == "linear"
    assert max(scores) == weighted_accuracy(net, X, y) == 1.0  # the rounded step network, not the sigmoids


def test_annealing_is_repeatable_and_weights_count_as_samples():
    X, y = xor_clusters(n=20)
    a = train_annealed(Rows(X, y, 2), [2], seed=3, schedule=Schedule(steps=300))
    b = train_annealed(Rows(X, y, 2), [2], seed=3, schedule=Schedule(steps=300))
    assert all(np.array_equal(p.weight, q.weight) and np.array_equal(p.bias, q.bias)
               for p, q in zip(a.layers, b.layers))
    w = np.arange(1, len(y) + 1, dtype=float)
    right = a.predict_index(X) == y
    assert weighted_accuracy(a, X, y, w) == pytest.approx(w @ right / w.sum())


def test_a_stop_request_ends_the_steps_but_returns_a_network():
    X, y = xor_clusters(n=20)
    net = train_annealed(Rows(X, y, 2), [2], schedule=Schedule(steps=5000), stop=lambda: True)
    assert net.meta["steps"] < 5000 and net.meta["of_steps"] == 5000
    assert np.isfinite(net.layers[0].weight).all()


def test_minibatches_train_on_rows_drawn_by_weight():
    X, y = xor_clusters(n=300)
    X, y = X[y == 0], (X[y == 0, 0] > 0.5).astype(int)  # two clusters, one unit separates them
    w = np.where(y == 1, 10.0, 1.0)  # drawn by weight: the heavy class is not lost
    net = train_annealed(Rows(X, y, 2, w), [1], schedule=Schedule(batch=32, steps=1000))
    assert net.meta["batch"] == 32
    assert weighted_accuracy(net, X, y, w) == 1.0


def test_dense_rows_get_a_finer_eps_that_clears_the_gap():
    X, y = make_moons(n_samples=3000, noise=0.3, random_state=0)
    spec, recipe, prepared = resolve(as_spec("input 2\nhidden 4 binary\noutput 2\n"), as_data((X, y)))
    assert spec.eps in FINER and spec.eps < NARROW
    assert "dense" in recipe.eps.reason
    from annc.training.warmstart.pool.seeding import sgd_net
    net = sgd_net(prepared.problem, seed=0)
    assert gap_flips(prepared.problem, net, NARROW) > FLIP_SHARE


def test_the_pool_starts_from_annealed_step_units_and_beats_every_line():
    X, y = make_moons(n_samples=800, noise=0.3, random_state=0)
    data = as_data((X, y))
    spec, recipe, prepared = resolve(as_spec("input 2\nhidden 4 binary\noutput 2\n"), data)
    c = build(spec, data, recipe=recipe, prepared=prepared)
    pool, _ = start_pool(c.model, c.problem, seeds=1)
    names = [p.name for p in pool]
    assert names[0] == "annealed sigmoids"
    annealed = pool[0].objective
    assert annealed < min(p.objective for p in pool if p.linear)
    assert annealed < 0.15 * len(y)  # fewer than 15% errors (with the penalty): a linear separator errs on ~14%


def test_the_annealed_start_needs_samples_per_weight():
    """It uses every weight: with fewer than ANNEAL_SAMPLES_PER_WEIGHT samples per weight it is left out."""
    from annc.training.warmstart.pool.seeding import ANNEAL_SAMPLES_PER_WEIGHT, annealed_applies
    text = "input 2\nhidden 4 binary\noutput 2\neps 0.01\n"  # 16 weights
    few, many = (make_moons(n_samples=n, noise=0.3, random_state=0) for n in (ANNEAL_SAMPLES_PER_WEIGHT * 16 - 1,
                                                                              ANNEAL_SAMPLES_PER_WEIGHT * 16))
    assert not annealed_applies(build(as_spec(text), as_data(few)).problem)
    assert annealed_applies(build(as_spec(text), as_data(many)).problem)
    assert not annealed_applies(build(as_spec(text.replace("binary", "relu")), as_data(many)).problem)
