"""The MIP start: SGD hidden layers repaired into a MIP point, then fix-and-optimise.

Only invariants are asserted, never a particular SGD trajectory (it depends on the BLAS
kernel: ``OPENBLAS_CORETYPE``) or a race with the wall clock: a start is feasible, its
objective is at least the loss floor (a lower bound on the optimum), the local search
never makes a point worse, and a Ctrl-C keeps a feasible point.  Where a test needs a
point that the search must improve, it builds one from fixed weights (no SGD).
"""
from dataclasses import replace

import numpy as np
import pytest

import annc.solve.solvers
from annc.io.datasets import xor_split
from annc.formulations import formulate
from annc.formulations.nll import nll_floor
from annc.io.problem import make_problem
from annc.solve.solvers import SolveOptions, solve
from annc.solve.solvers.base import Interrupt
from annc.io.spec import load_spec, parse_spec
from annc.training.warmstart.pool import complete, sgd_start
from annc.training.warmstart.pool.repair import repair_hidden
from annc.training.context import RunContext
from annc.training.search import improve, mip_start

from conftest import SPECS


def xor_model(spec, seed):
    X, y, _, _ = xor_split(1000, 250, 0.1, seed)
    pb = make_problem(spec, X, y, [0, 1])
    return formulate(pb, name="x"), pb


def objective(m, x):
    return float(m.obj @ x + m.obj_const)


def assert_feasible(m, x):
    assert x is not None
    assert np.all(np.isfinite(x))
    v = m.violations(x)
    assert max(v["row"]["max"], v["bound"]["max"], v["integrality"]["max"]) <= 1e-7


def floor_of(pb):
    return float(nll_floor(pb.counts, pb.spec.eps).sum()) if pb.spec.loss == "nll" else 0.0


def fixed_start(m, pb, seed=0):
    """A feasible point from fixed weights, no SGD: random hidden layers (repaired into
    their boxes and off the eps gap) and an output layer that ignores them and puts the
    minority class first, so the search can always improve on it."""
    rng = np.random.default_rng(seed)
    sizes = [pb.spec.inputs] + [ls.units for ls in pb.spec.hidden]
    for _ in range(100):  # the repair can fail (a bias out of its box): draw again
        hidden = repair_hidden(pb, [rng.uniform(-1, 1, (a, b)) for a, b in zip(sizes, sizes[1:])],
                               [rng.uniform(-1, 1, b) for b in sizes[1:]])
        if hidden is not None:
            break
    assert hidden is not None
    W, b, _ = hidden
    J, eps = pb.spec.output.units, pb.spec.eps
    rank = np.argsort(np.argsort(pb.counts.sum(0)))  # 0 = the least frequent class
    x = complete(m, pb, W + [np.zeros((sizes[-1], J))], b + [-eps * rank])
    assert_feasible(m, x)
    return x


@pytest.mark.parametrize("seed", [0, 2])
def test_start_and_search_on_the_papers_xor(seed):
    """SGD's repaired point (if any) is feasible and not below the loss floor; the search
    and its restarts keep a feasible point, no worse than the first start and not below
    the floor; HiGHS from that point keeps or improves it."""
    m, pb = xor_model(load_spec(SPECS / "xor.ann"), seed)
    floor = floor_of(pb)
    x0 = sgd_start(m, pb)
    if x0 is not None:
        assert_feasible(m, x0)
        assert objective(m, x0) >= floor - 1e-6
    x = mip_start(m, pb)
    assert_feasible(m, x)
    assert floor - 1e-6 <= objective(m, x)
    if x0 is not None:
        assert objective(m, x) <= objective(m, x0) + 1e-9
    r = solve(m, "highs", SolveOptions(node_limit=300, time_limit=60, start=x))  # a work limit; the clock only caps
    assert r.status.value in ("optimal", "feasible")
    assert floor - 1e-6 <= r.objective <= objective(m, x) + 1e-6


def test_search_improves_a_point_whose_output_layer_is_not_optimal():
    m, pb = xor_model(load_spec(SPECS / "xor.ann"), 0)
    x0 = fixed_start(m, pb)
    x = improve(m, pb, x0, floor=floor_of(pb))
    assert_feasible(m, x)
    # freeing the output layer alone gets at least the majority vote
    assert floor_of(pb) - 1e-6 <= objective(m, x) < objective(m, x0) - 1e-3


def _requested() -> Interrupt:
    intr = Interrupt()
    intr.has_solution = True
    intr.request()
    return intr


