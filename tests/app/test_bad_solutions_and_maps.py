"""Odd and bad inputs to ``annc decode`` and ``annc eval``: each gets a one-line message of
annc's own error type and the documented exit code, and nothing is written.

* a NaN or infinite value (or objective) in a solution of any format: exit 4, naming the
  column; a count such as ``# Columns nan``: a located error, exit 2;
* an edited or corrupt map: exit 2, naming the map and the field (also during the map
  search, where a bad map is skipped);
* a solution of another model in a format that omits zeros: exit 2;
* a missing, corrupt or malformed weights file: exit 2, naming the file and the field;
* the Python API's ``predict`` on NaN rows or arrays of the wrong shape.

The solution files are written here from one HiGHS solve, in each solver's format.
"""
import json
import math
import shutil
import sys

import numpy as np
import pytest

from conftest import SPECS, run_cli, assert_names

SAMPLE = SPECS / "xor_sample.csv"


# -- one compiled model and its optimal point, shared by the module ----------------------
def _solve(mps):
    """Names, values and objective of the optimum HiGHS finds for ``mps``."""
    import highspy
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("random_seed", 0)
    h.readModel(str(mps))
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return list(h.getLp().col_names_), list(h.getSolution().col_value), h.getInfo().objective_function_value


def _compile(folder, data, spec="xor.ann"):
    code, _, err = run_cli("compile", "--no-start", SPECS / spec, data, "-o", folder)
    assert code == 0, err
    stem = spec.split(".")[0]
    return folder / f"{stem}.mps", folder / f"{stem}.map.json"


@pytest.fixture(scope="module")
def xor(tmp_path_factory):
    """``(map, names, values, objective)`` of specs/xor.ann on the bundled sample."""
    folder = tmp_path_factory.mktemp("xor")
    mps, vmap = _compile(folder, SAMPLE)
    names, x, obj = _solve(mps)
    return vmap, names, [round(v) if abs(v - round(v)) < 1e-9 else v for v in x], obj


# -- writing a point in each solver's format ---------------------------------------------
def _num(v) -> str:
    return v if isinstance(v, str) else repr(float(v))


def write_solution(path, fmt, names, x, obj):
    """Write the point ``x`` (values may be text such as ``"nan"``) as ``fmt`` would."""
    nz = [(i, n, v) for i, (n, v) in enumerate(zip(names, x)) if isinstance(v, str) or v != 0]
    if fmt == "cbc":
        text = f"Optimal - objective value {_num(obj)}\n" + "".join(f"{i} {n} {_num(v)} 0\n" for i, n, v in nz)
    elif fmt == "cplex":
        text = ('<?xml version="1.0"?>\n<CPLEXSolution version="1.2">\n <header objectiveValue="'
                f'{_num(obj)}" solutionStatusValue="101" solutionStatusString="integer optimal solution" '
                'primalFeasible="1"/>\n <variables>\n'
                + "".join(f'  <variable name="{n}" index="{i}" value="{_num(v)}"/>\n'
                          for i, (n, v) in enumerate(zip(names, x)))
                + " </variables>\n</CPLEXSolution>\n")
    elif fmt == "gurobi-sol":
        text = f"# Solution for model xor\n# Objective value = {_num(obj)}\n" + "".join(
            f"{n} {_num(v)}\n" for n, v in zip(names, x))
    elif fmt == "gurobi-json":
        def js(v):
            return {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}.get(v, v) if isinstance(v, str) else json.dumps(v)
        text = ('{"SolutionInfo": {"Status": 2, "ObjVal": ' + js(obj) + ', "SolCount": 1},\n"Vars": [\n'
                + ",\n".join(f'{{"VarName": "{n}", "X": {js(v)}}}' for _, n, v in nz) + "]}\n")
    elif fmt == "miplib":
        text = f"=obj= {_num(obj)}\n" + "".join(f"{n} {_num(v)}\n" for _, n, v in nz)
    elif fmt == "scip":
        text = f"objective value: {_num(obj)}\n" + "".join(f"{n} {_num(v)} \t(obj:0)\n" for _, n, v in nz)
    elif fmt == "xpress-slx":
        text = "NAME xor\n" + "".join(f"  C {n} {_num(v)}\n" for n, v in zip(names, x)) + "ENDATA\n"
    elif fmt == "highs":
        text = (f"Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective {_num(obj)}\n"
                f"# Columns {len(names)}\n" + "".join(f"{n} {_num(v)}\n" for n, v in zip(names, x)) + "# Rows 0\n")
    elif fmt == "highs-sparse":
        text = (f"Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective {_num(obj)}\n"
                f"# Columns -{len(nz)}\n" + "".join(f"{n} {_num(v)} {i}\n" for i, n, v in nz) + "# Rows 0\n")
    elif fmt == "glpk-raw":
        text = (f"c xor\ns mip 1 {len(names)} o {_num(obj)}\n"
                + "".join(f"j {i + 1} {_num(v)}\n" for i, v in enumerate(x)) + "e o f\n")
    else:
        raise AssertionError(fmt)
    path.write_text(text)
    return path


