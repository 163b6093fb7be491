"""Input scaling (:mod:`annc.core.scaling`): fitted on the training data only, recorded in the map
and in every exported network, applied by ``predict``, ``annc eval`` and ``annc decode``."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import annc
from annc.app.cli import main
from annc.core.errors import MapError, SpecError, UsageError, WeightsError
from annc.core.network import TrainedNetwork
from annc.core.scaling import Scaling, fit_scaling
from annc.io.spec import format_spec, parse_spec
from annc.io.mapfile import load_map

SPEC = "input 2\nhidden 2 binary\noutput 2\n"


def natural_scale_data(n=40, seed=0):
    """Two features in the hundreds and thousands; the class is which one is larger
    relative to its range: not separable by weights in [-1, 1] without scaling."""
    rng = np.random.default_rng(seed)
    X = np.c_[rng.uniform(200, 400, n), rng.uniform(1000, 5000, n)]
    y = ((X[:, 0] - 200) / 200 > (X[:, 1] - 1000) / 4000).astype(int)
    return X, y


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 4)),
              elements=st.floats(-1e6, 1e6, allow_nan=False)),
       st.sampled_from(["minmax", "standard", "none"]))
def test_fit_maps_the_training_data_as_documented(X, kind):
    s = fit_scaling(kind, X)
    Z = s.apply(X)
    assert np.all(np.isfinite(Z)) and np.all(s.width > 0)
    varies = np.ptp(X, axis=0) > 1e-9 * np.maximum(np.abs(X).max(axis=0), 1.0)
    if kind == "minmax":
        assert np.all(Z >= -1e-9) and np.all(Z <= 1 + 1e-9)
        assert np.allclose(Z.min(axis=0)[varies], 0.0, atol=1e-9)
        assert np.allclose(Z.max(axis=0)[varies], 1.0, atol=1e-9)
    elif kind == "standard":
        assert np.allclose(Z.mean(axis=0), 0.0, atol=1e-6)
        assert np.allclose(Z.std(axis=0)[varies], 1.0, atol=1e-6)
    else:
        assert s.identity and np.array_equal(Z, X)
    assert Scaling.from_dict(json.loads(json.dumps(s.to_dict()))).to_dict() == s.to_dict()


def test_binary_features_are_unchanged_by_minmax():
    X = np.array([[0, 1, 0], [1, 0, 1], [1, 1, 0.0]])
    assert fit_scaling("minmax", X).identity


def test_constant_feature_is_only_shifted():
    s = fit_scaling("minmax", np.array([[5.0, 1.0], [5.0, 3.0]]))
    assert s.width[0] == 1.0 and s.center[0] == 5.0


@pytest.mark.parametrize("bad", [{"kind": "log", "center": [0], "width": [1]},
                                 {"kind": "minmax", "center": [0], "width": [0]},
                                 {"kind": "minmax", "center": [0, 1], "width": [1]},
                                 {"kind": "minmax", "center": ["a"], "width": [1]},
                                 {"kind": "minmax", "center": [0]}, [1, 2]])
def test_a_bad_scaling_record_is_refused(bad):
    with pytest.raises(UsageError):
        Scaling.from_dict(bad)


def test_spec_key_defaults_to_minmax_round_trips_and_rejects_unknown():
    assert parse_spec(SPEC).scale == "minmax"
    spec = parse_spec(SPEC + "scale standard\n")
    assert spec.scale == "standard" and parse_spec(format_spec(spec)) == spec
    with pytest.raises(SpecError, match="scale"):
        parse_spec(SPEC + "scale log\n")


def test_training_on_natural_scale_uses_and_exports_the_scaling(tmp_path):
    X, y = natural_scale_data()
    Xt, yt = natural_scale_data(30, seed=1)
    r = annc.train(SPEC, (X, y), (Xt, yt), out_dir=tmp_path, name="nat", time_limit=10)
    net = r.network
    assert net.scaling is not None and net.scaling.kind == "minmax"
    assert np.allclose(net.scaling.center, X.min(axis=0)) and np.allclose(net.scaling.width, np.ptp(X, axis=0))
    # the exported network takes raw features: its accuracy is the reported one
    assert np.mean(r.predict(X) == y) == pytest.approx(r.train_accuracy)
    assert np.mean(r.predict(Xt) == yt) == pytest.approx(r.test_accuracy)
    assert np.array_equal(net.core().predict_index(net.scaling.apply(X)), net.predict_index(X))
    # the map and both weights files record it
    vmap = load_map(tmp_path / "nat.map.json")
    assert vmap["scaling"] == net.scaling.to_dict()
    for suffix in ("json", "npz"):
        back = TrainedNetwork.load(tmp_path / f"nat.weights.{suffix}")
        assert back.scaling.to_dict() == net.scaling.to_dict()
        assert np.array_equal(back.predict_index(Xt), net.predict_index(Xt))


@pytest.mark.slow  # over 20 s on a 2-core machine: pytest -m slow
def test_without_scaling_natural_scale_data_fit_worse_or_equal():
    """The same data with ``scale none``: weights in [-1, 1] act on features in the
    thousands, so a binary unit's threshold can only sit near the origin."""
    X, y = natural_scale_data()
    scaled = annc.train(SPEC, (X, y), out_dir=None, time_limit=10)
    raw = annc.train(SPEC, (X, y), out_dir=None, time_limit=10, scale="none")
    assert raw.network.scaling is None
    assert scaled.train_accuracy >= raw.train_accuracy


