"""MIP start files beside every compiled model (``annc compile``; issue 13).

Each start file is read by its real solver, which must accept it as a feasible solution
with the objective the map records: HiGHS (its log's "MIP start solution is feasible"),
SCIP (``checkSol`` and the first incumbent), Gurobi ("Loaded user MIP start" and the
first incumbent), Xpress (the user-solution callback and the first incumbent), CBC
("MIPStart provided solution") and CPLEX (the first incumbent; on a 24-sample model, as
its free edition takes at most 1000 rows).  A solve stops at its first solution
(solution limit 1) or node limit 0, never at a clock.  The start's search is SGD, so
its point is not fixed: every check compares with what the map recorded.
"""
import json
import re
import subprocess

import numpy as np
import pytest

from annc.training.mip.compiling import compile_files
from annc.core.errors import MapError, UsageError
from annc.io.solutions import read_solution
from annc.io.solutions.align import solution_vector
from annc.training.search import incumbent
from annc.training.search.incumbent import budgeted_start
from annc.training.search.start import MIN_START_BUDGET, START_BUDGET, start_budget
from annc.io.mapfile import load_map, validate_map
from annc.io.varmap import column_names
from annc.io.writers.startfiles import START_FILES, point_digest

from conftest import SPECS, run_cli, assert_names

SUFFIXES = [f.suffix for f in START_FILES]
REL = 1e-5  # solvers print objectives with 6 significant digits or more


def _xor(folder, n, seed):
    from annc.io.datasets import write_csv, xor_data
    X, y = xor_data(n, noise=0.1, seed=seed)
    return write_csv(folder / f"xor{n}.csv", X, y)


def _compile(folder, n, seed, budget="10"):
    data = _xor(folder, n, seed)
    code, out, err = run_cli("compile", SPECS / "xor.ann", data, "-o", folder / "out", "--start-budget", budget)
    assert code == 0, err
    vmap = json.loads((folder / "out" / "xor.map.json").read_text())
    return folder / "out", vmap, out


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """specs/xor.ann on 1000 XOR samples (650 columns, 1824 rows), compiled with its start."""
    return _compile(tmp_path_factory.mktemp("big"), 1000, 0)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The same net on 24 samples: small enough for CPLEX's free edition."""
    return _compile(tmp_path_factory.mktemp("small"), 24, 1, budget="3")


def _objective(vmap):
    obj = vmap["start"]["objective"]
    assert isinstance(obj, float) and np.isfinite(obj)
    return obj


# -- what compile writes ------------------------------------------------------------
def test_compile_writes_every_start_file_and_records_it(big):
    out, vmap, stdout = big
    files = sorted(p.name for p in out.iterdir())
    assert files == sorted(["xor.mps", "xor.map.json"] + [f"xor.start.{s}" for s in SUFFIXES])
    rec = vmap["start"]
    assert [f["file"] for f in rec["files"]] == [f"xor.start.{s}" for s in SUFFIXES]
    import hashlib
    for f in rec["files"]:
        assert hashlib.sha256((out / f["file"]).read_bytes()).hexdigest() == f["sha256"]
    validate_map(vmap)
    assert re.search(r"MIP start objective [0-9.]+.*lower bound [0-9.]+", stdout), stdout
    for s in SUFFIXES:
        assert f"wrote {out / f'xor.start.{s}'} (MIP start for" in stdout
    assert f"wrote {out / 'xor.start.scip.sol'} (MIP start for SCIP)" in stdout
    assert f"wrote {out / 'xor.start.sol'} (MIP start for Gurobi)" in stdout
    assert_names(stdout, "no start file for GLPK")


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_every_file_holds_the_recorded_point_exactly(big, suffix):
    """annc's own reader gives back the very doubles whose SHA-256 the map records, and the
    model's objective there is the recorded one."""
    out, vmap, _ = big
    sol = read_solution(out / f"xor.start.{suffix}")
    x = solution_vector(sol, column_names(vmap), out / f"xor.start.{suffix}")
    assert point_digest(x) == vmap["start"]["sha256"]
    if sol.objective is not None:
        assert sol.objective == _objective(vmap)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_decode_reads_each_start_file_and_verifies_it(big, suffix, tmp_path):
    out, vmap, _ = big
    code, stdout, err = run_cli("decode", out / f"xor.start.{suffix}", "-o", tmp_path / "dec")
    assert code == 0, stdout + err
    assert f"using map {out / 'xor.map.json'}" in stdout
    assert "verification          passed" in stdout
    point = float(re.search(r"objective of point\s+(\S+)", stdout).group(1))
    assert point == pytest.approx(_objective(vmap), rel=1e-8)
    weights = json.loads((tmp_path / "dec" / "xor.start.weights.json").read_text())  # not xor.weights.json
    assert [L["activation"] for L in weights["layers"]] == ["binary", "linear"]