FORMATS = ["cbc", "cplex", "gurobi-sol", "gurobi-json", "miplib", "scip", "xpress-slx", "highs",
           "highs-sparse", "glpk-raw"]


def decode(sol, vmap, out, *extra):
    return run_cli("decode", sol, "--map", vmap, "-o", out, *extra)


def nothing_written(out):
    return not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_written_here_decodes(tmp_path, xor, fmt):
    vmap, names, x, obj = xor
    sol = write_solution(tmp_path / "s.sol", fmt, names, x, obj)
    code, out, err = decode(sol, vmap, tmp_path / "out")
    assert code == 0, out + err
    assert "verification          passed" in out


# -- 1. NaN and inf ----------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "1" * 400])
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_non_finite_value_is_refused_naming_the_column(tmp_path, xor, fmt, bad):
    vmap, names, x, obj = xor
    x = list(x)
    k = names.index("a0_1_2")
    x[k] = bad
    sol = write_solution(tmp_path / "s.sol", fmt, names, x, obj)
    for extra in ([], ["--no-verify"]):  # NaN weights are no network, verified or not
        code, out, err = decode(sol, vmap, tmp_path / "out", *extra)
        assert code == 4, out + err
        assert "column a0_1_2 has the value" in err and "not a solution" in err
        assert "Traceback" not in err and nothing_written(tmp_path / "out")


@pytest.mark.parametrize("fmt", ["cbc", "gurobi-json", "scip", "miplib", "gurobi-sol"])
def test_a_non_finite_objective_fails_verification(tmp_path, xor, fmt):
    vmap, names, x, _ = xor
    sol = write_solution(tmp_path / "s.sol", fmt, names, x, "nan")
    code, out, err = decode(sol, vmap, tmp_path / "out")
    assert code == 4, out + err
    assert "the solver's objective is nan" in out + err and "verification          FAILED" in out
    assert nothing_written(tmp_path / "out")


def test_verification_treats_nan_as_a_violation(xor, tmp_path):
    """:func:`annc.solve.verify.check` on a NaN point: flagged, never passed."""
    from annc.solve.decode import decode_network
    from annc.io.mapfile import load_map
    from annc.solve.verify import verify
    vmap_path, names, x, obj = xor
    vmap = load_map(vmap_path)
    point = np.array(x, dtype=float)
    point[names.index("o_0_0")] = np.nan  # not a weight: the network itself is finite
    v = verify(vmap, point, decode_network(vmap, point), status="optimal", solver_objective=obj)
    assert not v.ok
    assert any("column o_0_0 has the value nan" in p for p in v.problems)
    assert any("objective of the point is nan" in p for p in v.problems)


