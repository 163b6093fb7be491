"""Automatic big-M values are valid: no network inside the weight box is cut off.

For tiny nets, every network in the box (all vertices of the box, plus random
interior points) is turned into its exact MIP point by the forward pass: the true
activations, products and outputs.  Such a point must satisfy every row: a violated
row would mean its M is below the largest value its slack can need.  Pre-activations
in the forbidden gap ``(0, eps)`` are excluded, as the MIP excludes them by design.
"""
import itertools

import numpy as np
import pytest

from annc.formulations import formulate
from annc.io.problem import make_problem
from annc.solve.solvers import SolveOptions, solve
from annc.io.spec import parse_spec
from annc.training.warmstart.pool import complete


def networks(spec, rng, n_random=300):
    """Weight lists (vertices of the box first, then random points)."""
    shapes = []
    for i, ls in enumerate(spec.layers):
        n_in = spec.inputs if i == 0 else spec.layers[i - 1].units
        shapes.append(((n_in, ls.units), ls.weight_bounds, ls.bias_bounds))
    size = sum(a * b + b for (a, b), _, _ in shapes)
    corners = itertools.product((0, 1), repeat=size) if size <= 12 else []
    for bits in itertools.chain(corners, (None for _ in range(n_random))):
        W, B, at = [], [], 0
        for (a, b), (wl, wu), (bl, bu) in shapes:
            if bits is None:
                w, bb = rng.uniform(wl, wu, (a, b)), rng.uniform(bl, bu, b)
            else:
                w = np.where(np.array(bits[at:at + a * b]).reshape(a, b), wu, wl)
                bb = np.where(np.array(bits[at + a * b:at + a * b + b]), bu, bl)
            at += a * b + b
            W.append(w.astype(float))
            B.append(bb.astype(float))
        yield W, B


def in_gap(spec, X, W, B):
    act = X
    for i, ls in enumerate(spec.hidden):
        pre = act @ W[i] + B[i]
        if np.any((pre > 0) & (pre < spec.eps)):
            return True
        act = (pre >= spec.eps).astype(float) if ls.activation == "binary" else np.maximum(pre, 0) * (pre >= spec.eps)
    o = act @ W[-1] + B[-1]
    return bool(np.any(np.abs(o[:, 1:] - o[:, :1]) < spec.eps))


SPECS = [
    "input 2\nhidden 2 binary\noutput 2",
    "input 2\nhidden 1 binary\nhidden 1 binary\noutput 2\nweights [-1, 2]\nbias [-0.5, 1]",
    "input 2\nhidden 2 relu\noutput 2\nP 3",
    "input 2\nhidden 1 relu\nhidden 1 relu\noutput 2\nP 2\nweights [-2, 1]",
    "input 3\noutput 2\nweights [-1, 3]",
]


@pytest.mark.parametrize("text", SPECS)
def test_auto_m_cuts_off_no_network_in_the_box(text):
    spec = parse_spec(text)
    rng = np.random.default_rng(0)
    X = np.array([[0, 0], [1, 0], [0.5, -1], [2, 1]])[:, :spec.inputs] if spec.inputs == 2 else \
        np.array([[0, 1, 0], [1, 1, -1], [0.5, 0, 2]])
    y = np.arange(len(X)) % 2
    pb = make_problem(spec, X, y, [0, 1])
    model = formulate(pb)
    checked = 0
    for W, B in networks(spec, rng):
        if in_gap(spec, pb.X, W, B):
            continue
        x = complete(model, pb, W, B)
        assert x is not None, (model.violations(_point(model, pb, W, B)), W, B)
        checked += 1
    assert checked > 50


def _point(model, pb, W, B):
    """The point of ``(W, B)`` even if it violates the model (to show the violations)."""
    return complete(model, pb, W, B, tol=np.inf)


@pytest.mark.parametrize("text", ["input 3\nhidden 2 binary\noutput 2", "input 3\nhidden 2 relu\noutput 2\nP 2",
                                  "input 3\nhidden 2 binary\nhidden 2 binary\noutput 3"])
def test_auto_m_has_the_optimum_of_a_huge_m(text):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (10, 3)).astype(float)
    J = 3 if "output 3" in text else 2
    y = rng.integers(0, J, 10)
    auto = formulate(make_problem(parse_spec(text), X, y, list(range(J))))
    huge = formulate(make_problem(parse_spec(text + "\nM 1000"), X, y, list(range(J))))
    assert auto.stats()["big_m_range"][1] < 100 <= huge.stats()["big_m_range"][1]
    a = solve(auto, "highs", SolveOptions(time_limit=60))
    h = solve(huge, "highs", SolveOptions(time_limit=60))
    assert a.status.value == h.status.value == "optimal"
    assert a.objective == pytest.approx(h.objective, abs=1e-6)