# -- each solver reads its file -------------------------------------------------------
def _mps(compiled):
    out, vmap, _ = compiled
    return str(out / "xor.mps"), out, _objective(vmap)


def test_highs_reads_its_start(big, tmp_path):
    import highspy
    mps, out, obj = _mps(big)
    from annc.solve.solvers.highs_scheduler import new_highs, run as run_highs
    h = new_highs()
    h.setOptionValue("output_flag", True)
    h.setOptionValue("log_to_console", False)
    h.setOptionValue("log_file", str(tmp_path / "highs.log"))
    assert h.readModel(mps) == highspy.HighsStatus.kOk
    assert h.readSolution(str(out / "xor.start.highs"), 0) == highspy.HighsStatus.kOk
    h.setOptionValue("mip_max_nodes", 0)
    run_highs(h, threads=1)
    # "feasible, objective value is" up to HiGHS 1.15, "feasible: objective value is" from 1.16
    m = re.search(r"MIP start solution is feasible[,:] objective value is (\S+)", (tmp_path / "highs.log").read_text())
    assert m, "HiGHS did not accept the start"
    assert float(m.group(1)) == pytest.approx(obj, rel=REL)
    assert h.getInfo().objective_function_value <= obj + 1e-9


def test_scip_reads_its_start(big):
    from pyscipopt import Model
    mps, out, obj = _mps(big)
    m = Model()
    m.hideOutput()
    m.readProblem(mps)
    sol = m.readSolFile(str(out / "xor.start.scip.sol"))
    assert m.checkSol(sol, original=True)
    assert m.getSolObjVal(sol) == pytest.approx(obj, rel=1e-9)
    m.freeSol(sol)
    m.readSol(str(out / "xor.start.scip.sol"))  # as the shell's "read x.start.sol": the first incumbent
    m.setParam("limits/solutions", 1)
    m.setParam("lp/threads", 1)
    m.optimize()
    assert m.getNSols() >= 1 and m.getObjVal() <= obj + 1e-6 * max(1.0, abs(obj))  # never worse than the start


def test_scip_reads_its_start_without_a_warning(big, capfd):
    """SCIP read the ``#`` comments of ``.start.sol`` as a variable (``unknown variable <#> in
    line 1``): its own file, ``.start.scip.sol``, gives no warning, and every column is set."""
    from pyscipopt import Model
    mps, out, obj = _mps(big)
    m = Model()
    m.readProblem(mps)
    capfd.readouterr()
    sol = m.readSolFile(str(out / "xor.start.scip.sol"))
    said = capfd.readouterr()
    assert "unknown variable" not in said.out + said.err and "warning" not in (said.out + said.err).lower(), said
    assert m.checkSol(sol, original=True) and m.getSolObjVal(sol) == pytest.approx(obj, rel=1e-9)
    m.freeSol(sol)


def test_gurobi_reads_its_start(big, tmp_path):
    import gurobipy as gp
    mps, out, obj = _mps(big)
    with gp.Env(empty=True) as env:
        env.setParam("LogToConsole", 0)
        env.start()
        m = gp.read(mps, env)
        m.Params.LogFile = str(tmp_path / "gurobi.log")
        m.read(str(out / "xor.start.sol"))
        m.Params.SolutionLimit = 1
        m.Params.Threads = 1
        m.optimize()
        assert m.SolCount >= 1 and m.ObjVal <= obj + 1e-6 * max(1.0, abs(obj))  # never worse than the start
        m.dispose()
    log = (tmp_path / "gurobi.log").read_text()
    found = re.search(r"Loaded user MIP start with objective (\S+)", log)
    assert found, log
    assert float(found.group(1)) == pytest.approx(obj, rel=REL)


