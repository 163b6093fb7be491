"""ovo ensembles and batch training: each MIP a Dask task, the result checked by annc's
forward pass, and the files every command reads."""
from __future__ import annotations

import re

import numpy as np
import onnxruntime as ort
import pytest

import annc
from annc.io.data import load_data
from annc.io.datasets import write_csv
from annc.core.ensemble import Ensemble, load_model
from annc.core.errors import SpecError, UsageError
from annc.io.spec import parse_spec
from annc.training.context import RunContext
from annc.training.decompose.decomposition import Decomposition
from conftest import run_cli

SPEC = "input 2\nhidden 2 binary\noutput 3\n"  # the default recipe: errors + l0 0.5, eps 0.001


@pytest.fixture(scope="module")
def blobs(tmp_path_factory):
    from sklearn.datasets import make_blobs
    root = tmp_path_factory.mktemp("ovo")
    # one draw, so the test rows come from the training rows' blobs (two draws of make_blobs place
    # their centres apart); seed 3 places the three blobs apart, so that each pair is separable
    # and every pair MIP ends in seconds (seed 0's blobs 0 and 2 overlap: that pair took 15-19 s)
    X, y = make_blobs(90, centers=3, n_features=2, random_state=3)
    (root / "net.ann").write_text(SPEC)
    return root, write_csv(root / "train.csv", X[:60] * 10, y[:60]), write_csv(root / "test.csv", X[60:] * 10, y[60:])


# The local cluster's start counts in the run's limit: in a fresh venv on a slow 2-core machine beside another
# test worker it took 24 s (its processes compile every import), and at 20 s (ovo) and 15 s (batches) the limit
# left the MIPs 0.1 s each, so the run refused to start them.  45 s leaves them 7 s or more there.


@pytest.fixture(scope="module")
def ovo_run(blobs):
    root, train, test = blobs
    code, out, err = run_cli("train", str(root / "net.ann"), str(train), "--test", str(test), "--ensemble", "ovo",
                             "--workers", "2", "--time-limit", "45", "--report", "-o", str(root / "out"))
    assert code == 0, out + err
    return root, train, test, out


def test_ovo_trains_one_verified_member_per_pair(ovo_run):
    root, train, test, out = ovo_run
    ens = load_model(root / "out" / "net.weights.json")
    assert isinstance(ens, Ensemble) and ens.pairs == [(0, 1), (0, 2), (1, 2)]
    assert len(ens.meta["members"]) == 3 and all(m["verified"] for m in ens.meta["members"])
    data = load_data(train, classes=ens.classes)
    acc = float(np.mean(ens.predict_index(data.X) == data.y))
    assert f"train accuracy     {acc:.4f}" in out  # the printed figure is the forward pass's
    assert ens.meta["train_accuracy"] == pytest.approx(acc)
    assert ens.scaling is not None and ens.scaling.kind == "minmax"  # fitted once, on all rows
    worst = {"optimal": 0, "feasible": 1}
    assert ens.meta["status"] == max((m["status"] for m in ens.meta["members"]), key=worst.__getitem__)
    assert acc > 0.5  # three separable blobs: far above chance (1/3)
    assert "one-vs-one ensemble of 3 networks" in (root / "out" / "net.report.html").read_text()


def test_every_command_reads_the_ensemble(ovo_run, tmp_path):
    root, train, test, _ = ovo_run
    weights = root / "out" / "net.weights.json"
    ens = load_model(weights)
    code, out, err = run_cli("eval", str(weights), str(test))
    assert code == 0, err
    data = load_data(test, classes=ens.classes)
    assert f"accuracy {np.mean(ens.predict_index(data.X) == data.y):.4f}" in out
    code, out, err = run_cli("export", str(root / "out" / "net.weights.npz"), "--onnx", str(tmp_path / "e.onnx"))
    assert code == 0, err
    sess = ort.InferenceSession(str(tmp_path / "e.onnx"), providers=["CPUExecutionProvider"])
    scores, label, _ = sess.run(None, {"X": data.X})
    assert np.array_equal(label, ens.predict_index(data.X))  # the vote, exactly
    np.testing.assert_allclose(scores, ens.scores(data.X), rtol=0, atol=1e-12)
    code, out, err = run_cli("report", str(weights), "--data", str(train), "-o", str(tmp_path / "r.html"))
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert "one-vs-one ensemble of 3 networks" in html and html.count('class="network"') == 3


