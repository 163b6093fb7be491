"""A category not seen in training (issue 71): all zeros with one warning per column, as
scikit-learn's ``OneHotEncoder(handle_unknown="ignore")``, or refused under ``--unknown error``;
alike in ``annc eval``, ``annc predict``, the Python API, the estimator and the ONNX graph.

The network is written out by hand (a fixed forward pass on a numeric and a text column), so the
tests check the reading; only the ``cross_val_score`` test trains (the estimator's LP: hinge loss,
no hidden layer).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from annc.core.columns import Columns
from annc.core.errors import DataError, MissingValuesError, UnknownCategoryWarning, UsageError
from annc.core.network import Layer, TrainedNetwork
from annc.core.scaling import Scaling
from annc.io.data import load_data
from conftest import run_cli

CATS = ("blue", "red", "white")
HEADER = ["age", "occupation", "label"]
UNSEEN = {2: "pilot", 5: "pilot", 7: "chef"}  # row -> an unseen category


def _network(fills: bool = True) -> TrainedNetwork:
    """Hidden units [age > 43], blue, red, white; scores a = [age > 43] + red - 0.2,
    b = blue + white / 2: a row whose occupation is all zeros is a when age > 43, else b."""
    features = ("age",) + tuple(f"occupation={k}" for k in CATS)
    columns = Columns(features, "label", {"occupation": CATS}, {"age": 40.0, "occupation": "red"} if fills else {})
    hidden = Layer("binary", np.eye(4), np.full(4, -0.5))
    out = Layer("linear", np.array([[1.0, 0], [0, 1], [1, 0], [0, 0.5]]), np.array([-0.2, 0.0]))
    return TrainedNetwork(["a", "b"], [hidden, out], {}, Scaling("minmax", [18, 0, 0, 0], [50, 1, 1, 1]), columns)


def _rows(unseen: bool) -> list[list[str]]:
    rows = []
    for i in range(12):
        occupation = UNSEEN[i] if unseen and i in UNSEEN else CATS[i % 3]
        rows.append([str(20 + 4 * i), occupation, "ab"[i % 2]])
    return rows


def _write(path, rows, header=HEADER):
    path.write_text("\n".join(",".join(r) for r in [header] + rows) + "\n")
    return path


@pytest.fixture
def files(tmp_path):
    net = _network()
    weights, _ = net.save(tmp_path / "net")
    known = _write(tmp_path / "known.csv", _rows(unseen=False))
    X = load_data(known, inputs_of=net).X
    X[list(UNSEEN), 1:4] = 0.0  # the all-zero one-hot of the unseen rows
    return {"net": net, "weights": weights, "unseen": _write(tmp_path / "unseen.csv", _rows(unseen=True)),
            "zeros": net.predict(X), "dir": tmp_path}


def test_eval_and_predict_read_an_unseen_category_as_all_zeros_with_one_warning(files):
    assert set(files["zeros"][list(UNSEEN)]) == {"a", "b"}  # the zero rows are told apart by age
    out = files["dir"] / "pred.csv"
    code, stdout, err = run_cli("predict", files["weights"], files["unseen"], "-o", out)
    assert code == 0, err
    assert [line.split(",")[0] for line in out.read_text().splitlines()[1:]] == files["zeros"].tolist()
    shown = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(shown) == 1  # one warning for the column, not one per row
    assert "'occupation'" in shown[0] and "'pilot' (2 rows)" in shown[0] and "'chef' (1 row)" in shown[0]
    code, stdout, err = run_cli("eval", files["weights"], files["unseen"])
    assert code == 0, err
    y = load_data(files["unseen"], inputs_of=files["net"]).y
    assert f"accuracy {np.mean(np.array(['a', 'b'])[y] == files['zeros']):.4f}" in stdout
    assert len([line for line in err.splitlines() if line.startswith("warning:")]) == 1 and "'pilot'" in err


def test_the_python_paths_warn_and_give_the_zeros_predictions(files):
    import annc
    with pytest.warns(UnknownCategoryWarning, match="occupation.*'pilot' \\(2 rows\\)"):
        labels = annc.predict(files["weights"], files["unseen"])
    assert labels.tolist() == files["zeros"].tolist()
    raw = [[int(r[0]), r[1]] for r in _rows(unseen=True)]
    with pytest.warns(UnknownCategoryWarning, match="chef"):
        assert files["net"].predict(raw).tolist() == files["zeros"].tolist()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        annc.predict(files["net"], raw)
    assert len([w for w in caught if issubclass(w.category, UnknownCategoryWarning)]) == 1


def test_unknown_error_refuses_it_with_exit_2(files):
    out = files["dir"] / "pred.csv"
    for command in (("predict", files["weights"], files["unseen"], "-o", out), ("eval", files["weights"], files["unseen"])):
        code, stdout, err = run_cli(*command, "--unknown", "error")
        assert code == 2 and "Traceback" not in err
        assert "'occupation'" in err and "'pilot'" in err and "'chef'" in err
    assert not out.exists()
    import annc
    with pytest.raises(DataError, match="pilot"):
        annc.predict(files["weights"], files["unseen"], unknown="error")
    with pytest.raises(UsageError, match="unknown"):
        annc.predict(files["weights"], files["unseen"], unknown="maybe")


def test_cross_val_score_runs_with_a_category_in_one_fold_only():
    pytest.importorskip("sklearn")
    pd = pytest.importorskip("pandas")
    import annc
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, 30)
    y = (x > 5).astype(int)
    color = np.array(["red", "green"] * 15, dtype=object)
    color[[28, 29]] = "violet"  # the last rows: StratifiedKFold(3) puts both in the last fold
    X = pd.DataFrame({"x": x, "color": color})
    folds = [set(test) for _, test in StratifiedKFold(3).split(X, y)]
    assert sum({28, 29} <= f for f in folds) == 1  # violet is only ever in one test fold
    fast = dict(hidden_layer_sizes=(), loss="hinge", time_limit=30.0, select=False)
    with pytest.warns(UnknownCategoryWarning, match="violet"):
        scores = cross_val_score(annc.MIPNetClassifier(**fast), X, y, cv=3, error_score="raise")
    assert len(scores) == 3 and np.all(np.isfinite(scores))
    with pytest.raises(DataError, match="violet"):
        cross_val_score(annc.MIPNetClassifier(unknown="error", **fast), X, y, cv=3, error_score="raise")


def test_onnx_gives_an_unseen_category_the_zeros_annc_gives_it(tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    import annc
    for fills in (True, False):
        net = _network(fills)
        path = annc.export_onnx(net, tmp_path / f"net{fills}.onnx")
        session = ort.InferenceSession(str(path))
        rows = _rows(unseen=True)
        feed = {"X": np.array([[float(r[0])] for r in rows]), "occupation": np.array([r[1] for r in rows], dtype=object)}
        scores, label, _ = session.run(None, feed)
        with pytest.warns(UnknownCategoryWarning):
            expected = net.scores([[int(r[0]), r[1]] for r in rows])
        assert np.allclose(scores, expected, atol=1e-12, rtol=0)
        assert np.array(["a", "b"])[label].tolist() == net.predict(np.array(
            [[int(r[0]), r[1]] for r in rows], dtype=object)).tolist()
        feed["occupation"][0] = ""  # a missing cell: the recorded fill, or (none) NaN, never an unseen's zeros
        scores, _, _ = session.run(None, feed)
        if fills:
            assert np.allclose(scores[0], net.scores([[int(rows[0][0]), "red"]])[0], atol=1e-12, rtol=0)
        else:
            assert np.isnan(scores[0]).all()
            with pytest.raises(MissingValuesError):
                net.scores([[int(rows[0][0]), ""]])
    path = annc.export_onnx(_network(), tmp_path / "strict.onnx", unknown="error")
    with pytest.raises(Exception, match="Unknown Category"):
        ort.InferenceSession(str(path)).run(None, feed)


def test_train_reads_its_test_rows_by_the_same_rule(tmp_path):
    train = _write(tmp_path / "train.csv", _rows(unseen=False))
    test = _write(tmp_path / "test.csv", _rows(unseen=True))
    spec = tmp_path / "net.ann"
    spec.write_text("input 4\noutput 2\n")
    code, stdout, err = run_cli("train", spec, train, "--test", test, "--unknown", "error", "-o", tmp_path / "out")
    assert code == 2 and "'pilot'" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # refused before anything is written
    import annc
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(_rows(unseen=True), columns=HEADER)
    known = pd.DataFrame(_rows(unseen=False), columns=HEADER)
    frame["age"], known["age"] = frame["age"].astype(int), known["age"].astype(int)
    with pytest.raises(DataError, match="chef"):
        annc.train(spec, (known[HEADER[:2]], known["label"]), test=(frame[HEADER[:2]], frame["label"]),
                   unknown="error")
