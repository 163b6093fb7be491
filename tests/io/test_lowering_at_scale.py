"""The vectorised lowering at scale: names, the array builder, both writers on real annc
models, highspy in memory, bounded writer memory and fast solution decoding.

``tests/io/test_writers.py`` checks every writer on a small hand-made model with every
bound case; here the models are real training MIPs (XOR, and a digits-like problem
with 64 features, 16 binary units and 10 classes), and the checks are that every path
- annc's MPS / LP / .mps.gz, PuLP's ``writeMPS`` / ``writeLP``, ``to_pulp`` and
``to_highs_lp`` - gives the same matrix, bounds, types and objective.
"""
from __future__ import annotations

import gzip
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from annc.core.builder import ModelBuilder
from annc.training.mip.compiling import CompileOptions, compile_files
from annc.io.solutions.align import solution_vector
from annc.formulations import formulate
from annc.core.model import Block
from annc.core.names import element_names, name_table, table_strings
from annc.io.problem import make_problem
from annc.io.solutions import RawSolution, Status
from annc.io.spec import parse_spec
from conftest import highs_read
from annc.io.writers import write_model
from annc.io.writers.pulp import pulp_column_order, pulp_row_order, to_pulp, write_with_pulp

import highspy  # noqa: E402  (a declared dependency: never skipped)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench.suites.compile_speed import CASES, make_data, synthetic_images  # noqa: E402


# ----------------------------------------------------------------------------- helpers

def digits_model(n=60, seed=3):
    """A digits-like training MIP: n samples of 8x8 pixels 0..16, 16 binary units, 10 classes."""
    X, y = synthetic_images(seed=seed, n=n, side=8, classes=10, levels=16, density=0.5)
    spec = parse_spec("input 64\nhidden 16 binary\noutput 10")
    return formulate(make_problem(spec, X, y, list(range(10))), name="digits")


def xor_model():
    from annc.io.datasets import xor_data
    X, y = xor_data(200, noise=0.1, seed=0)
    spec = parse_spec((ROOT / "specs" / "xor.ann").read_text())
    return formulate(make_problem(spec, X, y, [0, 1]), name="xor")


def relu_model():
    from annc.io.datasets import xor_data
    X, y = xor_data(40, noise=0.1, seed=1)
    spec = parse_spec("input 5\nhidden 3 relu\nhidden 2 binary\noutput 2\nP 3")
    return formulate(make_problem(spec, X, y, [0, 1]), name="relu")


MODELS = {"xor": xor_model, "digits": digits_model, "relu": relu_model}


@pytest.fixture(scope="module", params=list(MODELS))
def model(request):
    return MODELS[request.param]()


def read_highs(path=None, lp=None):
    """``(col names, row names, arrays)`` of a file read by HiGHS (or of a ``HighsLp``)."""
    arrays = highs_read(path, lp)
    return arrays.pop("cols"), arrays.pop("rows"), arrays


def model_arrays(model, cols=None, rows=None):
    """The model's arrays as :func:`read_highs` gives them, columns / rows permuted."""
    cols = np.arange(model.num_cols) if cols is None else np.asarray(cols)
    rows = np.arange(model.num_rows) if rows is None else np.asarray(rows)
    inf = np.inf
    lo = np.where(model.sense == "L", -inf, model.rhs)
    up = np.where(model.sense == "G", inf, model.rhs)
    return {"lb": model.lb[cols], "ub": model.ub[cols], "integer": model.integer[cols],
            "obj": model.obj[cols], "row_lo": lo[rows], "row_up": up[rows],
            "A": model.A.tocsr()[rows][:, cols].tocsr()}


def assert_same_arrays(got, want, rtol=0.0):
    for key in ("lb", "ub", "obj", "row_lo", "row_up"):
        if rtol:
            np.testing.assert_allclose(got[key], want[key], rtol=rtol, atol=0, err_msg=key)
        else:
            assert np.array_equal(got[key], want[key]), key
    assert np.array_equal(got["integer"], want["integer"])
    a, b = got["A"].tocsr(), want["A"].tocsr()
    a.sort_indices()
    b.sort_indices()
    assert a.nnz == b.nnz
    assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
    if rtol:
        np.testing.assert_allclose(a.data, b.data, rtol=rtol, atol=0)
    else:
        assert np.array_equal(a.data, b.data)


# ----------------------------------------------------------------------------- names

SHAPES = [(), (0,), (1,), (10,), (11,), (3, 0), (101, 2), (2, 10, 11), (1, 1, 1), (12, 100)]


