"""The exact neighbourhood search (annc.training.search.lns) and the start pool's linear separators
(annc.training.warmstart.pool.linear): every certificate is checked by brute force on instances small
enough to enumerate, and the pool never loses to its best linear separator."""
import itertools

import numpy as np
import pytest

from annc.app.api import as_spec, as_data
from annc.solve.compiler import build
from annc.formulations import network_loss
from annc.training.search import lns, start_search
from annc.training.warmstart.pool.point import complete, hidden_network

GRID = np.array([-1.0, 0.0, 1.0])  # weights and biases on the grid {-1, 0, 1}: every network enumerable
SPEC = ("input 2\nhidden 2 binary\noutput 2\nweights [-1, 1] grid 3\nbias [-1, 1] grid 3\n"
        "eps 0.5\nloss errors\npenalty l0 0.25\n")


def _instance(seed: int):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(7, 2)) / 2.0
    y = np.r_[0, 1, rng.integers(0, 2, size=5)]
    return build(as_spec(SPEC), as_data((X, y)), name="t")


def _objective(problem, weights, biases) -> float:
    """annc's own objective of a network of the MIP's class (np.inf off it: a hidden
    pre-activation inside the gap (0, eps) is no network of the class)."""
    eps = problem.spec.eps
    pre = problem.X @ weights[0] + biases[0]
    if np.any((pre > 1e-9) & (pre < eps - 1e-9)):
        return np.inf
    h = (pre >= eps - 1e-9).astype(float)
    scores = h @ weights[1] + biases[1]
    return network_loss(problem.spec, scores, problem.counts, weights)


def _best_in_unit_neighbourhood(problem, W, b, unit: int) -> float:
    """The lowest objective over every grid network that differs from ``(W, b)`` only in
    hidden unit ``unit`` and the output layer: 3^3 units x 3^6 output layers."""
    best = np.inf
    outputs = [(np.array(v[:4]).reshape(2, 2), np.array(v[4:])) for v in itertools.product(GRID, repeat=6)]
    for v in itertools.product(GRID, repeat=3):
        W0, b0 = W[0].copy(), b[0].copy()
        W0[:, unit], b0[unit] = v[:2], v[2]
        for Wo, bo in outputs:
            best = min(best, _objective(problem, [W0, Wo], [b0, bo]))
    return best


@pytest.mark.parametrize("seed", range(3))
def test_a_unit_certificate_holds_by_brute_force(seed):
    c = _instance(seed)
    m, pb = c.model, c.problem
    x0 = complete(m, pb, [np.zeros((2, 2)), np.zeros((2, 2))], [np.full(2, -1.0), np.array([1.0, 0.0])])
    assert x0 is not None
    r = lns.search(m, pb, x0)
    W, b = hidden_network(m, r.x)
    assert _objective(pb, W, b) == pytest.approx(r.objective)  # the point is the network it claims
    assert r.objective <= m.objective(x0) + 1e-9
    assert r.certificate is not None and r.certificate.key in ("unit", "pair")
    for unit in range(2):
        assert _best_in_unit_neighbourhood(pb, W, b, unit) >= r.objective - 1e-6


def test_the_certificate_text_names_its_neighbourhood():
    cert = lns.Certificate("unit", 5)
    assert cert.text == ("no network that differs from this one only in one hidden unit and the output "
                         "layer has a lower objective: proven by 5 sub-MIPs")
    assert cert.to_dict()["sub_mips"] == 5


def test_work_limits_make_the_search_repeatable():
    """Two runs of the same search give the same network: its decisions are work limits."""
    c = _instance(1)
    x0 = complete(c.model, c.problem, [np.zeros((2, 2)), np.zeros((2, 2))], [np.full(2, -1.0), np.array([1.0, 0.0])])
    a = lns.search(c.model, c.problem, x0, work=lns.SearchWork(node_limit=50))
    b = lns.search(c.model, c.problem, x0, work=lns.SearchWork(node_limit=50))
    assert np.array_equal(a.x, b.x) and a.certificate == b.certificate


def test_the_pool_holds_a_linear_separator_that_beats_the_constant():
    """On linearly separable data the start is never the constant network: a sparse linear
    separator in one unit wins, and the start is no worse than it."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(80, 6))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    c = build(as_spec("input 6\nhidden 3 binary\noutput 2\nloss errors\npenalty l0 0.5\neps 0.01\n"),
              as_data((X, y)), name="t")
    found = start_search(c.model, c.problem, seeds=1)
    lin = found.best_linear
    assert lin is not None
    constant = float(np.min(np.bincount(y)))  # every row of the minority class wrong, no weight
    assert lin.objective < constant
    assert found.start_objective <= lin.objective + 1e-9


def _best_in_band(problem, W, b, rows) -> float:
    """The lowest objective over every grid network with the output layer ``(W[1], b[1])``
    whose hidden activations equal those of ``(W, b)`` on every row outside ``rows``: all
    3^6 hidden layers of the grid, filtered."""
    eps = problem.spec.eps
    outside = np.ones(problem.num_rows, dtype=bool)
    outside[rows] = False
    h0 = problem.X @ W[0] + b[0] >= eps - 1e-9
    best = np.inf
    for v in itertools.product(GRID, repeat=6):
        W0, b0 = np.array(v[:4]).reshape(2, 2), np.array(v[4:])
        if np.array_equal((problem.X @ W0 + b0 >= eps - 1e-9)[outside], h0[outside]):
            best = min(best, _objective(problem, [W0, W[1]], [b0, b[1]]))
    return best


@pytest.mark.parametrize("seed", range(3))
def test_a_band_certificate_holds_by_brute_force(seed):
    """A proven band of B rows: no network with the same output layer whose hidden units
    agree with the exported one's outside the B rows nearest their thresholds is better."""
    c = _instance(seed)
    m, pb = c.model, c.problem
    x0 = complete(m, pb, [np.zeros((2, 2)), np.zeros((2, 2))], [np.full(2, -1.0), np.array([1.0, 0.0])])
    r = lns.search(m, pb, x0, work=lns.SearchWork(band=2))
    W, b = hidden_network(m, r.x)
    assert _objective(pb, W, b) == pytest.approx(r.objective)
    assert r.band is not None and r.band.key == "band" and 2 <= r.band.rows <= pb.num_rows
    rows = lns.band_rows(m, pb, r.x, r.band.rows)
    assert len(rows) == r.band.rows
    assert _best_in_band(pb, W, b, rows) >= r.objective - 1e-6
    assert "with this output layer" in r.band.text


def test_band_rows_take_the_wrong_rows_nearest_a_threshold_first():
    c = _instance(0)
    m, pb = c.model, c.problem
    x0 = complete(m, pb, [np.array([[1.0, 0.0], [0.0, 1.0]]), np.eye(2)], [np.zeros(2), np.zeros(2)])
    assert x0 is not None
    for size in range(1, pb.num_rows + 1):
        rows = lns.band_rows(m, pb, x0, size)
        assert len(rows) == size and len(set(rows)) == size
        assert set(lns.band_rows(m, pb, x0, max(size - 1, 1))) <= set(rows) or size == 1
