"""Writers: MPS / LP / PuLP files read back by every solver as the same problem.

The test model has every bound case (binary, general integer with negative lb, free,
MI + negative UP, fixed, lb=0 ub=inf, positive lb, an empty column), L/G/E rows, an
empty row, coefficients like 1/3, 123456789.123456 and 1e-7, and a unique optimum
(except the empty column ``w``, whose value is free within its bounds).
"""
from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import annc.io.writers as writers
import annc.io.writers.lp as lpw
import annc.io.writers.mps as mpsw
import annc.io.writers.text as textw
from annc.core.builder import ModelBuilder
from conftest import highs_read
from annc.io.writers import write_lp, write_model, write_mps
from annc.io.writers.pulp import pulp_column_order, pulp_row_order, to_pulp, write_with_pulp

import highspy  # noqa: E402  (a declared dependency: never skipped)

OPT_OBJ = -1 - 5 - 2.5 / 3 + 2.25 + 2.5 + 3 / 7  # without the constant 5 (never written)
OPT_X = {"b": 1, "k": -5, "f": -2.5, "m": -2.25, "x": 3.5, "p": 0, "q": 2.5,
         **{f"v_{i}": (3 if i == 0 else 0) for i in range(12)}}
FREE_COLS = {"w": (0.0, np.inf)}  # empty column: any value within its bounds is optimal


def build_model():
    mb = ModelBuilder("writer test-model")  # '-' and ' ' are sanitised in NAME
    b = mb.binary("b", ())
    k = mb.var("k", (), -5, 7, integer=True)
    f = mb.var("f", (), -np.inf, np.inf)
    m = mb.var("m", (), -np.inf, -2)
    x = mb.var("x", (), 3.5, 3.5)
    p = mb.var("p", (), 0, np.inf)
    q = mb.var("q", (), 1.25, np.inf)
    mb.var("w", (), 0, np.inf)  # appears nowhere, zero objective
    v = mb.var("v", (12,), 0, 10)  # v_10 sorts before v_2 (PuLP order differs)
    mb.rows("ra", (), "G", -4.5, [(k, 1.0), (b, 0.5)])
    mb.rows("rb", (), "G", -2.5, [(f, 1.0), (p, -1e-7)])
    mb.rows("rc", (), "L", -4.75, [(m, 1.0), (f, 1.0)])
    mb.rows("rd", (), "E", -1.0, [(p, 1.0), (x, -1.0), (q, 1.0)])
    mb.rows("rf", (), "L", 10.0, [(f, 1 / 3), (k, 1 / 3)])
    mb.rows("rv", (), "G", 3.0, [(v, np.ones(12))])
    mb.rows("big", (), "G", 0.0, [(q, 123456789.123456), (v[0], -1.0)])
    mb.rows("rz", (), "L", 5.0, [])  # a row without terms
    mb.minimize([b, k, f, m, p, q], [-1, 1, 1 / 3, -1, 2, 1])
    mb.minimize(v, (np.arange(12) + 1) / 7)
    mb.obj_const = 5.0
    return mb.build()


@pytest.fixture(scope="module")
def model():
    return build_model()


@pytest.fixture(scope="module")
def files(model, tmp_path_factory):
    d = tmp_path_factory.mktemp("writers")
    return {fmt: write_model(model, d / f"model.{fmt}") for fmt in ("mps", "lp")}


# ----------------------------------------------------------------------------- helpers

def model_row_bounds(model):
    lo = np.where(model.sense == "L", -np.inf, model.rhs)
    up = np.where(model.sense == "G", np.inf, model.rhs)
    return lo, up


