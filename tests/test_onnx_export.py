"""ONNX export: onnxruntime runs the exported graph and gets annc's own forward pass."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import annc
from annc.errors import UsageError
from annc.network import Layer, TrainedNetwork
from annc.scaling import fit_scaling
from conftest import SPECS, run_cli


def run_onnx(model, X):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    scores, label, cls = sess.run(["scores", "label", "class"], {"X": np.asarray(X, dtype=np.float64)})
    return scores, label, cls


def assert_same(net: TrainedNetwork, X):
    from annc.onnx_export import to_onnx
    scores, label, cls = run_onnx(to_onnx(net), X)
    assert np.array_equal(label, net.predict_index(X))  # exactly the classes of annc's forward pass
    assert list(cls) == [str(c) if isinstance(cls[0], str) else c for c in net.predict(X)]
    np.testing.assert_allclose(scores, net.scores(X), rtol=1e-12, atol=1e-12)


@st.composite
def networks(draw):
    """Random dense networks with small-integer weights and inputs, so that many
    pre-activations are exactly 0 (where a step unit switches on)."""
    d = draw(st.integers(1, 4))
    widths = draw(st.lists(st.integers(1, 4), min_size=0, max_size=3))
    acts = draw(st.lists(st.sampled_from(["binary", "sign", "relu", "linear"]), min_size=len(widths),
                         max_size=len(widths)))
    classes = draw(st.sampled_from([[0, 1], [3, 7, 9], ["a", "b"], ["cat", "dog", "emu", "yak"]]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    sizes = [d, *widths, len(classes)]
    layers = [Layer(act, rng.integers(-2, 3, size=(a, b)).astype(float), rng.integers(-2, 3, size=b).astype(float))
              for act, a, b in zip([*acts, "linear"], sizes[:-1], sizes[1:])]
    X = rng.integers(-3, 4, size=(draw(st.integers(1, 30)), d)).astype(float)
    scaling = fit_scaling(draw(st.sampled_from(["minmax", "standard", "none"])), X)
    return TrainedNetwork(classes, layers).with_scaling(scaling), X


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks())
def test_random_networks_of_every_activation(case):
    net, X = case
    assert_same(net, X)


def test_trained_network_and_the_cli(xor_csv, tmp_path):
    r = annc.train(SPECS / "xor.ann", xor_csv, time_limit=20, out_dir=tmp_path / "out")
    X = np.loadtxt(xor_csv, delimiter=",", skiprows=1)[:, :5]
    assert_same(r.network, X)
    weights = tmp_path / "out" / "xor.weights.json"
    code, out, err = run_cli("export", str(weights), "--onnx", str(tmp_path / "xor.onnx"))
    assert code == 0, err
    assert "wrote" in out and "classes 0, 1" in out
    model = onnx.load(str(tmp_path / "xor.onnx"))
    assert {p.key for p in model.metadata_props} >= {"classes", "annc_version"}
    _, label, _ = run_onnx(model, X)
    assert np.array_equal(label, TrainedNetwork.load(weights).predict_index(X))
    # the API writes the same graph, from a result, a network or a weights file
    for source in (r, r.network, weights):
        path = annc.export_onnx(source, tmp_path / "api.onnx")
        assert np.array_equal(run_onnx(onnx.load(str(path)), X)[1], label)


def test_scaling_is_in_the_graph(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(50.0, 20.0, size=(40, 3))
    net = TrainedNetwork([0, 1], [Layer("relu", rng.normal(size=(3, 4)), rng.normal(size=4)),
                                  Layer("linear", rng.normal(size=(4, 2)), rng.normal(size=2))])
    scaled = net.with_scaling(fit_scaling("standard", X))
    assert_same(scaled, X)
    from annc.onnx_export import to_onnx
    ops = [n.op_type for n in to_onnx(scaled).graph.node]
    assert ops[:2] == ["Sub", "Div"] and "Sub" not in [n.op_type for n in to_onnx(net).graph.node][:1]


@pytest.mark.parametrize("args, message", [
    (["missing.weights.json"], "weights file not found"),
    (["{w}", "--onnx", "{w}/m.onnx"], "cannot write"),  # a folder that is a file
    (["{w}", "--onnx", "{tmp}"], "is a folder"),
    (["{tmp}/bad.weights.json", "--onnx", "{tmp}/m.onnx"], "not a readable weights file"),
])
def test_cli_errors_write_nothing(args, message, tmp_path):
    w = tmp_path / "n.weights.json"
    TrainedNetwork([0, 1], [Layer("linear", np.eye(2), np.zeros(2))]).save(tmp_path / "n")
    (tmp_path / "bad.weights.json").write_text("{not json")
    argv = ["export", *[a.format(w=w, tmp=tmp_path) for a in args]]
    if "--onnx" not in argv:
        argv += ["--onnx", str(tmp_path / "m.onnx")]
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run_cli(*argv)
    assert code == 2 and message in err and "Traceback" not in err
    assert sorted(tmp_path.rglob("*")) == before


def test_api_rejects_what_is_not_a_network(tmp_path):
    with pytest.raises(UsageError):
        annc.export_onnx(object(), tmp_path / "m.onnx")
    with pytest.raises(UsageError):
        annc.export_onnx(TrainedNetwork([0, 1], [Layer("linear", np.eye(2), np.zeros(2))]), 42)
    assert not (tmp_path / "m.onnx").exists()
