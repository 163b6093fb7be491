"""Columns matched by name (issue 27): every reader of a table for a trained network.

A network records the names of its training columns (``annc.core.columns.Columns``) in every
weights file, and ``annc eval``, ``annc report``, ``annc decode --data``, ``annc train
--test``, ``predict`` on a data frame, ``annc.train(test=...)`` and
``MIPNetClassifier`` find the features by name (``annc.core.columns.match_columns``): the same
table with its columns in another order gives the same predictions, and a missing or
extra column is an error that names it (exit 2, nothing written).  A weights file
without names (an older annc) still reads a table by position, with one warning.  A CSV
whose label is not the last column gets a hint to use ``--label`` (when the spec's class count
does not match).

The networks are built by hand where possible (two or three inputs, so that a swap
changes what a positional reader predicts); the few trained ones are the linear,
hinge-loss model of ~20 rows, an LP that HiGHS solves at once.
"""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from annc.io.data import load_data
from annc.core.ensemble import Ensemble, load_model
from annc.core.errors import AnncWarning, DataError, MapError, UsageError, WeightsError
from annc.core.columns import Columns, match_columns
from annc.core.network import Layer, TrainedNetwork
from conftest import run_cli, assert_names

# class "b" iff a >= 1 (b and c are ignored): swapping a and b changes a positional reader's answers
LAYERS = [Layer("binary", [[1.0], [0.0], [0.0]], [-1.0]), Layer("linear", [[0.0, 1.0]], [0.5, 0.0])]
NAMED = Columns(("a", "b", "c"), "y")
ROWS = [(0, 1, 0, "a"), (1, 0, 0, "b"), (0, 1, 1, "a"), (1, 1, 0, "b"), (2, 0, 5, "b"), (0, 3, 1, "a")]


