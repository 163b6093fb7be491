"""Every loss x penalty x file format x writer compiles, reads back and round-trips.

For each combination, on a tiny net (``input 2; hidden 2 binary; output 2``, and a ReLU
variant) and 8 rows of data:

1. ``annc compile`` writes the model and its map (exit 0);
2. HiGHS reads the file back as the model annc holds in memory: the same column and row
   names, bounds, integrality, objective, row bounds and matrix (PuLP's writer orders
   columns by name, its LP writer rows too, and rounds numbers to 12-13 digits);
3. HiGHS solves the file, writes its solution, and ``annc decode --map --data`` reads
   it, verifies it and exits 0.

This is the test that would have caught ``loss errors`` failing in the LP writer: the
errors loss once named its columns ``e_*``, which the LP format reserves.
"""
import highspy
import numpy as np
import pytest

from annc.solve.compiler import build
from annc.io.data import load_data
from annc.io.spec import parse_spec
from annc.solve.solvers.highs_scheduler import new_highs, run as run_highs
from annc.io.writers.pulp import pulp_column_order, pulp_row_order

from conftest import highs_read, run_cli

LOSSES = ["nll", "errors", "hinge 0.5"]
PENALTIES = ["none", "l1 0.01", "l0 0.01"]
FORMATS = ["mps", "lp", "mps.gz"]
WRITERS = ["annc", "pulp"]
NETS = {"binary": "input 2\nhidden 2 binary\noutput 2\n",
        "relu": "input 2\nhidden 2 relu\noutput 2\nP 2\n"}

CASES = [(net, loss, pen, fmt, writer) for net in NETS
         for loss in LOSSES for pen in PENALTIES for fmt in FORMATS for writer in WRITERS]


def _data(path):
    # 8 rows, 4 distinct inputs (merged into 4 problem rows), labels with noise
    X = [(0, 0), (0, 1), (1, 0), (1, 1), (0, 0), (0, 1), (1, 0), (1, 1)]
    y = [0, 1, 1, 0, 0, 1, 0, 0]
    path.write_text("x1,x2,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, y)))
    return path


def _without_pulp_dummy(read):
    """PuLP's ``writeLP`` adds a ``__dummy`` column (and a ``_dummy`` row) for an empty row."""
    if "__dummy" not in read["cols"]:
        return read
    keep_c = np.array([j for j, c in enumerate(read["cols"]) if c != "__dummy"])
    keep_r = np.array([i for i, r in enumerate(read["rows"]) if r != "_dummy"])
    return {**read, "cols": [read["cols"][j] for j in keep_c], "lb": read["lb"][keep_c],
            "ub": read["ub"][keep_c], "integer": read["integer"][keep_c], "obj": read["obj"][keep_c],
            "rows": [read["rows"][i] for i in keep_r], "row_lo": read["row_lo"][keep_r],
            "row_up": read["row_up"][keep_r], "A": read["A"][keep_r][:, keep_c]}


def assert_same_model(read, model, rtol, cols, rows):
    names, rnames = model.col_names(), model.row_names()
    assert read["cols"] == [names[j] for j in cols]
    assert read["rows"] == [rnames[i] for i in rows]
    assert read["sense"] == highspy.ObjSense.kMinimize and read["offset"] == 0.0
    assert np.array_equal(read["integer"], model.integer[cols])
    lo = np.where(model.sense == "L", -np.inf, model.rhs)
    up = np.where(model.sense == "G", np.inf, model.rhs)
    A = model.A[rows][:, cols].toarray()
    for got, want in [(read["lb"], model.lb[cols]), (read["ub"], model.ub[cols]),
                      (read["obj"], model.obj[cols]), (read["row_lo"], lo[rows]),
                      (read["row_up"], up[rows]), (read["A"].toarray(), A)]:
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=rtol, atol=0)
    assert read["A"].nnz == np.count_nonzero(A)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return _data(tmp_path_factory.mktemp("cross") / "tiny.csv")


@pytest.mark.parametrize("net,loss,penalty,fmt,writer", CASES, ids=["-".join(c) for c in CASES])
def test_compiles_reads_back_and_round_trips(tmp_path, data, net, loss, penalty, fmt, writer):
    spec = tmp_path / "net.ann"
    spec.write_text(NETS[net] + f"loss {loss}\npenalty {penalty}\n")
    ext, gz = fmt.removesuffix(".gz"), fmt.endswith(".gz")
    out = tmp_path / "out"
    code, stdout, err = run_cli("compile", "--no-start", spec, data, "--format", ext, *(["--gz"] if gz else []),
                                "--writer", writer, "-o", out)
    assert code == 0, stdout + err
    model_file, map_file = out / f"net.{fmt}", out / "net.map.json"
    assert sorted(p.name for p in out.iterdir()) == sorted([model_file.name, map_file.name])

    # 2. the file is the model annc holds in memory
    model = build(parse_spec(spec.read_text(), str(spec)), load_data(data), name="net").model
    if writer == "pulp":
        cols, rows = pulp_column_order(model), pulp_row_order(model, ext)
        rtol = 1e-11 if ext == "lp" else 1e-12  # writeLP %.12g, writeMPS %.12e
    else:
        cols, rows, rtol = np.arange(model.num_cols), np.arange(model.num_rows), 0.0
    assert_same_model(_without_pulp_dummy(highs_read(model_file)), model, rtol, cols, rows)

    # 3. HiGHS solves the file; annc decodes and verifies its solution
    h = new_highs()
    assert h.readModel(str(model_file)) == highspy.HighsStatus.kOk
    run_highs(h, threads=1)  # whatever count an earlier test started HiGHS's scheduler with
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    sol = tmp_path / "net.sol"
    h.writeSolution(str(sol), 0)
    code, stdout, err = run_cli("decode", sol, "--map", map_file, "--data", data, "-o", tmp_path / "dec")
    assert code == 0, stdout + err
    assert "verification          passed" in stdout, stdout
    assert (tmp_path / "dec" / "net.weights.json").is_file()
