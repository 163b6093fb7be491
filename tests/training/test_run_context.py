"""The run context (annc.training.context): one deadline and the user's solver settings for every
step of a run; the user's solver in annc's own sub-MIPs; native solver options; the compile
pipeline above the solve layer; and neighbourhoods added from outside annc."""
import ast
import inspect
import itertools
import re

import numpy as np
import pytest

import annc
import annc.solve.solvers as solvers
from annc.app.api import as_data, as_spec
from annc.core.errors import UsageError
from annc.io.datasets import xor_data
from annc.solve.compiler import build
from annc.solve.solvers import SOLVERS, SolveOptions
from annc.solve.solvers.base import solver_options
from annc.training.context import RunContext
from annc.training.warmstart.pool.point import complete, hidden_network
from annc.training.search import lns
from annc.training.search.neighbourhoods import NEIGHBOURHOODS, Neighbourhood, output_cols, register, unregister
from conftest import ROOT
from test_lns import GRID, SPEC, _instance, _objective

TRAINING = ROOT / "annc" / "training"


# -- time ---------------------------------------------------------------------------------------
CLOCK = re.compile(r"\bperf_counter\b|\btime\.time\(|\bmonotonic\b|^\s*import time\b|^\s*from time import",
                   re.MULTILINE)


def test_no_module_of_training_reads_the_clock_but_the_run_context():
    """Every step takes its time from the run context: no other module of annc/training reads
    the clock (and so none can do its own time arithmetic)."""
    found = {str(p.relative_to(ROOT)): CLOCK.findall(p.read_text()) for p in sorted(TRAINING.rglob("*.py"))
             if p.name != "context.py"}
    assert not {k: v for k, v in found.items() if v}


def test_a_share_never_ends_after_its_parent():
    ctx = RunContext.create(limit=10.0)
    end = ctx.deadline.start + ctx.deadline.limit
    child = ctx.share(0.75)
    assert child.deadline.limit <= 0.75 * 10.0 and child.deadline.start + child.deadline.limit <= end + 1e-6
    for seconds in (2.0, 1e6):
        d = ctx.within(seconds).deadline
        assert d.limit <= seconds and d.start + d.limit <= end + 1e-6
    assert RunContext.create().share(0.5).left() is None  # no limit: none invented
    assert child.ledger is ctx.ledger and child.interrupt is ctx.interrupt


def test_the_finish_keeps_its_second_but_never_a_large_share_of_a_short_limit():
    """The finish's reserve: 5% of a long limit, one second of a middling one, and at most a tenth of
    a short one (a pair of one-vs-one capped at 2 s kept half of it and had no time to search)."""
    from annc.core.deadline import FINISH_MIN, FINISH_MOST_SHARE, FINISH_SHARE, Deadline
    assert Deadline(None).reserve() == 0.0
    for limit in (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 60.0, 600.0):
        reserve = Deadline(limit).reserve()
        assert reserve >= FINISH_SHARE * limit and reserve <= max(FINISH_SHARE * limit, FINISH_MOST_SHARE * limit)
        assert reserve >= min(FINISH_MIN, FINISH_MOST_SHARE * limit)
        assert (reserve >= FINISH_MIN) == (limit >= FINISH_MIN / FINISH_MOST_SHARE)


