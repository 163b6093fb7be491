"""Text (categorical) feature columns, one-hot encoded (issue 38, item 1; annc.core.categories).

One network is trained from a CSV with a text column ``occupation`` (``annc train`` with
``--time-limit 10`` on 60 rows), and every way a table reaches it gives the predictions of
a forward pass written out here by hand (its own one-hot encoding of the CSV's cells, in
the order the weights file records): ``annc eval`` (also on the columns reordered),
``predict`` on raw rows and on a data frame, the HTML report, and the ONNX export in
onnxruntime.  A category not seen in training is all zeros with a warning by default, and an
error (exit 2, ``DataError``, naming row, column and value) under ``--unknown error`` on each
path (tests/core/test_unknown_categories.py); the map and the weights files record the categories.
"""
from __future__ import annotations

import csv
import json
import re

import numpy as np
import pytest

from annc.core.categories import text_categories
from annc.core.ensemble import load_model
from annc.core.errors import DataError, WeightsError
from annc.core.columns import Columns
from annc.core.network import TrainedNetwork
from annc.core.scaling import fit_scaling
from annc.io.data import load_data
from conftest import run_cli, assert_names

OCCUPATIONS = ["white-collar", "blue-collar", "service"]  # sorted: blue-collar, service, white-collar
HEADER = ["age", "occupation", "hours", "label"]


