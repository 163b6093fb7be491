"""annc eval: accuracy and confusion matrix of a weights file on any CSV."""
import numpy as np

from conftest import run_cli, assert_names
from annc.core.network import Layer, TrainedNetwork


def test_eval_prints_accuracy_and_confusion_matrix(tmp_path):
    # a hand-made net: class "b" iff x1 + x2 >= 1
    net = TrainedNetwork(["a", "b"], [Layer("binary", [[1.0], [1.0]], [-1.0]),
                                      Layer("linear", [[0.0, 1.0]], [0.5, 0.0])])
    net.save(tmp_path / "n")
    csv = tmp_path / "t.csv"
    csv.write_text("x1,x2,y\n0,0,a\n1,0,b\n0,1,a\n1,1,b\n0,0,b\n")
    code, out, err = run_cli("eval", tmp_path / "n.weights.json", csv)
    assert code == 0, err
    assert "5 samples, accuracy 0.6000" in out
    rows = [line.split() for line in out.splitlines()[2:4]]
    assert rows == [["a", "1", "1"], ["b", "1", "2"]]  # true a: 1 right, 1 wrong; true b: 1 wrong, 2 right
    pred = net.predict(np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0, 0.0]]))
    assert list(pred) == ["a", "b", "b", "b", "a"]
    code, out, err = run_cli("eval", tmp_path / "n.weights.npz", csv)
    assert code == 0 and "accuracy 0.6000" in out


def test_eval_rejects_unknown_labels_and_wrong_width(tmp_path):
    net = TrainedNetwork(["a", "b"], [Layer("linear", [[1.0, 0.0], [0.0, 1.0]], [0.0, 0.0])])
    net.save(tmp_path / "n")
    bad = tmp_path / "bad.csv"
    bad.write_text("x1,x2,y\n0,1,a\n1,0,c\n")
    code, _, err = run_cli("eval", tmp_path / "n.weights.json", bad)
    assert code == 2 and "row 3" in err and "'c'" in err
    wide = tmp_path / "wide.csv"
    wide.write_text("x1,x2,x3,y\n0,1,1,a\n1,0,1,b\n")
    code, _, err = run_cli("eval", tmp_path / "n.weights.json", wide)
    assert code == 2
    assert_names(err, "3 feature columns", "2 inputs")
