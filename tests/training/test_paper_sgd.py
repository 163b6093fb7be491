"""The authors' SGD as written (--baselines paper): no gradient through sign units, the
softmax over samples; and both baselines side by side in the Table 1 sweep."""
from __future__ import annotations

import argparse

import numpy as np
import pytest

from annc.app import experiment as ex
from annc.io.datasets import xor_data
from annc.app.experiment.paper_sgd import loss_over_samples, train_paper_greedy_sgd, train_paper_sgd
from annc.training.warmstart.sgd import _init_params


def test_binary_hidden_layers_never_move_only_the_output_learns():
    X, y = xor_data(200, noise=0.1, seed=0)
    net = train_paper_sgd(X, y, [5, 5], "binary", epochs=300, seed=3)
    W, b = _init_params([5, 5, 5, 2], np.random.default_rng(3))  # the same draw as the trainer's
    for i in range(2):  # hidden layers: exactly their initialisation (float32 round trip)
        assert np.array_equal(net.layers[i].weight, W[i].astype(np.float32).astype(float))
        assert np.array_equal(net.layers[i].bias, b[i].astype(np.float32).astype(float))
    assert not np.allclose(net.layers[2].weight, W[2], atol=1e-3)  # the output layer learned


def test_relu_hidden_layers_do_learn():
    X, y = xor_data(200, noise=0.1, seed=0)
    net = train_paper_sgd(X, y, [5], "relu", epochs=200, seed=3)
    W, _ = _init_params([5, 5, 2], np.random.default_rng(3))
    assert not np.allclose(net.layers[0].weight, W[0], atol=1e-4)


def test_log_softmax_over_samples_and_its_gradient():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(7, 3))
    Y = np.eye(3)[rng.integers(0, 3, size=7)]
    loss, grad = loss_over_samples(z, Y)
    log_p = z - np.log(np.exp(z).sum(axis=0))
    assert np.allclose(np.exp(log_p).sum(axis=0), 1.0)  # each class column: a distribution over samples
    assert loss == pytest.approx(-(log_p * Y).sum() / 7)
    h = 1e-6
    for m, c in [(0, 0), (3, 1), (6, 2)]:  # central differences
        zp, zm = z.copy(), z.copy()
        zp[m, c] += h
        zm[m, c] -= h
        assert grad[m, c] == pytest.approx((loss_over_samples(zp, Y)[0] - loss_over_samples(zm, Y)[0]) / (2 * h),
                                           abs=1e-7)


def test_same_output_twice_and_greedy_shapes():
    X, y = xor_data(100, noise=0.1, seed=1)
    a = train_paper_greedy_sgd(X, y, [4, 3], "binary", epochs=50, seed=2)
    b = train_paper_greedy_sgd(X, y, [4, 3], "binary", epochs=50, seed=2)
    assert [L.weight.shape for L in a.layers] == [(5, 4), (4, 3), (3, 2)]
    assert all(np.array_equal(p.weight, q.weight) for p, q in zip(a.layers, b.layers))
    tuned = train_paper_sgd(X, y, [4, 3], "binary", epochs=50, seed=2, init=a)
    assert np.array_equal(tuned.layers[0].weight, a.layers[0].weight)  # fine-tuning cannot move sign layers
    assert tuned.meta["baselines"] == "paper"


def test_sweep_with_both_baselines_side_by_side(tmp_path, capsys):
    p = argparse.ArgumentParser(prog="annc")
    ex.add_parser(p.add_subparsers(dest="command", required=True))
    a = p.parse_args(["experiment", "table1", "--seeds", "1", "--depths", "1", "--sweeps", "depth",
                      "--epochs", "30", "--methods", "binary_sgd,paper_binary_sgd,relu_sgd,paper_relu_sgd",
                      "--baselines", "both", "--n-train", "60", "--n-test", "20", "-o", str(tmp_path), "--no-plot"])
    assert a.func(a) == 0
    recs = ex.read_jsonl(tmp_path / ex.JSONL_NAME)
    assert sorted(r["method"] for r in recs) == ["binary_sgd", "paper_binary_sgd", "paper_relu_sgd", "relu_sgd"]
    assert len({r["key"] for r in recs}) == 4  # the mode is part of each run's key
    md = (tmp_path / "table1.md").read_text()
    assert "| Binary SGD (paper's code) |" in md and "| Binary SGD |" in md
    # --baselines correct (the default) leaves the paper's rows out
    a = p.parse_args(["experiment", "table1", "--seeds", "1", "--depths", "1", "--sweeps", "depth", "--epochs", "30",
                      "--methods", "paper_binary_sgd", "--n-train", "60", "--n-test", "20", "-o",
                      str(tmp_path / "c"), "--no-plot"])
    assert a.func(a) == 0
    assert not (tmp_path / "c" / ex.JSONL_NAME).exists() or ex.read_jsonl(tmp_path / "c" / ex.JSONL_NAME) == []


def test_fine_tuning_reloads_the_greedy_network_as_the_authors_loop_does():
    """``for k in range(k)``: hidden layer 3's last unit is fresh, everything else is the
    greedy network's; binary hidden layers then never move."""
    X, y = xor_data(80, noise=0.1, seed=4)
    g = train_paper_greedy_sgd(X, y, [4, 4, 4], "binary", epochs=20, seed=5)
    t = train_paper_sgd(X, y, [4, 4, 4], "binary", epochs=20, seed=5, init=g)
    for i in range(2):
        assert np.array_equal(t.layers[i].weight, g.layers[i].weight)
    assert np.array_equal(t.layers[2].weight[:, :3], g.layers[2].weight[:, :3])
    assert not np.allclose(t.layers[2].weight[:, 3], g.layers[2].weight[:, 3])
    assert t.layers[2].bias[3] != g.layers[2].bias[3] and np.array_equal(t.layers[2].bias[:3], g.layers[2].bias[:3])
    plain = train_paper_sgd(X, y, [4, 4, 4], "binary", epochs=20, seed=5, init=g, reload_as_written=False)
    assert all(np.array_equal(p.weight, q.weight) for p, q in zip(plain.layers[:3], g.layers[:3]))


def test_old_records_without_a_mode_count_as_correct_and_twins_sit_side_by_side(tmp_path):
    import json
    cfg = ex.Config(seeds=(1,), epochs=20, n_train=60, n_test=20, sweeps=("depth",), depths=(1,),
                    methods=("binary_sgd", "paper_binary_sgd"))
    ex.run_table1(tmp_path, cfg, make_report=False)
    path = tmp_path / ex.JSONL_NAME
    recs = ex.read_jsonl(path)
    assert {r["method"]: r["baselines"] for r in recs} == {"binary_sgd": "correct", "paper_binary_sgd": "paper"}
    assert recs[0]["key"] != recs[1]["key"]
    old = [{k: v for k, v in r.items() if k != "baselines"} for r in recs]  # as written before modes
    path.write_text("".join(json.dumps(r) + "\n" for r in old))
    assert sorted(ex.definitions.baselines_of(r) for r in ex.read_jsonl(path)) == ["correct", "paper"]
    assert ex.run_table1(tmp_path, cfg, make_report=False)["added"] == 0  # both still count as done
    md = ex.report(path, tmp_path, cfg=cfg, plots=False)[0].read_text()
    rows = [line.split("|")[1].strip() for line in md.splitlines() if line.startswith("| Binary SGD")]
    assert rows[:2] == ["Binary SGD", "Binary SGD (paper's code)"]