def decode_edited(tmp_path, xor, fmt, old, new):
    """Write the optimum as ``fmt``, replace its first ``old`` by ``new``, decode it."""
    vmap, names, x, obj = xor
    sol = write_solution(tmp_path / "s.sol", fmt, names, x, obj)
    text = sol.read_text()
    assert old in text
    sol.write_text(text.replace(old, new, 1))
    return decode(sol, vmap, tmp_path / "out")


@pytest.mark.parametrize("fmt, old, new, where", [
    ("highs", "# Columns 441", "# Columns nan", ":7: expected '# Columns <count>'"),
    ("highs", "# Columns 441", "# Columns 1e400", ":7: expected '# Columns <count>'"),
    ("highs-sparse", " 0\n", " x\n", ":8: expected '<name> <value> <index>'"),
    ("glpk-raw", "s mip 1 441", "s mip 1 nan", ":2: expected 's mip"),
    ("glpk-raw", "s mip 1 441", "s mip 1 \u00b2", ":2: expected 's mip"),
    ("glpk-raw", "s mip 1 441", "s mip 1 " + "9" * 5000, ":2: expected 's mip"),
    ("cbc", "\n0 a0_0_0", "\n" + "1" * 5000 + " a0_0_0", ":2: expected '<index> <name>"),
])
def test_odd_counts_and_indices_are_located_errors(tmp_path, xor, fmt, old, new, where):
    code, out, err = decode_edited(tmp_path, xor, fmt, old, new)
    assert code == 2, out + err
    assert where in err and "s.sol" in err and nothing_written(tmp_path / "out")


@pytest.mark.parametrize("fmt, old, new", [
    ("cplex", 'index="0"', 'index="' + "1" * 400 + '"'),  # found by bench/suites/fuzz.py: an int64 overflow
    ("cplex", 'index="3"', 'index="-7"'),
])
def test_a_column_index_outside_the_model_means_another_model(tmp_path, xor, fmt, old, new):
    code, out, err = decode_edited(tmp_path, xor, fmt, old, new)
    assert code == 2, out + err
    assert "outside the 441 columns" in err and "from another model" in err
    assert nothing_written(tmp_path / "out")


def test_glpk_printable_report_with_a_nan_column_count(tmp_path):
    sol = tmp_path / "g.out"
    sol.write_text("Problem:    xor\nRows:       1\nColumns:    nan\nStatus:     INTEGER OPTIMAL\n"
                   "Objective:  obj = 0 (MINimum)\n")
    code, out, err = run_cli("decode", sol, "--map", tmp_path / "none.map.json", "-o", tmp_path / "out")
    assert code == 2 and "g.out:3: expected 'Columns: <count>'" in err


def test_gurobi_json_with_a_huge_integer_names_the_column(tmp_path, xor):
    vmap, names, x, obj = xor
    x = list(x)
    x[names.index("b0_1")] = "9" * 5000  # beyond Python's 4,300-digit limit for int()
    sol = write_solution(tmp_path / "s.json", "gurobi-json", names, x, obj)
    code, out, err = decode(sol, vmap, tmp_path / "out")
    assert code == 4 and "column b0_1 has the value inf" in err


# -- 4. a solution of another model, in a format that omits zeros -------------------------------
@pytest.fixture(scope="module")
def other(tmp_path_factory):
    """The optimum of specs/xor.ann on the first 20 rows of the sample: its column names
    are all names of the full sample's model, at other positions."""
    folder = tmp_path_factory.mktemp("other")
    sub = folder / "sub.csv"
    sub.write_text("".join(SAMPLE.read_text().splitlines(keepends=True)[:21]))
    mps, _ = _compile(folder, sub)
    return _solve(mps)


