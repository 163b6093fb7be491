"""One budget: ``--time-limit`` is checked once, in the request, becomes the run's context once, in
the dispatch, and only the solver's driver turns that context into the solver's time limit."""
import inspect

import numpy as np

import annc
import annc.solve.solvers.base as base
from annc.core.deadline import Deadline
from annc.solve.solvers import SOLVERS
from annc.solve.solvers.driver import SolveInputs

XOR = (np.array([[0, 0], [0, 1], [1, 0], [1, 1.0]] * 2), np.array([0, 1, 1, 0] * 2))
SPEC = "input 2\nhidden 2 binary\noutput 2\nloss errors\npenalty l0 0.5\neps 0.05\n"


def test_the_limit_is_checked_once_in_the_request_and_the_driver_takes_the_context(monkeypatch):
    checks, calls = [], []
    real_check = base.check_time_limit

    def check(value):
        checks.append([f.function for f in inspect.stack()[1:6]])
        return real_check(value)
    monkeypatch.setattr(base, "check_time_limit", check)
    highs = type(SOLVERS["highs"])
    real_within = highs.solve_within

    def within(driver, model, settings, inputs=SolveInputs(), budget=None):
        calls.append((driver, settings.time_limit, budget, inputs.progress is not None))
        return real_within(driver, model, settings, inputs, budget)
    monkeypatch.setattr(highs, "solve_within", within)
    r = annc.train(SPEC, XOR, time_limit=30, out_dir=None, threads=1, select=False)
    assert r.verified
    assert len(checks) == 1 and "checked" in checks[0] and "check_train_args" in checks[0]  # the request's
    assert calls, "no solve reached the driver"
    for driver, limit, budget, _ in calls:
        assert driver is SOLVERS["highs"]  # the driver object the request resolved, not a name
        assert limit is None  # the settings carry no time: the budget does
        assert isinstance(budget, Deadline) and budget.limit is not None and budget.left() <= 30


def test_without_a_limit_the_driver_gets_an_unlimited_budget(monkeypatch):
    seen = []
    highs = type(SOLVERS["highs"])
    real_solve = highs.solve
    monkeypatch.setattr(highs, "solve", lambda d, model, opts: seen.append(opts.time_limit) or real_solve(d, model, opts))
    r = annc.train(SPEC, XOR, out_dir=None, threads=1, select=False)
    assert r.verified and seen and all(limit is None for limit in seen)
