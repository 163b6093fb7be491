"""Weighted representatives (:mod:`annc.training.large.compress`): the MIP of large data is built on
cluster centres, and the verdict is about the exported network on every training row.

The end-to-end test lowers the size at which annc compresses (to 300 distinct rows), so that a
600-row set takes the large-data path in seconds; its verdict is then checked against an
objective recomputed here, independently, by a plain numpy forward pass over all rows."""
import numpy as np
import pytest
from sklearn.datasets import make_moons

import annc.training.large.compress as compress
from annc.app.api import as_data
from annc.export.report import verdict_lines
from annc.training.large.compress import FULL_FLOOR, representatives
from test_largedata import train_on


def moons(n, seed=0):
    return make_moons(n_samples=n, noise=0.3, random_state=seed)


def test_small_data_is_not_compressed():
    assert representatives(as_data(moons(500)), large=1000) is None
    assert representatives(as_data(moons(500)), large=100, merge=False) is None  # the user asked for every row


def test_each_row_becomes_a_centre_of_its_own_class():
    X, y = moons(2000)
    data = as_data((X, y))
    out, how = representatives(data, k=100, large=1000)
    assert how.samples == 2000 and how.rows == 2000 and how.representatives <= 100
    assert np.array_equal(out.y, data.y) and out.X.shape == data.X.shape
    centres = np.unique(out.X, axis=0)
    assert len(centres) == how.representatives
    for c in centres:  # a centre stands for rows of one class only, and lies among them
        rows = np.all(out.X == c, axis=1)
        assert len(set(out.y[rows])) == 1
        assert np.allclose(c, data.X[rows].mean(axis=0))
    again, _ = representatives(data, k=100, large=1000)
    assert np.array_equal(again.X, out.X)  # seeded, work-limited: the same every time


def test_the_verdict_is_the_full_problems():
    X, y = moons(600)
    r = train_on("input 2\nhidden 2 binary\noutput 2\n", (X, y), compress.LargeData(rows=300, representatives=40),
                 time_limit=10, threads=1, out_dir=None, select=False)  # the recipe's l0 0.5, not cross-validation's
    v = r.verdict
    assert v.compression["rows"] == 600 and v.compression["representatives"] <= 40
    net = r.network
    errors = int(np.sum(net.predict(X) != y))  # the exported network, on every training row
    assert v.objective == pytest.approx(errors + 0.5 * net.nonzero_weights())
    assert r.train_accuracy == pytest.approx(1 - errors / len(y))
    assert v.bound_source == FULL_FLOOR and v.lower_bound <= v.objective
    # the representatives' own objective and bound are kept, named, and never the full problem's
    assert v.compression["objective"] is not None
    assert v.status.value == ("optimal" if v.objective <= v.lower_bound + 1e-6 else "feasible")
    lines = verdict_lines(v, r.steps[0].result)  # what annc train prints: the representatives named as such
    large = [line for line in lines if line.strip().startswith("large data")]
    assert len(large) == 1 and "not bounds of the full problem" in " ".join(lines)
    assert r.network.meta["steps"][0]["compression"]["representatives"] == v.compression["representatives"]


def test_a_user_is_told_at_the_start_when_the_data_is_large():
    from annc.training.large.compress import ADVISE_ROWS, size_advice
    assert size_advice(ADVISE_ROWS, 2) is None
    said = size_advice(ADVISE_ROWS + 1, 3)
    assert "--batches" in said and "--ensemble ovo" in said and "representatives" in said
    assert "--ensemble ovo" not in size_advice(ADVISE_ROWS + 1, 2)
