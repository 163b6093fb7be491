"""Weights on a grid (``weights [lo, hi] grid K``): the DSL, the exact formulation, starts.

The central check: on random tiny nets the grid model's proven optimum equals brute force
over every network of the grid.  To make the brute force exact the biases are on a grid
too (``bias [-1, 1] grid 3``): with continuous biases each grid choice of the weights
would leave a MIP over the biases, and the enumeration would no longer be independent
of what it checks.  With the grid ``{-1, 0, 1}`` and integer data every pre-activation
and output is an integer, so no network sits on the edge of the eps gap and the brute
force's semantics are exactly the MIP's:

* a hidden unit whose pre-activation lies in ``(0, eps)`` has no MIP point (skipped);
* ``nll``: a network with two outputs of a row less than eps apart has none (the
  diversifying rows; skipped);
* the objective of every other network is its loss by its forward pass
  (``errors``: a class wins by eps).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import annc
from annc.solve.decode import decode_network
from annc.core.errors import ModelError, SpecError
from annc.core.feasibility import START_TOL
from annc.formulations import formulate, lift, network_loss
from annc.formulations.grid import project
from annc.formulations.relu import product_gap
from annc.core.limits import MAX_GRID
from annc.io.problem import make_problem
from annc.io.solutions import Status
from annc.solve.solvers import SolveOptions, solve
from annc.io.spec import format_spec, parse_spec
from annc.io.spec.types import grid_values
from annc.training.warmstart.pool import sgd_start
from annc.training.warmstart.pool.repair import threshold
from annc.solve.verify import check

EPS = 0.01


# -- the DSL ---------------------------------------------------------------------------------
def test_grid_values_are_evenly_spaced_with_zero_for_odd_k():
    assert grid_values((-1, 1), 9) == (-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1)
    assert grid_values((-1, 1), 2) == (-1, 1)
    assert 0.0 in grid_values((-0.3, 0.3), 7) and grid_values((-0.3, 0.3), 7)[3] == 0.0
    assert grid_values((-0.1, 0.2), 4)[1] == 0.0  # a value within rounding of 0 is 0
    v = grid_values((-2.5, 7), 1025)
    assert len(v) == 1025 and v[0] == -2.5 and v[-1] == 7 and all(np.diff(v) > 0)


def test_weights_grid_globally_and_per_layer():
    spec = parse_spec("input 2\nhidden 3 relu { weights [-2, 2] }\nhidden 2 binary { bias [0, 1] grid 3 }\n"
                      "output 2 { weights [-1, 1] grid 5 }\nweights [-1, 1] grid 9\n")
    h0, h1, out = spec.layers
    assert (h0.weight_bounds, h0.weight_grid) == ((-2, 2), None)  # a layer's 'weights' replaces the grid too
    assert (h1.weight_grid, h1.bias_grid, h1.bias_values) == (9, 3, (0, 0.5, 1))
    assert (out.weight_grid, out.bias_grid) == (5, None)
    assert out.weight_values == (-1, -0.5, 0, 0.5, 1)
    assert parse_spec("input 2\noutput 2\n").output.weight_grid is None


@pytest.mark.parametrize("line,column,message", [
    ("weights [-1, 1] grid", 17, "'grid' takes one integer, the number of values K"),
    ("weights [-1, 1] grid 3 4", 24, "'grid' takes one integer"),
    ("weights [-1, 1] grd 3", 17, "optionally followed by 'grid K', got 'grd' (did you mean 'grid'?)"),
    ("weights [-1, 1] 3", 17, "'weights' takes an interval [lo, hi], optionally followed by 'grid K', got 3"),
    ("weights [-1, 1] grid 1", 22, "'weights' grid must be at least 2"),
    ("bias [-1, 1] grid 2.5", 19, "'bias' grid must be an integer, got 2.5"),
    ("weights [-1, 1] grid x", 22, "'weights' grid must be an integer, got 'x'"),
    (f"weights [-1, 1] grid {MAX_GRID + 1}", 22, f"must be at most {MAX_GRID:,}"),
    ("weights [0, 0] grid 3", 16, "a grid needs lo < hi, got interval [0, 0]"),
    ("weights 1 grid 3", 9, "'weights' takes an interval [lo, hi], got 1"),
])
def test_grid_errors_are_located(line, column, message):
    for text, at in ((f"input 2\noutput 2\n{line}\n", (3, column)),
                     (f"input 2\nhidden 1 relu {{ {line} }}\noutput 2\n", (2, column + 16))):
        with pytest.raises(SpecError) as info:
            parse_spec(text, "g.ann")
        (d,) = info.value.diagnostics
        assert (d.line, d.column) == at and message in d.message, d.format()


def test_largest_grid_is_accepted():
    assert parse_spec(f"input 1\noutput 2\nweights [-1, 1] grid {MAX_GRID}\n").output.weight_grid == MAX_GRID


BOXES = st.sampled_from(["[-1, 1]", "[-2, 0.5]", "[0, 1]", "[-0.3, 0.3]"])
GRIDS = st.one_of(st.none(), st.integers(2, 12), st.just(MAX_GRID))


@st.composite
def grid_specs(draw) -> str:
    def box(key):
        grid = draw(GRIDS)
        return f"{key} {draw(BOXES)}" + ("" if grid is None else f" grid {grid}")

    def block():
        opts = [box(k) for k in ("weights", "bias") if draw(st.booleans())]
        return " { " + "; ".join(opts) + " }" if opts else ""

    lines = ["input 3"] + [f"hidden {draw(st.integers(1, 3))} {draw(st.sampled_from(['relu', 'binary', 'sign']))}"
                           f"{block()}" for _ in range(draw(st.integers(0, 3)))]
    lines += [f"output 2{block()}"] + [box(k) for k in ("weights", "bias") if draw(st.booleans())]
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None)
@given(text=grid_specs())
def test_format_round_trips_grids(text):
    spec = parse_spec(text)
    again = format_spec(spec)
    assert parse_spec(again) == spec
    assert format_spec(parse_spec(again)) == again


# -- the formulation -------------------------------------------------------------------------
def problem(text: str, n: int, seed: int, inputs: int = 2):
    spec = parse_spec(text)
    rng = np.random.default_rng(seed)
    X = rng.integers(-1, 3, size=(n, inputs)).astype(float)
    y = np.r_[np.arange(spec.classes), rng.integers(0, spec.classes, n - spec.classes)]
    return make_problem(spec, X, y, list(range(spec.classes)))


def test_grid_products_after_relu_are_exact_and_replace_mccormick():
    pb = problem("input 2\nhidden 2 relu\noutput 2\nweights [-1, 1] grid 3\n", 8, 0)
    m = formulate(pb)
    out = m.layout.layers[1]
    assert out.grid_products and not out.relaxed and not m.layout.relaxed
    assert set(out.products) == {"y"} and set(out.grid) == {"g"}
    assert not any(b.name in ("z1", "s1") for b in m.var_blocks)
    assert m.layout.layers[0].grid.keys() == {"g"}  # the data-fed layer: selectors only
    # a grid on the hidden layer alone leaves the output layer's products relaxed
    m2 = formulate(problem("input 2\nhidden 2 relu { weights [-1, 1] grid 3 }\noutput 2\n", 8, 0))
    assert m2.layout.relaxed and not m2.layout.layers[1].grid_products and m2.layout.layers[1].grid == {}


def test_lift_puts_one_hot_selectors_and_refuses_networks_off_the_grid():
    pb = problem("input 2\nhidden 2 relu\noutput 2\nweights [-1, 1] grid 5\nbias [-1, 1] grid 3\nloss errors\n", 8, 1)
    m = formulate(pb)
    W = [np.array([[0.5, -1.0], [0.0, 1.0]]), np.array([[1.0, -0.5], [0.5, 0.0]])]
    b = [np.array([0.0, -1.0]), np.array([1.0, 0.0])]
    x = lift(m.layout, m.num_cols, pb, W, b)
    assert m.check(x, START_TOL).ok
    L = m.layout.layers[0]
    assert np.array_equal(x[L.grid["g"]].argmax(-1), [[3, 0], [2, 4]])
    assert np.array_equal(x[L.grid["gb"]].argmax(-1), [1, 0])
    assert product_gap(x, m.layout.layers[1], L.units) is None  # exact: no McCormick gap
    W[1][0, 0] = 0.6
    with pytest.raises(ModelError, match="is not a value of its grid"):
        lift(m.layout, m.num_cols, pb, W, b)
    W[1][0, 0] = 1.0 - 1e-9  # a solver's rounding is on the grid
    assert m.check(lift(m.layout, m.num_cols, pb, W, b), START_TOL).ok


def test_projection_and_grid_thresholds():
    assert np.array_equal(project(np.array([0.9, -0.2, 0.13, 2.0]), (-1, 1), 5), [1.0, 0.0, 0.0, 1.0])
    assert np.array_equal(project(np.array([0.3]), (-1, 1), None), [0.3])
    pre = np.array([-0.3, 0.004, 0.5])  # computed with bias 0; 0.004 is in the gap (0, 0.01)
    nb = threshold(pre, 0.0, EPS, -1, 1, values=np.array([-1, -0.5, 0, 0.5, 1]))
    assert nb == -0.5 or nb == 0.5
    moved = pre + nb
    assert not np.any((moved > 0) & (moved < EPS))
    assert threshold(np.array([0.004]), 0.0, EPS, -1, 1, values=np.array([0.0])) is None


def test_sgd_start_of_a_grid_model_is_on_the_grid_and_feasible():
    pb = problem("input 2\nhidden 2 relu\noutput 2\nweights [-1, 1] grid 9\nbias [-1, 1] grid 9\n", 30, 2)
    m = formulate(pb)
    x = sgd_start(m, pb, seed=0)
    assert x is not None and m.check(x).ok
    for L, ls in zip(m.layout.layers, pb.spec.layers):
        assert np.all(np.isin(x[L.weight], ls.weight_values)) and np.all(np.isin(x[L.bias], ls.bias_values))


# -- brute force over the grid ---------------------------------------------------------------
def brute_force(pb) -> float:
    """The least objective over every network of the grid (module docstring), vectorised."""
    spec = pb.spec
    sizes = [spec.inputs] + [ls.units for ls in spec.layers]
    params = []  # (shape, grid values) per tensor, in order W0, b0, W1, b1, ...
    for ls, (i, o) in zip(spec.layers, zip(sizes, sizes[1:])):
        params += [((i, o), np.array(ls.weight_values)), ((o,), np.array(ls.bias_values))]
    values = [v for shape, v in params for _ in range(int(np.prod(shape)))]
    combos = np.array(list(itertools.product(*[range(len(v)) for v in values])))
    P = np.stack([v[combos[:, j]] for j, v in enumerate(values)], axis=1)  # networks x parameters
    N, at, act = len(P), 0, np.broadcast_to(pb.X, (len(P),) + pb.X.shape)
    ok = np.ones(N, bool)
    for layer, ls in enumerate(spec.layers):
        (i, o), k = params[2 * layer][0], len(spec.hidden)
        W = P[:, at:at + i * o].reshape(N, i, o)
        b = P[:, at + i * o:at + i * o + o]
        at += i * o + o
        pre = act @ W + b[:, None, :]
        if layer < k:
            ok &= ~np.any((pre > 1e-9) & (pre < spec.eps - 1e-9), axis=(1, 2))
            act = np.maximum(pre, 0.0) if ls.activation == "relu" else (pre >= spec.eps).astype(float)
    if spec.loss == "nll":
        j, jj = np.triu_indices(spec.classes, 1)
        ok &= ~np.any(np.abs(pre[:, :, j] - pre[:, :, jj]) < spec.eps - 1e-9, axis=(1, 2))
    c = pb.counts
    rival = np.where(np.eye(spec.classes, dtype=bool)[None, None], -np.inf, pre[:, :, None, :]).max(3)
    if spec.loss == "nll":  # sum_uj c_uj (max_j' o_uj' - o_uj)
        losses = np.sum(c * (pre.max(2, keepdims=True) - pre), axis=(1, 2))
    elif spec.loss == "hinge":  # sum_uj c_uj max(m - (o_uj - max_j'!=j o_uj'), 0)
        losses = np.sum(c * np.maximum(spec.margin - (pre - rival), 0.0), axis=(1, 2))
    else:  # errors: a sample is right when its class leads every rival by eps
        losses = np.sum(c * (pre - rival < spec.eps - 1e-9), axis=(1, 2))
    weights = np.concatenate([P[:, a:a + i * o] for a, (i, o) in _weight_slices(params)], axis=1)
    if spec.penalty == "l0":
        losses = losses + spec.penalty_weight * np.count_nonzero(weights, axis=1)
    elif spec.penalty == "l1":
        losses = losses + spec.penalty_weight * np.abs(weights).sum(axis=1)
    losses = np.where(ok, losses, np.inf)
    best = int(np.argmin(losses))
    Ws = [w.reshape(-1) for w in np.split(weights[best], np.cumsum([i * o for _, (i, o) in _weight_slices(params)])[:-1])]
    assert losses[best] == pytest.approx(network_loss(spec, pre[best], c, Ws), abs=1e-12)  # the registry's value
    return float(losses[best])


def _weight_slices(params):
    """``(start, (inputs, units))`` of each weight matrix in the flat parameter vector."""
    out, at = [], 0
    for k, (shape, _) in enumerate(params):
        if k % 2 == 0:
            out.append((at, shape))
        at += int(np.prod(shape))
    return out


def solved(text: str, X, y):
    """The compiled model of ``text`` on ``(X, y)``, solved to optimality by HiGHS; its verification."""
    c = annc.compile(text, (X, y), start=False)
    r = solve(c.model, "highs", SolveOptions(time_limit=60))
    assert r.status == Status.OPTIMAL and r.x is not None
    net = decode_network(c.varmap, r.x)
    return c, r, check(c, r.x, net, status=r.status.value, solver_objective=r.objective)


def tiny(act: str, loss: str, units: int, seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 9))
    X = rng.integers(-1, 3, size=(n, 2)).astype(float)
    y = np.r_[0, 1, rng.integers(0, 2, n - 2)]
    text = (f"input 2\nhidden {units} {act}\noutput 2\nweights [-1, 1] grid 3\nbias [-1, 1] grid 3\n"
            f"eps {EPS}\nloss {loss}\nscale none\n")  # integer data: no network on the eps edge
    return text, X, y


TOL = 1e-5  # the solver's feasibility tolerance (1e-6) over a few rows and samples


def assert_grid_optimum_is_brute_force(text, X, y, relaxed_too: bool):
    c, r, v = solved(text, X, y)
    best = brute_force(c.problem)
    assert r.objective == pytest.approx(best, abs=TOL)
    assert r.bound <= best + TOL  # the lower bound is never above a network of the grid
    assert v.ok and not v.relaxed and v.mccormick_gap is None
    assert v.network_loss == pytest.approx(r.objective, abs=TOL)  # the exported network's own loss
    if relaxed_too:  # the McCormick relaxation of the box bounds every network in it, grid ones too
        _, r2, _ = solved(text.replace("grid 3", "") + "P 2\n", X, y)
        assert r2.objective <= best + TOL


@pytest.mark.parametrize("act", ["relu", "binary"])
@pytest.mark.parametrize("loss", ["nll", "errors"])
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_grid_optimum_equals_brute_force(act, loss, seed):
    assert_grid_optimum_is_brute_force(*tiny(act, loss, 1, seed), relaxed_too=act == "relu")


@pytest.mark.parametrize("objective", ["loss hinge 0.5", "loss errors\npenalty l0 auto", "loss hinge 1\npenalty l1 0.1",
                                       "loss nll\npenalty l0 0.05", "penalty l0 0.2", ""])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_every_loss_and_penalty_optimum_equals_brute_force(objective, seed):
    """Each loss with each penalty (and the default recipe: no loss line, so ``loss errors``
    with ``penalty l0 auto``): the MIP's proven optimum is the least objective over every
    network of the grid, each scored by the registry's ``value`` (``network_loss``)."""
    text, X, y = tiny("binary", "nll", 1, seed)
    text = text.replace("loss nll\n", objective + "\n" if objective else "")
    assert_grid_optimum_is_brute_force(text, X, y, relaxed_too=False)