def test_xpress_reads_its_start(big):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import xpress as xp
        p = xp.problem()
    mps, out, obj = _mps(big)
    p.setControl("outputlog", 0)
    p.readProb(mps)
    seen = []
    p.addUserSolNotifyCallback(lambda prob, data, name, status: seen.append((name, status)), None)
    p.readSlxSol(str(out / "xor.start.slx"), "a")
    p.setControl("maxmipsol", 1)
    p.setControl("threads", 1)
    p.optimize()
    assert seen == [("xor", 1)]  # 1: the user solution is feasible as given
    assert p.attributes.mipobjval <= obj + 1e-6 * max(1.0, abs(obj))  # never worse than the start


def test_cbc_reads_its_start(big, tmp_path):
    from annc.solve.solvers.cbc import cbc_path
    mps, out, obj = _mps(big)
    run = subprocess.run([cbc_path(), mps, "-threads", "1", "-mips", str(out / "xor.start.cbc"), "-maxNodes", "0",
                          "-solve", "-solu", str(tmp_path / "cbc.sol")], capture_output=True, text=True, check=True)
    assert "MIPStart values read for 650 variables" in run.stdout, run.stdout
    found = re.search(r"MIPStart provided solution with cost (\S+)", run.stdout)
    assert found, run.stdout
    assert float(found.group(1)) == pytest.approx(obj, rel=REL)


def test_cplex_reads_its_start(small, tmp_path):
    import cplex
    mps, out, obj = _mps(small)
    c = cplex.Cplex(mps)
    log = open(tmp_path / "cplex.log", "w")
    for stream in (c.set_log_stream, c.set_results_stream):
        stream(log)
    c.set_warning_stream(None)
    c.MIP_starts.read(str(out / "xor.start.mst"))
    assert c.MIP_starts.get_num() == 1
    c.parameters.mip.limits.solutions.set(1)
    c.parameters.threads.set(1)
    c.solve()
    log.close()
    assert c.solution.get_objective_value() <= obj + 1e-6 * max(1.0, abs(obj))  # never worse than the start
    assert "MIP start 'annc' defined initial solution" in (tmp_path / "cplex.log").read_text()


# -- no start, a bad budget, a failed write -------------------------------------------------
def test_no_start_writes_no_start_file(tmp_path):
    data = _xor(tmp_path, 24, 1)
    code, out, err = run_cli("compile", SPECS / "xor.ann", data, "-o", tmp_path / "out", "--no-start")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["xor.map.json", "xor.mps"]
    assert "MIP start none: not asked for" in out and "searching" not in out
    rec = json.loads((tmp_path / "out" / "xor.map.json").read_text())["start"]
    assert rec["objective"] is None and rec["files"] == [] and "--no-start" in rec["reason"]


@pytest.mark.parametrize("args,message", [
    (["--start-budget", "0"], "start budget 0 is out of range"),
    (["--start-budget", "-3"], "start budget -3 is out of range"),
    (["--start-budget", "nan"], "start budget nan is out of range"),
    (["--start-budget", "inf"], "start budget inf is out of range"),
    (["--start-budget", "1e10"], "start budget 1e+10 is out of range"),
    (["--start-budget", "5", "--no-start"], "give one or the other"),
])
def test_bad_start_budget_is_a_usage_error(tmp_path, args, message):
    data = _xor(tmp_path, 24, 1)
    code, out, err = run_cli("compile", SPECS / "xor.ann", data, "-o", tmp_path / "out", *args)
    assert code == 2 and message in err, err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_a_budget_that_is_not_a_number_is_refused(tmp_path):
    data = _xor(tmp_path, 24, 1)
    with pytest.raises(SystemExit) as e:
        run_cli("compile", SPECS / "xor.ann", data, "--start-budget", "soon")
    assert e.value.code == 2


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "5", True])
def test_the_api_checks_the_start_options(tmp_path, bad):
    import annc
    with pytest.raises(UsageError):
        annc.compile(SPECS / "xor.ann", _xor(tmp_path, 24, 1), out_dir=tmp_path / "out", start_budget=bad)
    with pytest.raises(UsageError):
        annc.compile(SPECS / "xor.ann", _xor(tmp_path, 24, 1), start=1)
    assert not (tmp_path / "out").exists()


