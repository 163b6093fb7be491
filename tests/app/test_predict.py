"""``annc predict`` and ``annc.predict`` (issue 69, part 5): one row per input row, read as ``annc eval``
reads it.

The network is written out by hand (no training: a fixed forward pass with a text column, recorded
fills for missing cells and three string classes), so every test checks the reading, not a solver.
"""
from __future__ import annotations

import csv

import numpy as np
import pytest

from annc.core.columns import Columns
from annc.core.ensemble import load_model
from annc.core.errors import DataError, MissingValuesError, UsageError
from annc.core.network import Layer, TrainedNetwork
from annc.core.scaling import Scaling
from annc.export.report import confusion_lines
from annc.io.data import load_data
from conftest import run_cli

HEADER = ["age", "occupation", "hours", "label"]
CATS = ("blue", "red", "white")
CLASSES = ["lo", "mid", "hi"]


def _network(imputed=(("age", 40.0), ("occupation", "red"))) -> TrainedNetwork:
    """A fixed network on age, occupation (one-hot, 3 categories) and hours; 3 classes: hidden
    units age > 43, blue, hours > 35, white; scores lo = [age > 43] + 0.1, mid = blue + [hours > 35],
    hi = white + [hours > 35] / 2 + 0.05."""
    features = ("age",) + tuple(f"occupation={k}" for k in CATS) + ("hours",)
    columns = Columns(features, "label", {"occupation": CATS}, dict(imputed))
    scaling = Scaling("minmax", [18, 0, 0, 0, 10], [50, 1, 1, 1, 50])
    hidden = Layer("binary", np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]),
                   np.full(4, -0.5))
    out = Layer("linear", np.array([[1.0, 0, 0], [0, 1, 0], [0, 1, 0.5], [0, 0, 1]]), np.array([0.1, 0, 0.05]))
    return TrainedNetwork(list(CLASSES), [hidden, out], {}, scaling, columns)


def _rows(n: int = 40, seed: int = 1) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        age = "" if i % 7 == 3 else str(int(rng.integers(18, 68)))
        occ = "" if i % 9 == 4 else ("NA" if i == 10 else CATS[int(rng.integers(0, 3))])
        rows.append([age, occ, str(int(rng.integers(10, 60))), CLASSES[int(rng.integers(0, 3))]])
    return rows


def _write(path, rows, header=HEADER):
    path.write_text("\n".join(",".join(r) for r in [header] + rows) + "\n")
    return path


def _read(path) -> list[list[str]]:
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


@pytest.fixture
def files(tmp_path):
    net = _network()
    json_path, npz_path = net.save(tmp_path / "net")
    data = _write(tmp_path / "data.csv", _rows())
    return {"net": net, "json": json_path, "npz": npz_path, "data": data, "dir": tmp_path}


@pytest.mark.parametrize("weights", ["json", "npz"])
def test_predict_agrees_with_eval_row_for_row(files, weights):
    net, data = files["net"], files["data"]
    read = load_data(data, inputs_of=net)  # what eval reads: empty cells get the recorded fills
    assert read.missing_note and "'age' 40.0" in read.missing_note and "'occupation' 'red'" in read.missing_note
    by_eval = net.predict(read.X)
    assert len(set(by_eval)) > 1  # the fixed network tells rows apart: the comparison below can fail
    out = files["dir"] / "pred.csv"
    code, stdout, err = run_cli("predict", files[weights], data, "-o", out)
    assert code == 0, err
    table = _read(out)
    assert table[0] == ["prediction"] and len(table) == 1 + len(_rows())
    predicted = [r[0] for r in table[1:]]
    assert predicted == [str(c) for c in by_eval]
    assert "missing cells: imputed" in stdout and "ignored column 'label'" in stdout
    # eval's own output (accuracy and confusion matrix) is that of these predictions
    code, eval_out, err = run_cli("eval", files[weights], data)
    assert code == 0, err
    index = np.array([CLASSES.index(c) for c in predicted])
    assert f"accuracy {np.mean(index == read.y):.4f}" in eval_out
    assert eval_out.splitlines()[-4:] == confusion_lines(CLASSES, read.y, index)


