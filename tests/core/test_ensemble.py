"""One-vs-one ensembles: the vote and its tie-break by hand, files, and one loader."""
from __future__ import annotations

import json

import numpy as np
import pytest

from annc.core.ensemble import Ensemble, load_model, model_inputs
from annc.core.errors import UsageError, WeightsError
from annc.core.network import Layer, TrainedNetwork
from annc.core.scaling import Scaling


def member(score_first: float, score_second: float, inputs: int = 1) -> TrainedNetwork:
    """A member whose two scores are constants (zero weights, the scores as biases)."""
    return TrainedNetwork([0, 1], [Layer("linear", np.zeros((inputs, 2)), np.array([score_first, score_second]))])


def test_votes_decide_and_margins_break_ties():
    # classes a, b, c; pairs (a,b) (a,c) (b,c)
    ens = Ensemble(["a", "b", "c"], [member(1, 0), member(0, 2), member(0.5, 0)], [(0, 1), (0, 2), (1, 2)])
    X = np.zeros((1, 1))
    votes, margins = ens.votes_and_margins(X)
    assert votes.tolist() == [[1, 1, 1]]  # a beats b, c beats a, b beats c: a three-way tie
    assert margins.tolist() == [[1 - 2, -1 + 0.5, 2 - 0.5]]  # summed score differences
    assert ens.predict(X).tolist() == ["c"]  # the largest summed margin wins the tie
    s = ens.scores(X)[0]
    assert np.all(np.abs(s - votes[0]) < 0.5)  # margins never outweigh a vote


def test_most_votes_win_over_margins():
    ens = Ensemble([0, 1, 2], [member(0.01, 0), member(0.01, 0), member(0, 100)], [(0, 1), (0, 2), (1, 2)])
    X = np.zeros((3, 1))
    assert ens.predict_index(X).tolist() == [0, 0, 0]  # two votes for class 0, despite class 2's margin
    assert ens.nonzero_weights() == 0


def test_equal_scores_vote_for_the_first_class_of_the_pair():
    ens = Ensemble([0, 1], [member(1, 1)], [(0, 1)])
    assert ens.predict_index(np.zeros((2, 1))).tolist() == [0, 0]


def random_ensemble(rng, classes, d=3, scaling=None):
    pairs = [(i, j) for i in range(len(classes)) for j in range(i + 1, len(classes))]
    members = [TrainedNetwork([classes[i], classes[j]],
                              [Layer("binary", rng.normal(size=(d, 2)), rng.normal(size=2)),
                               Layer("linear", rng.normal(size=(2, 2)), rng.normal(size=2))]) for i, j in pairs]
    return Ensemble(classes, members, pairs, {"training": "ovo"}, scaling)


@pytest.mark.parametrize("classes", [[0, 1, 2], ["x", "y", "z", "w"]])
def test_files_round_trip(tmp_path, classes):
    rng = np.random.default_rng(0)
    scaling = Scaling("standard", rng.normal(size=3), rng.uniform(0.5, 2, size=3))
    ens = random_ensemble(rng, classes, scaling=scaling)
    X = rng.normal(size=(50, 3))
    jpath, npath = ens.save(tmp_path / "e")
    for path in (jpath, npath):
        back = load_model(path)
        assert isinstance(back, Ensemble) and model_inputs(back) == 3
        assert np.array_equal(back.predict_index(X), ens.predict_index(X))
        assert [str(c) for c in back.classes] == [str(c) for c in classes]
        assert np.allclose(back.scaling.center, scaling.center)
    assert json.loads(jpath.read_text())["kind"] == "ovo_ensemble"
    net = TrainedNetwork([0, 1], [Layer("linear", np.eye(3)[:, :2], np.zeros(2))])
    net.save(tmp_path / "n")
    assert isinstance(load_model(tmp_path / "n.weights.json"), TrainedNetwork)
    assert isinstance(load_model(tmp_path / "n.weights.npz"), TrainedNetwork)
    with pytest.raises(WeightsError, match="single network"):
        Ensemble.load(tmp_path / "n.weights.json")


def test_bad_ensembles_are_refused(tmp_path):
    with pytest.raises(UsageError, match="pair"):
        Ensemble([0, 1], [member(0, 1)], [(1, 0)])
    with pytest.raises(UsageError, match="one pair of classes per member"):
        Ensemble([0, 1, 2], [member(0, 1)], [(0, 1), (0, 2)])
    d = random_ensemble(np.random.default_rng(1), [0, 1, 2]).to_dict()
    d["members"][1]["layers"][0]["weight"][0][0] = "NaN"
    (tmp_path / "bad.weights.json").write_text(json.dumps(d))
    with pytest.raises(WeightsError, match=r"members\[1\]"):
        load_model(tmp_path / "bad.weights.json")
    d = random_ensemble(np.random.default_rng(1), [0, 1, 2]).to_dict()
    d["pairs"][0] = [0, 7]
    (tmp_path / "bad2.weights.json").write_text(json.dumps(d))
    with pytest.raises(WeightsError, match="pair"):
        load_model(tmp_path / "bad2.weights.json")


@pytest.mark.parametrize("name, message", [("missing.weights.npz", "weights file not found"),
                                           ("missing.weights.json", "weights file not found"),
                                           ("folder.weights.npz", "is a folder")])
def test_missing_or_odd_weights_paths_exit_2(tmp_path, name, message):
    from conftest import run_cli
    (tmp_path / "folder.weights.npz").mkdir()
    (tmp_path / "d.csv").write_text("x,y\n1,0\n2,1\n")
    for command in (["eval", str(tmp_path / name), str(tmp_path / "d.csv")],
                    ["export", str(tmp_path / name), "--onnx", str(tmp_path / "m.onnx")],
                    ["report", str(tmp_path / name), "-o", str(tmp_path / "r.html")]):
        code, out, err = run_cli(*command)
        assert code == 2 and message in err and "internal error" not in err, (command, err)
    assert not (tmp_path / "m.onnx").exists() and not (tmp_path / "r.html").exists()
