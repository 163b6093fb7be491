"""The MIP start: SGD hidden layers repaired into a MIP point, then fix-and-optimise."""
import threading

import numpy as np
import pytest

from annc.datasets import xor_split
from annc.formulations import formulate
from annc.formulations.loss import nll_floor
from annc.problem import make_problem
from annc.solvers import SolveOptions, solve
from annc.solvers.base import Interrupt
from annc.spec import load_spec, parse_spec
from annc.warmstart import improve, mip_start, sgd_start

from conftest import SPECS


def xor_model(spec, seed):
    X, y, _, _ = xor_split(1000, 250, 0.1, seed)
    pb = make_problem(spec, X, y, [0, 1])
    return formulate(pb, name="x"), pb


def objective(m, x):
    return float(m.obj @ x + m.obj_const)


def assert_feasible(m, x):
    v = m.violations(x)
    assert max(v["row"]["max"], v["bound"]["max"], v["integrality"]["max"]) <= 1e-7


@pytest.mark.parametrize("seed", [0, 2])
def test_local_search_closes_the_gap_on_the_papers_xor(seed):
    """Issue example: SGD's point is above the optimum; fix-and-optimise reaches the loss
    floor, and HiGHS (default options) then proves optimality at the root."""
    m, pb = xor_model(load_spec(SPECS / "xor.ann"), seed)
    floor = float(nll_floor(pb.counts, 0.01).sum())
    x0 = sgd_start(m, pb)
    assert_feasible(m, x0)
    assert objective(m, x0) > floor + 0.01
    x = mip_start(m, pb)
    assert_feasible(m, x)
    assert objective(m, x) == pytest.approx(floor, abs=1e-6)
    r = solve(m, "highs", SolveOptions(time_limit=60, start=x))
    assert r.status.value == "optimal" and r.objective == pytest.approx(floor, abs=1e-6)


def _requested() -> Interrupt:
    intr = Interrupt()
    intr.has_solution = True
    intr.request()
    return intr


def test_search_after_ctrl_c_returns_its_start():
    m, pb = xor_model(load_spec(SPECS / "xor.ann"), 0)
    x0 = sgd_start(m, pb)
    assert np.array_equal(improve(m, pb, x0, interrupt=_requested()), x0)


def test_interrupt_during_the_search_keeps_the_best_point():
    """deep3 on seed 1: the search does not reach the floor, so only the Ctrl-C ends it
    before its 300 s budget."""
    m, pb = xor_model(load_spec(SPECS / "deep3.ann"), 1)
    x0 = sgd_start(m, pb)
    intr = Interrupt()
    timer = threading.Timer(1.0, intr.request)
    timer.start()
    try:
        x = improve(m, pb, x0, budget=300, step_limit=300, interrupt=intr)
    finally:
        timer.cancel()
    assert intr.requested
    assert_feasible(m, x)
    assert objective(m, x) <= objective(m, x0) + 1e-9


@pytest.mark.parametrize("extra", ["penalty l1 0.001", "penalty l0 0.001", "loss errors", "loss hinge 0.5"])
def test_start_covers_every_loss_and_penalty(extra):
    text = (SPECS / "xor.ann").read_text()
    spec = parse_spec(text.replace("loss nll", extra) if extra.startswith("loss") else text + "\n" + extra)
    m, pb = xor_model(spec, 0)
    x = sgd_start(m, pb)
    assert x is not None
    assert_feasible(m, x)


def test_relu_start_is_feasible():
    m, pb = xor_model(load_spec(SPECS / "relu.ann"), 0)
    x = mip_start(m, pb, budget=5)
    assert x is not None
    assert_feasible(m, x)