@pytest.mark.parametrize("fmt", ["scip", "gurobi-json", "miplib", "highs-sparse"])
def test_solution_of_another_model_is_refused_for_formats_that_omit_zeros(tmp_path, xor, other, fmt):
    vmap, my_names = xor[0], xor[1]
    names, x, obj = other
    assert set(names) <= set(my_names) and names != my_names[:len(names)]
    sol = write_solution(tmp_path / "s.sol", fmt, names, x, obj)
    code, out, err = decode(sol, vmap, tmp_path / "out")
    assert code == 2, out + err
    assert "from another model" in err and nothing_written(tmp_path / "out")
    if fmt != "highs-sparse":  # that one carries column positions: refused by them
        assert "the file states objective" in err


@pytest.mark.parametrize("fmt", ["scip", "gurobi-json", "miplib"])
def test_a_fractional_point_of_this_model_still_fails_verification(tmp_path, xor, fmt):
    """The objective a file states matches the point: exit 4, not "another model"."""
    from annc.io.mapfile import load_map
    from annc.solve.verify import rebuild
    vmap, names, x, _ = xor
    x = list(x)
    h = next(i for i, n in enumerate(names) if n.startswith("h0_") and x[i] == 1)
    x[h] = 0.5
    obj = rebuild(load_map(vmap)).model.objective(np.array(x, dtype=float))
    sol = write_solution(tmp_path / "s.sol", fmt, names, x, obj)
    code, out, err = decode(sol, vmap, tmp_path / "out")
    assert code == 4, out + err
    assert "not integral" in out and "not integral" in err and nothing_written(tmp_path / "out")


# -- 3. edited or corrupt maps -----------------------------------------------------------
def _set(path, value):
    def edit(m):
        node = m
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return edit


def _delete(path):
    def edit(m):
        node = m
        for k in path[:-1]:
            node = node[k]
        del node[path[-1]]
    return edit


MAP_EDITS = [
    (_delete(["tensors", 3, "shape"]), "field tensors[3].shape is missing"),
    (_set(["tensors", 3, "shape"], [-1, 2]), "field tensors[3].shape must be a list of non-negative integers"),
    (_set(["tensors", 3, "shape"], "5x2"), "field tensors[3].shape must be a list of non-negative integers"),
    (_set(["tensors", 0, "shape"], [10 ** 9, 10 ** 9]), "field tensors[0].shape takes the tensors to"),
    (_set(["tensors", 1, "start"], 99), "field tensors[1].start must be 25"),
    (_set(["tensors", 2, "name"], "H0!"), "field tensors[2].name must be a block name"),
    (_set(["tensors", 2, "name"], "a0"), "field tensors[2].name repeats the tensor name 'a0'"),
    (_set(["tensors"], "x"), "field tensors must be a non-empty list"),
    (_set(["model", "columns"], "441"), "field model.columns must be an integer"),
    (_set(["model", "columns"], 10 ** 12), "field model.columns must be an integer"),
    (_set(["model", "columns"], 440), "shape takes the tensors to 441 columns, past model.columns (440)"),
    (_set(["model", "columns_sha256"], "0" * 64), "field tensors does not give the columns recorded"),
    (_delete(["model", "name"]), "field model.name is missing"),
    (_set(["classes"], [0]), "field classes must be a list of at least 2 distinct class labels"),
    (_set(["classes"], [0, 0]), "field classes must be a list of at least 2 distinct class labels"),
    (_set(["classes"], [0, 1, 2]), "field layers[1] has 2 units; expected 3"),
    (_set(["classes"], [0, None]), "field classes must be a list of at least 2 distinct class labels"),
    (_set(["layers", 0, "activation"], "tanh"), "field layers[0].activation must be 'binary' or 'relu' or 'sign'"),
    (_set(["layers", 0, "weight"], "zz"), "field layers[0].weight must be the name of a tensor"),
    (_set(["layers", 0, "weight"], "b0"), "field layers[0].weight names tensor 'b0' of shape [5]"),
    (_set(["layers"], []), "field layers must be a non-empty list"),
    (_set(["recipe"], [1]), "field recipe must be an object"),
    (_delete(["recipe", "eps"]), "field recipe.eps is missing"),
    (_set(["recipe", "loss"], "nll"), "field recipe.loss must be an object"),
    (_set(["recipe", "eps", "source"], "a guess"), "field recipe.eps.source must be one of 'spec'"),
    (_set(["recipe", "penalty", "reason"], 3), "field recipe.penalty.reason must be a text or null"),
    (_set(["options", "merge"], "yes"), "field options.merge must be true or false"),
    (_delete(["options"]), "field options is missing"),
    (_set(["data", "sha256"], 5), "field data.sha256 must be a SHA-256 in hex"),
    (_set(["data", "file"], ""), "field data.file must be a file name"),
    (_set(["spec", "text"], 7), "field spec.text must be a string"),
    (_set(["spec", "text"], "input 5\nhidden 5 binar\noutput 2\n"),
     "the spec recorded in this map does not parse"),
    (_set(["spec", "text"], "input 5\nhidden 6 binary\noutput 2\neps 0.01\n"),
     "the spec recorded in this map (input 5, binary 6, linear 2) disagrees with its layers"),
    (_set(["spec", "text"], "input 5\nhidden 5 binary\noutput 2\n"), "the spec recorded in this map names no eps"),
    (_set(["schema"], "annc-map/0"), "not an annc variable map of schema annc-map/1"),
]