def write_csv(path, header, rows=ROWS):
    """``rows`` (a, b, c, y) written with the columns of ``header`` in its order."""
    at = {"a": 0, "b": 1, "c": 2, "y": 3}
    lines = [",".join(header)] + [",".join(str(r[at[h]]) if h in at else "7" for h in header) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def files(tmp_path):
    """The named network's weights (``n``), an older file without names (``old``), and
    the test CSV in its own order (``same``), swapped (``swapped``, label first too),
    without ``c`` (``missing``) and with a column ``z`` more (``extra``)."""
    TrainedNetwork(["a", "b"], LAYERS, columns=NAMED).save(tmp_path / "n")
    TrainedNetwork(["a", "b"], LAYERS).save(tmp_path / "old")
    return {
        "json": tmp_path / "n.weights.json", "npz": tmp_path / "n.weights.npz",
        "old": tmp_path / "old.weights.json",
        "same": write_csv(tmp_path / "same.csv", ["a", "b", "c", "y"]),
        "swapped": write_csv(tmp_path / "swapped.csv", ["y", "b", "a", "c"]),
        "missing": write_csv(tmp_path / "missing.csv", ["a", "b", "y"]),
        "extra": write_csv(tmp_path / "extra.csv", ["a", "z", "b", "c", "y"]),
    }


def body(out: str) -> list[str]:
    """``annc eval``'s output without the file name that starts its first line."""
    first, *rest = out.splitlines()
    return [first.split(":", 1)[1]] + rest


# -- the one matching function ------------------------------------------------------------
def test_match_columns_by_name_in_any_order():
    assert match_columns(["c", "a", "b"], NAMED, 3, "t.csv") == [1, 2, 0]
    assert match_columns(["a", "b", "c"], NAMED, 3, "t.csv") == [0, 1, 2]
    assert match_columns(None, NAMED, 3, "X") is None  # an array: by position


def test_match_columns_names_what_is_missing_and_extra():
    with pytest.raises(DataError) as e:
        match_columns(["a", "z", "c"], NAMED, 3, "t.csv")
    assert str(e.value).startswith("t.csv: ")
    assert_names(str(e.value), "missing column 'b'", "extra column 'z'", "a, b, c")
    with pytest.raises(DataError, match=r"missing columns 'b', 'c' \("):
        match_columns(["a"], NAMED, 3, "t.csv")


def test_match_columns_without_recorded_names_is_positional_with_a_warning():
    with pytest.warns(AnncWarning, match="records no feature names.*by position"):
        assert match_columns(["q", "r", "s"], None, 3, "t.csv") is None
    with pytest.raises(DataError, match="t.csv .*2 feature columns.* 3 inputs"):
        match_columns(["q", "r"], None, 3, "t.csv")


def test_columns_must_be_distinct_names():
    with pytest.raises(UsageError, match="repeated: a"):
        Columns(("a", "b", "a"))
    with pytest.raises(UsageError, match="non-empty strings"):
        Columns(("a", ""))
    with pytest.raises(UsageError, match="2 features.* 3"):
        TrainedNetwork(["a", "b"], LAYERS, columns=Columns(("a", "b")))


# -- weights files --------------------------------------------------------------------------
def test_weights_files_record_the_names_and_older_files_still_load(files):
    for kind in ("json", "npz"):
        assert load_model(files[kind]).columns == NAMED
    assert json.loads(files["json"].read_text())["columns"] == {"features": ["a", "b", "c"], "label": "y"}
    old = load_model(files["old"])
    assert old.columns is None and "columns" not in json.loads(files["old"].read_text())
    assert load_model(files["old"].with_suffix(".npz")).columns is None


def test_an_ensemble_records_the_names_too(tmp_path):
    members = [TrainedNetwork(["a", "b"], LAYERS)]
    Ensemble(["a", "b"], members, [(0, 1)], columns=NAMED).save(tmp_path / "e")
    for suffix in ("json", "npz"):
        ens = load_model(tmp_path / f"e.weights.{suffix}")
        assert isinstance(ens, Ensemble) and ens.columns == NAMED


@pytest.mark.parametrize("columns,words", [
    ({"features": ["a", "a", "c"], "label": "y"}, "repeated: a"),
    ({"features": "abc"}, "a list features"),
    ({"features": ["a", "b"], "label": "y"}, "the columns name 2 features but the first layer takes 3"),
])
def test_a_bad_columns_field_is_a_weights_error(files, columns, words):
    record = json.loads(files["json"].read_text())
    record["columns"] = columns
    files["json"].write_text(json.dumps(record))
    with pytest.raises(WeightsError, match=words):
        load_model(files["json"])
    code, _, err = run_cli("eval", files["json"], files["same"])
    assert code == 2 and words in err and "Traceback" not in err


# -- annc eval ----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["json", "npz"])
def test_eval_matches_columns_by_name(files, kind):
    code, same, err = run_cli("eval", files[kind], files["same"])
    assert code == 0 and err == ""
    assert "accuracy 1.0000" in same
    code, swapped, err = run_cli("eval", files[kind], files["swapped"])
    assert code == 0 and err == ""
    assert body(swapped) == body(same)


@pytest.mark.parametrize("which,words", [("missing", "missing column 'c'"), ("extra", "extra column 'z'")])
def test_eval_names_a_missing_or_extra_column(files, which, words):
    code, out, err = run_cli("eval", files["json"], files[which])
    assert code == 2 and out == ""
    assert err.startswith(f"annc: {files[which]}: {words}") and err.count("\n") == 1
    assert "Traceback" not in err


def test_eval_of_an_older_weights_file_is_positional_with_one_warning(files):
    code, out, err = run_cli("eval", files["old"], files["same"])
    assert code == 0 and "accuracy 1.0000" in out
    assert err.count("warning:") == 1 and "records no feature names" in err and err.count("\n") == 1
    # by position: the swapped file (its label named by --label) reads b as a
    code, out, err = run_cli("eval", files["old"], files["swapped"], "--label", "y")
    assert code == 0 and "accuracy 1.0000" not in out and err.count("warning:") == 1


# -- annc report --------------------------------------------------------------------------
def test_report_matches_columns_by_name(files, tmp_path):
    from annc.export.html_report import context
    pages = {}
    for which in ("same", "swapped"):
        page = tmp_path / f"{which}.html"
        code, _, err = run_cli("report", files["json"], "--data", files[which], "--test", files[which], "-o", page)
        assert code == 0 and err == "", err
        pages[which] = page.read_text()
    assert "accuracy" in pages["same"]
    net = load_model(files["json"])
    evals = {w: [(e.accuracy, e.confusion) for e in context(net, data=load_data(files[w], inputs_of=net))["evals"]]
             for w in ("same", "swapped")}
    assert evals["same"] == evals["swapped"] == [(1.0, [[3, 0], [0, 3]])]
    for which, words in (("missing", "missing column 'c'"), ("extra", "extra column 'z'")):
        page = tmp_path / f"{which}.html"
        code, _, err = run_cli("report", files["json"], "--test", files[which], "-o", page)
        assert code == 2 and words in err and not page.exists()


def test_report_draws_the_recorded_names_without_data(files, tmp_path):
    page = tmp_path / "r.html"
    assert run_cli("report", files["json"], "-o", page)[0] == 0
    text = page.read_text()
    assert ">a<" in text and ">c<" in text


# -- predict on a data frame ----------------------------------------------------------------
def test_predict_on_a_data_frame_matches_columns_by_name():
    pd = pytest.importorskip("pandas")
    net = TrainedNetwork(["a", "b"], LAYERS, columns=NAMED)
    frame = pd.DataFrame([r[:3] for r in ROWS], columns=["a", "b", "c"])
    want = list(net.predict(frame.to_numpy(float)))
    assert want == [r[3] for r in ROWS]
    assert list(net.predict(frame[["c", "a", "b"]])) == want
    with pytest.raises(DataError, match="X: missing column 'c'"):
        net.predict(frame[["a", "b"]])
    with pytest.raises(DataError, match="X: extra column 'z'"):
        net.predict(frame.assign(z="text"))
    ens = Ensemble(["a", "b"], [TrainedNetwork(["a", "b"], LAYERS)], [(0, 1)], columns=NAMED)
    assert list(ens.predict(frame[["b", "c", "a"]])) == want


def test_predict_on_a_data_frame_without_recorded_names_warns_once():
    pd = pytest.importorskip("pandas")
    net = TrainedNetwork(["a", "b"], LAYERS)
    frame = pd.DataFrame([r[:3] for r in ROWS], columns=["b", "a", "c"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pred = net.predict(frame)
    assert [w.category for w in caught] == [AnncWarning]
    assert list(pred) == list(net.predict(frame.to_numpy(float)))  # by position


# -- a trained network: annc.train, annc train --test, annc decode --data ------------------
SPEC = "input 3\noutput 2\nloss hinge\n"
TRAIN = [(0, 2, 1, "a"), (1, 3, 0, "a"), (0, 1, 2, "a"), (1, 0, 1, "a"), (0, 3, 3, "a"), (1, 2, 0, "a"),
         (0, 0, 2, "a"), (1, 1, 1, "a"), (0, 2, 0, "a"), (1, 3, 2, "a"),
         (3, 2, 1, "b"), (4, 0, 0, "b"), (3, 1, 2, "b"), (4, 3, 1, "b"), (3, 0, 3, "b"), (4, 2, 0, "b"),
         (3, 3, 2, "b"), (4, 1, 1, "b"), (3, 2, 0, "b"), (4, 0, 2, "b")]


@pytest.fixture
def trained_files(tmp_path):
    """The training CSV (a, b, c, y), the spec, and two test CSVs: the training rows in
    their order and swapped (c, y, a, b)."""
    spec = tmp_path / "lin.ann"
    spec.write_text(SPEC)
    return {"spec": spec, "train": write_csv(tmp_path / "train.csv", ["a", "b", "c", "y"], TRAIN),
            "test": write_csv(tmp_path / "test.csv", ["a", "b", "c", "y"], TRAIN[::3]),
            "swapped": write_csv(tmp_path / "swapped.csv", ["c", "y", "a", "b"], TRAIN[::3]),
            "missing": write_csv(tmp_path / "missing.csv", ["a", "c", "y"], TRAIN[::3])}


def test_train_records_the_names_and_test_columns_match_by_name(trained_files, tmp_path):
    out = tmp_path / "out"
    code, text, err = run_cli("train", trained_files["spec"], trained_files["train"], "--test",
                              trained_files["swapped"], "--time-limit", "20", "-q", "-o", out)
    assert code == 0, err
    assert "test accuracy      1.0000" in text  # the swapped test set, read by name
    net = load_model(out / "lin.weights.json")
    assert net.columns == NAMED
    _, same, _ = run_cli("eval", out / "lin.weights.npz", trained_files["test"])
    _, swapped, _ = run_cli("eval", out / "lin.weights.npz", trained_files["swapped"])
    assert body(same) == body(swapped) and "accuracy 1.0000" in same


def test_train_refuses_a_test_set_with_a_missing_column_before_writing(trained_files, tmp_path):
    out = tmp_path / "out"
    code, text, err = run_cli("train", trained_files["spec"], trained_files["train"], "--test",
                              trained_files["missing"], "--time-limit", "20", "-q", "-o", out)
    assert code == 2 and "missing column 'b'" in err and "Traceback" not in err
    assert not out.exists()


def test_the_api_matches_test_data_and_data_frames_by_name(trained_files):
    pd = pytest.importorskip("pandas")
    import annc
    frame = pd.read_csv(trained_files["train"])
    r = annc.train(SPEC, (frame[["a", "b", "c"]], frame["y"]), time_limit=20,
                   test=(frame[["c", "a", "b"]], frame["y"]))
    assert r.network.columns == NAMED and r.test_accuracy == r.train_accuracy == 1.0
    swapped = frame[["b", "y", "c", "a"]]
    assert list(r.predict(swapped.drop(columns="y"))) == list(r.predict(frame[["a", "b", "c"]])) == list(frame["y"])
    r2 = annc.train(SPEC, str(trained_files["train"]), test=str(trained_files["swapped"]), time_limit=20)
    assert r2.test_accuracy == 1.0 and r2.network.columns == NAMED
    with pytest.raises(DataError, match="missing column 'b'"):
        annc.train(SPEC, str(trained_files["train"]), test=str(trained_files["missing"]), time_limit=20)
    arrays = annc.train(SPEC, (frame[["a", "b", "c"]].to_numpy(float), frame["y"].to_numpy()), time_limit=20)
    assert arrays.network.columns is None  # no names of the user's: none recorded


def _decode_setup(trained_files, tmp_path):
    """A compiled model of the training CSV, its optimum as a solution file, the map."""
    import highspy
    from test_bad_solutions_and_maps import write_solution
    code, _, err = run_cli("compile", "--no-start", trained_files["spec"], trained_files["train"], "-o", tmp_path / "c")
    assert code == 0, err
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(tmp_path / "c" / "lin.mps"))
    h.run()
    names, x = list(h.getLp().col_names_), list(h.getSolution().col_value)
    sol = write_solution(tmp_path / "lin.sol", "miplib", names, x, h.getInfo().objective_function_value)
    return sol, tmp_path / "c" / "lin.map.json"


def test_decode_data_matches_columns_by_name(trained_files, tmp_path):
    sol, vmap = _decode_setup(trained_files, tmp_path)
    swapped_train = write_csv(tmp_path / "train_swapped.csv", ["y", "c", "b", "a"], TRAIN)
    for data, out in ((trained_files["train"], "o1"), (swapped_train, "o2")):
        code, text, err = run_cli("decode", sol, "--map", vmap, "--data", data, "-o", tmp_path / out)
        assert code == 0, text + err
        assert "verification          passed" in text
    one, two = (load_model(tmp_path / o / "lin.weights.json") for o in ("o1", "o2"))
    assert one.columns == two.columns == NAMED
    assert np.array_equal(one.layers[0].weight, two.layers[0].weight)
    for which, words in (("missing", "missing column 'b'"), ("test", "SHA-256 differs")):
        code, _, err = run_cli("decode", sol, "--map", vmap, "--data", trained_files[which], "-o", tmp_path / "o3")
        assert code == 2 and words in err
        assert not (tmp_path / "o3").exists()


def test_the_map_records_and_checks_the_names(trained_files, tmp_path):
    from annc.io.mapfile import load_map
    _, vmap = _decode_setup(trained_files, tmp_path)
    record = json.loads(vmap.read_text())
    assert record["data"]["features"] == ["a", "b", "c"] and record["data"]["label"] == "y"
    assert len(record["data"]["content_sha256"]) == 64
    for bad, words in ((["a", "b"], "names 2 columns but the spec has input 3"), (["a", "a", "c"], "repeated")):
        record["data"]["features"] = bad
        vmap.write_text(json.dumps(record))
        with pytest.raises(MapError, match=words):
            load_map(vmap)


# -- the estimator ------------------------------------------------------------------------
def test_the_estimator_reorders_a_data_frame_by_name():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    from annc.app.estimator import MIPNetClassifier
    frame = pd.DataFrame([r[:3] for r in TRAIN], columns=["a", "b", "c"])
    y = [r[3] for r in TRAIN]
    est = MIPNetClassifier(hidden_layer_sizes=(), loss="hinge", time_limit=20).fit(frame, y)
    assert list(est.feature_names_in_) == ["a", "b", "c"]
    assert est.network_.columns == Columns(("a", "b", "c"))
    want = list(est.predict(frame))
    assert want == y
    assert list(est.predict(frame[["c", "a", "b"]])) == want
    with pytest.raises(ValueError, match="Feature names seen at fit time, yet now missing"):
        est.predict(frame[["a", "b"]])
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        est.predict(frame.assign(z=1.0))


# -- ONNX: positional, names in the metadata ------------------------------------------------
def test_onnx_records_the_names_of_its_positional_input():
    pytest.importorskip("onnx")
    from annc.export.onnx_export import to_onnx
    model = to_onnx(TrainedNetwork(["a", "b"], LAYERS, columns=NAMED))
    props = {p.key: p.value for p in model.metadata_props}
    assert json.loads(props["features"]) == ["a", "b", "c"]
    assert model.graph.input[0].doc_string == "raw features, by position: a, b, c"
    old = to_onnx(TrainedNetwork(["a", "b"], LAYERS))
    assert "features" not in {p.key for p in old.metadata_props}


# -- the --label hint -----------------------------------------------------------------------
def test_a_label_in_the_first_column_gets_a_hint(tmp_path):
    # a text column is a feature now (one-hot encoded, annc.core.categories): the class
    # count that does not match the spec says which text column may be the label
    path = tmp_path / "iris.csv"
    path.write_text("species,sepal_length,petal_width\n"
                    + "".join(f"{'virginica' if i % 2 else 'setosa'},{5 + i % 3},{i % 4}\n" for i in range(20)))
    data = load_data(path)
    assert data.features == ["species=setosa", "species=virginica", "sepal_length"] and len(data.classes) == 4
    spec = tmp_path / "iris.ann"
    spec.write_text("input 3\noutput 2\n")
    code, out, err = run_cli("train", spec, path, "-o", tmp_path / "out")
    assert code == 2
    assert_names(err, "4 classes", "'species'", "--label species")
    assert "Traceback" not in err and not (tmp_path / "out").exists()
    assert load_data(path, label="species").features == ["sepal_length", "petal_width"]


def test_no_hint_when_the_label_was_named_or_the_last_column_holds_text(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,y\n1,x,p\n2,3,q\n")
    with pytest.raises(DataError) as e:
        load_data(path)
    assert "--label" not in str(e.value)
    path.write_text("y,a,b\np,x,1\nq,3,2\n")
    with pytest.raises(DataError) as e:
        load_data(path, label="y")
    assert "--label" not in str(e.value)


def test_eval_reads_the_recorded_label_wherever_it_is(files):
    # the swapped file has its label first: the network's recorded label name finds it
    code, out, err = run_cli("eval", files["json"], files["swapped"])
    assert code == 0 and "--label" not in err