@pytest.mark.parametrize("shape", SHAPES)
def test_name_table_is_element_names(shape):
    b = Block("zb1", "", None, shape, 0)
    assert table_strings(name_table([b])) == element_names("zb1", shape)


def test_name_table_pads_and_frames():
    blocks = [Block("x", "", None, (), 0), Block("ab", "", None, (3, 12), 1),
              Block("longblockname", "", None, (11,), 37), Block("e", "", None, (0,), 48)]
    want = [n for b in blocks for n in element_names(b.name, b.shape)]
    got = table_strings(name_table(blocks, pad=8, prefix=b"    ", suffix=b"  "))
    assert got == ["    " + n.ljust(8) + "  " for n in want]


def test_model_names_are_the_block_names(model):
    assert model.col_names() == [n for b in model.var_blocks for n in b.names()]
    assert model.row_names() == [n for b in model.row_blocks for n in b.names()]


# ----------------------------------------------------------------------------- the builder

def reference_matrix(m, n, rows):
    """COO of ``rows`` = [(shape, start, terms)] built the obvious way (as annc used to)."""
    r_all, c_all, v_all = [], [], []
    for shape, start, terms in rows:
        rowidx = np.arange(start, start + int(np.prod(shape))).reshape(shape)
        for cols, coefs in terms:
            cols, coefs = np.asarray(cols), np.asarray(coefs, float)
            nd = max(cols.ndim, coefs.ndim)
            target = shape if nd <= len(shape) else shape + (np.broadcast_shapes(cols.shape, coefs.shape)[-1],)
            c = np.broadcast_to(cols, target)
            v = np.broadcast_to(coefs, target)
            r = np.broadcast_to(rowidx.reshape(shape + (1,) * (len(target) - len(shape))), target)
            r_all.append(r.ravel())
            c_all.append(c.ravel())
            v_all.append(v.ravel())
    A = sp.coo_matrix((np.concatenate(v_all), (np.concatenate(r_all), np.concatenate(c_all))),
                      shape=(m, n)).tocsr()
    A.sum_duplicates()
    A.eliminate_zeros()
    return A


def test_builder_matches_a_plain_coo_construction():
    rng = np.random.default_rng(0)
    mb = ModelBuilder("t")
    x = mb.var("x", (4, 5), -1, 1)
    y = mb.binary("y", (4, 3))
    s = mb.var("s", (), 0, 9)
    X = rng.integers(0, 3, (4, 5)).astype(float)  # zeros are dropped
    rows = [
        ((4, 3), [(x[:, None, :], X[:, None, :] * np.arange(1, 4)[None, :, None]), (y, -2.0), (s, 1.0)]),
        ((4,), [(y, np.array([1.0, 0.0, -1.0])), (x[:, 0], 3.0)]),
        ((), [(x.ravel(), rng.standard_normal(20))]),
        ((3, 4), [(y.T, 1.0), (y.T, 2.0)]),  # the same column twice in a row: summed
        ((4,), [(x[:, 1], 1.0), (x[:, 1], -1.0), (s, 0.5)]),  # sums to zero: dropped
        ((2,), []),  # rows without terms
        ((4, 5), [(x, 0.0)]),  # only zero coefficients
    ]
    placed = []
    for i, (shape, terms) in enumerate(rows):
        placed.append((shape, mb.nrows, terms))
        mb.rows(f"r{i}", shape, "L", 1.0, terms)
    model = mb.build()
    want = reference_matrix(model.num_rows, model.num_cols, placed)
    A = model.A
    assert A.format == "csc" and A.has_canonical_format
    assert (A.indices.dtype, A.indptr.dtype) == (np.int32, np.int32)
    d = A.tocsr() - want
    assert A.nnz == want.nnz and abs(d).max() == 0
    # rows sorted within every column, no explicit zeros
    for j in range(model.num_cols):
        col = A.indices[A.indptr[j]:A.indptr[j + 1]]
        assert np.all(np.diff(col) > 0)
    assert np.all(A.data != 0)


def test_builder_rejects_column_indices_out_of_range():
    mb = ModelBuilder("t")
    x = mb.var("x", (3,), 0, 1)
    with pytest.raises(IndexError):
        mb.rows("r", (3,), "L", 0.0, [(x + 1, 1.0)])


# ----------------------------------------------------------------------------- writers

