"""MIP starts reach every solver driver that takes one, by column name."""
import pytest

from annc.datasets import xor_split
from annc.formulations import formulate
from annc.formulations.loss import nll_floor
from annc.problem import make_problem
from annc.solvers import SolveOptions, solve
from annc.spec import load_spec, parse_spec
from annc.warmstart import mip_start

from conftest import SPECS


@pytest.fixture(scope="module")
def xor_with_start():
    """specs/xor.ann on 1000 samples and its MIP start, which is optimal (at the loss floor)."""
    X, y, _, _ = xor_split(1000, 250, 0.1, 0)
    pb = make_problem(load_spec(SPECS / "xor.ann"), X, y, [0, 1])
    m = formulate(pb, name="xs")
    x = mip_start(m, pb)
    floor = float(nll_floor(pb.counts, 0.01).sum())
    assert float(m.obj @ x) == pytest.approx(floor, abs=1e-6)
    return m, x, floor


@pytest.mark.parametrize("solver", ["highs", "scip", "gurobi", "xpress"])
def test_an_optimal_start_is_proven_at_once(solver, xor_with_start):
    """Without the start, HiGHS, SCIP and Xpress do not prove this optimum within 20 s."""
    m, x, floor = xor_with_start
    r = solve(m, solver, SolveOptions(time_limit=20, start=x, threads=1))
    assert r.status.value == "optimal", r.describe()
    assert r.objective == pytest.approx(floor, abs=1e-6)


def test_cplex_takes_a_start():
    """CPLEX Community Edition solves at most 1000 rows: the parity bits alone, 3-3-2."""
    X, y, _, _ = xor_split(1000, 250, 0.1, 0)
    pb = make_problem(parse_spec("input 3\nhidden 3 binary\noutput 2"), X[:, [0, 2, 4]], y, [0, 1])
    m = formulate(pb, name="x3")
    x = mip_start(m, pb, budget=5)
    r = solve(m, "cplex", SolveOptions(time_limit=60, start=x, threads=1))
    assert r.status.value == "optimal", r.describe()
    assert r.objective <= float(m.obj @ x) + 1e-6
    highs = solve(m, "highs", SolveOptions(time_limit=60))
    assert r.objective == pytest.approx(highs.objective, abs=1e-6)


def test_train_gives_scip_the_start(tmp_path):
    from annc.datasets import write_csv
    from conftest import run_cli
    X, y = xor_split(1000, 0, 0.1, 0)[:2]
    csv = write_csv(tmp_path / "xor.csv", X, y)
    code, out, err = run_cli("train", SPECS / "xor.ann", csv, "--solver", "scip", "--time-limit", "60",
                             "-o", tmp_path, "-q")
    assert code == 0, out + err
    assert "MIP start from SGD and local search: objective 0.94" in out
    assert "optimal (" in out


@pytest.mark.parametrize("solver", ["scip", "gurobi", "xpress"])
def test_time_limit_without_start_is_feasible(solver, xor_with_start):
    m, _, floor = xor_with_start
    r = solve(m, solver, SolveOptions(time_limit=1, threads=1))
    assert r.status.value in ("feasible", "optimal"), r.describe()
    if r.status.value == "feasible":
        assert r.objective > floor and r.bound is not None
