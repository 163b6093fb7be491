"""The stall rule (annc.solve.solvers.stall, annc.training.mip.stalling): a full MIP ends when its
solver's work moves neither its incumbent nor its bound, and says so; never by the clock.

No timing is asserted: every stop is checked by the work checks it counts.
"""
from __future__ import annotations

import pytest

from annc.app.api import compile_api, train_api
from annc.core.errors import UsageError
from annc.io.solutions import Status
from annc.solve.solvers import SolveOptions, get_driver, solve
from annc.solve.solvers.base import check_stall, stall_setting
from annc.solve.solvers.stall import Stall
from annc.training.mip.stalling import STALL_MIN, STALL_WORK, stall_checks


def data():
    from sklearn.datasets import make_moons
    return make_moons(n_samples=60, noise=0.3, random_state=1)


SPEC = "input 2\nhidden 2 binary\noutput 2\nloss errors\npenalty l0 0.5\neps 0.01\n"


# -- the rule itself -----------------------------------------------------------------------------
def test_the_rule_counts_checks_since_the_last_move():
    s = Stall(3)
    assert not s.update(0, None, None)  # no incumbent: never
    assert not s.update(0, 10.0, None)  # the first incumbent: the reference (check 2)
    assert not s.update(0, 10.0, 0.0)  # the bound appears: a move (check 3)
    assert not s.update(1, 10.0, 0.0) and not s.update(2, 10.0, 0.0)
    assert s.update(3, 10.0, 0.0)  # three checks without a move
    assert s.fired and s.record()["since"] == 3 and s.record()["nodes"] == 3
    assert s.reason() == "stalled: no improvement of incumbent or bound in 3 work checks (3 nodes in all)"


def test_moves_within_the_tolerance_do_not_count_but_their_sum_does():
    s = Stall(4)
    s.update(0, 100.0, 1.0)
    for _ in range(3):  # the bound creeps by 1e-3 < tol = 1e-4 * 100 = 1e-2 each time
        assert not s.update(0, 100.0, 1.0 + 1e-3 * (_ + 1))
    assert s.since() == 3
    assert not s.update(0, 100.0, 1.0 + 2e-2)  # the sum exceeds tol: a move
    assert s.since() == 0
    assert not s.update(0, 99.0, 1.02)  # a better incumbent: a move
    assert s.since() == 0


def test_without_a_count_it_only_observes():
    s = Stall(None)
    for i in range(50):
        assert not s.update(i, 5.0, 1.0)
    assert s.record()["since"] == 49 and not s.fired


def test_an_outside_bound_met_by_the_incumbent_stops_at_once():
    s = Stall(None, floor=4.0)
    assert not s.update(0, 5.0, 0.0)
    assert s.update(1, 4.0 + 1e-7, 0.0) and s.proven
    assert s.reason() == "proven: the incumbent meets annc's lower bound 4"


# -- settings ---------------------------------------------------------------------------------------
def test_settings_are_checked():
    assert check_stall(True) is True and check_stall(False) is False and check_stall(7) == 7
    for bad in (0, -3, 1.5, "auto", None):
        with pytest.raises(UsageError):
            check_stall(bad)
    assert stall_setting("auto") is True and stall_setting("off") is False and stall_setting("12") == 12
    with pytest.raises(UsageError):
        stall_setting("soon")
    with pytest.raises(UsageError):
        train_api(SPEC, data(), out_dir=None, select=False, stall="soon")


def test_the_size_scales_with_the_model_and_applies_to_drivers_that_see_their_work():
    c = compile_api(SPEC, data(), start=False)
    assert stall_checks(c.model, get_driver("highs")) == max(STALL_MIN, -(-int(STALL_WORK) // c.model.A.nnz)) > STALL_MIN
    assert stall_checks(c.model, get_driver("highs"), 9) == 9
    assert stall_checks(c.model, get_driver("highs"), False) is None
    assert stall_checks(c.model, get_driver("glpk")) is None and stall_checks(c.model, get_driver("cmd")) is None
    assert stall_checks(c.model, get_driver("cbc")) is None and stall_checks(c.model, get_driver("cplex")) is None


# -- drivers ----------------------------------------------------------------------------------------
def _model_and_start():
    c = compile_api(SPEC, data(), start=True, start_budget=5)
    assert c.start is not None
    return c.model, c.start


@pytest.mark.parametrize("solver", ["highs", "scip", "gurobi"])
def test_a_driver_stops_a_stalled_solve_with_its_incumbent(solver):
    if solver != "highs":
        pytest.importorskip({"scip": "pyscipopt", "gurobi": "gurobipy"}[solver])
    model, start = _model_and_start()
    res = solve(model, solver, SolveOptions(threads=1, start=start, stall_checks=2, time_limit=60))
    assert res.x is not None and not res.interrupted
    if res.status != Status.OPTIMAL:  # solved before two idle checks: nothing to stop
        assert res.extra["stall"]["fired"]
        assert res.status_text.startswith("stalled: no improvement of incumbent or bound in 2 work checks")
        assert res.extra["stalled"] == res.status_text
    assert model.objective(res.x) <= model.objective(start) + 1e-6


def test_the_stop_is_counted_in_work_the_same_each_time():
    model, start = _model_and_start()
    opts = SolveOptions(threads=1, start=start, stall_checks=5, time_limit=60)
    a, b = (solve(model, "highs", opts) for _ in range(2))
    assert a.extra["stall"] == b.extra["stall"] and a.objective == b.objective


def test_annc_bound_met_stops_the_solver_at_once():
    model, start = _model_and_start()
    obj = model.objective(start)
    res = solve(model, "highs", SolveOptions(threads=1, start=start, stop_at=obj, time_limit=60))
    assert res.extra["stall"]["proven"] or res.status == Status.OPTIMAL
    if res.extra["stall"]["proven"]:
        assert res.status_text == f"proven: the incumbent meets annc's lower bound {obj:.6g}"
        assert res.extra["stall"]["done"] <= 2


# -- a training run says why it ended ------------------------------------------------------------------
def test_a_training_run_records_why_it_ended():
    r = train_api(SPEC, data(), out_dir=None, select=False, threads=1, time_limit=20, stall=1)
    v, meta = r.verdict, r.network.meta["steps"][0]
    assert v.ended and meta["ended"] == v.ended
    if v.ended.startswith("stalled"):
        assert meta["solver"]["stall"]["fired"] and meta["solver"]["stall"]["checks"] == 1
    else:  # proven before or by the solver: then there is nothing to stall
        assert v.status == Status.OPTIMAL or v.ended.startswith("proven")
    off = train_api(SPEC, data(), out_dir=None, select=False, threads=1, time_limit=5, stall=False)
    assert not (off.verdict.ended or "").startswith("stalled")
    assert off.network.meta["steps"][0]["solver"].get("stall", {}).get("checks") is None
