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


def test_the_cli_limit_reaches_the_driver_through_eight_files_at_most(monkeypatch, tmp_path):
    """The full MIP's ``--time-limit``, from ``annc train`` to the driver that turns it into seconds:
    the files of annc on the call stack when the driver solves (cli, cli_train, dispatch, trainer,
    chain, runner, stages, driver), whatever the stages before it did."""
    from pathlib import Path

    from annc.app.cli import main
    root = Path(annc.__file__).resolve().parent
    routes = []
    highs = type(SOLVERS["highs"])
    real_solve = highs.solve

    def solve(driver, model, opts):
        files = []
        for frame in reversed(inspect.stack()[1:]):
            path = Path(frame.filename).resolve()
            if root in path.parents and path not in files:
                files.append(path)
        routes.append([str(p.relative_to(root)) for p in files])
        return real_solve(driver, model, opts)
    monkeypatch.setattr(highs, "solve", solve)
    data, spec = tmp_path / "xor.csv", tmp_path / "xor.ann"
    data.write_text("x1,x2,label\n" + "".join(f"{a},{b},{a ^ b}\n" for a, b in [(0, 0), (0, 1), (1, 0), (1, 1)] * 2))
    spec.write_text(SPEC)
    assert main(["train", str(spec), str(data), "--time-limit", "30", "--no-select", "--no-warm-start", "-q",
                 "--out", str(tmp_path / "out")]) == 0
    full = [r for r in routes if r[-2:-1] == ["training/mip/stages.py"]]  # the solve stage's (not a sub-MIP's)
    assert full, [r[-4:] for r in routes]
    for route in full:
        assert route[0] == "app/cli.py" and route[-1] == "solve/solvers/driver.py"
        assert len(route) <= 8, route
