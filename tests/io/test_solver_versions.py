"""Real solution files of several released versions of HiGHS, SCIP, CBC and GLPK
(``fixtures/solver-versions``, written by its ``generate.py``; which versions: its
``VERSIONS`` and docs/solvers-versions.md).

Each file reads to what the solver reported through its own API or log (``corpus.json``):
status, objective, dual bound where the file states one, and every column's value (from
the API, for HiGHS and SCIP).  Every file with a solution decodes against the map of its
model to a verified network whose own loss is the file's objective (the round trip).
"""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from annc.solve.decode import decode_network
from annc.io.solutions import Status, read_solution, sniff_format
from annc.io.solutions.align import solution_vector
from annc.io.mapfile import load_map
from annc.io.varmap import column_names
from annc.solve.verify import verify

from conftest import FIXTURES, run_cli

CORPUS = FIXTURES / "solver-versions"
MODELS = CORPUS / "models"
MAP, DATA = MODELS / "xor16.map.json", MODELS / "xor16.csv"
ENTRIES = json.loads((CORPUS / "corpus.json").read_text())
FILES = {name: (entry, info) for entry in ENTRIES.values() for name, info in entry["files"].items()}
A = pytest.approx
OPT, FEAS, INF, NONE, UNK = (Status.OPTIMAL, Status.FEASIBLE, Status.INFEASIBLE, Status.NO_SOLUTION,
                             Status.UNKNOWN)

# the format annc sniffs, by solver and style (the part of the file name after the case)
FORMAT = {"raw": "highs", "sparse": "highs", "pretty": "highs", "best": "scip", "plain": "cbc",
          "all": "cbc"}
GLPK_FORMAT = {"raw": "glpk-raw", "out": "glpk-out"}
# what annc reads as the status, from the solver's own words (SCIP's files carry none)
STATUS = {
    "highs": {"Optimal": OPT, "Solution limit reached": FEAS, "Infeasible": INF},
    "cbc": {"Optimal solution found (within gap tolerance)": OPT, "Stopped on solution limit": FEAS,
            "Problem is infeasible": INF},
    "glpk": {"INTEGER OPTIMAL SOLUTION FOUND": OPT, "RELATIVE MIP GAP TOLERANCE REACHED; SEARCH TERMINATED": FEAS,
             "LP HAS NO PRIMAL FEASIBLE SOLUTION": INF},
}
DIGITS6 = {"pretty", "out"}  # %g with 6 significant digits; the others have full precision


def _format(entry, style):
    return GLPK_FORMAT[style] if entry["solver"] == "glpk" else FORMAT[style]


def _expected_status(entry):
    if entry["solver"] == "scip":
        return UNK if entry["objective"] is not None else NONE
    return STATUS[entry["solver"]][entry["status"]]


def _close(style):
    return (lambda v: A(v, rel=1e-5, abs=1e-5)) if style in DIGITS6 else (lambda v: A(v, rel=1e-9, abs=1e-12))


def _values(sol, names):
    """The file's values by column name (0 for a column a zero-omitting format left out)."""
    return dict(zip(names, solution_vector(sol, names)))


def test_the_corpus_covers_the_versions_and_cases():
    versions = {}
    for entry in ENTRIES.values():
        versions.setdefault(entry["solver"], set()).add(entry["version"])
        assert {f.removeprefix(f"{entry['solver']}-{entry['version']}_") for f in entry["files"]} >= (
            {f"{entry['case']}_{s}.sol" for s in ("raw", "sparse", "pretty")} if entry["solver"] == "highs"
            else set())
    assert {"1.8.0", "1.16.0"} <= versions["highs"] and len(versions["highs"]) >= 3
    assert len(versions["scip"]) >= 2 and len(versions["cbc"]) >= 2 and len(versions["glpk"]) == 1
    assert {(e["solver"], e["version"], e["case"]) for e in ENTRIES.values()} == {
        (s, v, case) for s, vs in versions.items() for v in vs for case in ("optimal", "limit", "infeasible")}
    on_disk = {p.name for p in CORPUS.iterdir() if p.is_file()} - {"corpus.json", "generate.py"}
    assert on_disk == set(FILES)