def assert_same_model(read, model, rtol=0.0, col_order=None, row_order=None):
    """``read`` (highs_read) is ``model``; ``col_order``/``row_order`` permute the model."""
    ci = np.arange(model.num_cols) if col_order is None else np.asarray(col_order)
    ri = np.arange(model.num_rows) if row_order is None else np.asarray(row_order)
    names, rnames = model.col_names(), model.row_names()
    assert read["cols"] == [names[j] for j in ci]
    assert read["rows"] == [rnames[i] for i in ri]
    assert read["sense"] == highspy.ObjSense.kMinimize
    assert read["offset"] == 0.0  # the objective constant is never written
    assert np.array_equal(read["integer"], model.integer[ci])
    lo, up = model_row_bounds(model)

    def close(a, b):
        a, b = np.asarray(a, float), np.asarray(b, float)
        assert a.shape == b.shape
        if rtol == 0.0:
            assert np.array_equal(a, b), (a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=0)

    close(read["lb"], model.lb[ci])
    close(read["ub"], model.ub[ci])
    close(read["obj"], model.obj[ci])
    close(read["row_lo"], lo[ri])
    close(read["row_up"], up[ri])
    A = model.A[ri][:, ci]
    close(read["A"].toarray(), A.toarray())
    assert read["A"].nnz == A.nnz


def cbc_path():
    import pulp

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = pulp.apis.PULP_CBC_CMD().path
    if not path or not os.path.exists(path):
        pytest.fail(f"PuLP's bundled cbc binary is missing ({path!r})")
    return path


def glpsol_path():
    path = shutil.which("glpsol")
    if path is None:
        pytest.fail("glpsol not found: CI must install GLPK (apt-get install glpk-utils)")
    return path


# ----------------------------------------------------------------------------- solvers
# each returns (objective, {column name: value}, column names in the solver's order or None)