def test_the_default_recipe_and_the_lexicographic_weight():
    """No loss line: ``loss errors``, ``penalty l0 0.5`` (half an error per weight) and
    ``eps 0.001``; ``penalty l0 auto`` puts every weight of the net together below one error."""
    from annc.io.spec.checks import lexicographic_weight
    spec = parse_spec("input 3\nhidden 2 binary\noutput 2\n")
    assert (spec.loss, spec.penalty, spec.penalty_weight, spec.eps) == ("errors", "l0", 0.5, 0.001)
    auto = parse_spec("input 3\nhidden 2 binary\noutput 2\npenalty l0 auto\n")
    assert (auto.loss, auto.eps) == ("errors", 0.001)  # a penalty named, no loss: the recipe's loss and eps
    assert auto.penalty_weight * (3 * 2 + 2 * 2) < 1
    assert auto.penalty_weight == lexicographic_weight("l0", 3, auto.hidden, auto.output)
    assert parse_spec("input 3\nhidden 2 binary\noutput 2\neps 0.05\n").eps == 0.05  # eps as written wins
    named = parse_spec("input 3\nhidden 2 binary\noutput 2\nloss nll\n")
    assert (named.loss, named.penalty) == ("nll", "none")  # a named loss keeps the paper's defaults
    assert parse_spec("input 3\noutput 2\npenalty l1 0.5\n").loss == "errors"