@pytest.fixture
def solution_and_map(tmp_path, xor):
    """A valid solution and a copy of its map to edit, in ``tmp_path``."""
    vmap, names, x, obj = xor
    sol = write_solution(tmp_path / "s.sol", "cbc", names, x, obj)
    return sol, json.loads(vmap.read_text())


def _write_map(path, m):
    path.write_text(json.dumps(m))
    return path


@pytest.mark.parametrize("edit, message", MAP_EDITS)
def test_an_edited_map_is_refused_naming_the_map_and_field(tmp_path, solution_and_map, edit, message):
    sol, m = solution_and_map
    edit(m)
    bad = _write_map(tmp_path / "bad.map.json", m)
    code, out, err = decode(sol, bad, tmp_path / "out")
    assert code == 2, out + err
    assert f"{bad}: " in err and message in err
    assert "Traceback" not in err and "internal error" not in err and nothing_written(tmp_path / "out")


def test_eps_lives_in_the_maps_spec_only(tmp_path, solution_and_map):
    """The map stores eps once, in its spec's text; the copies maps of earlier versions carry
    (``eps``, each layer's ``bias_shift``, the recipe's values) are derived, and ignored."""
    sol, m = solution_and_map
    assert "eps" not in m and all("bias_shift" not in L for L in m["layers"])
    code, out, err = decode(sol, _write_map(tmp_path / "m.map.json", m), tmp_path / "a")
    assert code == 0, out + err
    old = json.loads(json.dumps(m))
    old["eps"], old["layers"][0]["bias_shift"] = 0.5, float("nan")  # what an old map could carry
    old["recipe"]["eps"]["value"] = "0.5"
    code, out, err = decode(sol, _write_map(tmp_path / "old.map.json", old), tmp_path / "b")
    assert code == 0, out + err
    a, b = (json.loads(next((tmp_path / d).glob("*.weights.json")).read_text()) for d in "ab")
    assert a["layers"] == b["layers"] and b["meta"]["recipe"]["eps"]["value"] == "0.01"

def test_the_exported_bias_shift_follows_the_maps_eps(xor):
    """A binary layer's exported bias is the solved one minus eps/2 of the map's spec."""
    from annc.solve.decode import decode_network
    vmap, _, x, _ = xor
    m = json.loads(vmap.read_text())
    assert "eps 0.01" in m["spec"]["text"]
    narrow = decode_network(m, np.array(x, float))
    m["spec"]["text"] = m["spec"]["text"].replace("eps 0.01", "eps 0.03")
    wide = decode_network(m, np.array(x, float))
    assert np.allclose(wide.layers[0].bias - narrow.layers[0].bias, -0.01)
    assert np.array_equal(wide.layers[1].bias, narrow.layers[1].bias)  # the linear output layer: no shift


