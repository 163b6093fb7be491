"""ONNX export: onnxruntime (CPU) runs the exported graph and gets annc's own forward pass:
the same classes exactly, the same scores to rounding, for networks and ensembles."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import annc
from annc.core.activations import HIDDEN
from annc.io.datasets import xor_data
from annc.core.ensemble import Ensemble, load_model
from annc.core.errors import UsageError
from annc.core.network import Layer, TrainedNetwork
from annc.export.onnx_export import to_onnx
from annc.core.scaling import Scaling, fit_scaling
from conftest import SPECS, run_cli

CLASS_SETS = [[0, 1], [3, 7, 9], ["a", "b"], ["cat", "dog", "emu", "yak"], [-1, 1, 2, 5, 8]]


def run_onnx(model, X):
    """``(scores, label, class)`` of onnxruntime for a ModelProto or the path of a file."""
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    sess = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
    return sess.run(["scores", "label", "class"], {"X": np.asarray(X, dtype=np.float64)})


def assert_same(model, X, atol=1e-12):
    scores, label, cls = run_onnx(to_onnx(model), X)
    assert label.dtype == np.int64 and label.shape == (len(X),)
    assert np.array_equal(label, model.predict_index(X))  # exactly the classes of annc's forward pass
    ints = all(isinstance(c, int) for c in model.classes)
    assert list(cls) == [c if ints else str(c) for c in model.predict(X)]
    np.testing.assert_allclose(scores, model.scores(X), rtol=1e-12, atol=atol)


def small_int_layers(rng, sizes, acts):
    """Layers of small-integer weights and biases, so that many pre-activations (and score
    differences) are exactly 0: where step units switch on and votes tie."""
    return [Layer(act, rng.integers(-2, 3, size=(a, b)).astype(float), rng.integers(-2, 3, size=b).astype(float))
            for act, a, b in zip([*acts, "linear"], sizes[:-1], sizes[1:])]


@st.composite
def networks(draw):
    d = draw(st.integers(1, 4))
    widths = draw(st.lists(st.integers(0, 4), min_size=0, max_size=3))
    acts = draw(st.lists(st.sampled_from([*HIDDEN, "linear"]), min_size=len(widths),
                         max_size=len(widths)))
    classes = draw(st.sampled_from(CLASS_SETS))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    layers = small_int_layers(rng, [d, *widths, len(classes)], acts)
    X = rng.integers(-3, 4, size=(draw(st.integers(1, 30)), d)).astype(float)
    scaling = fit_scaling(draw(st.sampled_from(["minmax", "standard", "none"])), X)
    return TrainedNetwork(classes, layers).with_scaling(scaling), X


@st.composite
def ensembles(draw):
    d = draw(st.integers(1, 3))
    classes = draw(st.sampled_from(CLASS_SETS[1:]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    C = len(classes)
    pairs = [(i, j) for i in range(C) for j in range(i + 1, C)]
    members = []
    for i, j in pairs:
        widths = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
        acts = [draw(st.sampled_from(list(HIDDEN))) for _ in widths]
        members.append(TrainedNetwork([classes[i], classes[j]], small_int_layers(rng, [d, *widths, 2], acts)))
    X = rng.integers(-3, 4, size=(draw(st.integers(1, 30)), d)).astype(float)
    scaling = fit_scaling(draw(st.sampled_from(["minmax", "standard", "none"])), X)
    return Ensemble(classes, members, pairs, {}, None if scaling.identity else scaling), X


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks())
def test_random_networks_of_every_activation(case):
    net, X = case
    assert_same(net, X)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ensembles())
def test_random_ensembles_vote_as_annc(case):
    ens, X = case
    assert_same(ens, X)


@pytest.mark.parametrize("act, off", [(a.name, a.low) for a in HIDDEN.values() if a.step])
@pytest.mark.parametrize("scaled", [False, True])
def test_a_step_unit_is_on_at_exactly_zero(act, off, scaled):
    """``h = step(x)``; scores ``[0.5 - h, h]`` pick class 1 exactly where the unit is on."""
    net = TrainedNetwork(["off", "on"], [Layer(act, [[1.0]], [0.0]), Layer("linear", [[-1.0, 1.0]], [0.5, 0.0])])
    X, expected = np.array([[-1.0], [0.0], [1.0], [-1e-300]]), ["off", "on", "on", "off"]
    if scaled:  # (X - 2) / 3 is exactly 0 at X = 2
        net = net.with_scaling(Scaling("standard", np.array([2.0]), np.array([3.0])))
        X, expected = X[:3] * 3 + 2, expected[:3]
    assert_same(net, X)
    assert list(run_onnx(to_onnx(net), X)[2]) == expected
    assert run_onnx(to_onnx(net), X)[0][0, 1] == off


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny XOR net (binary, and ReLU) trained on HiGHS, with standard input scaling."""
    root = tmp_path_factory.mktemp("onnx")
    X, y = xor_data(24, noise=0.1, seed=0)
    runs = {}
    for name in ("xor", "relu"):
        spec = (SPECS / f"{name}.ann").read_text() + "\nscale standard\n"
        runs[name] = annc.train(spec, (X, y), time_limit=10, out_dir=root / name)
    return root, X, runs


@pytest.mark.parametrize("name", ["xor", "relu"])
def test_trained_networks(trained, name):
    _, X, runs = trained
    r = runs[name]
    assert r.network.scaling is not None and r.network.layers[0].activation == ("binary" if name == "xor" else "relu")
    assert_same(r.network, X)
    ops = [n.op_type for n in to_onnx(r.network).graph.node]
    assert ops[:2] == ["Sub", "Div"]  # the scaling is in the graph
    assert ("GreaterOrEqual" in ops) == (name == "xor") and ("Relu" in ops) == (name == "relu")