def test_grid_optimum_equals_brute_force_two_relu_units():
    assert_grid_optimum_is_brute_force(*tiny("relu", "errors", 2, 7), relaxed_too=False)


def test_train_reports_the_grid_optimum_as_the_exported_networks_loss():
    """``annc.train`` on a grid ReLU net (SGD start projected onto the grid): optimal, and the
    verdict's objective is the exported network's loss and the brute-force optimum."""
    text, X, y = tiny("relu", "nll", 1, 3)
    r = annc.train(text, (X, y), out_dir=None, time_limit=12)
    v, c = r.verdict, r.steps[0].compiled
    best = brute_force(c.problem)
    assert v.status == Status.OPTIMAL and not v.relaxed
    assert v.objective == pytest.approx(best, abs=TOL)
    assert v.lower_bound <= best + TOL
    scores = r.network.forward(c.problem.X)[-1]
    assert network_loss(c.spec, scores, c.problem.counts) == pytest.approx(v.objective, abs=TOL)
    for layer, ls in zip(r.network.layers, c.spec.layers):  # on the grid, up to the solver's rounding
        assert np.abs(layer.weight - project(layer.weight, ls.weight_bounds, ls.weight_grid)).max() < 1e-6


def test_magnitudes_bound_the_grid_products_big_m():
    """:mod:`annc.io.magnitudes` bounds the largest big-M before the model is built: the grid
    products' rows ``y <= qU' lambda`` need ``qU'``, more than McCormick's ``2 W qU'`` when
    the box is narrow."""
    from annc.io.magnitudes import _largest_m, reaches
    X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 0.0], [2.0, 2.0]])
    for text in ("input 2\nhidden 2 relu\nhidden 2 relu\noutput 2\nweights [-0.1, 0.1] grid 3\n",
                 "input 2\nhidden 2 relu\noutput 2\nweights [-0.2, 0.1] grid 4\nbias [-3, 3] grid 3\n"):
        spec = parse_spec(text)
        m = formulate(make_problem(spec, X, np.array([0, 1, 0, 1]), [0, 1]))
        assert _largest_m(spec, reaches(spec, X))[0] >= m.stats()["big_m_range"][1] - 1e-12