def test_batches_through_the_api(blobs):
    root, train, test = blobs
    r = annc.train(SPEC, train, test=test, batches=2, time_limit=45, workers=2)
    assert r.kind == "batches" and len(r.members) == 2
    assert r.status.value in ("feasible", "no solution") and r.status.value != "optimal"  # a heuristic
    data = load_data(train, classes=r.network.classes)
    assert r.train_accuracy == pytest.approx(float(np.mean(r.network.predict_index(data.X) == data.y)))
    info = r.network.meta["batches"]
    assert info["K"] == 2 and len(info["validation_accuracy"]) == 2 and abs(sum(info["weights"]) - 1) < 1e-12
    assert info["exported"] == "average" or info["exported"].endswith(("_batch1", "_batch2"))


@pytest.mark.parametrize("text, message", [
    ("training batches 0", "at least 2"),
    ("training batches 1", "at least 2"),
    ("training batches", "number of batches"),
    ("training batches two", "must be an integer"),
    ("training ov", "did you mean 'ovo'"),
])
def test_spec_errors(text, message):
    with pytest.raises(SpecError, match=message):
        parse_spec(SPEC + text + "\n", "<t>")
    assert parse_spec(SPEC + "training batches 3\n", "<t>").batches == 3
    assert parse_spec(SPEC + "training ovo\n", "<t>").training == "ovo"


@pytest.mark.parametrize("args, message", [
    (["--ensemble", "ovo", "--batches", "2"], "not both"),
    (["--per-class", "5"], "--per-class applies to ovo training"),
    (["--ensemble", "ovo", "--workers", "0"], "--workers"),
    (["--ensemble", "ovo", "--greedy"], "cannot be combined"),
    (["--batches", "2", "--per-class", "3"], "--per-class applies"),
])
def test_cli_option_errors(blobs, args, message, tmp_path):
    root, train, _ = blobs
    code, out, err = run_cli("train", str(root / "net.ann"), str(train), *args, "-o", str(tmp_path / "o"))
    assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_failed_pair_mips_fail_the_run_naming_every_pair(blobs, tmp_path, capfd):
    """Every pair MIP ends in one of annc's own errors (here, deterministically, a solver
    "cmd" without its command): one error of that kind naming every pair, nothing
    written, and no crashed-task dump from Dask."""
    from annc.training.decompose.decomposition import train_ovo
    from annc.training.trainer import train as train_network
    root, train, _ = blobs
    with pytest.raises(UsageError) as e:
        train_ovo(parse_spec(SPEC, "net.ann"), load_data(train),
                  Decomposition(train_network, RunContext.create("cmd"), workers=1, stem="net", out_dir=tmp_path / "o"))
    text = str(e.value)
    assert "3 of 3 pair MIPs" in text
    assert all(f"pair net_{i}_vs_{j}:" in text for i, j in ((0, 1), (0, 2), (1, 2)))
    workers = capfd.readouterr().err  # what the worker processes wrote
    assert "Traceback" not in workers and "Compute Failed" not in workers
    assert not (tmp_path / "o").exists()