def test_scale_option_overrides_the_spec_and_is_checked():
    X, y = natural_scale_data()
    r = annc.train(SPEC + "scale none\n", (X, y), out_dir=None, time_limit=5, scale="standard")
    assert r.network.scaling.kind == "standard"
    assert r.steps[0].compiled.spec.scale == "standard"
    with pytest.raises(UsageError, match="scale"):
        annc.train(SPEC, (X, y), out_dir=None, scale="log")
    with pytest.raises(UsageError, match="scale"):
        annc.compile(SPEC, (X, y), scale=3)


def _csv(path, X, y):
    path.write_text("a,b,label\n" + "".join(f"{float(u)!r},{float(v)!r},{c}\n" for (u, v), c in zip(X, y)))
    return path


def test_cli_compile_decode_and_eval_apply_the_recorded_scaling(tmp_path, capsys):
    X, y = natural_scale_data()
    data = _csv(tmp_path / "d.csv", X, y)
    (tmp_path / "n.ann").write_text(SPEC)
    out = tmp_path / "out"
    assert main(["train", str(tmp_path / "n.ann"), str(data), "--time-limit", "10", "-q", "-o", str(out),
                 "--scale", "standard"]) == 0
    trained = TrainedNetwork.load(out / "n.weights.json")
    assert trained.scaling.kind == "standard"
    # decoding the solver's own point again (the start file is a point of the model) gives the scaling too
    assert main(["compile", str(tmp_path / "n.ann"), str(data), "-o", str(tmp_path / "c"), "--scale", "standard",
                 "--start-budget", "2"]) == 0
    assert main(["decode", str(tmp_path / "c" / "n.start.sol"), "--map", str(tmp_path / "c" / "n.map.json"),
                 "-o", str(tmp_path / "dec")]) == 0
    decoded = TrainedNetwork.load(tmp_path / "dec" / "n.start.weights.json")
    assert decoded.scaling.to_dict() == trained.scaling.to_dict()
    capsys.readouterr()
    assert main(["eval", str(out / "n.weights.json"), str(data)]) == 0
    acc = float(capsys.readouterr().out.split("accuracy ")[1].split()[0])
    assert acc == pytest.approx(np.mean(trained.predict(X).astype(int) == y), abs=1e-4)


def test_greedy_training_scales_only_the_first_layer():
    X, y = natural_scale_data(60)
    r = annc.train("input 2\nhidden 2 binary\nhidden 2 binary\noutput 2\ntraining greedy\n", (X, y),
                   out_dir=None, time_limit=5)
    assert r.network.scaling is not None
    assert [s.compiled.spec.scale for s in r.steps] == ["minmax", "none"]
    assert np.mean(r.predict(X) == y) == pytest.approx(r.train_accuracy)


def test_a_map_with_an_edited_scaling_is_refused(tmp_path):
    X, y = natural_scale_data()
    annc.compile(SPEC, (X, y), out_dir=tmp_path, name="m", start=False)
    path = tmp_path / "m.map.json"
    vmap = json.loads(path.read_text())
    for edit, words in (({"kind": "standard"}, "scale minmax"), ({"center": [0.0]}, "scaling"),
                        ({"width": [1.0, -1.0]}, "scaling")):
        path.write_text(json.dumps({**vmap, "scaling": {**vmap["scaling"], **edit}}))
        with pytest.raises(MapError, match=words):
            load_map(path)


def test_a_weights_file_with_a_bad_scaling_is_refused(tmp_path):
    net = TrainedNetwork([0, 1], [annc.core.network.Layer("linear", np.eye(2), np.zeros(2))],
                         scaling=Scaling("minmax", np.zeros(2), np.ones(2) * 2))
    d = net.to_dict()
    assert TrainedNetwork.from_dict(json.loads(json.dumps(d))).scaling.to_dict() == d["scaling"]
    for bad in ({**d["scaling"], "width": [1.0]}, {**d["scaling"], "width": [0.0, 1.0]}, "minmax"):
        with pytest.raises(WeightsError, match="scaling"):
            TrainedNetwork.from_dict({**d, "scaling": bad}, "w.json")