def test_a_relaxed_net_with_a_grid_on_its_hidden_layer_exports_a_grid_network():
    """Only the output layer's products are relaxed: the exact finish and refinement keep the
    hidden layer on its grid (their repair projects onto it), and the verdict is the
    exported network's loss."""
    text, X, y = tiny("relu", "nll", 2, 5)
    text = text.replace("weights [-1, 1] grid 3\nbias [-1, 1] grid 3\n", "P 2\n")
    text = text.replace("hidden 2 relu", "hidden 2 relu { weights [-1, 1] grid 5 }")
    r = annc.train(text, (X, y), out_dir=None, time_limit=6)
    c, v = r.steps[0].compiled, r.verdict
    assert c.model.layout.relaxed and v.relaxed
    hidden = r.network.layers[0].weight
    assert np.abs(hidden - project(hidden, (-1, 1), 5)).max() < 1e-6
    scores = r.network.forward(c.problem.X)[-1]
    assert network_loss(c.spec, scores, c.problem.counts) == pytest.approx(v.objective, abs=TOL)
    assert v.lower_bound <= v.objective + TOL


def test_decoded_grid_weights_are_exactly_grid_values():
    """The map lists a grid layer's values and decoding snaps the solver's rounding
    (``-4e-16`` for 0) to them; a value far from every grid value is left for
    verification to judge."""
    from annc.solve.decode import snap
    grid = [-1.0, -0.5, 0.0, 0.5, 1.0]
    out = snap(np.array([-4.4e-16, 0.5000000001, 0.3]), grid)
    assert out[0] == 0.0 and out[1] == 0.5 and out[2] == 0.3
    from annc.io.datasets import xor_data
    X, y = xor_data(40, noise=0.1, seed=0)
    r = annc.train("input 5\nhidden 2 relu\noutput 2\nweights [-1, 1] grid 5\n", (X, y), out_dir=None,
                   time_limit=5)
    for L in r.network.layers:
        assert np.isin(L.weight, grid).all()
