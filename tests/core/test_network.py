import numpy as np

from annc.core.network import Layer, TrainedNetwork


def test_pruning_removes_dead_units_and_keeps_the_function():
    rng = np.random.default_rng(0)
    W0, b0 = rng.normal(size=(4, 3)), rng.normal(size=3)
    W1, b1 = rng.normal(size=(3, 3)), rng.normal(size=3)
    W2, b2 = rng.normal(size=(3, 2)), rng.normal(size=2)
    W2[1] = 0.0          # unit 1 of layer 1 reaches nothing
    W1[2] = 0.0          # unit 2 of layer 0 only fed layer 1 ...
    W1[2, 1] = 5.0       # ... unit 1, which is dead: so it is dead too
    net = TrainedNetwork([0, 1], [Layer("binary", W0, b0), Layer("relu", W1, b1), Layer("linear", W2, b2)])
    p = net.pruned()
    assert [L.units for L in p.layers] == [2, 2, 2]
    assert p.meta["pruned_units"] == [1, 1]
    X = rng.normal(size=(50, 4))
    assert np.allclose(net.scores(X), p.scores(X))


def test_export_adds_a_pruned_copy_only_when_units_are_dead(tmp_path):
    W0, W1 = np.ones((2, 2)), np.array([[1.0, -1.0], [0.0, 0.0]])
    net = TrainedNetwork([0, 1], [Layer("binary", W0, np.zeros(2)), Layer("linear", W1, np.zeros(2))])
    names = sorted(p.name for p in net.export(tmp_path / "n"))
    assert names == ["n.pruned.weights.json", "n.pruned.weights.npz", "n.weights.json", "n.weights.npz"]
    assert TrainedNetwork.load(tmp_path / "n.pruned.weights.json").layers[0].units == 1
    W1[1] = 1.0
    assert len(net.export(tmp_path / "m")) == 2