def test_a_slot_cap_is_each_waiting_tasks_share_of_what_is_left():
    """``waiting`` tasks on ``slots`` run ``ceil(waiting / slots)`` rounds one after another:
    each gets that share of what is left before the finish, less a task's overhead."""
    from annc.core.deadline import FLOOR
    from annc.training.context import TASK_OVERHEAD
    ctx = RunContext.create(limit=100.0)
    for waiting, slots in ((1, 1), (3, 1), (10, 2), (45, 2), (7, 8)):
        rounds = -(-waiting // slots)
        room = ctx.until_finish()  # taken before the cap: what is left only shrinks
        cap = ctx.slot_cap(waiting, slots)
        assert FLOOR <= cap <= (100.0 - ctx.deadline.reserve()) / rounds - TASK_OVERHEAD + 1e-9
        assert rounds * (cap + TASK_OVERHEAD) <= room + 1e-9  # the rounds fit before the finish
    assert ctx.slot_cap(10 ** 6, 1) == FLOOR  # never below the floor a solver needs
    assert RunContext.create().slot_cap(5, 2) is None  # no limit: none invented


def test_a_context_stops_at_its_deadline_or_a_ctrl_c():
    ctx = RunContext.create(limit=1e-9)
    assert ctx.expired() and ctx.stopped() and ctx.cap() > 0  # a solver still gets a positive limit
    live = RunContext.create(limit=100.0)
    assert not live.stopped()
    live.interrupt.request()
    assert live.stopped() and live.interrupted


# -- the compile pipeline ---------------------------------------------------------------------
def test_the_solve_layer_takes_no_callable():
    """solve/compiler.py is composed from above (annc.training.mip.compiling): none of its functions
    takes a callback such as resolve= or start=."""
    import annc.solve.compiler as compiler
    tree = ast.parse(inspect.getsource(compiler))
    offenders = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for arg in node.args.args + node.args.kwonlyargs:
                text = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                if "Callable" in text or arg.arg in ("resolve", "search"):
                    offenders.append(f"{node.name}({arg.arg}: {text})")
    assert not offenders


# -- the user's solver in every sub-MIP ----------------------------------------------------------
def _xor(n=60, seed=0):
    X, y = xor_data(n, noise=0.1, seed=seed)
    return as_data((X, y))


def test_training_on_scip_runs_every_sub_mip_on_scip_with_the_users_threads(monkeypatch):
    pytest.importorskip("pyscipopt")  # the solvers extra, which CI installs

    def no_highs(self, model, opts):
        raise AssertionError(f"HiGHS was called for {model.name}")

    seen = []
    scip_solve = type(SOLVERS["scip"]).solve

    def scip(self, model, opts):
        seen.append((model.name, opts.threads))
        return scip_solve(self, model, opts)

    monkeypatch.setattr(type(SOLVERS["highs"]), "solve", no_highs)
    monkeypatch.setattr(type(SOLVERS["scip"]), "solve", scip)
    from annc.training.bounds.proof import PoolTest  # the whole pool runs (no candidate ends it): every step's sub-MIPs
    monkeypatch.setattr(PoolTest, "__call__", lambda self, objective: False)
    # the paper's spec on 200 rows: proven in seconds, so the run ends by work, not at its limit
    r = annc.train((ROOT / "specs" / "xor.ann").read_text(), _xor(200), solver="scip", threads=2, out_dir=None,
                   time_limit=60)
    assert r.verified and r.status.name == "OPTIMAL" and len(seen) > 2  # the pool's output layers at least
    assert {t for _, t in seen} == {2}
    sub = r.steps[0].verdict.sub_mips
    assert set(sub["by_solver"]) == {"SCIP"} and sub["fallback"] is None
    full = not r.steps[0].result.status_text.startswith("not run")  # annc's bound may prove it before the full MIP
    assert sub["by_solver"]["SCIP"] == len(seen) - full  # every call but the full MIP's is a sub-MIP


def test_a_solver_that_cannot_take_sub_mips_leaves_them_to_highs_and_says_so():
    assert not SOLVERS["cbc"].sub_mips and not SOLVERS["glpk"].sub_mips and SOLVERS["scip"].sub_mips
    ctx = RunContext.create("cbc")
    assert ctx.sub_solver == "highs"
    c = build(as_spec(SPEC), as_data((np.array([[0, 0], [1, 1.0]]), np.array([0, 1]))), name="t")
    ctx.solve(c.model, node_limit=10)
    assert ctx.ledger.counts == {"HiGHS": 1} and "CBC" in ctx.ledger.fallback and "HiGHS" in ctx.ledger.fallback


# -- native options --------------------------------------------------------------------------
def test_solver_options_are_read_as_the_command_line_gives_them():
    assert solver_options(["presolve=off", "mip_rel_gap=0.1", "limits/nodes=10", "x=true"]) == (
        ("presolve", "off"), ("mip_rel_gap", 0.1), ("limits/nodes", 10), ("x", True))
    for bad in (["presolve"], ["=1"], ["a b=1"], ["x="]):
        with pytest.raises(UsageError):
            solver_options(bad)


def test_a_native_option_reaches_highs():
    c = build(as_spec(SPEC), as_data((np.array([[0, 0], [1, 1.0]]), np.array([0, 1]))), name="t")
    assert solvers.solve(c.model, "highs", SolveOptions(native=(("presolve", "off"),))).x is not None
    with pytest.raises(UsageError, match="HiGHS refuses no_such_option"):
        solvers.solve(c.model, "highs", SolveOptions(native=(("no_such_option", 1),)))


def test_highs_presolve_enumeration_is_off_under_a_time_limit_unless_the_user_sets_the_rules():
    """HiGHS 1.16's presolve enumeration does not check the time limit (a neighbourhood sub-MIP ran
    37 s of 10): under a limit annc switches it off, and a user's own presolve_rule_off, set after, wins;
    HiGHS takes the option (an older HiGHS without the rule ignores its bit)."""
    from annc.solve.solvers.highs import ENUMERATION_OFF
    driver = SOLVERS["highs"]
    assert ENUMERATION_OFF not in driver.highs_options(SolveOptions())
    capped = driver.highs_options(SolveOptions(time_limit=5.0))
    assert capped[0] == ENUMERATION_OFF and ("time_limit", 5.0) in capped
    mine = driver.highs_options(SolveOptions(time_limit=5.0, native=(("presolve_rule_off", 0),)))
    assert [v for n, v in mine if n == "presolve_rule_off"][-1] == 0
    c = build(as_spec(SPEC), as_data((np.array([[0, 0], [1, 1.0]]), np.array([0, 1]))), name="t")
    assert solvers.solve(c.model, "highs", SolveOptions(time_limit=5.0)).x is not None


def test_a_native_option_reaches_scip():
    pytest.importorskip("pyscipopt")
    c = _instance(0)
    free = solvers.solve(c.model, "scip", SolveOptions())
    capped = solvers.solve(c.model, "scip", SolveOptions(native=(("limits/nodes", 1),)))
    assert free.status.value == "optimal" and capped.extra["nodes"] <= 1
    with pytest.raises(UsageError, match="SCIP refuses no/such"):
        solvers.solve(c.model, "scip", SolveOptions(native=(("no/such", 1),)))


def test_a_native_option_reaches_cbc():
    pytest.importorskip("cbcbox")
    opts = SolveOptions(native=(("cuts", "off"), ("-maxNodes", 7)))
    words = SOLVERS["cbc"].command(opts)
    assert words[words.index("-cuts") + 1] == "off" and words[words.index("-maxNodes") + 1] == "7"
    c = _instance(0)
    assert solvers.solve(c.model, "cbc", opts).x is not None


def test_a_native_option_on_the_command_line(tmp_path, xor_csv):
    from conftest import run_cli
    code, out, err = run_cli("train", ROOT / "specs" / "xor.ann", xor_csv, "-o", tmp_path / "o", "-q",
                             "--solver-option", "no_such_option=1")
    assert code == 2 and "HiGHS refuses no_such_option" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists() or not list((tmp_path / "o").iterdir())  # nothing half-written


# -- a neighbourhood from outside annc -------------------------------------------------------
class HiddenBiases(Neighbourhood):
    """Every hidden unit's bias together with the output layer (not one of annc's kinds)."""

    key, level, what = "test-biases", 9, "the hidden biases and the output layer"

    @classmethod
    def around(cls, model, problem, x, rows=0):
        biases = [np.ravel(L.bias) for L in model.layout.layers[:-1]]
        return [cls("hidden biases + output layer", biases + output_cols(model))]


@pytest.fixture
def hidden_biases():
    register(HiddenBiases)
    try:
        yield HiddenBiases
    finally:
        unregister(HiddenBiases.key)
    assert HiddenBiases.key not in NEIGHBOURHOODS


def _best_with_biases_free(problem, W, b) -> float:
    """The lowest objective over every grid network that differs from ``(W, b)`` only in the
    hidden biases and the output layer: 3^2 biases x 3^6 output layers."""
    outputs = [(np.array(v[:4]).reshape(2, 2), np.array(v[4:])) for v in itertools.product(GRID, repeat=6)]
    return min(_objective(problem, [W[0], Wo], [np.array(b0), bo])
               for b0 in itertools.product(GRID, repeat=2) for Wo, bo in outputs)


@pytest.mark.parametrize("seed", range(3))
def test_a_neighbourhood_added_from_outside_is_searched_and_its_certificate_holds(hidden_biases, seed):
    c = _instance(seed)
    m, pb = c.model, c.problem
    x0 = complete(m, pb, [np.zeros((2, 2)), np.zeros((2, 2))], [np.full(2, -1.0), np.array([1.0, 0.0])])
    r = lns.search(m, pb, x0, work=lns.SearchWork(max_sub_mips=200, node_limit=10_000))
    assert r.certificate is not None and r.certificate.key == "test-biases"  # every level proven, ours last
    assert r.certificate.text.startswith("no network that differs from this one only in the hidden biases")
    W, b = hidden_network(m, r.x)
    assert _best_with_biases_free(pb, W, b) >= r.objective - 1e-6


def test_the_verdict_prints_an_outside_neighbourhoods_own_sentence(hidden_biases):
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [0.5, 0.5], [0, 0.5], [1, 0.5]])
    y = np.array([0, 1, 1, 0, 1, 0, 1])
    r = annc.train(SPEC, (X, y), out_dir=None, time_limit=60)
    s = r.steps[0].verdict.search
    assert any(cert["key"] == "test-biases" and "the hidden biases and the output layer" in cert["text"]
               for cert in s["certificates"]), s["certificates"]


