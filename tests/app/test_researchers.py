"""The researcher's workflow of docs/researchers.md: ``annc compile`` -> an external solver (Gurobi
through the pip package's licence, SCIP, CBC) from the MPS and annc's start file -> ``annc decode``
-> the verdict, with the bound the solver's file carries.  Node limits, not seconds, bound each
solve, so what is asserted holds on any machine."""
from __future__ import annotations

import subprocess

import pytest

from conftest import SPECS, run_cli
from annc.io.datasets import write_csv, xor_data
from annc.io.solutions import read_solution

NODES = 50  # each solver's work: a node limit


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """The paper's XOR (200 samples: 32 distinct inputs, 650 columns, 1,824 rows), compiled with its
    start files: within the pip Gurobi licence's 2,000 variables and constraints."""
    d = tmp_path_factory.mktemp("researchers")
    X, y = xor_data(200, noise=0.1, seed=0)
    csv = write_csv(d / "xor.csv", X, y)
    code, out, err = run_cli("compile", SPECS / "xor.ann", csv, "--start-budget", "3", "-q", "-o", d / "out")
    assert code == 0, err
    assert (d / "out" / "xor.mps").is_file() and (d / "out" / "xor.map.json").is_file()
    return d


def _decode(solution, out_dir) -> str:
    code, out, err = run_cli("decode", solution, "--map", out_dir / "xor.map.json", "-o", out_dir)
    assert code == 0, out + err
    verdict = out.split("verdict on the decoded network:\n", 1)[1]
    assert verdict.startswith("  network: ") and "verification          passed" in out
    return verdict


def test_gurobi_leg_json_carries_the_bound(compiled):
    gp = pytest.importorskip("gurobipy", reason="the Gurobi leg needs gurobipy (pip install gurobipy)")
    out = compiled / "out"
    try:
        m = gp.read(str(out / "xor.mps"))
        m.Params.OutputFlag, m.Params.Threads, m.Params.NodeLimit = 0, 1, NODES
        if (out / "xor.start.sol").exists():
            m.read(str(out / "xor.start.sol"))
        m.optimize()
    except gp.GurobiError as e:
        if e.errno in (10009, 10010):  # no licence; a model over the size-limited licence's limits
            pytest.skip(f"Gurobi's licence refuses this model: {e}")
        raise
    assert m.NumVars <= 2000 and m.NumConstrs <= 2000  # the pip licence's limits
    m.write(str(compiled / "xor.json"))
    sol = read_solution(compiled / "xor.json")
    assert sol.bound == pytest.approx(m.ObjBound) and sol.objective == pytest.approx(m.ObjVal)
    verdict = _decode(compiled / "xor.json", out)
    bound_line = next(line for line in verdict.splitlines() if line.startswith("  lower bound "))
    assert float(bound_line.split()[2]) >= m.ObjBound - 1e-6  # the file's bound, or the floor where higher
    assert "(from the file)" in verdict


def test_scip_leg(compiled):
    pyscipopt = pytest.importorskip("pyscipopt", reason="the SCIP leg needs pyscipopt")
    out = compiled / "out"
    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(out / "xor.mps"))
    if (out / "xor.start.scip.sol").exists():
        m.readSol(str(out / "xor.start.scip.sol"))
    m.setParam("limits/nodes", NODES)
    m.optimize()
    m.writeBestSol(str(compiled / "xor.scip.sol"))
    sol = read_solution(compiled / "xor.scip.sol")
    assert sol.bound is None  # SCIP's solution file carries no bound: the verdict has the floor or a claim
    verdict = _decode(compiled / "xor.scip.sol", out)
    assert "the solver's dual bound" not in verdict


def test_cbc_leg(compiled):
    cbcbox = pytest.importorskip("cbcbox", reason="the CBC leg needs cbcbox (its cbc binary)")
    out = compiled / "out"
    start = ["-mips", str(out / "xor.start.cbc")] if (out / "xor.start.cbc").exists() else []
    subprocess.run([cbcbox.cbc_bin_path(), str(out / "xor.mps"), *start, "-maxN", str(NODES), "-solve",
                    "-solu", str(compiled / "xor.cbc.sol")], check=True, capture_output=True, timeout=300)
    sol = read_solution(compiled / "xor.cbc.sol")
    assert sol.bound is None
    verdict = _decode(compiled / "xor.cbc.sol", out)
    assert "the solver's dual bound" not in verdict


@pytest.mark.slow  # model selection needs a 30 s time limit (annc.app.thresholds: MIN_LIMIT)
def test_compile_select_writes_the_chosen_spec_and_compiles_it(tmp_path):
    """``annc compile --select``: the chosen spec beside the model, the model of that spec."""
    from annc.io.spec import load_spec
    from sklearn.datasets import make_moons
    X, y = make_moons(120, noise=0.25, random_state=0)
    csv = write_csv(tmp_path / "moons.csv", X, y)
    code, out, err = run_cli("compile", SPECS / "realdata.ann", csv, "--select", "--time-limit", "30",
                             "--no-start", "-q", "-o", tmp_path / "out")
    assert code == 0, err
    chosen = tmp_path / "out" / "realdata.selected.ann"
    assert chosen.is_file() and (tmp_path / "out" / "realdata.selected.mps").is_file()
    assert "chosen: " in out and f"wrote {chosen}" in out
    spec = load_spec(chosen)
    assert not spec.eps_auto and spec.inputs == 2


def test_compile_select_refuses_where_selection_does_not_apply(tmp_path):
    X, y = xor_data(200, noise=0.1, seed=0)  # 32 distinct rows
    csv = write_csv(tmp_path / "xor.csv", X, y)
    code, out, err = run_cli("compile", SPECS / "realdata.ann", csv, "--select", "--time-limit", "30",
                             "-q", "-o", tmp_path / "out")
    assert code == 2 and "--select" in err and "distinct rows" in err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_compile_time_limit_needs_select(tmp_path):
    X, y = xor_data(40, noise=0.1, seed=0)
    csv = write_csv(tmp_path / "xor.csv", X, y)
    code, out, err = run_cli("compile", SPECS / "xor.ann", csv, "--time-limit", "30", "-o", tmp_path / "out")
    assert code == 2 and "--select" in err
