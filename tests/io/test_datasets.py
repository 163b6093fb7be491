import csv

import numpy as np

from annc.io.datasets import write_csv, xor_data, xor_split


def _parity(X):
    return (X[:, 0] + X[:, 2] + X[:, 4]).astype(int) % 2


def test_clean_labels_are_parity_of_x1_x3_x5():
    X, y = xor_data(500, noise=0.0, seed=3)
    assert X.shape == (500, 5) and X.dtype == float and y.dtype.kind == "i"
    assert set(np.unique(X)) == {0.0, 1.0}
    np.testing.assert_array_equal(y, _parity(X))
    # all 32 inputs appear (uniform over {0,1}^5, with replacement)
    assert len({tuple(r) for r in X}) == 32


def test_noise_rate_is_close_to_p():
    X, y = xor_data(20000, noise=0.1, seed=0)
    rate = np.mean(y != _parity(X))
    assert abs(rate - 0.1) < 0.01  # sd is about 0.002


def test_same_seed_same_data():
    a = xor_data(100, seed=5)
    b = xor_data(100, seed=5)
    c = xor_data(100, seed=6)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_split_sizes_and_test_noise():
    Xtr, ytr, Xte, yte = xor_split(seed=0)
    assert Xtr.shape == (1000, 5) and ytr.shape == (1000,)
    assert Xte.shape == (250, 5) and yte.shape == (250,)
    assert 0.05 < np.mean(ytr != _parity(Xtr)) < 0.15
    assert np.mean(yte != _parity(Xte)) > 0  # test labels are noisy by default
    _, _, Xc, yc = xor_split(n_train=50, n_test=300, seed=1, test_noise=0.0)
    np.testing.assert_array_equal(yc, _parity(Xc))
    again = xor_split(seed=0)
    np.testing.assert_array_equal(again[2], Xte)


def test_write_csv(tmp_path):
    X, y = xor_data(4, seed=0)
    path = write_csv(tmp_path / "xor.csv", X, y)
    rows = list(csv.reader(open(path)))
    assert rows[0] == ["x1", "x2", "x3", "x4", "x5", "label"]
    assert len(rows) == 5
    assert rows[1] == [str(int(v)) for v in X[0]] + [str(y[0])]