def test_no_full_mip_when_its_setup_does_not_fit(monkeypatch):
    """A full MIP whose setup (non-zeros at SolverSetup.nonzeros_per_second) is longer than what is left
    is not started: the network is the search's, verified, and the verdict's solver line says why."""
    from dataclasses import replace

    from annc.app.api import train_request
    from annc.training.dispatch import run
    from annc.training.mip.job import SolverSetup
    slow = SolverSetup(nonzeros_per_second=1.0, min_nonzeros=0)  # every model's setup: far too long
    called = []
    real = type(SOLVERS["highs"]).solve_within
    monkeypatch.setattr(type(SOLVERS["highs"]), "solve_within",  # the full MIP's (sub-MIPs pass a node limit)
                        lambda d, model, s, i=None, b=None: called.append(model.name) if i is not None and
                        i.progress is not None else real(d, model, s, i, b))
    r = run(replace(train_request(SPEC, (np.array([[0, 0], [0, 1], [1, 0], [1, 1.0]]), np.array([0, 1, 1, 0])),
                                  out_dir=None, time_limit=30), setup=slow))
    s = r.steps[0]
    assert r.verified and "the full MIP is not run" in s.result.status_text and not called
    assert s.result.x is not None and s.verdict.objective == pytest.approx(s.verdict.search["start_objective"])
    assert s.verdict.search["final_objective"] <= s.verdict.search["pool_best"] + 1e-9


def test_the_estimator_passes_native_options_through():
    from annc.app.estimator import MIPNetClassifier
    X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1.0]] * 3), np.array([0, 1, 1, 0] * 3)
    with pytest.raises(UsageError, match="HiGHS refuses no_such_option"):
        MIPNetClassifier(time_limit=20, solver_options={"no_such_option": 1}).fit(X, y)
