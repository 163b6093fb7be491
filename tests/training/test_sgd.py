import numpy as np
import pytest

from annc.core.network import Layer, TrainedNetwork
from annc.training.warmstart.sgd import SgdSettings, _init_params, loss_and_gradients, train_greedy_sgd, train_sgd


def _xent(net, X, y):
    s = net.scores(X)
    s = s - s.max(axis=1, keepdims=True)
    return float(np.mean(np.log(np.exp(s).sum(axis=1)) - s[np.arange(len(y)), y]))


def test_relu_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(7, 3))
    y = np.array([0, 1, 2, 1, 0, 2, 2])
    W, b = _init_params([3, 4, 5, 3], rng)
    acts = ["relu", "relu"]
    loss, gW, gb = loss_and_gradients(W, b, acts, X, y)
    net = TrainedNetwork([0, 1, 2], [Layer("relu", W[0], b[0]), Layer("relu", W[1], b[1]),
                                     Layer("linear", W[2], b[2])])
    assert loss == pytest.approx(_xent(net, X, y), rel=1e-12)
    h = 1e-6
    for params, grads in ((W, gW), (b, gb)):
        for p, g in zip(params, grads):
            assert g.shape == p.shape
            num = np.zeros_like(p)
            for idx in np.ndindex(p.shape):
                old = p[idx]
                p[idx] = old + h
                up = loss_and_gradients(W, b, acts, X, y)[0]
                p[idx] = old - h
                down = loss_and_gradients(W, b, acts, X, y)[0]
                p[idx] = old
                num[idx] = (up - down) / (2 * h)
            np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-8)


def test_binary_backward_is_hard_tanh_straight_through():
    # one binary unit, x = 1: pre = w + b; gradient flows only when |pre| <= 1
    X = np.ones((1, 1))
    for pre, flows in ((0.5, True), (-0.9, True), (1.5, False), (-3.0, False)):
        W = [np.array([[pre]]), np.array([[1.0, -1.0]])]
        b = [np.zeros(1), np.zeros(2)]
        _, gW, _ = loss_and_gradients(W, b, ["binary"], X, np.array([0]))
        assert (gW[0][0, 0] != 0) == flows


def test_relu_sgd_separates_linearly_separable_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    X = X[np.abs(X[:, 0] + 0.5 * X[:, 1]) > 0.2]  # keep a margin
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    net = train_sgd(X, y, [4], "relu", settings=SgdSettings(epochs=500, seed=0))
    assert np.mean(net.predict_index(X) == y) == 1.0
    assert net.classes == [0, 1]
    assert [L.activation for L in net.layers] == ["relu", "linear"]
    assert net.meta["method"] == "sgd" and net.meta["epochs"] == 500
    assert net.meta["final_loss"] == pytest.approx(_xent(net, X, y), rel=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_ste_learns_two_bit_xor(seed):
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 25, dtype=float)
    y = (X[:, 0] != X[:, 1]).astype(int)
    net = train_sgd(X, y, [16], "binary", settings=SgdSettings(epochs=2000, seed=seed))
    # any linear classifier gets at most 3/4 of the four points right
    assert np.mean(net.predict_index(X) == y) == 1.0
    h = net.forward(X)[0]
    assert set(np.unique(h)) <= {0.0, 1.0}


def test_deterministic_given_seed_and_seed_matters():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(50, 5)).astype(float)
    y = rng.integers(0, 2, size=50)
    a = train_sgd(X, y, [3, 3], "relu", settings=SgdSettings(epochs=20, seed=7))
    b = train_sgd(X, y, [3, 3], "relu", settings=SgdSettings(epochs=20, seed=7))
    c = train_sgd(X, y, [3, 3], "relu", settings=SgdSettings(epochs=20, seed=8))
    for La, Lb in zip(a.layers, b.layers):
        np.testing.assert_array_equal(La.weight, Lb.weight)
        np.testing.assert_array_equal(La.bias, Lb.bias)
    assert not np.array_equal(a.layers[0].weight, c.layers[0].weight)


def test_string_classes_are_mapped():
    X = np.array([[0.0], [1.0], [0.0], [1.0]])
    y = np.array(["no", "yes", "no", "yes"])
    net = train_sgd(X, y, [8], "relu", classes=["no", "yes"], settings=SgdSettings(epochs=500))
    assert list(net.predict(X)) == list(y)
    with pytest.raises(ValueError):
        train_sgd(X, y, [2], "relu", classes=["no", "maybe"], settings=SgdSettings(epochs=1))


@pytest.mark.parametrize("activation", ["binary", "relu"])
def test_greedy_shapes_activations_and_fine_tuning(activation):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 5)).astype(float)
    y = (X[:, 0] + X[:, 2] + X[:, 4]) % 2
    net = train_greedy_sgd(X, y.astype(int), [4, 3, 2], activation, settings=SgdSettings(epochs=50, seed=1))
    assert [L.weight.shape for L in net.layers] == [(5, 4), (4, 3), (3, 2), (2, 2)]
    assert [L.activation for L in net.layers] == [activation] * 3 + ["linear"]
    assert net.classes == [0, 1]
    assert net.meta["method"] == "greedy_sgd" and len(net.meta["layer_losses"]) == 3
    assert net.meta["final_loss"] == pytest.approx(_xent(net, X, y.astype(int)), rel=1e-9)

    same = train_sgd(X, y.astype(int), [4, 3, 2], activation, settings=SgdSettings(epochs=0), init=net)
    assert same.classes == net.classes
    for L0, L1 in zip(net.layers, same.layers):
        assert L0.activation == L1.activation
        np.testing.assert_array_equal(L0.weight, L1.weight)
        np.testing.assert_array_equal(L0.bias, L1.bias)
        assert L1.weight is not L0.weight
    assert same.meta["method"] == "greedy_sgd+sgd"

    tuned = train_sgd(X, y.astype(int), [4, 3, 2], activation, settings=SgdSettings(epochs=30), init=net)
    assert not all(np.array_equal(a.weight, b.weight) for a, b in zip(net.layers, tuned.layers))
    np.testing.assert_array_equal(net.layers[0].weight, same.layers[0].weight)  # init untouched


def test_init_must_match_architecture():
    X = np.eye(3)
    y = np.array([0, 1, 1])
    net = train_sgd(X, y, [2], "relu", settings=SgdSettings(epochs=1))
    with pytest.raises(ValueError):
        train_sgd(X, y, [3], "relu", settings=SgdSettings(epochs=1), init=net)
    with pytest.raises(ValueError):
        train_sgd(X, y, [2], "binary", settings=SgdSettings(epochs=1), init=net)
    with pytest.raises(ValueError):
        train_sgd(X, y, [2], "sigmoid", settings=SgdSettings(epochs=1))


def test_lasso_steps_set_weights_to_exact_zeros():
    """``l1``: proximal (soft-thresholding) steps on the weights, not the biases; a shrink
    larger than any weight leaves every weight exactly 0."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = (X[:, 0] > 0.5).astype(int)
    dense = train_sgd(X, y, [2], "relu", settings=SgdSettings(epochs=50, seed=0))
    assert dense.meta["l1"] == 0.0 and dense.nonzero_weights() == 3 * 2 + 2 * 2
    gone = train_sgd(X, y, [2], "relu", settings=SgdSettings(epochs=50, seed=0, l1=100.0))  # lr * l1 = 2 > every |w|
    assert gone.nonzero_weights() == 0 and all(np.all(L.weight == 0.0) for L in gone.layers)
    assert any(np.any(L.bias != 0.0) for L in gone.layers)  # biases are not penalised