def solve_cbc(path, model, tmp):
    out = tmp / "cbc.sol"
    r = subprocess.run([cbc_path(), str(path), "-solve", "-solu", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and out.exists(), r.stdout[-3000:]
    assert "Bad image" not in r.stdout and "errors on input" not in r.stdout, r.stdout[-3000:]
    lines = out.read_text().splitlines()
    assert lines[0].startswith("Optimal"), lines[0]
    obj = float(lines[0].split()[-1])
    values, order = {}, {}
    for line in lines[1:]:
        parts = line.replace("**", " ").split()
        if len(parts) >= 3:
            values[parts[1]] = float(parts[2])
            order[int(parts[0])] = parts[1]
    names = model.col_names()
    assert all(names[i] == nm for i, nm in order.items())  # CBC's indices = file order
    return obj, values, None


def solve_highs(path, model, tmp):
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    names = list(h.getLp().col_names_)
    return h.getInfo().objective_function_value, dict(zip(names, h.getSolution().col_value)), names


def solve_scip(path, model, tmp):
    import pyscipopt
    s = pyscipopt.Model()
    s.hideOutput()
    s.readProblem(str(path))
    s.optimize()
    assert s.getStatus() == "optimal"
    # SCIP's getVars() lists integer columns before continuous ones: no order check
    return s.getObjVal(), {v.name: s.getVal(v) for v in s.getVars()}, None


def solve_glpk(path, model, tmp):
    out = tmp / "glpk.raw"
    kind = "--lp" if ".lp" in Path(path).name else "--freemps"
    r = subprocess.run([glpsol_path(), kind, str(path), "-w", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and out.exists(), r.stdout[-3000:]
    lines = [ln.split() for ln in out.read_text().splitlines() if not ln.startswith("c")]
    head = next(p for p in lines if p[0] == "s")
    assert head[1] == "mip" and head[4] == "o", head  # integer optimal
    assert (int(head[2]), int(head[3])) == (model.num_rows, model.num_cols)
    names = model.col_names()  # GLPK's raw output is by 1-based index only: file order
    values = {names[int(p[1]) - 1]: float(p[2]) for p in lines if p[0] == "j"}
    return float(head[5]), values, None


def solve_gurobi(path, model, tmp):
    import gurobipy as gp
    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    try:
        m = gp.read(str(path), env)
        m.optimize()
        assert m.Status == gp.GRB.OPTIMAL
        vs = m.getVars()
        return m.ObjVal, {v.VarName: v.X for v in vs}, [v.VarName for v in vs]
    finally:
        env.dispose()


def solve_cplex(path, model, tmp):
    import cplex
    c = cplex.Cplex()
    for stream in (c.set_log_stream, c.set_results_stream, c.set_warning_stream):
        stream(None)
    c.read(str(path))
    c.solve()
    assert c.solution.get_status() in (101, 102), c.solution.get_status_string()
    names = c.variables.get_names()
    return c.solution.get_objective_value(), dict(zip(names, c.solution.get_values())), names


def solve_xpress(path, model, tmp):
    import xpress as xp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = xp.problem()
        p.setControl("outputlog", 0)
        p.readProb(str(path))
        p.optimize()
        names = [v.name for v in p.getVariable()]
        x = list(p.getSolution())
        assert p.getAttrib("mipstatus") == 6, p.getAttrib("mipstatus")  # 6 = optimal
        obj = p.getAttrib("mipobjval")
    return obj, dict(zip(names, x)), names


SOLVERS = {"cbc": solve_cbc, "highs": solve_highs, "scip": solve_scip, "glpk": solve_glpk,
           "gurobi": solve_gurobi, "cplex": solve_cplex, "xpress": solve_xpress}


def check_solution(result, model):
    obj, values, order = result
    assert obj == pytest.approx(OPT_OBJ, abs=1e-7)
    for name, want in OPT_X.items():
        assert values.get(name, 0.0) == pytest.approx(want, abs=1e-6), name
    for name, (lo, hi) in FREE_COLS.items():
        assert lo - 1e-9 <= values.get(name, 0.0) <= hi
    if order is not None:
        assert order == model.col_names()  # the file's column order is the model's


# ----------------------------------------------------------------------------- 1. read back

@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_read_back_with_highs_is_the_same_model(model, files, fmt):
    assert_same_model(highs_read(files[fmt]), model)


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_small_chunks_give_identical_files(model, files, fmt, tmp_path):
    # chunk boundaries inside columns, rows and marker runs must not change a byte
    path = write_model(model, tmp_path / f"small.{fmt}", chunk=3 if fmt == "mps" else 2)
    assert path.read_bytes() == files[fmt].read_bytes()


def test_mps_text_follows_the_rules(model, files):
    text = files["mps"].read_text()
    lines = text.splitlines()
    assert lines[0] == "NAME writer_test_model"
    assert lines[1:3] == ["ROWS", " N  obj"]
    assert "OBJSENSE" not in text and " BV " not in text
    bounds = lines[lines.index("BOUNDS") + 1:lines.index("ENDATA")]
    kinds = {}
    for ln in bounds:
        kind, _, name, *_ = ln.split()
        kinds.setdefault(name, []).append(kind)
    assert kinds["b"] == ["LO", "UP"] and kinds["k"] == ["LO", "UP"]  # both sides, binaries too
    assert kinds["m"] == ["MI", "UP"]  # MI before the negative UP
    assert kinds["f"] == ["FR"] and kinds["x"] == ["FX"] and kinds["q"] == ["LO"]
    assert "p" not in kinds and "w" not in kinds  # lb=0, ub=inf: nothing
    cols = lines[lines.index("COLUMNS") + 1:lines.index("RHS")]
    entries = [ln.split() for ln in cols if "MARKER" not in ln]
    assert ["w", "obj", "0"] in entries  # the empty column is present
    order = list(dict.fromkeys(e[0] for e in entries))
    assert order == model.col_names()
    for value in ("0.3333333333333333", "123456789.123456", "-1e-07"):
        assert any(e[2] == value for e in entries), value
    assert "5" not in [e[2] for e in entries if e[1] == "obj"]  # no objective constant


def test_lp_text_follows_the_rules(files):
    text = files["lp"].read_text()
    assert text.splitlines()[1] == "Minimize"
    assert max(len(ln) for ln in text.splitlines()) < 255
    assert " rz: + 0 b <= 5\n" in text  # an empty row keeps its place
    assert " f free\n" in text and " -inf <= m <= -2\n" in text and " x = 3.5\n" in text
    assert " 0 <= b <= 1\n" in text and " -5 <= k <= 7\n" in text
    assert "+ 0 w" in text and "123456789.123456 q" in text


def test_numbers_round_trip():
    rng = np.random.default_rng(1)
    vals = np.concatenate([rng.standard_normal(1000) * 10.0 ** rng.integers(-300, 300, 1000),
                           [1 / 3, 123456789.123456, 1e-7, 2.0, -0.0, 1e16, 1e22, 5e-324,
                            -1.7976931348623157e308, 1e15, 123456789012345678.0]])
    strs = textw.format_numbers(vals)
    assert [float(s) for s in strs] == vals.tolist()
    assert strs[-11:-7] == ["0.3333333333333333", "123456789.123456", "1e-07", "2"]
    assert strs[-7] == "0" and textw.fmt_num(-0.0) == "0"


def test_number_formatter_keeps_each_chunks_text():
    """A NumberFormatter formats each value as :func:`fmt_num` does, chunk after chunk: from
    its table of values seen before, past the table's size, and beside NaN."""
    rng = np.random.default_rng(2)
    f = textw.NumberFormatter("\n", known_max=64)
    chunks = [rng.integers(-30, 30, 500) / 8, rng.integers(-30, 30, 500) / 8,  # 60 values, then the same
              rng.integers(-30, 30, 500) / 8 + 0.0625, np.array([0.5, np.nan, np.inf, -0.0, 7.0, 1e20, 0.5]),
              rng.standard_normal(300), np.array([1 / 3, 2.5, -70000.0])]
    for i, v in enumerate(chunks):
        got = [bytes(row[row != 0]).decode() for row in f(v)]
        assert got == [textw.fmt_num(x) + "\n" for x in v], i
        assert f.full == (i >= 2)  # the third chunk's 60 new values would take the table past 64


def test_row_named_obj_gets_another_objective_name(tmp_path):
    mb = ModelBuilder("clash")
    x = mb.var("x", (2,), 0, 4)
    mb.rows("obj", (), "L", 3, [(x, [1.0, 1.0])])
    mb.minimize(x, [-1.0, -2.0])
    m = mb.build()
    for fmt in ("mps", "lp"):
        path = write_model(m, tmp_path / f"clash.{fmt}")
        assert_same_model(highs_read(path), m)
    assert " N  obj_" in (tmp_path / "clash.mps").read_text()


def test_invalid_models_are_refused(tmp_path):
    mb = ModelBuilder("bad")
    mb.var("x", (), 0, -1)  # lb > ub
    with pytest.raises(ValueError, match="lower bound"):
        write_model(mb.build(), tmp_path / "bad.mps")
    mb = ModelBuilder("nan")
    x = mb.var("x", (), 0, 1)
    mb.rows("r", (), "L", 1, [(x, np.nan)])
    with pytest.raises(ValueError, match="NaN"):
        write_model(mb.build(), tmp_path / "nan.lp")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("block,why", [
    ("e1", "starts with 'e'"), ("e", "keyword|starts with 'e'"), ("eps", "starts with 'e'"),
    ("inff", "starts with 'inf'"), ("nan", "keyword|starts with 'nan'"),
    ("end", "keyword"), ("free", "keyword"), ("st", "keyword"), ("bin", "keyword"),
    ("integer", "keyword"), ("x", None), ("h1", None), ("sum", None)])
def test_lp_refuses_names_a_reader_misreads(tmp_path, block, why):
    def one(shape):
        mb = ModelBuilder("names")
        x = mb.var(block, shape, 0, 3)
        mb.rows("r", (), "G", 1, [(x, np.ones(shape))])
        mb.minimize(x, 1.0)
        return mb.build()

    scalar, vector = one(()), one((2,))
    for m in (scalar, vector):  # MPS takes any annc name
        assert_same_model(highs_read(write_model(m, tmp_path / "names.mps")), m)
    if why is None:
        assert_same_model(highs_read(write_model(scalar, tmp_path / "names.lp")), scalar)
        return
    with pytest.raises(ValueError, match=why):
        write_model(scalar, tmp_path / "names.lp")
    assert not (tmp_path / "names.lp").exists()
    if not block.startswith(("e", "inf", "nan")):  # element names like "free_0" are fine
        assert_same_model(highs_read(write_model(vector, tmp_path / "names.lp")), vector)
    else:  # a bad prefix is bad for every element ("end_0" too: CPLEX reserves e-names)
        with pytest.raises(ValueError, match="starts with"):
            write_model(vector, tmp_path / "names.lp")


@pytest.mark.parametrize("block", ["g", "i", "in", "bi", "b", "gen0"])
def test_glpk_reads_integer_names_that_abbreviate_keywords(tmp_path, block):
    # glpsol --lp takes a name at the start of a line for an (abbreviated) keyword
    mb = ModelBuilder("abbrev")
    x = mb.var(block, (), -3, 4, integer=True)
    mb.rows("r", (), "G", 1.5, [(x, 1.0)])
    mb.minimize(x, 1.0)
    path = write_model(mb.build(), tmp_path / "abbrev.lp")
    glp = tmp_path / "abbrev.glp"
    r = subprocess.run([glpsol_path(), "--lp", str(path), "--check", "--wglp", str(glp)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    assert "j 1 i d -3 4" in glp.read_text().splitlines()  # integer, bounds -3..4


def test_text_handles(model, files):
    import io

    buf = io.StringIO()
    write_mps(model, buf)
    assert buf.getvalue() == files["mps"].read_text()
    buf = io.StringIO()
    write_lp(model, buf)
    assert buf.getvalue() == files["lp"].read_text()


# ----------------------------------------------------------------------------- 2. PuLP

def test_to_pulp_keeps_every_column_and_row(model):
    import pulp

    prob = to_pulp(model)
    assert prob.sense == pulp.LpMinimize
    vs = {v.name: v for v in prob.variables()}
    assert sorted(vs) == sorted(model.col_names())
    for j, name in enumerate(model.col_names()):
        v = vs[name]
        assert (v.lowBound if v.lowBound is not None else -np.inf) == model.lb[j]
        assert (v.upBound if v.upBound is not None else np.inf) == model.ub[j]
        assert (v.cat == pulp.LpInteger) == model.integer[j]
    assert list(prob._constraints) == model.row_names()  # names and order kept
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = prob.solve(pulp.COIN_CMD(path=cbc_path(), msg=0))
    assert pulp.LpStatus[status] == "Optimal"
    assert pulp.value(prob.objective) == pytest.approx(OPT_OBJ, abs=1e-7)
    for name, want in OPT_X.items():
        assert vs[name].varValue == pytest.approx(want, abs=1e-6)


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_write_with_pulp_reads_back_as_the_same_model(model, tmp_path, fmt):
    path = write_with_pulp(model, tmp_path / f"pulp.{fmt}")
    assert [p.name for p in tmp_path.iterdir()] == [f"pulp.{fmt}"]  # no temporary left
    read = highs_read(path)
    order = pulp_column_order(model)
    rows = pulp_row_order(model, fmt)
    if fmt == "lp":
        # writeLP adds a "__dummy" column (and a "_dummy = 0" row) for the empty row "rz"
        assert read["cols"][-1] == "__dummy" and "_dummy" in read["rows"]
        keep_c = np.arange(model.num_cols)
        keep_r = np.array([i for i, r in enumerate(read["rows"]) if r != "_dummy"])
        read = {**read, "cols": read["cols"][:-1], "lb": read["lb"][:-1], "ub": read["ub"][:-1],
                "integer": read["integer"][:-1], "obj": read["obj"][:-1],
                "rows": [read["rows"][i] for i in keep_r], "row_lo": read["row_lo"][keep_r],
                "row_up": read["row_up"][keep_r], "A": read["A"][keep_r][:, keep_c]}
        rtol = 1e-11  # writeLP: %.12g
    else:
        rtol = 1e-12  # writeMPS: %.12e
    assert read["cols"] != model.col_names()  # sorted by name: v_10 before v_2
    assert_same_model(read, model, rtol=rtol, col_order=order, row_order=rows)


def test_write_with_pulp_gz(model, tmp_path):
    path = write_with_pulp(model, tmp_path / "pulp.mps.gz")
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert gzip.decompress(path.read_bytes()).startswith(b"*SENSE:Minimize\nNAME")


# ----------------------------------------------------------------------------- 3. solvers

@pytest.mark.parametrize("solver", list(SOLVERS))
def test_every_solver_reads_the_mps_as_the_same_problem(model, files, solver, tmp_path):
    check_solution(SOLVERS[solver](files["mps"], model, tmp_path), model)


def test_cbc_reads_short_names_before_any_long_name(tmp_path):
    # CBC parses MPS in fixed columns until it meets a name longer than 8 characters (or a
    # MARKER line): short names must be padded to 8.  Continuous columns first, names of
    # 1 and exactly 8 characters (rows too: a long row name would switch CBC to free
    # format already in ROWS), a long name only in the last column.
    mb = ModelBuilder("fixed")
    a = mb.var("a", (), -5, -3)
    c = mb.var("c", (), -np.inf, -1)
    y = mb.var("abcdefgh", (), -np.inf, np.inf)
    z = mb.var("z", (), 0, 3, integer=True)
    w = mb.var("longnamecolumn", (1,), 0, 4)
    mb.rows("r", (), "G", 2, [(y, 1.0), (a, -1.0)])
    mb.rows("rowname8", (), "L", 1.5, [(z, 1.0), (c, 1.0)])
    mb.rows("rw", (), "L", 10, [(w[0], 1.0), (a, 1.0)])
    mb.minimize([a, c, y, z, w[0]], [1, -1, 1, -2, -1])
    m = mb.build()
    path = write_model(m, tmp_path / "fixed.mps")
    want = {"a": -5, "c": -1.5, "abcdefgh": -3, "z": 3, "longnamecolumn_0": 4}
    for solver in (solve_cbc, solve_highs):
        obj, values, _ = solver(path, m, tmp_path)
        assert obj == pytest.approx(-16.5, abs=1e-9)
        assert {k: values.get(k, 0.0) for k in want} == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("solver", ["highs", "scip", "glpk", "cplex", "gurobi", "xpress"])
def test_every_solver_reads_the_lp_as_the_same_problem(model, files, solver, tmp_path):
    check_solution(SOLVERS[solver](files["lp"], model, tmp_path), model)


# ----------------------------------------------------------------------------- 4. gzip

@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_gz_suffix_compresses(model, files, fmt, tmp_path):
    path = write_model(model, tmp_path / f"model.{fmt}.gz")
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert gzip.decompress(raw) == files[fmt].read_bytes()
    assert write_model(model, path).read_bytes() == raw  # deterministic (mtime 0)
    assert_same_model(highs_read(path), model)


@pytest.mark.parametrize("solver", ["highs", "scip", "glpk", "gurobi", "cplex", "xpress"])
def test_solvers_that_read_gz(model, solver, tmp_path):
    # (the CBC binary bundled with PuLP cannot: it was built without zlib)
    for fmt in ("mps", "lp"):
        path = write_model(model, tmp_path / f"model.{fmt}.gz")
        check_solution(SOLVERS[solver](path, model, tmp_path), model)


# ----------------------------------------------------------------------------- 5. atomicity

@pytest.mark.parametrize("name", ["model.mps", "model.mps.gz"])
def test_failure_leaves_no_file(model, tmp_path, monkeypatch, name):
    def broken(model, fh, **kw):
        fh.write("NAME half\nROWS\n" * 1000)
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(mpsw, "write_mps", broken)
    target = tmp_path / name
    with pytest.raises(RuntimeError, match="disk on fire"):
        write_model(model, target)
    assert list(tmp_path.iterdir()) == []


def test_failure_keeps_the_previous_file(model, tmp_path, monkeypatch):
    target = write_model(model, tmp_path / "model.lp")
    before = target.read_bytes()

    def broken(model, fh, **kw):
        fh.write("\\ half")
        raise KeyboardInterrupt

    monkeypatch.setattr(lpw, "write_lp", broken)
    with pytest.raises(KeyboardInterrupt):
        write_model(model, target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.lp"]


def test_format_from_suffix_and_argument(model, tmp_path):
    assert writers.format_from_path("a/b.MPS.gz") == ("mps", True)
    assert writers.format_from_path("b.lp") == ("lp", False)
    with pytest.raises(ValueError):
        write_model(model, tmp_path / "model.txt")
    path = write_model(model, tmp_path / "model.txt", fmt="lp")
    assert path.read_text().startswith("\\Problem name: writer_test_model\nMinimize\n")
    with pytest.raises(ValueError):
        write_model(model, tmp_path / "model.mps", fmt="xml")
