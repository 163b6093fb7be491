"""Results do not depend on the machine's load: annc's search decides by work limits
(seeds, epochs, node limits, sub-MIPs), so two identical runs, one of them beside a
CPU-bound process, export the same network when no wall-clock cap stopped a step."""
import subprocess
import sys

import numpy as np

import annc

SPEC = "input 2\nhidden 2 binary\noutput 2\nloss errors\npenalty l0 0.5\neps 0.05\n"


def _data():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(16, 2)) / 3.0
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(int)
    y[rng.choice(16, 2, replace=False)] ^= 1  # a little label noise
    return X, y


def _train():
    r = annc.train(SPEC, _data(), threads=1)  # no time limit: nothing is capped by the clock
    assert r.status.value == "optimal"  # the full MIP finished too
    search = r.steps[0].verdict.search
    assert search is not None and not search["capped"]
    # recorded once, in the first MIP's verdict, and read from there (annc.solve.verdict.search_record)
    from annc.solve.verdict import search_record
    assert "search" not in r.network.meta and r.network.meta["steps"][0]["search"] == search
    assert search_record(r.network.meta) == search
    return r


def test_same_network_quiet_and_under_load():
    quiet = _train()
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        loaded = _train()
    finally:
        burner.kill()
        burner.wait()
    for a, b in zip(quiet.network.layers, loaded.network.layers):
        assert np.array_equal(a.weight, b.weight) and np.array_equal(a.bias, b.bias)
    assert quiet.steps[0].verdict.search == loaded.steps[0].verdict.search
