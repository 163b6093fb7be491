"""One property test over the formulation registries: every activation x loss x penalty.

For a random network in the weight and bias boxes, on random small data:

* ``lift`` (:func:`annc.formulations.lift`) gives a point that satisfies every row,
  bound and integrality requirement of the model (:meth:`annc.core.model.Model.check` at the
  start tolerance), the symmetry rows included;
* ``value`` (:func:`annc.formulations.network_loss`, the loss plus the penalty of the
  *exported* network, read back from the point through the layout with the bias shift
  of :func:`annc.formulations.export_bias_shifts`, by its own forward pass) equals the model's
  objective at that point, within 1e-9 relative;
* ``value >= floor`` (:func:`annc.formulations.floor`).

The eps gap: a binary, ReLU or sign unit whose pre-activation lies in ``(0, eps)`` has
no MIP point.  The generator moves such networks off the gap with the very repair the
MIP starts use (:func:`annc.training.warmstart.pool.repair.off_gap` without scaling: each unit's bias
moves, within its box, to a threshold that leaves no row in the gap), so the test also
covers that repair.  For ``nll`` the outputs of a row must be pairwise eps apart (the
diversifying rows); random outputs rarely tie that closely, and a network whose outputs
do is rejected (``assume``), as is one whose biases cannot leave the gap.

Some instances put every layer's weights (and biases) on a grid (``weights [-1, 1] grid K``,
:mod:`annc.formulations.grid`): the random network is projected onto it, the lift adds the
one-hot selectors and, after ReLU layers, the exact grid products.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from annc.core.feasibility import START_TOL
from annc.formulations import ACTIVATIONS, LOSSES, PENALTIES, export_bias_shifts, floor, formulate, lift, network_loss
from annc.formulations.grid import project
from annc.core.losses import LOSS
from annc.core.network import Layer, TrainedNetwork
from annc.io.problem import make_problem
from annc.io.spec import parse_spec
from annc.training.warmstart.pool.repair import off_gap

EPS = 0.01
COMBINATIONS = list(itertools.product(ACTIVATIONS, LOSSES, PENALTIES))


def spec_text(acts, widths, inputs, classes, loss, penalty, symmetry, grids=(None, None)) -> str:
    lines = [f"input {inputs}"] + [f"hidden {w} {a}" for a, w in zip(acts, widths)]
    lines += [f"{key} [-1, 1] grid {K}" for key, K in zip(("weights", "bias"), grids) if K is not None]
    lines += [f"output {classes}", f"eps {EPS}", f"loss {loss}" + (" 0.5" if LOSS[loss].argument else "")]
    if penalty != "none":
        lines.append(f"penalty {penalty} 0.1")
    if symmetry != "none":
        lines.append(f"symmetry {symmetry}")
    if "relu" in acts:
        lines.append("P 3")
    return "\n".join(lines) + "\n"


@st.composite
def instances(draw, activation):
    """(spec, problem, weights, biases): a network of one or two hidden layers (the first of
    ``activation``, a second of any registered activation), in its boxes, off the eps gap."""
    depth = draw(st.integers(1, 2))
    acts = [activation] + [draw(st.sampled_from(sorted(ACTIVATIONS)))] * (depth - 1)
    widths = [draw(st.integers(1, 3)) for _ in acts]
    inputs, classes = draw(st.integers(1, 3)), draw(st.integers(2, 3))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    symmetry = draw(st.sampled_from(["none", "bias", "count"]))
    grids = (draw(st.sampled_from([None, None, 2, 3, 5])), draw(st.sampled_from([None, None, None, 9])))
    return acts, widths, inputs, classes, symmetry, seed, grids


def build(activation, loss, penalty, inst, merge=True):
    acts, widths, inputs, classes, symmetry, seed, grids = inst
    spec = parse_spec(spec_text(acts, widths, inputs, classes, loss, penalty, symmetry, grids))
    rng = np.random.default_rng(seed)
    n = int(rng.integers(classes, 8))
    X = rng.integers(-1, 3, size=(n, inputs)).astype(float)
    y = np.r_[np.arange(classes), rng.integers(0, classes, n - classes)]
    pb = make_problem(spec, X, y, list(range(classes)), merge=merge)
    sizes = [inputs] + widths + [classes]
    W, b = [], []
    for (wl, wu), (bl, bu), (i, o) in zip([ls.weight_bounds for ls in spec.layers],
                                          [ls.bias_bounds for ls in spec.layers], zip(sizes, sizes[1:])):
        w = rng.uniform(wl, wu, (i, o))
        w[rng.random((i, o)) < 0.2] = 0.0  # exact zeros (l0) and weights on the box's ends
        w[rng.random((i, o)) < 0.1] = wu
        W.append(project(w, (wl, wu), grids[0]))  # a weight grid: the nearest grid values
        b.append(project(rng.uniform(bl, bu, o), (bl, bu), grids[1]))
    return spec, pb, W, b


def exported(spec, model, x) -> TrainedNetwork:
    """The network a decoder reads from ``x``: weights through the layout, shifted biases."""
    layers = [Layer(ls.activation, x[L.weight], x[L.bias] + shift)
              for ls, L, shift in zip(spec.layers, model.layout.layers, export_bias_shifts(spec))]
    return TrainedNetwork(list(range(spec.classes)), layers)


def check_lift(activation, loss, penalty, inst):
    spec, pb, W, b = build(activation, loss, penalty, inst)
    hidden = off_gap(pb, W[:-1], b[:-1], scale=False)
    assume(hidden is not None)
    W[:-1], b[:-1], H = hidden
    o = H @ W[-1] + b[-1]
    if loss == "nll":  # the diversifying rows: outputs of a row pairwise eps apart
        i, j = np.triu_indices(spec.classes, 1)
        gaps = np.abs(o[:, i] - o[:, j])
        assume(gaps.size == 0 or gaps.min() >= EPS + 1e-7)
    value, obj = lifted_value(spec, pb, W, b)
    assert abs(value - obj) <= 1e-9 * max(1.0, abs(obj)), (value, obj)
    assert value >= floor(pb) - 1e-9


def lifted_value(spec, pb, W, b) -> tuple[float, float]:
    """The value of the network the point of ``(W, b)`` exports, and the model's objective at that
    point, which must satisfy every row at the start tolerance."""
    model = formulate(pb)
    x = lift(model.layout, model.num_cols, pb, W, b)
    chk = model.check(x, START_TOL)
    assert chk.ok, chk.violations
    net = exported(spec, model, x)
    return network_loss(spec, net.scores(pb.X), pb.counts, [L.weight for L in net.layers]), model.objective(x)


@pytest.mark.parametrize("activation,loss,penalty", COMBINATIONS, ids=["-".join(c) for c in COMBINATIONS])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_lift_satisfies_every_row_and_value_is_the_objective(activation, loss, penalty, data):
    check_lift(activation, loss, penalty, data.draw(instances(activation)))


def test_registries_cover_the_spec_language():
    from annc.core.activations import HIDDEN
    from annc.io.spec.types import HIDDEN_ACTIVATIONS, LOSSES as SPEC_LOSSES, PENALTIES as SPEC_PENALTIES
    assert set(ACTIVATIONS) == set(HIDDEN_ACTIVATIONS) == set(HIDDEN)  # a missing registration fails here
    assert set(LOSSES) == set(SPEC_LOSSES)
    assert set(PENALTIES) == set(SPEC_PENALTIES)


@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_floor_is_reached_by_a_majority_network(loss):
    """The floors are tight where they should be: on data with one input per row, a network
    that predicts every row's majority with margin (eps for nll) reaches ``floor``."""
    spec = parse_spec(f"input 1\noutput 2\neps {EPS}\nloss {loss}" + (" 0.5" if loss == "hinge" else ""))
    X = np.array([[0.0]] * 5 + [[1.0]] * 4)
    y = np.array([0, 0, 0, 1, 1, 1, 1, 1, 0])  # row x=0: 3 of class 0, 2 of 1; row x=1: 3 of 1, 1 of 0
    pb = make_problem(spec, X, y, [0, 1])
    margin = {"nll": EPS, "errors": EPS, "hinge": 0.5}[loss]
    W, b = [np.array([[-margin, margin]])], [np.array([margin / 2, -margin / 2])]  # lead: margin
    model = formulate(pb)
    x = lift(model.layout, model.num_cols, pb, W, b)
    assert model.check(x, START_TOL).ok
    assert model.objective(x) == pytest.approx(floor(pb), abs=1e-9)


@pytest.mark.parametrize("penalty", sorted(PENALTIES))
def test_a_round_off_weight_lifts_to_the_value_its_network_has(penalty):
    """An exact output layer's arithmetic leaves weights of 1e-16 where it means 0 (a kept
    one-vs-one separator on wine had two).  The point such a network lifts to has its network's
    value: for l0, ``n = 0`` at a weight the value does not count (before, the point's objective
    was 0.5 per such weight above the network's), and the point passes the start tolerance."""
    pen = {"l0": "penalty l0 0.5", "l1": "penalty l1 0.5"}.get(penalty, "penalty none")
    spec = parse_spec(f"input 2\nhidden 2 binary\noutput 2\neps {EPS}\n{pen}")
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    pb = make_problem(spec, X, np.array([0, 1, 1, 0]), [0, 1])
    W = [np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 1e-16], [-1.0, -1e-16]])]
    b = [np.array([-0.5, -0.5]), np.array([0.0, 0.5])]
    value, obj = lifted_value(spec, pb, W, b)
    assert obj == pytest.approx(value, abs=1e-9)
