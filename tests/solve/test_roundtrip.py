"""compile -> a real solver -> decode -> verify, on specs/xor.ann with a small XOR sample.

Every solver must read annc's MPS file as the same problem: the same optimum, and a
solution that decodes to a network whose recomputed loss equals the solver's objective.
"""
import json
import shutil
import subprocess

import pytest

from conftest import SPECS, run_cli, assert_names
from solver_runs import SOLVERS, solve_cbc, solve_glpk


def _xor(tmp_path, n=24, seed=1):
    from annc.io.datasets import write_csv, xor_data
    X, y = xor_data(n, noise=0.1, seed=seed)
    return write_csv(tmp_path / "xor.csv", X, y)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rt")
    data = _xor(tmp)
    code, out, err = run_cli("compile", "--no-start", SPECS / "xor.ann", data, "-o", tmp / "out")
    assert code == 0, err
    return tmp, tmp / "out" / "xor.mps", tmp / "out" / "xor.map.json"


@pytest.mark.parametrize("name,fn,ext,status",
                         [pytest.param(*s, marks=pytest.mark.slow) if s[0] == "glpk" else s for s in SOLVERS],
                         ids=[s[0] for s in SOLVERS])  # glpk: about 40 s, run with -m slow
def test_solve_decode_verify(compiled, name, fn, ext, status):
    tmp, mps, vmap = compiled
    sol = tmp / f"{name}.{ext}"
    fn(mps, sol)
    code, out, err = run_cli("decode", sol, "-o", tmp / "out")
    assert code == 0, out + err
    assert "using map" in out and "xor.map.json" in out
    assert f"status {status}" in out
    assert "verification          passed" in out
    lines = dict(l.strip().split("  ", 1) for l in out.splitlines()
                 if l.startswith("  ") and "  " in l.strip())
    point = float(lines["objective of point"])
    loss = float(lines["loss of exported net"])
    assert loss == pytest.approx(point, abs=1e-6)
    if "solver objective" in lines:
        assert float(lines["solver objective"]) == pytest.approx(loss, abs=1e-6)
    # every solver finds the same optimum of the same problem
    assert loss == pytest.approx(0.01, abs=1e-6)
    weights = json.loads((tmp / "out" / f"{name}.weights.json").read_text())
    assert [L["activation"] for L in weights["layers"]] == ["binary", "linear"]
    assert len(weights["layers"][0]["weight"]) == 5 and len(weights["layers"][0]["weight"][0]) == 5
    assert (tmp / "out" / f"{name}.weights.npz").exists()


def test_solution_of_another_model_is_refused(tmp_path, compiled):
    _, _, vmap = compiled
    data = _xor(tmp_path)
    code, _, err = run_cli("compile", "--no-start", SPECS / "output_only.ann", data, "-o", tmp_path / "other")
    assert code == 0, err
    sol = tmp_path / "other.sol"
    solve_cbc(tmp_path / "other" / "output_only.mps", sol)
    code, out, err = run_cli("decode", sol, "--map", vmap, "-o", tmp_path / "o")
    assert code == 2
    assert_names(err, "a0_1_0", "column 3", "column 6")
    assert "from another model" in err
    assert not (tmp_path / "o").exists()
    # names the map does not know at all
    sol.write_text("Optimal - objective value 0\n      0 zz9_1  1  0\n")
    code, out, err = run_cli("decode", sol, "--map", vmap, "-o", tmp_path / "o")
    assert code == 2
    assert_names(err, "not in the map", "zz9_1")
    # GLPK's index-only file is refused by its column count
    raw = tmp_path / "other.raw"
    solve_glpk(tmp_path / "other" / "output_only.mps", raw)
    code, out, err = run_cli("decode", raw, "--map", vmap, "-o", tmp_path / "o")
    assert code == 2 and "columns but the model of this map has" in err


def test_map_search_none_or_ambiguous(tmp_path, compiled, monkeypatch):
    tmp, mps, vmap = compiled
    monkeypatch.chdir(tmp_path)  # decode also looks in ./out
    sol = tmp_path / "x.sol"
    solve_cbc(mps, sol)
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run_cli("decode", sol, "-o", empty)
    assert code == 2 and "no variable map" in err and "pass --map" in err
    twin = tmp_path / "twin"
    twin.mkdir()
    shutil.copy(vmap, twin / "a.map.json")
    shutil.copy(vmap, tmp_path / "b.map.json")  # beside the solution
    code, _, err = run_cli("decode", sol, "-o", twin)
    assert code == 2 and "2 maps match" in err


def test_map_is_found_in_out_when_writing_elsewhere(tmp_path, compiled, monkeypatch):
    tmp, mps, vmap = compiled
    monkeypatch.chdir(tmp)  # the map is in ./out, the solution elsewhere, the weights go to a third folder
    sol = tmp_path / "x.sol"
    solve_cbc(mps, sol)
    code, out, err = run_cli("decode", sol, "-o", tmp_path / "weights")
    assert code == 0, err
    assert "using map out/xor.map.json" in out
    assert (tmp_path / "weights" / "x.weights.json").exists()


def test_truncated_solution_fails_verification_and_writes_nothing(tmp_path, compiled):
    tmp, mps, vmap = compiled
    full = tmp_path / "full.sol"
    solve_cbc(mps, full)
    cut = tmp_path / "cut.sol"
    cut.write_text("".join(full.read_text().splitlines(keepends=True)[:8]))  # CBC omits zeros: looks valid
    code, out, err = run_cli("decode", cut, "--map", vmap, "-o", tmp_path / "o")
    assert code == 4
    assert "verification          FAILED" in out and "truncated" in out
    assert "no weights written" in out and not (tmp_path / "o").exists()


def test_infeasible_status_is_not_decoded(tmp_path, compiled):
    tmp, mps, vmap = compiled
    sol = tmp_path / "inf.sol"
    sol.write_text("Infeasible - objective value 0.00000000\n      0 a0_0_0  0  0\n")
    code, out, err = run_cli("decode", sol, "--map", vmap, "-o", tmp_path / "o")
    assert code == 3 and "no solution to decode" in err and "infeasible" in err