def test_the_cli_and_the_api_write_a_file_onnxruntime_runs(trained, tmp_path):
    root, X, runs = trained
    weights = next((root / "xor").rglob("*.weights.json"))
    expected = load_model(weights).predict_index(X)
    code, out, err = run_cli("export", str(weights), "--onnx", str(tmp_path / "sub" / "xor.onnx"))
    assert code == 0, err
    assert f"wrote {tmp_path / 'sub' / 'xor.onnx'}" in out and "classes 0, 1" in out and "standard" in out
    model = onnx.load(str(tmp_path / "sub" / "xor.onnx"))
    props = {p.key: p.value for p in model.metadata_props}
    assert props["classes"] == "[0, 1]" and props["annc_version"] == annc.__version__
    onnx.checker.check_model(model, full_check=True)
    assert np.array_equal(run_onnx(tmp_path / "sub" / "xor.onnx", X)[1], expected)
    # the API writes the same graph, from a result, a network or a weights file (.json or .npz)
    for k, source in enumerate((runs["xor"], runs["xor"].network, weights, weights.with_suffix(".npz"))):
        path = annc.export_onnx(source, tmp_path / f"api{k}.onnx")
        assert path == tmp_path / f"api{k}.onnx"
        assert np.array_equal(run_onnx(path, X)[1], expected)
    assert not [p for p in tmp_path.rglob("*") if ".tmp" in p.name or p.name.startswith(".")]


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_an_ensemble_file_round_trips(tmp_path, suffix):
    rng = np.random.default_rng(3)
    classes, pairs = [4, 5, 6], [(0, 1), (0, 2), (1, 2)]
    members = [TrainedNetwork([classes[i], classes[j]], small_int_layers(rng, [2, 3, 2], ["sign"])) for i, j in pairs]
    X = rng.integers(-3, 4, size=(40, 2)).astype(float)
    ens = Ensemble(classes, members, pairs, {}, fit_scaling("minmax", X))
    jpath, npath = ens.save(tmp_path / "ens")
    weights = jpath if suffix == ".json" else npath
    code, out, err = run_cli("export", str(weights), "--onnx", str(tmp_path / "ens.onnx"))
    assert code == 0, err
    assert "classes 4, 5, 6" in out
    scores, label, cls = run_onnx(tmp_path / "ens.onnx", X)
    assert np.array_equal(label, ens.predict_index(X))  # the vote, exactly
    np.testing.assert_allclose(scores, ens.scores(X), rtol=1e-12, atol=1e-12)
    loaded = load_model(weights)  # .npz keeps the labels as text
    assert list(cls) == list(loaded.predict(X))
    assert all(isinstance(c, str if suffix == ".npz" else np.integer) for c in cls)
    assert onnx.load(str(tmp_path / "ens.onnx")).graph.name == "annc_ensemble"


@pytest.mark.parametrize("args, message", [
    (["missing.weights.json"], "weights file not found"),
    (["{w}", "--onnx", "{w}/m.onnx"], "cannot write"),  # its folder is a file
    (["{w}", "--onnx", "{tmp}"], "is a folder"),
    (["{tmp}/bad.weights.json", "--onnx", "{tmp}/m.onnx"], "not a readable weights file"),
    (["{tmp}/nan.weights.json", "--onnx", "{tmp}/m.onnx"], "nan.weights.json"),
])
def test_cli_errors_exit_2_and_write_nothing(args, message, tmp_path):
    w = tmp_path / "n.weights.json"
    TrainedNetwork([0, 1], [Layer("linear", np.eye(2), np.zeros(2))]).save(tmp_path / "n")
    (tmp_path / "bad.weights.json").write_text("{not json")
    (tmp_path / "nan.weights.json").write_text(w.read_text().replace("1.0", "NaN", 1))
    argv = ["export", *[a.format(w=w, tmp=tmp_path) for a in args]]
    if argv == ["export", "missing.weights.json"]:
        argv += ["--onnx", str(tmp_path / "m.onnx")]
    before = sorted(tmp_path.rglob("*"))
    code, _, err = run_cli(*argv)
    assert code == 2 and message in err and "Traceback" not in err, (code, err)
    assert sorted(tmp_path.rglob("*")) == before


def test_onnx_is_required(tmp_path, capsys):
    from annc.app.cli import main
    with pytest.raises(SystemExit) as e:  # an argparse usage error
        main(["export", str(tmp_path / "n.weights.json")])
    assert e.value.code == 2 and "--onnx" in capsys.readouterr().err


def test_what_cannot_be_exported_is_a_usage_error(tmp_path):
    good = [Layer("binary", np.eye(2), np.zeros(2)), Layer("linear", np.eye(2), np.zeros(2))]
    bad = [
        (object(), "TrainedNetwork or an Ensemble"),
        (TrainedNetwork([0, 1], []), "no layers"),
        (TrainedNetwork([0, 1, 2], good), "2 units but there are 3 classes"),
        (TrainedNetwork([0, 1], [good[0], Layer("linear", [[1.0, np.inf], [0, 0]], [0, 0])]), "layer 1 weight"),
        (TrainedNetwork([0, 1], [good[0], Layer("binary", np.eye(2), np.zeros(2))]), "must be linear"),
    ]
    for net, message in bad:
        with pytest.raises(UsageError, match=message):
            annc.export_onnx(net, tmp_path / "m.onnx")
    with pytest.raises(UsageError, match="file path"):
        annc.export_onnx(TrainedNetwork([0, 1], good), 42)
    assert list(Path(tmp_path).iterdir()) == []
