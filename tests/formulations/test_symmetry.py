"""Symmetry-breaking unit orderings (spec setting ``symmetry``): valid, and the MIP
start puts its units in the same order."""
from dataclasses import replace

import numpy as np
import pytest

from annc.io.datasets import xor_split
from annc.formulations import formulate
from annc.io.problem import make_problem
from annc.solve.solvers import SolveOptions, solve
from annc.io.spec import load_spec, parse_spec
from annc.formulations import ordered
from annc.training.warmstart.pool import sgd_start

from conftest import SPECS

NETS = ["input 3\nhidden 3 binary\noutput 2\neps 0.1",
        pytest.param("input 3\nhidden 2 binary\nhidden 2 binary\noutput 3\neps 0.1",
                     marks=pytest.mark.slow),  # about 2 minutes: pytest -m slow
        "input 3\nhidden 2 relu\noutput 2\nP 2\neps 0.1"]


@pytest.mark.parametrize("text", NETS)
def test_orderings_keep_the_optimum(text):
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(14, 3)).astype(float)
    spec = parse_spec(text)
    y = rng.integers(0, spec.classes, size=14)
    objs = {}
    for rule in ("none", "bias", "count"):
        pb = make_problem(replace(spec, symmetry=rule), X, y, list(range(spec.classes)))
        m = formulate(pb)
        extra = sum(h.units - 1 for h in spec.hidden) if rule != "none" else 0
        assert m.num_rows == formulate(make_problem(spec, X, y, list(range(spec.classes)))).num_rows + extra
        r = solve(m, "highs", SolveOptions(time_limit=120))
        assert r.status.value == "optimal"
        objs[rule] = r.objective
        if rule != "none":  # the solution is in order
            b = m.values(r.x, "b0")
            on = pb.counts.sum(1) @ m.values(r.x, "h0")
            key = b if rule == "bias" else on
            assert np.all(np.diff(key) <= 1e-6)
    assert objs["bias"] == pytest.approx(objs["none"], abs=1e-6)
    assert objs["count"] == pytest.approx(objs["none"], abs=1e-6)


@pytest.mark.parametrize("rule", ["bias", "count"])
@pytest.mark.parametrize("net", ["xor.ann", "deep3.ann"])
def test_mip_start_follows_the_order(rule, net):
    spec = replace(load_spec(SPECS / net), symmetry=rule)
    X, y, _, _ = xor_split(1000, 250, 0.1, 0)
    pb = make_problem(spec, X, y, [0, 1])
    m = formulate(pb)
    x = sgd_start(m, pb)
    assert x is not None  # feasible for every row, the ordering rows included
    v = m.violations(x)
    assert v["row"]["max"] <= 1e-7


def test_ordering_keeps_the_network_function():
    spec = replace(load_spec(SPECS / "deep3.ann"), symmetry="bias")
    X, y, _, _ = xor_split(200, 10, 0.1, 3)
    pb = make_problem(spec, X, y, [0, 1])
    rng = np.random.default_rng(0)
    sizes = [5, 5, 5, 5, 2]
    W = [rng.uniform(-1, 1, (a, b)) for a, b in zip(sizes, sizes[1:])]
    b = [rng.uniform(-1, 1, k) for k in sizes[1:]]

    def forward(W, b):
        act = pb.X
        for w, v in zip(W[:-1], b[:-1]):
            act = (act @ w + v >= spec.eps).astype(float)
        return act @ W[-1] + b[-1]

    W2, b2 = ordered(pb, W, b)
    assert all(np.all(np.diff(v) <= 0) for v in b2[:-1])
    assert not all(np.array_equal(u, v) for u, v in zip(b, b2))  # something moved
    assert np.allclose(forward(W, b), forward(W2, b2))