def test_a_spec_that_does_not_parse_is_blamed_on_the_map(tmp_path, solution_and_map):
    sol, m = solution_and_map
    m["spec"]["text"] = m["spec"]["text"].replace("hidden 5", "hiden 5")
    bad = _write_map(tmp_path / "bad.map.json", m)
    code, out, err = decode(sol, bad, tmp_path / "out")
    assert code == 2
    assert_names(err, f"{bad}: ", "spec", f"{bad} (spec.text):2:1: ", "'hiden'")
    assert "xor.ann:" not in err


@pytest.mark.parametrize("text, message", [
    ("", "not a readable annc variable map"),
    ("{", "not a readable annc variable map"),
    ("[1, 2]", "not an annc variable map of schema annc-map/1 (found \"list\")"),
    ('{"schema": "annc-map/1", "n": ' + "1" * 5000 + "}", "not a readable annc variable map"),
    ("[" * 100000, "not a readable annc variable map"),
])
def test_an_unreadable_map(tmp_path, solution_and_map, text, message):
    sol, _ = solution_and_map
    bad = tmp_path / "bad.map.json"
    bad.write_text(text)
    code, out, err = decode(sol, bad, tmp_path / "out")
    assert code == 2 and f"{bad}: {message}" in err and nothing_written(tmp_path / "out")


def test_map_classes_that_do_not_fit_their_data_are_blamed_on_the_map(tmp_path, solution_and_map):
    sol, m = solution_and_map
    m["classes"] = [0, 5]  # still two classes: only the data can tell
    bad = _write_map(tmp_path / "bad.map.json", m)
    code, out, err = decode(sol, bad, tmp_path / "out")
    assert code == 2
    assert_names(err, f"map {bad}: ", "classes", "label column")


def test_map_search_skips_maps_that_do_not_load(tmp_path, solution_and_map, xor):
    sol, m = solution_and_map
    (tmp_path / "broken.map.json").write_text("{")
    m["tensors"][0]["shape"] = [-1]
    _write_map(tmp_path / "edited.map.json", m)
    # no good map: both bad ones are named as skipped
    code, out, err = run_cli("decode", sol, "-o", tmp_path / "out")
    assert code == 2 and "no variable map in" in err
    assert "skipped" in err and "broken.map.json" in err and "edited.map.json: field tensors[0].shape" in err
    assert nothing_written(tmp_path / "out")
    # a good map beside them: found, the bad ones are not mentioned
    shutil.copy(xor[0], tmp_path / "xor.map.json")
    code, out, err = run_cli("decode", sol, "-o", tmp_path / "out")
    assert code == 0, out + err
    assert f"using map {tmp_path / 'xor.map.json'}" in out and "skipped" not in out + err


# -- 5. weights files --------------------------------------------------------------------
@pytest.fixture
def weights(tmp_path, xor):
    """A decoded network as a dict (the content of a .weights.json)."""
    vmap, names, x, obj = xor
    sol = write_solution(tmp_path / "w.sol", "cbc", names, x, obj)
    code, out, err = decode(sol, vmap, tmp_path / "w")
    assert code == 0, out + err
    return json.loads((tmp_path / "w" / "w.weights.json").read_text())


def _eval(tmp_path, content, name="net.weights.json"):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content)
    else:
        path.write_text(json.dumps(content))
    before = set(tmp_path.rglob("*"))
    code, out, err = run_cli("eval", path, SAMPLE)
    assert set(tmp_path.rglob("*")) == before  # eval never writes
    return code, out, err, path


