"""The ``sign`` activation (outputs -1 or +1): one module, :mod:`annc.formulations.sign`,
plus its registration.  It compiles, HiGHS solves it, ``annc decode`` verifies the
exported network, and the start skips it cleanly (SGD does not train sign units)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from annc.formulations import export_bias_shifts, formulate
from annc.core.limits import data_size
from annc.core.network import TrainedNetwork, activate
from annc.io.problem import make_problem
from annc.io.spec import parse_spec
from annc.io.varmap import map_spec
from annc.training.warmstart.pool import sgd_start
from annc.training.search import mip_start

from conftest import SPECS, run_cli

SIGN = "input 5\nhidden 3 sign\noutput 2\nloss nll\n"


def test_sign_is_plus_or_minus_one():
    assert activate("sign", np.array([-0.5, 0.0, 2.0])).tolist() == [-1.0, 1.0, 1.0]


def test_a_sign_net_compiles_solves_and_decodes(tmp_path):
    import highspy
    code, out, err = run_cli("compile", "--no-start", _spec(tmp_path, SIGN), SPECS / "xor_sample.csv", "-o", tmp_path / "out")
    assert code == 0, out + err
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", 60.0)
    h.readModel(str(tmp_path / "out" / "sign.mps"))
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    h.writeSolution(str(tmp_path / "sign.sol"), 1)
    code, out, err = run_cli("decode", tmp_path / "sign.sol", "-o", tmp_path / "dec")
    assert code == 0, out + err
    assert "verification          passed" in out
    assert "layer 0 activations" in out  # exact units: compared with the solver's 2h - 1
    net = TrainedNetwork.load(tmp_path / "dec" / "sign.weights.json")
    assert [L.activation for L in net.layers] == ["sign", "linear"]
    hidden = net.forward(np.eye(5))[0]
    assert set(np.unique(hidden)) <= {-1.0, 1.0}
    vmap = json.loads((tmp_path / "out" / "sign.map.json").read_text())
    assert export_bias_shifts(map_spec(vmap))[0] == pytest.approx(-0.005)


@pytest.mark.parametrize("text", [SIGN, "input 3\nhidden 2 sign\nhidden 2 sign\noutput 3\nloss errors\n",
                                  "input 2\nhidden 2 relu\nhidden 3 sign\nhidden 2 binary\noutput 2\nP 2\n"
                                  "penalty l1 0.1\nsymmetry count\n"])
def test_size_estimate_of_sign_nets(text):
    spec = parse_spec(text)
    rng = np.random.default_rng(1)
    X = rng.integers(-1, 3, size=(12, spec.inputs)).astype(float)
    y = np.r_[np.arange(spec.classes), rng.integers(0, spec.classes, 12 - spec.classes)]
    st = formulate(make_problem(spec, X, y, list(range(spec.classes)))).stats()
    est = data_size(spec, X)
    assert est.nonzeros >= st["nonzeros"] and est.nonzeros <= 1.3 * st["nonzeros"]
    if spec.loss == "nll":
        assert (est.columns, est.rows) == (st["columns"], st["rows"])


def test_the_start_skips_sign_nets_cleanly():
    spec = parse_spec(SIGN)
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 2, size=(20, 5)).astype(float), rng.integers(0, 2, 20)
    pb = make_problem(spec, X, y, [0, 1])
    m = formulate(pb)
    assert sgd_start(m, pb) is None
    # no SGD seed; the start pool's linear separators do fit sign units: a start is feasible
    x = mip_start(m, pb, budget=5)
    assert x is None or m.check(x).ok


def _spec(tmp_path, text):
    path = tmp_path / "sign.ann"
    path.write_text(text)
    return path