def _rows(n: int, seed: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        age, occ, hours = int(rng.integers(18, 70)), OCCUPATIONS[i % 3], int(rng.integers(10, 60))
        rows.append([str(age), occ, str(hours), str(int(occ == "white-collar" or age > 50))])
    return rows


def _write(path, rows, header=HEADER):
    path.write_text("\n".join(",".join(r) for r in [header] + rows) + "\n")
    return path


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    d = tmp_path_factory.mktemp("categorical")
    train, test = _write(d / "train.csv", _rows(60, 0)), _write(d / "test.csv", _rows(30, 1))
    spec = d / "net.ann"
    spec.write_text("input 5\nhidden 2 binary\noutput 2\n")
    code, out, err = run_cli("train", spec, train, "--test", test, "-o", d / "out", "--time-limit", 10, "-q")
    assert code == 0, err
    return {"dir": d, "train": train, "test": test, "spec": spec, "out": out,
            "json": d / "out" / "net.weights.json", "npz": d / "out" / "net.weights.npz", "map": d / "out" / "net.map.json"}


def _by_hand(weights_json, csv_path) -> np.ndarray:
    """The predicted class index of every row of ``csv_path``: the one-hot encoding and the
    forward pass written out from the weights file's own record."""
    rec = json.loads(weights_json.read_text())
    with open(csv_path) as fh:
        table = list(csv.DictReader(fh))
    cats = rec["columns"]["categories"]
    X = np.array([[(1.0 if r[f.split("=", 1)[0]] == f.split("=", 1)[1] else 0.0) if "=" in f else float(r[f])
                   for f in rec["columns"]["features"]] for r in table])
    a = (X - np.array(rec["scaling"]["center"])) / np.array(rec["scaling"]["width"])
    assert set(cats) == {"occupation"}
    for L in rec["layers"]:
        pre = a @ np.array(L["weight"]) + np.array(L["bias"])
        a = (pre >= 0).astype(float) if L["activation"] == "binary" else pre
    return np.argmax(a, axis=1)


def _labels(csv_path) -> np.ndarray:
    with open(csv_path) as fh:
        return np.array([int(r["label"]) for r in csv.DictReader(fh)])


def _confusion(y, pred) -> list[list[int]]:
    c = np.zeros((2, 2), dtype=int)
    np.add.at(c, (y, pred), 1)
    return c.tolist()


# -- what is recorded --------------------------------------------------------------------------
def test_the_map_and_the_weights_files_record_the_categories(trained):
    cats = ["blue-collar", "service", "white-collar"]
    features = ["age"] + [f"occupation={k}" for k in cats] + ["hours"]
    vmap = json.loads(trained["map"].read_text())
    assert vmap["data"]["features"] == features and vmap["data"]["categories"] == {"occupation": cats}
    rec = json.loads(trained["json"].read_text())
    assert rec["columns"] == {"features": features, "label": "label", "categories": {"occupation": cats}}
    for path in (trained["json"], trained["npz"]):
        net = load_model(path)
        assert net.columns.categories == (("occupation", tuple(cats)),) and list(net.columns.features) == features
        assert net.columns.raw == ("age", "occupation", "hours")
        # the one-hot inputs are not scaled: center 0, width 1 (minmax, the default)
        assert net.scaling.center[1:4].tolist() == [0, 0, 0] and net.scaling.width[1:4].tolist() == [1, 1, 1]
    with np.load(trained["npz"]) as z:
        assert json.loads(str(z["columns_categories"])) == {"occupation": cats}


def test_the_one_hot_inputs_are_never_scaled():
    X = np.array([[10.0, 1, 0], [20.0, 0, 1], [40.0, 0, 1]])
    for kind in ("minmax", "standard", "none"):
        s = fit_scaling(kind, X, np.array([False, True, True]))
        assert s.center[1:].tolist() == [0, 0] and s.width[1:].tolist() == [1, 1]
        assert s.center[0] == fit_scaling(kind, X).center[0]


# -- the same predictions on every path -----------------------------------------------------
def test_train_summary_counts_the_test_rows_as_by_hand(trained):
    for which in ("train", "test"):
        acc = np.mean(_by_hand(trained["json"], trained[which]) == _labels(trained[which]))
        assert re.search(rf"{which} accuracy +{acc:.4f} ", trained["out"])
    assert "text columns       'occupation' (3 categories): one-hot encoded; the label is column 'label'" in trained["out"]


@pytest.mark.parametrize("weights", ["json", "npz"])
def test_eval_matches_the_hand_forward_pass_also_with_columns_reordered(trained, weights):
    pred, y = _by_hand(trained["json"], trained["test"]), _labels(trained["test"])
    code, out, err = run_cli("eval", trained[weights], trained["test"])
    assert code == 0 and f"accuracy {np.mean(pred == y):.4f}" in out
    rows = [line.split() for line in out.splitlines()[2:4]]
    assert [[int(v) for v in r[1:]] for r in rows] == _confusion(y, pred)
    with open(trained["test"]) as fh:
        table = list(csv.reader(fh))
    moved = _write(trained["dir"] / f"moved_{weights}.csv", [[r[3], r[2], r[1], r[0]] for r in table[1:]],
                   [table[0][3], table[0][2], table[0][1], table[0][0]])
    code, moved_out, err = run_cli("eval", trained[weights], moved)
    assert code == 0 and moved_out.replace(str(moved), "X") == out.replace(str(trained["test"]), "X")


def test_predict_on_raw_rows_a_data_frame_and_encoded_numbers(trained):
    pd = pytest.importorskip("pandas")
    net = load_model(trained["json"])
    pred = _by_hand(trained["json"], trained["test"])
    frame = pd.read_csv(trained["test"]).drop(columns="label")
    assert net.predict_index(frame).tolist() == pred.tolist()
    assert net.predict_index(frame[["hours", "occupation", "age"]]).tolist() == pred.tolist()  # by name
    raw = [[int(r[0]), r[1], float(r[2])] for r in frame.values.tolist()]
    assert net.predict_index(raw).tolist() == pred.tolist()  # raw rows: one cell per column, by position
    assert net.predict_index(load_data(trained["test"], inputs_of=net).X).tolist() == pred.tolist()


def test_the_report_applies_the_encoding(trained):
    pytest.importorskip("jinja2")
    from annc.export.html_report import context
    page = trained["dir"] / "net.html"
    code, out, err = run_cli("report", trained["json"], "--data", trained["train"], "--test", trained["test"],
                             "-o", page)
    assert code == 0 and page.exists()
    html = page.read_text()
    assert "Text columns" in html and "blue-collar, service, white-collar" in html
    net = load_model(trained["json"])
    ctx = context(net, data=load_data(trained["train"], inputs_of=net), test=load_data(trained["test"], inputs_of=net))
    for ev, which in zip(ctx["evals"], ("train", "test")):
        assert ev.confusion == _confusion(_labels(trained[which]), _by_hand(trained["json"], trained[which]))


def test_onnx_encodes_the_text_column_in_the_graph(trained):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    path = trained["dir"] / "net.onnx"
    code, out, err = run_cli("export", trained["json"], "--onnx", path)
    assert code == 0 and "occupation [N] strings" in out
    session = ort.InferenceSession(str(path))
    assert [(i.name, i.type) for i in session.get_inputs()] == [("X", "tensor(double)"),
                                                               ("occupation", "tensor(string)")]
    with open(trained["test"]) as fh:
        table = list(csv.DictReader(fh))
    feed = {"X": np.array([[float(r["age"]), float(r["hours"])] for r in table]),
            "occupation": np.array([r["occupation"] for r in table], dtype=object)}
    scores, label, _ = session.run(None, feed)
    net = load_model(trained["json"])
    assert label.tolist() == _by_hand(trained["json"], trained["test"]).tolist()
    assert np.allclose(scores, net.scores(load_data(trained["test"], inputs_of=net).X), atol=1e-12)
    feed["occupation"][3] = "pilot"  # unseen: all zeros (tests/core/test_unknown_categories.py), or refused with
    code, out, err = run_cli("export", trained["json"], "--onnx", path, "--unknown", "error")
    assert code == 0 and "an error of the runtime" in out
    with pytest.raises(Exception, match="Unknown Category"):
        ort.InferenceSession(str(path)).run(None, feed)


# -- a category unseen in training: under --unknown error, an error that names it ------------------
def test_an_unseen_category_is_an_error_on_every_path_under_unknown_error(trained):
    with open(trained["test"]) as fh:
        table = list(csv.reader(fh))
    table[3][1] = "pilot"
    path = _write(trained["dir"] / "unseen.csv", table[1:])
    code, out, err = run_cli("eval", trained["json"], path, "--unknown", "error")
    assert code == 2 and "Traceback" not in err
    assert_names(err, f"{path}: ", "row 4", "'occupation'", "'pilot'", "'blue-collar', 'service', 'white-collar'")
    from annc.core.inputs import input_matrix
    net = load_model(trained["json"])
    with pytest.raises(DataError, match="X row 0, column 'occupation'.*'pilot'"):
        input_matrix([[30, "pilot", 20]], net.inputs, net.columns, unknown="error")
    with pytest.raises(DataError, match="not seen"):
        load_data(path, inputs_of=net, unknown="error")


# -- the estimator -----------------------------------------------------------------------------
def test_the_estimator_encodes_a_data_frame(trained):
    pytest.importorskip("sklearn")
    pd = pytest.importorskip("pandas")
    import annc
    frame = pd.read_csv(trained["train"])
    X, y = frame.drop(columns="label"), frame["label"]
    clf = annc.MIPNetClassifier(time_limit=10, scale="standard").fit(X, y)
    net = clf.network_
    assert clf.n_features_in_ == 3 and list(clf.feature_names_in_) == ["age", "occupation", "hours"]
    assert net.columns.categories == (("occupation", ("blue-collar", "service", "white-collar")),)
    assert net.scaling.kind == "standard" and net.scaling.width[1:4].tolist() == [1, 1, 1]
    test = pd.read_csv(trained["test"]).drop(columns="label")
    by_net = clf.classes_[net.predict_index(load_data(trained["test"], inputs_of=net).X)]
    assert clf.predict(test).tolist() == by_net.tolist()
    assert clf.predict(test[["hours", "age", "occupation"]]).tolist() == by_net.tolist()
    with pytest.raises(DataError, match="category 'pilot' was not seen"):
        clf.set_params(unknown="error").predict(test.assign(occupation="pilot"))


# -- error paths -------------------------------------------------------------------------------
def test_a_spec_that_counts_the_csv_columns_is_told_what_to_write(trained, tmp_path):
    spec = tmp_path / "three.ann"
    spec.write_text("input 3\nhidden 2 binary\noutput 2\n")
    code, out, err = run_cli("train", spec, trained["train"], "-o", tmp_path / "out")
    assert code == 2 and "Traceback" not in err and not (tmp_path / "out").exists()
    assert_names(err, "5 feature columns", "one-hot", "input 5", "'occupation'", "3 one-hot columns")
    import annc
    with pytest.raises(DataError, match="write input 5"):
        annc.train(spec, trained["train"], time_limit=1)


def test_onnx_refuses_a_text_column_named_like_the_graph(tmp_path):
    pytest.importorskip("onnx")
    from annc.core.errors import UsageError
    from annc.core.network import Layer
    columns = Columns(("a", "scores=x", "scores=y"), None, {"scores": ["x", "y"]})
    net = TrainedNetwork([0, 1], [Layer("linear", np.eye(3)[:, :2], np.zeros(2))], columns=columns)
    weights = net.save(tmp_path / "clash")[0]
    code, out, err = run_cli("export", weights, "--onnx", tmp_path / "clash.onnx")
    assert code == 2 and "Traceback" not in err
    assert_names(err, "'scores'", "graph")
    with pytest.raises(UsageError, match="rename the column"):
        from annc.export.onnx_export import to_onnx
        to_onnx(net)


def test_a_column_of_numbers_and_text_is_not_categories(tmp_path):
    path = _write(tmp_path / "mixed.csv", [["1", "a", "2", "0"], ["2", "3", "1", "1"], ["3", "b", "1", "1"]])
    with pytest.raises(DataError, match=r"row 2, column 'occupation'.*'a'"):
        load_data(path)
    spec = tmp_path / "net.ann"
    spec.write_text("input 3\noutput 2\n")
    code, out, err = run_cli("train", spec, path, "-o", tmp_path / "out")
    assert code == 2 and "'a' is not a number" in err and "Traceback" not in err and not (tmp_path / "out").exists()


def test_an_empty_cell_of_a_text_column_is_an_error(tmp_path, trained):
    """A blank cell of a text column is missing: the missing-values error, for training data and
    for a network that records no fills (annc.core.missing)."""
    rows = _rows(6, 2)
    rows[2][1] = " "
    path = _write(tmp_path / "empty.csv", rows)
    with pytest.raises(DataError, match=r"row 4\).*'occupation'.*--missing drop"):
        load_data(path)
    with pytest.raises(DataError, match=r"row 4\).*'occupation'.*imputation"):
        load_data(path, inputs_of=load_model(trained["json"]))


def test_categories_are_sorted_and_stripped():
    assert text_categories([" b", "a ", "b", ""]) == ("a", "b")
    assert text_categories(["a", "1"]) is None and text_categories(["1", "2"]) is None


def test_a_bad_categories_record_is_a_weights_error(trained, tmp_path):
    rec = json.loads(trained["json"].read_text())
    for bad in ({"occupation": ["blue-collar"]}, {"occupation": "abc"}, {"nowhere": ["x"]}, ["occupation"]):
        path = tmp_path / "bad.weights.json"
        path.write_text(json.dumps({**rec, "columns": {**rec["columns"], "categories": bad}}))
        with pytest.raises(WeightsError, match="field columns"):
            TrainedNetwork.load(path)
        code, out, err = run_cli("eval", path, trained["test"])
        assert code == 2 and "Traceback" not in err


def test_a_one_hot_name_taken_by_a_column_is_a_data_error(tmp_path):
    path = _write(tmp_path / "clash.csv", [["1", "a", "2", "0"], ["2", "b", "1", "1"]],
                  ["occupation=a", "occupation", "hours", "label"])
    with pytest.raises(DataError, match="one-hot encoding of the text columns"):
        load_data(path)
    with pytest.raises(Exception, match="distinct"):
        Columns(("occupation=a", "occupation=a"), None, {"occupation": ["a"]})