@pytest.mark.parametrize("name", sorted(FILES))
def test_each_file_reads_to_what_the_solver_reported(name):
    entry, info = FILES[name]
    style, close = info["style"], _close(info["style"])
    path = CORPUS / name
    assert sniff_format(path) == _format(entry, style)
    sol = read_solution(path)
    assert sol.status == _expected_status(entry), sol.status_text
    if entry["objective"] is None:  # no solution (CBC and GLPK write a point all the same)
        assert sol.has_values == (entry["solver"] in ("cbc", "glpk"))
        return
    assert sol.objective == close(entry["objective"])
    assert sol.bound == (close(entry["bound"]) if info["states_bound"] else None)
    names = column_names(load_map(MAP))
    got = _values(sol, names)
    if entry["values"]:  # the solver's own values, from its API
        assert set(entry["values"]) == set(names)
        bad = [n for n in names if got[n] != close(entry["values"][n])]
        assert not bad, [(n, got[n], entry["values"][n]) for n in bad[:5]]


ROUND_TRIP = sorted(name for name, (entry, _) in FILES.items() if entry["objective"] is not None)


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_each_solution_decodes_to_a_verified_network_of_the_files_objective(name, tmp_path):
    _, info = FILES[name]
    path = CORPUS / name
    code, out, err = run_cli("decode", path, "--map", MAP, "--data", DATA, "-o", tmp_path)
    assert code == 0, out + err
    assert "verification          passed" in out and list(tmp_path.glob("*.weights.json"))
    sol, vmap = read_solution(path), load_map(MAP)
    x = solution_vector(sol, column_names(vmap))
    v = verify(vmap, x, decode_network(vmap, x), status=sol.status.value, solver_objective=sol.objective,
               data_path=DATA, map_path=MAP)
    assert v.ok, v.problems
    assert v.network_loss == _close(info["style"])(sol.objective)


def test_highs_116_proven_optimum_round_trips_with_its_bound(tmp_path):
    """HiGHS 1.16's raw file of a proven optimum: its bound is read (issue 27: the file was
    refused), and decode proves the exported network optimal by it."""
    path = CORPUS / "highs-1.16.0_optimal_raw.sol"
    sol = read_solution(path)
    entry, _ = FILES[path.name]
    assert (sol.status, sol.objective, sol.bound, sol.gap) == (OPT, A(entry["objective"]), A(entry["bound"]), 0)
    code, out, err = run_cli("decode", path, "--map", MAP, "--data", DATA, "-o", tmp_path)
    assert code == 0, out + err
    assert re.search(r"status +optimal", out) and re.search(rf"lower bound +{sol.bound:.6g} \(the solver's dual bound\)\n", out), out
    weights = json.loads((tmp_path / "highs-1.16.0_optimal_raw.weights.json").read_text())
    assert all(np.isfinite(np.asarray(L["weight"], float)).all() for L in weights["layers"])


@pytest.mark.parametrize("name", sorted(n for n, (e, _) in FILES.items() if e["case"] == "infeasible"))
def test_an_infeasible_models_file_has_nothing_to_decode(name, tmp_path):
    code, out, err = run_cli("decode", CORPUS / name, "--map", MAP, "--data", DATA, "-o", tmp_path)
    assert code == 3, out + err
    assert "no solution to decode" in err and not list(tmp_path.iterdir())


def test_a_bound_that_is_nan_or_beyond_the_objective_is_not_used(tmp_path):
    """The bound a file states bounds nothing unless finite and at most the objective."""
    text = (CORPUS / "highs-1.16.0_limit_raw.sol").read_text()
    for bound, usable in (("nan", None), ("inf", None), ("-inf", None), ("5", None), ("0.02", 0.02)):
        path = tmp_path / "b.sol"
        path.write_text(text.replace("Objective 0.08\n", f"Objective 0.08\nObjective_bound {bound}\n"))
        sol = read_solution(path)
        assert sol.usable_bound() == (None if usable is None else A(usable)), bound
        assert math.isnan(sol.bound) if bound == "nan" else sol.bound == float(bound)
        code, out, err = run_cli("decode", path, "--map", MAP, "--data", DATA, "-o", tmp_path / bound)
        assert code == 0, out + err
        assert bool(re.search(r"lower bound +0\.02 \(the solver's dual bound\)\n", out)) == (usable is not None), out