@pytest.mark.parametrize("name", ["m.mps", "m.lp", "m.mps.gz"])
def test_annc_files_read_back_as_the_model(model, tmp_path, name):
    path = write_model(model, tmp_path / name)
    cols, rows, got = read_highs(path)
    assert cols == model.col_names() and rows == model.row_names()
    assert got["sense"] == highspy.ObjSense.kMinimize and got["offset"] == 0.0
    assert_same_arrays(got, model_arrays(model))


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_pulp_and_annc_writers_give_the_same_model(model, tmp_path, fmt):
    ours = read_highs(write_model(model, tmp_path / f"annc.{fmt}"))
    theirs = read_highs(write_with_pulp(model, tmp_path / f"pulp.{fmt}"))
    order, rorder = pulp_column_order(model), pulp_row_order(model, fmt)
    names, rnames = model.col_names(), model.row_names()
    assert theirs[0] == [names[j] for j in order]
    assert theirs[1] == [rnames[i] for i in rorder]
    # PuLP rounds to 12-13 significant digits; map its columns and rows back to annc order
    back_c, back_r = np.argsort(order), np.argsort(rorder)
    t = theirs[2]
    theirs_in_annc_order = {**{k: t[k][back_c] for k in ("lb", "ub", "obj", "integer")},
                            "row_lo": t["row_lo"][back_r], "row_up": t["row_up"][back_r],
                            "A": t["A"][back_r][:, back_c]}
    assert_same_arrays(theirs_in_annc_order, ours[2], rtol=1e-11)


def test_to_pulp_is_the_model():
    model = digits_model(n=20)
    prob = to_pulp(model)
    names = model.col_names()
    var = {v.name: v for v in prob.variables()}
    constraints = prob.constraints()  # PuLP >= 3.3: a list (the dict mapping is deprecated)
    assert len(var) == model.num_cols and len(constraints) == model.num_rows
    j = np.flatnonzero(model.integer)[0]
    assert var[names[j]].cat == "Integer"
    A = model.A.tocsr()
    for i, (rname, con) in enumerate(zip(model.row_names(), constraints)):
        assert con.name == rname
        got = {v.name: c for v, c in con.items()}
        want = {names[k]: v for k, v in zip(A.indices[A.indptr[i]:A.indptr[i + 1]],
                                             A.data[A.indptr[i]:A.indptr[i + 1]])}
        assert got == want


def test_to_highs_lp_is_the_model_file(model, tmp_path):
    from annc.solve.solvers.highs import to_highs_lp

    model.obj_const = 2.5
    try:
        lp = to_highs_lp(model)
    finally:
        model.obj_const = 0.0
    _, _, got = read_highs(lp=lp)
    assert got["offset"] == 2.5 and got["sense"] == highspy.ObjSense.kMinimize
    assert_same_arrays(got, model_arrays(model))
    _, _, from_file = read_highs(write_model(model, tmp_path / "m.mps"))
    assert_same_arrays(got, from_file)


@pytest.mark.parametrize("chunk", [2, 5, 100_000])
def test_integer_markers_inside_chunks(tmp_path, chunk):
    """Integrality changing from column to column, markers inside and across chunks."""
    rng = np.random.default_rng(2)
    mb = ModelBuilder("mixed")
    for j, integer in enumerate([1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0]):
        mb.var(f"x{j}", (3,), -2, 5, integer=bool(integer))
    mb.rows("r", (4,), "L", 3.0, [(np.arange(36), rng.integers(-3, 4, (4, 36)).astype(float))])
    mb.minimize(np.arange(36)[::5], 1.0)
    model = mb.build()
    cols, rows, got = read_highs(write_model(model, tmp_path / "m.mps", chunk=chunk))
    assert cols == model.col_names()
    assert_same_arrays(got, model_arrays(model))


def test_gzip_output_is_the_plain_file(tmp_path):
    model = digits_model(n=30)
    plain = write_model(model, tmp_path / "m.mps").read_bytes()
    assert gzip.decompress(write_model(model, tmp_path / "m.mps.gz").read_bytes()) == plain