WEIGHT_EDITS = [
    (lambda w: w["layers"][0].update(weight=[[1.0, "x"]]), "field layers[0].weight must be a list of rows"),
    (lambda w: w["layers"][0].update(weight=[[1.0, 2.0], [3.0]]), "field layers[0].weight must be a list of rows"),
    (lambda w: w["layers"][0]["weight"][0].__setitem__(0, float("nan")),
     "field layers[0].weight has a value that is not a finite number"),
    (lambda w: w["layers"][0]["bias"].__setitem__(0, 10 ** 400), "field layers[0].bias has a value that is not"),
    (lambda w: w["layers"][0]["bias"].append(0.0), "field layers[0].bias has 6 values but the weight has 5"),
    (lambda w: w["layers"][1]["weight"].pop(), "field layers[1].weight has 4 rows but layer 0 has 5 units"),
    (lambda w: w["layers"][0].update(activation="tanh"), "field layers[0].activation must be one of"),
    (lambda w: w["layers"][0].pop("bias"), "field layers[0].bias is missing"),
    (lambda w: w.update(classes=[0, 1, 2]), "the output layer has 2 units but field classes lists 3 classes"),
    (lambda w: w.update(classes=[0, 0]), "field classes must list at least 2 distinct classes"),
    (lambda w: w.update(classes=[[0], 1]), "field classes must be a list of class labels"),
    (lambda w: w.update(layers=[]), "field layers is empty"),
    (lambda w: w.pop("layers"), "field layers must be a list (it is missing)"),
    (lambda w: w["layers"].__setitem__(0, 5), "field layers[0] must be an object"),
]


@pytest.mark.parametrize("edit, message", WEIGHT_EDITS)
def test_a_malformed_weights_file_is_refused_naming_the_field(tmp_path, weights, edit, message):
    edit(weights)
    code, out, err, path = _eval(tmp_path, json.dumps(weights))
    assert code == 2, out + err
    assert f"{path}: " in err and message in err and "internal error" not in err


@pytest.mark.parametrize("content, message", [
    ("", "not a readable weights file"),
    ("{", "not a readable weights file"),
    ("[1]", "expected a JSON object"),
    (b"\xff\xfe", "not a readable weights file"),
    ('{"classes": [0, 1], "layers": [' + "1" * 5000 + "]}", "not a readable weights file"),
])
def test_an_unreadable_weights_file(tmp_path, content, message):
    code, out, err, path = _eval(tmp_path, content)
    assert code == 2 and f"{path}: {message}" in err


def test_a_missing_weights_file(tmp_path):
    code, _, err = run_cli("eval", tmp_path / "none.weights.json", SAMPLE)
    assert code == 2 and "none.weights.json: weights file not found" in err
    code, _, err = run_cli("eval", tmp_path, SAMPLE)
    assert code == 2
    assert_names(err, "folder", "weights file")


def test_npz_weights_good_and_bad(tmp_path, weights):
    from annc.core.network import TrainedNetwork
    net = TrainedNetwork.from_dict(weights)
    net.save(tmp_path / "n")
    good = tmp_path / "n.weights.npz"
    code, out, err = run_cli("eval", good, SAMPLE)
    assert code == 0, err
    arrays = dict(np.load(good))
    for key, value, message in [
        ("layer0_weight", np.full((5, 5), np.nan), "field layer0_weight has a value that is not a finite"),
        ("layer1_bias", np.zeros(3), "field layer1_bias has 3 values but the weight has 2 columns"),
        ("layer0_activation", np.asarray("tanh"), "field layer0_activation must be one of"),
        ("classes", np.asarray(["a", "b", "c"]), "the output layer has 2 units but field classes lists 3"),
        ("layer0_bias", None, "field layer0_bias is missing"),
        ("classes", None, "field classes is missing"),
    ]:
        changed = {k: v for k, v in arrays.items() if k != key}
        if value is not None:
            changed[key] = value
        bad = tmp_path / "bad.weights.npz"
        np.savez(bad, **changed)
        code, out, err = run_cli("eval", bad, SAMPLE)
        assert code == 2 and f"{bad}: " in err and message in err, (key, err)
    bad.write_bytes(good.read_bytes()[:100])  # truncated archive
    code, out, err = run_cli("eval", bad, SAMPLE)
    assert code == 2
    assert_names(err, ".npz")