def test_each_pair_mip_is_capped_by_its_share_of_the_runs_limit(blobs):
    """The time limit is the run's: each pair MIP, submitted with ``n`` still to start on one
    worker, gets at most ``until_finish / n`` less a task's overhead (the stand-in trainer
    reports the cap it was given)."""
    import re
    import executor_tasks
    from annc.core.deadline import Deadline
    from annc.core.errors import NoSolutionError
    from annc.solve.solvers import SolveOptions
    from annc.training.context import TASK_OVERHEAD
    from annc.training.decompose.decomposition import train_ovo
    root, train, _ = blobs
    with pytest.raises(NoSolutionError) as e:
        train_ovo(parse_spec(SPEC, "net.ann"), load_data(train),
                  Decomposition(executor_tasks.report_cap, RunContext.create(limit=40), workers=1, stem="net"))
    caps = [float(c) for c in re.findall(r"cap ([0-9.]+)", str(e.value))]
    assert len(caps) == 3  # every pair was capped, in pair order
    room = 40 - Deadline(40).reserve()
    assert all(0 < c <= room / (3 - i) - TASK_OVERHEAD + 1e-9 for i, c in enumerate(caps))


def test_a_limit_too_short_for_the_pairs_is_refused_before_any_starts(blobs, tmp_path):
    from annc.solve.solvers import SolveOptions
    from annc.training.decompose.decomposition import train_ovo
    from annc.training.trainer import train as train_network
    root, train, _ = blobs
    with pytest.raises(UsageError, match=r"3 pair MIPs on 1 worker.*--time-limit (\d+)") as e:
        train_ovo(parse_spec(SPEC, "net.ann"), load_data(train),
                  Decomposition(train_network, RunContext.create(limit=4), workers=1, stem="net", out_dir=tmp_path / "o"))
    assert int(re.search(r"--time-limit (\d+)", str(e.value)).group(1)) > 4
    assert not (tmp_path / "o").exists()


def test_api_option_errors(blobs):
    root, train, _ = blobs
    with pytest.raises(UsageError):
        annc.train(SPEC, train, ensemble="ova")
    with pytest.raises(UsageError, match="--per-class applies to ovo training"):
        annc.train(SPEC, train, per_class=5)  # (workers apply to full training too: its large-data path)


@pytest.mark.slow  # over 20 s on a 2-core machine: pytest -m slow
def test_ovo_completes_when_a_worker_is_killed(blobs):
    """A worker process killed while the pair MIPs run: the scheduler reruns its task and
    the ensemble has every member."""
    import multiprocessing
    import os
    import signal
    from annc.training.decompose.decomposition import train_ovo
    from annc.training.trainer import train as train_network
    from annc.solve.solvers import SolveOptions
    root, train, _ = blobs
    data = load_data(train)
    killed = []

    def log(line):
        if line.startswith("[net_") and not killed:  # the first pair is done, the others are running
            workers = multiprocessing.active_children()
            assert workers
            os.kill(workers[0].pid, signal.SIGKILL)
            killed.append(workers[0].pid)

    r = train_ovo(parse_spec(SPEC, "net.ann"), data,
                  Decomposition(train_network, RunContext.create(limit=20), workers=2, stem="net", log=log))
    assert killed
    assert len(r.members) == 3 and r.network.pairs == [(0, 1), (0, 2), (1, 2)] and r.verified


def test_a_member_starts_from_its_separator():
    """A member MIP's pool holds its problem's first separator network beside its own candidates
    (member_start: one LP), so a member never depends on the pool's slower candidates for a start."""
    from sklearn.datasets import make_blobs
    from annc.app.api import as_data
    from annc.io.spec import parse_spec
    from annc.solve.solvers import SolveOptions
    from annc.training.decompose.decomposition import member_start
    from annc.training.trainer import train
    X, y = make_blobs(60, centers=2, n_features=3, cluster_std=1.0, random_state=2)
    spec = parse_spec("input 3\nhidden 2 binary\noutput 2\nscale none\n")
    data = as_data(((X - X.min(0)) / (X.max(0) - X.min(0)), y))
    name, (W, b) = member_start(spec, data)
    assert name.startswith("the member's separator") and [w.shape for w in W] == [(3, 2), (2, 2)]
    r = train(spec, data, opts=SolveOptions(threads=1), out_dir=None, start=(name, (W, b)))
    pool = {p["name"]: p["objective"] for p in r.verdict.search["pool"]}
    assert name in pool and r.verdict.objective <= pool[name] + 1e-9
    assert member_start(parse_spec("input 3\noutput 2\nscale none\n"), data) is None  # no hidden layer