def test_mps_writer_memory_does_not_grow_with_the_matrix(tmp_path):
    """Streaming: the writer's peak is the chunk buffers and the name tables (columns,
    rows), not the matrix.  Two models of the same shape, one with 5x the non-zeros
    (denser data), need about the same memory to write."""
    spec = parse_spec("input 784\nhidden 16 binary\noutput 10\nloss nll")
    peaks, sizes = [], []
    for density in (0.02, 0.5):
        X, y = synthetic_images(seed=5, n=100, side=28, classes=10, levels=255, density=density)
        model = formulate(make_problem(spec, X, y, list(range(10))))
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            write_model(model, tmp_path / "wide.mps", chunk=20_000)
            peaks.append(tracemalloc.get_traced_memory()[1] - base)
        finally:
            tracemalloc.stop()
        sizes.append(model.A.data.nbytes + model.A.indices.nbytes)
    assert sizes[1] > 4 * sizes[0]
    assert peaks[1] < 1.3 * peaks[0], (peaks, sizes)
    assert peaks[1] < sizes[1] / 2, (peaks, sizes)


def test_compile_with_both_writers(tmp_path):
    """``annc compile`` end to end on the benchmark's XOR case, with each writer."""
    data = make_data("xor", tmp_path)
    spec = ROOT / "bench" / "suites" / CASES["xor"][0]
    a = compile_files(spec, data, out_dir=tmp_path / "a", options=CompileOptions(writer="annc"))
    p = compile_files(spec, data, out_dir=tmp_path / "p", options=CompileOptions(writer="pulp"))
    assert a.varmap["model"]["writer"] == "annc" and p.varmap["model"]["writer"] == "pulp"
    ours, theirs = read_highs(a.model_path), read_highs(p.model_path)
    order = pulp_column_order(a.model)
    assert sorted(ours[0]) == theirs[0] == [ours[0][j] for j in order]
    back = np.argsort(order)
    t = theirs[2]
    assert_same_arrays({**{k: t[k][back] for k in ("lb", "ub", "obj", "integer")},
                        "row_lo": t["row_lo"], "row_up": t["row_up"], "A": t["A"][:, back]},
                       ours[2], rtol=1e-11)


def test_benchmark_data_is_shaped_like_the_real_sets(tmp_path):
    for case, (rows, feats, top, density) in {"digits": (1797, 64, 16, 0.39),
                                              "mnist": (2000, 784, 255, 0.19)}.items():
        raw = np.loadtxt(make_data(case, tmp_path), delimiter=",", skiprows=1)
        X, y = raw[:, :-1], raw[:, -1]
        assert X.shape == (rows, feats) and X.min() == 0 and X.max() == top
        assert abs((X != 0).mean() - density) < 0.03
        assert set(y.astype(int)) == set(range(10))
        assert len(np.unique(X, axis=0)) == rows  # no merged rows: the full problem size


# ----------------------------------------------------------------------------- decoding

def test_a_million_columns_decode_by_name_in_any_order():
    """Correctness at scale; the speed of both paths is the compile benchmark's business,
    not a timed assertion on a shared machine."""
    names = table_strings(name_table([Block("z", "", None, (1000, 100, 10), 0)]))
    n = len(names)
    vals = np.random.default_rng(0).random(n)
    in_order = RawSolution("highs", Status.OPTIMAL, "optimal", 0.0, values=dict(zip(names, vals.tolist())),
                           num_columns=n, positions={k: i for i, k in enumerate(names)})
    perm = np.random.default_rng(1).permutation(n)
    shuffled = RawSolution("cbc", Status.OPTIMAL, "optimal", 0.0, omits_zeros=True,
                           values={names[i]: float(vals[i]) for i in perm.tolist() if vals[i] > 0.5})
    x = solution_vector(in_order, names)
    assert np.array_equal(x, vals)
    x = solution_vector(shuffled, names)
    assert np.array_equal(x, np.where(vals > 0.5, vals, 0.0))


def test_decoding_still_refuses_another_models_solution():
    from annc.core.errors import SolutionError

    names = [f"x_{i}" for i in range(5)]
    sol = RawSolution("highs", Status.OPTIMAL, "optimal", 0.0, values={n: 1.0 for n in names[:4]})
    with pytest.raises(SolutionError, match="1 of the map's 5 columns.*x_4"):
        solution_vector(sol, names)
    sol = RawSolution("highs", Status.OPTIMAL, "optimal", 0.0, values={**{n: 1.0 for n in names}, "y": 2.0})
    with pytest.raises(SolutionError, match="1 column.*not in the map.* y"):
        solution_vector(sol, names)
    sol = RawSolution("highs", Status.OPTIMAL, "optimal", 0.0, values={n: 1.0 for n in names},
                      positions={"x_0": 0, "x_1": 2, "x_2": 1})
    with pytest.raises(SolutionError, match="x_1.* 3 .* 2"):
        solution_vector(sol, names)
