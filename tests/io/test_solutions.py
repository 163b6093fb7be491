"""Solution-file readers against the real solver outputs in fixtures/solver-outputs.

The truth comes from the models beside the fixtures (see their README): ``feasible.mps``
has optimum 41 (PuLP dropped the objective constant 10) with several optimal points;
``edge.mps`` has ``big >= 1.234567891235e+08`` (PuLP's rounding of 123456789.123456),
``third >= 1/3``, a 70-character name ``>= 1e-7`` and an integer ``z_int >= 2.5``.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from annc.core.errors import SolutionError
from annc.io.solutions import FORMATS, RawSolution, Status, read_solution, sniff_format

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "solver-outputs"
A = pytest.approx
OPT, FEAS, INF, UNB, NONE, UNK = (Status.OPTIMAL, Status.FEASIBLE, Status.INFEASIBLE,
                                  Status.UNBOUNDED, Status.NO_SOLUTION, Status.UNKNOWN)

ALPHA, G, X12 = "a_very_long_variable_name_alpha", "g_with_odd__chars", "x(1,2)"
LONG = "v_" + "L" * 68
BIG = 123456789.1235
THIRD = 1 / 3
DEMO_COST = {ALPHA: 3, "b": 2, "c_free": 1, "d_int_nobound": 1, "e_neg_ub": 1,
             "f_int_neglb": 1, G: 0.5, "i_fixed": 1, "j_int_ub_only": 1, X12: 1}
DEMO_ORDER = list(DEMO_COST)  # column order of feasible.mps (and of its renamed X000000k)
HIGHS_OPT = {ALPHA: 5, "c_free": 15, "f_int_neglb": -3, G: 10, X12: 4}
HARD_LP = {"x10": A(0.36007418), "x11": 1, "x9": A(0.22529072)}

# file, format, status, objective, number of values, some values (by index for glpk-raw)
CASES = [
    ("cbc2_csv.sol", "cbc", UNK, None, 50, {"x11": A(0.90525684), "x13": 1, "sm0": 0}),
    ("cbc2_feasible_all.sol", "cbc", OPT, 41, 10,
     {ALPHA: 5, "c_free": 14, "d_int_nobound": 0, G: 10, X12: 0}),
    ("cbc2_feasible_objsense.sol", "cbc", OPT, 41, 10,
     {ALPHA: 5, "c_free": 14, "f_int_neglb": -2, "j_int_ub_only": 6}),
    ("cbc2_hard_3s.sol", "cbc", FEAS, 7, 24, {"sm3": 3, "sp4": 2, "x0": 1}),
    ("cbc2_hard_nodes.sol", "cbc", NONE, 0, 20, {"x11": 0.90525683914047, "x13": 1}),
    ("cbc2_infeasible.sol", "cbc", INF, 1, 10, {"e_neg_ub": -2, "i_fixed": 3, ALPHA: 0}),
    ("cbc_bt.sol", "cbc", UNB, 7.5, 3, {"ibin": 0, "ilo": 0, "cneg": 0}),
    ("cbc_edge.sol", "cbc", OPT, 123456792.45683333, 4,
     {"big": A(BIG, rel=1e-8), "third": A(THIRD, rel=1e-8), LONG: 0, "z_int": 3}),
    ("cbc_feasible_objsense_afterNAME.sol", "cbc", UNB, 0, 10, {ALPHA: 0, "e_neg_ub": 0}),
    ("cbc_feasible_plain.sol", "cbc", OPT, 41, 10,
     {ALPHA: 5, "f_int_neglb": 8, G: 10, X12: 4}),
    ("cbc_feasible_pulpstyle.sol", "cbc", OPT, 41, 10,
     {"X0000000": 5, "X0000005": 8, "X0000009": 4}),
    ("cbc_hard_20s.sol", "cbc", FEAS, 0, 20, HARD_LP),
    ("cbc_hard_5s.sol", "cbc", FEAS, 0, 20, HARD_LP),
    ("cbc_hard_nodes.sol", "cbc", NONE, 0, 20, HARD_LP),
    ("cbc_hard_time.sol", "cbc", FEAS, 0, 20, HARD_LP),
    ("cbc_hard_time_all.sol", "cbc", FEAS, 0, 50, {**HARD_LP, "sm0": 0, "x0": 0}),
    ("cbc_infeasible_plain.sol", "cbc", INF, 46, 10, {"f_int_neglb": 10, "j_int_ub_only": 7}),
    ("cbc_infeasible_pulpstyle.sol", "cbc", INF, 46, 10, {"X0000005": 10, "X0000008": 7}),
    ("cbc_int.sol", "cbc", OPT, -1, 1, {"x": 1}),
    ("cbc_unbounded_plain.sol", "cbc", UNB, 0, 10, {"e_neg_ub": 0, "i_fixed": 0}),
    ("cbc_unbounded_pulpstyle.sol", "cbc", UNB, 0, 10, {"X0000004": 0, "X0000007": 0}),
    ("cplex_edge.sol", "cplex", OPT, 123456792.45683344, 4,
     {"big": BIG, "third": THIRD, LONG: 1e-7, "z_int": 3}),
    ("cplex_feasible.mst", "cplex", UNK, None, 6,
     {ALPHA: 5, "d_int_nobound": 0, "f_int_neglb": 10, X12: 4}),
    ("cplex_feasible.sol", "cplex", OPT, 41, 10,
     {ALPHA: 5, "c_free": 2, "d_int_nobound": 0, "f_int_neglb": 10, G: 10}),
    ("cplex_unbounded.mst", "cplex", UNK, None, 6, {ALPHA: 3, "d_int_nobound": 5}),
    ("cplex_unbounded.sol", "cplex", UNB, 15.5, 10, {ALPHA: 3, "d_int_nobound": 5, G: 1}),
    ("glpk_edge.out", "glpk-out", OPT, 123456792.5, 4,
     {"big": A(BIG, rel=5e-6), "third": A(THIRD, rel=5e-6), LONG: 0, "z_int": 3}),
    ("glpk_edge.raw", "glpk-raw", OPT, 123456792.456833, 4,
     {0: BIG, 1: A(THIRD, rel=1e-14), 2: 0, 3: 3}),
    ("glpk_feasible.out", "glpk-out", OPT, 41, 10,
     {ALPHA: 5, "c_free": 14, "d_int_nobound": 1, "j_int_ub_only": 6, X12: 0}),
    ("glpk_feasible.raw", "glpk-raw", OPT, 41, 10, {0: 5, 2: 14, 3: 1, 8: 6, 9: 0}),
    ("glpk_feasible_ipt.raw", "glpk-raw", OPT, 40.9999999637908, 10,
     {0: A(5, abs=1e-8), 2: 12.7244354602863, 7: 3}),
    ("glpk_feasible_lp.out", "glpk-out", OPT, 41, 10, {ALPHA: 5, "c_free": 14, G: 10}),
    ("glpk_feasible_lp.raw", "glpk-raw", OPT, 41, 10, {0: 5, 2: 14, 6: 10}),
    ("glpk_hard_time.out", "glpk-out", FEAS, 4, 50, {"sm1": 1, "sm3": 2, "x0": 1, "x9": 0}),
    ("glpk_hard_time.raw", "glpk-raw", FEAS, 4, 50, {0: 0, 1: 1, 3: 2, 10: 1, 49: 0}),
    ("glpk_infeasible.out", "glpk-out", INF, 0, 10, {ALPHA: 0}),
    ("glpk_infeasible.raw", "glpk-raw", INF, 0, 10, {0: 0}),
    ("glpk_infeasible_lp.raw", "glpk-raw", NONE, 0, 10, {0: 0}),
    ("glpk_unbounded.out", "glpk-out", NONE, 0, 10, {ALPHA: 0}),
    ("glpk_unbounded.raw", "glpk-raw", NONE, 0, 10, {0: 0}),
    ("gurobi_edge.sol", "gurobi-sol", UNK, 123456792.45683344, 4,
     {"big": BIG, "third": THIRD, LONG: 1e-7, "z_int": 3}),
    ("gurobi_feasible.json", "gurobi-json", OPT, 41, 9, HIGHS_OPT),
    ("gurobi_feasible.mst", "gurobi-sol", UNK, None, 6,
     {ALPHA: 5, "d_int_nobound": 0, "f_int_neglb": -3}),
    ("gurobi_feasible.sol", "gurobi-sol", UNK, 41, 10, {**HIGHS_OPT, "d_int_nobound": 0}),
    ("gurobi_infeasible.json", "gurobi-json", UNK, None, 0, {}),
    ("gurobi_unbounded.json", "gurobi-json", UNB, 2e30, 9, {"c_free": 1e30, "f_int_neglb": 1e30}),
    ("gurobi_unbounded.mst", "gurobi-sol", UNK, None, 6, {"f_int_neglb": 1e30, X12: 0}),
    ("gurobi_unbounded.sol", "gurobi-sol", UNK, 2e30, 10, {"c_free": 1e30, X12: 0}),
    ("highs_edge.sol", "highs", OPT, 123456792.4568333, 4,
     {"big": BIG, "third": A(THIRD, rel=1e-12), LONG: 0, "z_int": 3}),
    ("highs_feasible_style0.sol", "highs", OPT, 41, 10, {**HIGHS_OPT, "d_int_nobound": 0}),
    ("highs_feasible_style1.sol", "highs", OPT, 41, 10, {**HIGHS_OPT, "d_int_nobound": 0}),
    ("highs_feasible_style2.sol", "glpk-raw", OPT, 41, 10, {0: 5, 2: 15, 3: 0, 5: -3, 9: 4}),
    ("highs_feasible_style3.sol", "glpk-out", OPT, 41, 10, {**HIGHS_OPT, "d_int_nobound": 0}),
    ("highs_feasible_style4.sol", "highs", OPT, 41, 9, HIGHS_OPT),
    ("highs_hard_nosol.sol", "highs", NONE, None, 0, {}),
    ("highs_hard_time.sol", "highs", FEAS, 15, 50, {"sm3": 10, "sp1": 4, "sp2": 1, "x0": 1}),
    ("highs_infeasible_style0.sol", "highs", INF, None, 0, {}),
    ("highs_infeasible_style1.sol", "highs", INF, math.inf, 0, {}),
    ("highs_infeasible_style2.sol", "glpk-raw", INF, math.inf, 0, {}),
    ("highs_infeasible_style3.sol", "glpk-out", INF, math.inf, 0, {}),
    ("highs_infeasible_style4.sol", "highs", INF, None, 0, {}),
    ("highs_unbounded_style0.sol", "highs", UNK, None, 0, {}),
    ("highs_unbounded_style1.sol", "highs", UNK, math.inf, 0, {}),
    ("highs_unbounded_style2.sol", "glpk-raw", NONE, math.inf, 0, {}),
    ("highs_unbounded_style3.sol", "glpk-out", NONE, math.inf, 0, {}),
    ("highs_unbounded_style4.sol", "highs", UNK, None, 0, {}),
    ("highspy_feasible_pretty.sol", "highs", OPT, 41, 10, HIGHS_OPT),
    ("highspy_feasible_raw.sol", "highs", OPT, 41, 10, HIGHS_OPT),
    ("scip_edge.sol", "scip", UNK, 123456792.456833, 4,
     {"big": BIG, "third": A(THIRD, rel=1e-14), LONG: 1e-7, "z_int": 3}),
    ("scip_feasible_best.sol", "scip", UNK, 41, 9, HIGHS_OPT),
    ("scip_feasible_trans.sol", "scip", UNK, -29, 9, {"t_" + ALPHA: 5, "t_c_free": 15}),
    ("scip_feasible_writeSol.sol", "scip", UNK, 41, 9, HIGHS_OPT),
    ("scip_hard_time.sol", "scip", NONE, None, 0, {}),
    ("scip_hard_time_body.sol", "scip", UNK, 23, 25, {"sm4": 12, "sp0": 6, "x1": 1}),
    ("scip_infeasible_best.sol", "scip", NONE, None, 0, {}),
    ("scip_unbounded_best.sol", "scip", UNK, 99993, 8,
     {"j_int_ub_only": -100000, "f_int_neglb": 100000, ALPHA: -5}),
    ("scip_unbounded_trans.sol", "scip", UNK, -99992, 8, {"t_c_free": 100000}),
    ("scip_unbounded_writeSol.sol", "scip", UNK, 99993, 8, {"c_free": 100000}),
    ("xpress_edge.slx", "xpress-slx", UNK, None, 4,
     {"big": BIG, "third": THIRD, LONG: 0, "z_int": 3}),
    ("xpress_feasible.slx", "xpress-slx", UNK, None, 10,
     {ALPHA: 5, "c_free": 2, "d_int_nobound": 2, "f_int_neglb": 8}),
    ("xpress_infeasible.slx", "xpress-slx", NONE, None, 0, {}),
    ("xpress_unbounded.slx", "xpress-slx", NONE, None, 0, {}),
]
# Xpress .prt / .hdr + .asc are not read (the .slx has the same values, at full precision)
UNSUPPORTED = sorted(p.name for p in FIXTURES.glob("xpress_*") if p.suffix != ".slx")


def _values(sol: RawSolution) -> dict:
    return sol.index_values if sol.format == "glpk-raw" else sol.values


@pytest.mark.parametrize("name, fmt, status, objective, count, expected", CASES,
                         ids=[case[0] for case in CASES])
def test_fixture(name, fmt, status, objective, count, expected):
    path = FIXTURES / name
    assert sniff_format(path) == fmt
    sol = read_solution(path)
    assert (sol.format, sol.status) == (fmt, status), sol.status_text
    assert sol.objective == (None if objective is None else A(objective, rel=1e-15))
    values = _values(sol)
    assert len(values) == count and sol.has_values == (count > 0)
    for key, value in expected.items():
        assert values[key] == value, key


def test_every_solution_fixture_is_checked():
    solutions = {p.name for p in FIXTURES.iterdir()
                 if p.is_file() and p.suffix not in {".mps", ".lp", ".py", ".md", ".glp"}}
    assert solutions == {case[0] for case in CASES} | set(UNSUPPORTED)


@pytest.mark.parametrize("name", UNSUPPORTED)
def test_unsupported_xpress_files_are_refused(name):
    with pytest.raises(SolutionError, match=re.escape(name)):
        read_solution(FIXTURES / name)


@pytest.mark.parametrize("name", [
    "cbc2_feasible_all.sol", "cbc2_feasible_objsense.sol", "cbc_feasible_plain.sol",
    "cbc_feasible_pulpstyle.sol", "cplex_feasible.sol", "glpk_feasible.out",
    "glpk_feasible.raw", "glpk_feasible_lp.out", "glpk_feasible_lp.raw",
    "gurobi_feasible.json", "gurobi_feasible.sol", "highs_feasible_style0.sol",
    "highs_feasible_style1.sol", "highs_feasible_style2.sol", "highs_feasible_style3.sol",
    "highs_feasible_style4.sol", "highspy_feasible_pretty.sol", "highspy_feasible_raw.sol",
    "scip_feasible_best.sol", "scip_feasible_writeSol.sol", "xpress_feasible.slx"])
def test_optimal_points_of_the_demo_model_score_41(name):
    """Each solver found a different optimum; all must score 41 on feasible.mps."""
    sol = read_solution(FIXTURES / name)
    if sol.index_values:
        values = {DEMO_ORDER[i]: v for i, v in sol.index_values.items()}
    elif "X0000000" in sol.values:   # PuLP rename=True: X<k> is the k-th column
        values = {DEMO_ORDER[int(n[1:])]: v for n, v in sol.values.items()}
    else:
        values = sol.values
    assert sum(DEMO_COST[n] * v for n, v in values.items()) == A(41)


@pytest.mark.parametrize("name, num_columns, omits_zeros", [
    ("cbc_feasible_plain.sol", None, True),
    ("highs_feasible_style0.sol", 10, False),
    ("highs_feasible_style1.sol", 10, False),
    ("highs_feasible_style4.sol", None, True),
    ("scip_feasible_best.sol", None, True),
    ("gurobi_feasible.json", None, True),
    ("gurobi_feasible.sol", None, False),
    ("glpk_feasible.raw", 10, False),
    ("glpk_feasible.out", 10, False),
    ("cplex_feasible.sol", None, False),
    ("xpress_feasible.slx", None, False),
])
def test_column_count_and_omitted_zeros(name, num_columns, omits_zeros):
    sol = read_solution(FIXTURES / name)
    assert (sol.num_columns, sol.omits_zeros) == (num_columns, omits_zeros)


@pytest.mark.parametrize("name, rows", [
    ("cbc2_feasible_all.sol", ["cap_1", "c7"]),
    ("cbc_feasible_pulpstyle.sol", ["C0000000", "C0000006"]),
    ("cbc_hard_time_all.sol", ["ms0", "ms4"]),
    ("cbc_bt.sol", ["r1"]),
])
def test_cbc_rows_block_is_skipped(name, rows):
    sol = read_solution(FIXTURES / name)
    assert not set(rows) & set(sol.values)


def test_glpk_raw_indices_follow_the_column_order_of_the_report():
    raw = read_solution(FIXTURES / "glpk_hard_time.raw")
    report = read_solution(FIXTURES / "glpk_hard_time.out")
    assert [raw.index_values[i] for i in range(50)] == list(report.values.values())


@pytest.mark.parametrize("name, words", [
    ("scip_feasible_trans.sol", "transformed"),
    ("cbc_hard_nodes.sol", "no integer solution"),
    ("gurobi_infeasible.json", "infeasible or unbounded (Gurobi status 4)"),
    ("highs_unbounded_style0.sol", "Primal infeasible or unbounded"),
    ("cplex_feasible.mst", "MIP start 'm1' (1 of 2)"),
    ("gurobi_feasible.mst", "MIP start"),
    ("glpk_feasible_lp.raw", "primal feasible, dual feasible"),
    ("xpress_infeasible.slx", "no solution"),
])
def test_status_text_explains(name, words):
    assert words in read_solution(FIXTURES / name).status_text


@pytest.mark.parametrize("content, status, objective, values", [
    ("=obj= 41\nb 1\nx(1,2)  4\n", UNK, 41, {"b": 1, "x(1,2)": 4}),
    ("=infeas=\n", INF, None, {}),
    ("=unkn=\n", NONE, None, {}),
])
def test_miplib(tmp_path, content, status, objective, values):
    path = tmp_path / "x.sol"
    path.write_text(content)
    assert sniff_format(path) == "miplib"
    sol = read_solution(path)
    assert (sol.status, sol.objective, sol.values, sol.omits_zeros) == (
        status, objective, values, True)


CBC_HEAD = "Optimal - objective value 41.00000000\n      0 a      5       3\n"
MALFORMED = [
    ("cut.sol", CBC_HEAD + "      1 b", None,
     "cut.sol:3: expected '<index> <name> <value> <reduced cost>' in a CBC solution, "
     "got '1 b'"),
    ("bad.sol", CBC_HEAD + "      1 b  x1  0\n", None, "bad.sol:3: expected '<index>"),
    ("dup.sol", CBC_HEAD + "      1 a  1  0\n", None, "dup.sol:3: column 'a' appears twice"),
    ("obj.sol", "Optimal - objective value forty\n", None,
     "obj.sol:1: expected a number after 'objective value'"),
    ("three.sol", CBC_HEAD + "      0 b 1 0\n      0 c 1 0\n", None,
     "three.sol:4: index restarts a third time"),
    ("garbage.sol", "hello world\nxx\n", None,
     "garbage.sol: cannot tell which solver wrote this file (it starts 'hello world'); "
     "known formats: " + ", ".join(FORMATS)),
    ("binary.sol", b"\x00\xff\xfe\x01garbage", None, "binary.sol: cannot tell"),
    ("forced.sol", "hello world\nxx\n", "cbc", "forced.sol:2: expected '<index> <name>"),
    ("empty.sol", "", None, "empty.sol: the solution file is empty"),
    ("blank.sol", "\n  \n", "highs", "blank.sol: the solution file is empty"),
    ("h.sol", "Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective 1\n"
              "# Columns 3\nx 1\ny 2\n", None,
     "h.sol:10: expected '<name> <value>' in a HiGHS solution, got the end of the file"),
    ("h2.sol", "Model status\nOptimal\n\n# Primal solution values\nFeasible\n", None,
     "h2.sol:6: expected 'Objective <number>' in a HiGHS solution"),
    ("g.raw", "c x\ns mip 1 2 o 3\ni 1 3\nj 1 1\nj 2 2\n", None,
     "g.raw:6: expected 'e o f' (the file is truncated) in a GLPK raw solution"),
    ("g2.raw", "s mip 1 2 o 3\nj 1 1\ne o f\n", None, "g2.raw:3: expected 2 column lines"),
    ("g3.raw", "s mip 1 2 o 3\nj 1 1\nj 3 2\ne o f\n", None, "g3.raw:3: column 3 is out"),
    ("g4.raw", "s mip 1 x o 3\n", None, "g4.raw:1: expected 's mip|bas|ipt"),
    ("s.sol", "objective value: 4\nx 1 \t(obj:1)\ny one \t(obj:1)\n", None,
     "s.sol:3: expected '<name> <value> (obj:<cost>)' in a SCIP solution, got 'y one"),
    ("c.sol", '<?xml version="1.0"?>\n<CPLEXSolution>\n <header solutionStatusValue="1"/>\n'
              ' <variables>\n  <variable name="x" index="0" value="1"/>\n', None,
     "c.sol:6: expected a CPLEX XML solution: no element found"),
    ("c2.sol", '<?xml version="1.0"?>\n<CPLEXSolution>\n <header solutionStatusValue="1"/>\n'
               ' <variables>\n  <variable name="x" index="0" value="one"/>\n </variables>\n'
               '</CPLEXSolution>\n', None,
     'c2.sol:5: expected <variable name="<unique name>" ... value="<number>"/>'),
    ("j.json", '{ "SolutionInfo": { "Status": 2,\n "Vars": [', None,
     "j.json:2: expected a Gurobi JSON solution"),
    ("j2.json", '{ "SolutionInfo": { "Status": 2}, "Vars": [{"VarName": "x"}]}', None,
     'j2.json: expected {"VarName": <name>, "X": <number>} as Vars[0]'),
    ("gs.sol", "# Solution for model m\nx 1\ny\n", None,
     "gs.sol:3: expected '<name> <value>' in a Gurobi .sol solution, got 'y'"),
    ("x.slx", "NAME m\n  C x 1\n  C y\n", None, "x.slx:3: expected 'C <name> <value>'"),
    ("x2.slx", "NAME m\n  C x 1\n", None, "x2.slx:3: expected 'ENDATA'"),
    ("m.sol", "=obj= 1\nx one\n", None, "m.sol:2: expected '=obj= <value>' or '<name>"),
    ("o.out", "Problem: p\nRows: 1\nColumns: 1\nStatus: OPTIMAL\nObjective: z = 1 (MINimum)\n"
              "\n   No. Column name       Activity     Lower bound   Upper bound\n"
              "------ ------------    ------------- ------------- -------------\n"
              "     1 x                       zz\n", None,
     "o.out:9: expected a number under 'Activity' in a GLPK -o solution"),
]


@pytest.mark.parametrize("name, content, fmt, message", MALFORMED,
                         ids=[case[0] for case in MALFORMED])
def test_malformed_input_is_located(tmp_path, name, content, fmt, message):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(SolutionError) as err:
        read_solution(path, fmt)
    assert str(err.value).startswith(str(path)) and message in str(err.value)


def test_missing_file_and_unknown_format(tmp_path):
    with pytest.raises(SolutionError, match="cannot read solution file .*nope.sol"):
        read_solution(tmp_path / "nope.sol")
    with pytest.raises(SolutionError, match="unknown solution format 'mosek'"):
        read_solution(FIXTURES / "cbc_int.sol", "mosek")


N = 1_000_000


def test_a_million_columns(tmp_path):
    cbc = tmp_path / "big_cbc.sol"
    with open(cbc, "w") as f:
        f.write("Optimal - objective value 123.00000000\n")
        f.writelines(f"{i:7d} w{i:<20d} {i % 7}.5 0\n" for i in range(N))
    highs = tmp_path / "big_highs.sol"
    with open(highs, "w") as f:
        f.write(f"Model status\nOptimal\n\n# Primal solution values\nFeasible\n"
                f"Objective 123\n# Columns {N}\n")
        f.writelines(f"w{i} {i % 7}.5\n" for i in range(N))
        f.write("# Rows 0\n\n# Dual solution values\nNone\n")
    for path in (cbc, highs):
        sol = read_solution(path)
        assert sol.status is OPT and len(sol.values) == N
        for i in (0, 123_456, N - 1):
            assert sol.values[f"w{i}"] == i % 7 + 0.5


@pytest.mark.parametrize("head, status", [
    ("Optimal (within gap tolerance) - objective value -0.00000000", Status.OPTIMAL),  # CBC devel (cbcbox)
    ("Optimal - objective value 0", Status.OPTIMAL),
    ("Infeasible - objective value 0", Status.INFEASIBLE),
    ("Stopped on time - objective value 3", Status.FEASIBLE),
    ("Something new (whatever) - objective value 3", Status.UNKNOWN),
])
def test_cbc_status_words_before_a_parenthesis(tmp_path, head, status):
    path = tmp_path / "m.sol"
    path.write_text(head + "\n      0 a      1       0\n")
    assert read_solution(path).status == status