def test_a_failing_write_leaves_no_file(tmp_path, monkeypatch):
    """A start file that cannot be written (a full disk) takes the model and the map with it."""
    import annc.solve.compiler as compiler
    real = compiler.write_to

    def disk_full(fh):
        raise OSError(28, "No space left on device")

    def write_to(path, write):
        return real(path, disk_full if path.name.endswith(".start.slx") else write)

    monkeypatch.setattr(compiler, "write_to", write_to)
    data = _xor(tmp_path, 24, 1)
    code, out, err = run_cli("compile", SPECS / "xor.ann", data, "-o", tmp_path / "out", "--start-budget", "2")
    assert code == 2 and "No space left on device" in err and "xor.start.slx" in err, err
    assert list((tmp_path / "out").iterdir()) == []  # no model, no map, no temporary file


def test_a_start_that_fails_the_check_is_not_written(tmp_path, monkeypatch):
    def search(model, problem, *, budget=None, ctx=None):
        x = np.zeros(model.num_cols)
        x[model.var_block("h0").start] = 0.5  # fractional, and rows broken
        return x, 0.0, "a bad point"

    # the pipeline's start search, replaced where compile_model imports it from when it runs
    monkeypatch.setattr(incumbent, "budgeted_start", search)
    c = compile_files(SPECS / "xor.ann", _xor(tmp_path, 24, 1), out_dir=tmp_path / "out")
    assert c.start is None and c.start_paths == []
    assert "fails the feasibility check" in c.start_message
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["xor.map.json", "xor.mps"]
    rec = load_map(tmp_path / "out" / "xor.map.json")["start"]
    assert rec["objective"] is None and "fails the feasibility check" in rec["reason"]


def test_a_network_sgd_does_not_train_gets_no_start(tmp_path):
    spec = tmp_path / "s.ann"
    spec.write_text("input 5\nhidden 3 sign\noutput 2\n")
    code, out, err = run_cli("compile", spec, _xor(tmp_path, 24, 1), "-o", tmp_path / "out")
    assert code == 0, err
    assert "MIP start none: SGD seeding does not train sign layers" in out
    assert not list((tmp_path / "out").glob("*.start.*"))


# -- the map and the budget rules -----------------------------------------------------------
@pytest.mark.parametrize("edit,field", [
    (lambda s: s["files"][0].update(format="gurobi-mst"), "start.files[0].format"),
    (lambda s: s["files"][1].update(file="../x.sol"), "start.files[1].file"),
    (lambda s: s.update(sha256="zz"), "start.sha256"),
    (lambda s: s.update(objective=None), "start.files"),
    (lambda s: s.update(objective="0.9"), "start.objective"),
    (lambda s: s["files"].append(dict(s["files"][0])), "start.files"),
])
def test_an_edited_start_record_is_a_map_error(big, edit, field):
    vmap = json.loads(json.dumps(big[1]))
    edit(vmap["start"])
    with pytest.raises(MapError, match=re.escape(field)):
        validate_map(vmap)


def test_budget_rules():
    assert start_budget(None) == START_BUDGET and start_budget(40) == 10 and start_budget(1000) == START_BUDGET
    x, seconds, message = budgeted_start(None, None, time_limit=4 * MIN_START_BUDGET - 0.1)
    assert x is None and seconds == 0
    assert_names(message, "no MIP start", "time limit")
    x, _, message = budgeted_start(None, None, budget=MIN_START_BUDGET / 2)
    assert x is None
    assert_names(message, f"start budget of {MIN_START_BUDGET / 2:g} s")


def test_start_files_of_an_earlier_model_are_removed(tmp_path):
    data = _xor(tmp_path, 24, 1)
    code, _, err = run_cli("compile", SPECS / "xor.ann", data, "-o", tmp_path / "out", "--start-budget", "2")
    assert code == 0 and len(list((tmp_path / "out").glob("xor.start.*"))) == len(SUFFIXES), err
    code, _, err = run_cli("compile", SPECS / "xor.ann", data, "-o", tmp_path / "out", "--no-start")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["xor.map.json", "xor.mps"]