def test_a_csv_without_the_label_column_and_with_other_columns(files):
    rows = _rows()
    expected = [r[0] for r in _read(_run_predict(files, files["data"]))[1:]]
    # no label; columns in another order; an id column the network does not read
    moved = _write(files["dir"] / "new.csv", [[str(i), r[2], r[1], r[0]] for i, r in enumerate(rows)],
                   ["id", "hours", "occupation", "age"])
    out = files["dir"] / "new_pred.csv"
    code, stdout, err = run_cli("predict", files["json"], moved, "-o", out)
    assert code == 0, err
    assert [r[0] for r in _read(out)[1:]] == expected
    assert "ignored column 'id'" in stdout


def _run_predict(files, data, *extra):
    out = files["dir"] / "first.csv"
    code, _, err = run_cli("predict", files["json"], data, "-o", out, *extra)
    assert code == 0, err
    return out


def test_a_missing_feature_column_exits_2_naming_it(files):
    rows = _rows()
    path = _write(files["dir"] / "short.csv", [[r[0], r[1], r[3]] for r in rows], ["age", "occupation", "label"])
    out = files["dir"] / "pred.csv"
    code, stdout, err = run_cli("predict", files["json"], path, "-o", out)
    assert code == 2 and "Traceback" not in err
    assert "'hours'" in err and not out.exists()
    import annc
    with pytest.raises(DataError, match="hours"):
        annc.predict(files["json"], path)


def test_scores_are_the_network_outputs(files):
    out = _run_predict(files, files["data"], "--scores")
    table = _read(out)
    assert table[0] == ["prediction"] + [f"score:{c}" for c in CLASSES]
    scores = np.array([[float(v) for v in r[1:]] for r in table[1:]])
    net = files["net"]
    assert np.array_equal(scores, net.scores(load_data(files["data"], inputs_of=net).X))  # the doubles themselves
    assert [r[0] for r in table[1:]] == [CLASSES[i] for i in np.argmax(scores, axis=1)]


def test_stdout_takes_the_csv_and_stderr_the_summary(files):
    code, stdout, err = run_cli("predict", files["json"], files["data"], "-o", "-", "--scores")
    assert code == 0
    assert stdout == _read_text(_run_predict(files, files["data"], "--scores"))
    assert "rows predicted" in err


def _read_text(path) -> str:
    return path.read_text()


def test_nothing_half_written_on_error(files):
    out = files["dir"] / "kept.csv"
    out.write_text("old\n")
    rows = _rows()
    rows[-1][2] = "many"  # a cell that is not a number, in the last row
    bad = _write(files["dir"] / "bad.csv", rows)
    code, stdout, err = run_cli("predict", files["json"], bad, "-o", out)
    assert code == 2 and "many" in err and "Traceback" not in err
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in files["dir"].iterdir() if p.name.startswith(".")) == []  # no temporary file left
    code, stdout, err = run_cli("predict", files["json"], files["data"], "-o", files["dir"])  # a folder
    assert code == 2 and "Traceback" not in err


def test_a_missing_cell_without_a_fill_is_refused(tmp_path):
    net = _network(imputed=())
    json_path, _ = net.save(tmp_path / "nofill")
    data = _write(tmp_path / "data.csv", _rows())
    code, stdout, err = run_cli("predict", json_path, data, "-o", tmp_path / "p.csv")
    assert code == 2 and "'age'" in err and not (tmp_path / "p.csv").exists()
    import annc
    with pytest.raises(MissingValuesError):
        annc.predict(json_path, data)


def test_the_python_api(files):
    import annc
    net, data = files["net"], files["data"]
    expected = net.predict(load_data(data, inputs_of=net).X)
    labels = annc.predict(files["json"], data)
    assert labels.tolist() == expected.tolist()
    labels, scores = annc.predict(net, data, scores=True)
    assert labels.tolist() == expected.tolist() and scores.shape == (len(expected), 3)
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(data, keep_default_na=False).assign(id=range(len(expected)))
    frame = frame[["id", "hours", "label", "occupation", "age"]]  # extra columns and another order
    frame["age"] = frame["age"].replace("", np.nan).astype(float)
    frame["occupation"] = frame["occupation"].replace("", None)
    assert annc.predict(net, frame).tolist() == expected.tolist()
    with pytest.raises(DataError, match="hours"):
        annc.predict(net, frame.drop(columns="hours"))
    with pytest.raises(UsageError):
        annc.predict(42, data)
    with pytest.raises(UsageError):
        annc.predict(net, data, scores="yes")
    assert load_model(files["npz"]).columns == net.columns