def test_eval_with_labels_outside_the_networks_classes(tmp_path, weights):
    weights["classes"] = ["cat", "dog"]
    code, out, err, path = _eval(tmp_path, weights)
    assert code == 2
    assert_names(err, "cat, dog")


def test_a_pruned_network_with_an_empty_layer_still_loads(tmp_path):
    from annc.core.network import Layer, TrainedNetwork
    net = TrainedNetwork([0, 1], [Layer("binary", np.ones((2, 1)), [0.0]),
                                  Layer("linear", np.zeros((1, 2)), [1.0, 0.0])]).pruned()
    assert net.layers[0].units == 0
    net.save(tmp_path / "p")
    for suffix in (".weights.json", ".weights.npz"):
        again = TrainedNetwork.load(tmp_path / f"p{suffix}")
        assert again.predict_index(np.zeros((3, 2))).tolist() == [0, 0, 0]


# -- 6. the Python API ----------------------------------------------------------------------
def test_predict_refuses_bad_rows():
    from annc.core.errors import DataError, UsageError
    from annc.core.network import Layer, TrainedNetwork
    net = TrainedNetwork(["a", "b"], [Layer("linear", np.eye(2), np.zeros(2))])
    assert net.predict([[1.0, 0.0], [0.0, 1.0]]).tolist() == ["a", "b"]
    with pytest.raises(DataError, match=r"X row 1, column 0: inf"):
        net.predict([[1.0, 0.0], [math.inf, 1.0]])
    with pytest.raises(DataError, match=r"X: 1 of 2 rows.*missing.*imputation"):
        net.predict([[1.0, 0.0], [math.nan, 1.0]])  # a missing cell, never a 0 (annc.core.missing)
    with pytest.raises(UsageError, match=r"shape \(samples, 2\); got shape \(1, 1, 2\)"):
        net.predict_index(np.zeros((1, 1, 2)))
    with pytest.raises(UsageError, match=r"got shape \(2,\)"):
        net.scores(np.zeros(2))
    with pytest.raises(UsageError, match=r"got shape \(4, 3\)"):
        net.predict(np.zeros((4, 3)))
    with pytest.raises(UsageError, match="matrix"):
        net.predict([["x", "y"]])


# -- annc train --solver-cmd -------------------------------------------------------------
def test_solver_command_writing_nan_is_refused(tmp_path):
    script = tmp_path / "nan_solver.py"
    script.write_text("import sys\nopen(sys.argv[2], 'w').write('=obj= 0\\na0_0_0 nan\\n')\n")
    out_dir = tmp_path / "out"
    code, out, err = run_cli("train", SPECS / "output_only.ann", SAMPLE, "--solver-cmd",
                             f"{sys.executable} {script} {{model}} {{sol}}", "--no-warm-start", "-q",
                             "-o", out_dir)
    assert code == 4, out + err
    assert "column a0_0_0 has the value nan" in err
    assert not list(out_dir.glob("*.weights.*"))


def test_a_layer_of_the_wrong_shape_is_a_usage_error():
    from annc.core.errors import UsageError
    from annc.core.network import Layer
    with pytest.raises(UsageError, match=r"got \(2, 2\) and \(3,\)"):
        Layer("linear", np.eye(2), np.zeros(3))
    with pytest.raises(UsageError, match="unknown activation 'tanh'"):
        Layer("tanh", np.eye(2), np.zeros(2))


def test_decode_into_a_regular_file_is_refused_before_any_work(tmp_path, xor):
    vmap, names, x, obj = xor
    sol = write_solution(tmp_path / "s.sol", "cbc", names, x, obj)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for out in (blocker, blocker / "sub"):
        code, stdout, err = decode(sol, vmap, out)
        assert code == 2 and "is a file" in err and stdout == ""
    assert blocker.read_text() == "x"