def test_search_after_ctrl_c_returns_its_start():
    m, pb = xor_model(load_spec(SPECS / "xor.ann"), 0)
    x0 = fixed_start(m, pb)
    assert np.array_equal(improve(m, pb, x0, ctx=RunContext.create(options=SolveOptions(interrupt=_requested()))), x0)


def test_no_start_is_nothing_to_improve():
    m, pb = xor_model(load_spec(SPECS / "xor.ann"), 0)
    intr = Interrupt()
    assert improve(m, pb, None, ctx=RunContext.create(options=SolveOptions(interrupt=intr))) is None
    assert not intr.has_solution and not intr.requested


@pytest.mark.parametrize("spec", ["xor.ann", "deep3.ann"])
def test_interrupt_during_the_search_keeps_the_best_point(monkeypatch, spec):
    """A Ctrl-C at the first incumbent HiGHS reports in a step (or, if the step reports
    none, as soon as it ends): the step stops, the search returns a feasible point no
    worse than its start, and no further step runs."""
    m, pb = xor_model(load_spec(SPECS / spec), 1)
    x0 = fixed_start(m, pb)
    highs = type(annc.solve.solvers.SOLVERS["highs"])
    intr, calls, real = Interrupt(), [], highs.solve

    def ctrl_c_at_first_incumbent(driver, model, opts):
        calls.append(driver.name)

        def progress(p):
            if p.incumbent is not None:
                opts.interrupt.request()
        r = real(driver, model, replace(opts, progress=progress))
        opts.interrupt.request()
        return r

    monkeypatch.setattr(highs, "solve", ctrl_c_at_first_incumbent)
    x = improve(m, pb, x0, ctx=RunContext.create(options=SolveOptions(interrupt=intr), limit=300))
    assert intr.requested and len(calls) == 1
    assert_feasible(m, x)
    assert objective(m, x) <= objective(m, x0) + 1e-9


@pytest.mark.parametrize("extra", ["penalty l1 0.001", "penalty l0 0.001", "loss errors", "loss hinge 0.5"])
def test_start_covers_every_loss_and_penalty(extra):
    """Every loss and penalty has its columns filled in: the point from fixed weights is
    feasible; SGD's point, when there is one, too; and the search keeps it feasible."""
    text = (SPECS / "xor.ann").read_text()
    spec = parse_spec(text.replace("loss nll", extra) if extra.startswith("loss") else text + "\n" + extra)
    m, pb = xor_model(spec, 0)
    x0 = fixed_start(m, pb)
    x = sgd_start(m, pb)
    if x is not None:
        assert_feasible(m, x)
        assert objective(m, x) >= floor_of(pb) - 1e-6
    y = improve(m, pb, x0, ctx=RunContext.create(limit=10))
    assert_feasible(m, y)
    assert floor_of(pb) - 1e-6 <= objective(m, y) <= objective(m, x0) + 1e-9


def test_relu_start_is_feasible():
    m, pb = xor_model(load_spec(SPECS / "relu.ann"), 0)
    x0 = fixed_start(m, pb)
    x = mip_start(m, pb, budget=5)
    if x is not None:
        assert_feasible(m, x)
        assert objective(m, x) >= floor_of(pb) - 1e-6
    y = improve(m, pb, x0, ctx=RunContext.create(limit=5))
    assert_feasible(m, y)
    assert objective(m, y) <= objective(m, x0) + 1e-9


def test_a_given_network_starts_even_when_no_search_fits():
    """A limit too short for annc's search (under MIN_START_BUDGET): the points made elsewhere
    (model selection's network, a decomposition member's separator) still are the MIP start."""
    from annc.app.api import as_data
    from annc.solve.compiler import build
    from annc.training.search.incumbent import search_incumbent
    from annc.training.warmstart.pool.candidates import seed_point
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 3)
    y = np.array([0, 1, 1, 1] * 3)  # OR: one unit separates it
    c = build(parse_spec("input 2\nhidden 2 binary\noutput 2\nscale none\neps 0.1\n"), as_data((X, y)))
    network = ([np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [0.0, 0.0]])],
               [np.array([-0.5, -1.0]), np.array([0.5, 0.0])])
    point = seed_point(c, network)
    assert point is not None
    short = RunContext.create(limit=0.01)  # under MIN_START_BUDGET (0.25 s) whatever the machine's speed
    record = search_incumbent(c.model, c.problem, ctx=short, given=(("given", point),))
    assert record.x is not None and record.found_by == "start pool: given" and "alone" in record.message
    assert search_incumbent(c.model, c.problem, ctx=short).x is None  # nothing given: no start
