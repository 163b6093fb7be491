"""``annc experiment table1`` on a tiny sweep: records, resume, table, parallel runs."""
import argparse
import json

import pytest

from annc.app import experiment as ex
from annc.app.experiment import tasks

TINY = dict(seeds=(0,), sweeps=("depth",), depths=(1,), epochs=50, n_train=100, n_test=50, time_limit=2.0)
SGD_ONLY = tuple(m for m in ex.METHOD_IDS if m not in ex.MIP_METHODS)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("table1")
    cfg = ex.Config(**TINY)
    logs = []
    res = ex.run_table1(out, cfg, log=logs.append)
    return out, cfg, res, logs


def _records(out):
    return ex.read_jsonl(out / ex.JSONL_NAME)


def test_every_method_has_a_sane_record(tiny_run):
    out, cfg, res, _ = tiny_run
    assert res["errors"] == [] and res["added"] == len(ex.METHOD_IDS)
    recs = _records(out)
    assert sorted(r["method"] for r in recs) == sorted(ex.METHOD_IDS)
    for r in recs:
        assert r["hidden"] == [5] and r["depth"] == 1 and r["width"] == 5 and r["seed"] == 0
        assert r["name"] == ex.METHOD_NAMES[r["method"]]
        assert r["seconds"] >= 0
        assert r["settings"] == ex.settings_for(r["method"], cfg)
        if r["method"] in ex.MIP_METHODS:
            assert r["status"] in ("optimal", "feasible", "no solution")
            assert r["settings"]["time_limit"] == 2.0
        else:
            assert r["status"] == "trained" and "time_limit" not in r["settings"]
        if r["status"] == "no solution":
            assert r["test_accuracy"] is None and r["nonzero_weights"] is None
        else:
            assert 0.0 <= r["train_accuracy"] <= 1.0 and 0.0 <= r["test_accuracy"] <= 1.0
            assert 0 <= r["nonzero_weights"] <= 5 * 5 + 5 * 2
            # accuracies are multiples of 1/n
            assert abs(r["test_accuracy"] * 50 - round(r["test_accuracy"] * 50)) < 1e-9


def test_resume_adds_nothing(tiny_run):
    out, cfg, _, _ = tiny_run
    before = (out / ex.JSONL_NAME).read_text()
    res = ex.run_table1(out, cfg, log=lambda s: None)
    assert res["added"] == 0 and res["skipped"] == len(ex.METHOD_IDS)
    assert (out / ex.JSONL_NAME).read_text() == before


def test_resume_after_a_torn_line_and_a_lost_run(tmp_path):
    cfg = ex.Config(**{**TINY, "methods": ("binary_sgd", "relu_sgd")})
    ex.run_table1(tmp_path, cfg, log=lambda s: None, make_report=False)
    path = tmp_path / ex.JSONL_NAME
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][:20])  # killed while writing the second record
    res = ex.run_table1(tmp_path, cfg, log=lambda s: None, make_report=False)
    assert res["added"] == 1
    assert sorted(r["method"] for r in _records(tmp_path)) == ["binary_sgd", "relu_sgd"]


@pytest.mark.parametrize("method", ["binary_mip", "greedy_binary_mip"])
def test_a_run_stopped_by_ctrl_c_is_not_recorded(method, tmp_path, monkeypatch):
    """Ctrl-C stops the solver (which keeps its incumbent), but such a run is no
    measurement: the sweep aborts and records nothing for it."""
    from annc.solve.solvers.base import Interrupt

    def pressed():  # Ctrl-C already pressed when the run starts
        intr = Interrupt()
        intr.requested = True
        return intr

    monkeypatch.setattr(tasks, "Interrupt", pressed)  # the Interrupt of each MIP task
    cfg = ex.Config(**{**TINY, "methods": ("binary_sgd", method)})
    with pytest.raises(KeyboardInterrupt):
        ex.run_table1(tmp_path, cfg, log=lambda s: None, make_report=False)
    assert [r["method"] for r in _records(tmp_path)] in ([], ["binary_sgd"])


def test_other_settings_are_new_runs(tiny_run, tmp_path):
    out, _, _, _ = tiny_run
    path = tmp_path / ex.JSONL_NAME
    path.write_text((out / ex.JSONL_NAME).read_text())
    # a new epoch count invalidates only the SGD methods; a new time limit only the MIP ones
    tasks = ex.plan(ex.Config(**{**TINY, "epochs": 60}), {r["key"] for r in _records(tmp_path)})
    assert sorted(m for t in tasks for m, _ in t.records) == sorted(ex.SGD_METHODS)
    tasks = ex.plan(ex.Config(**{**TINY, "time_limit": 3.0}), {r["key"] for r in _records(tmp_path)})
    assert sorted(m for t in tasks for m, _ in t.records) == sorted(ex.MIP_METHODS)


def test_markdown_table(tiny_run):
    out, _, _, _ = tiny_run
    md = (out / "table1.md").read_text()
    table = md.split("\n\n")[2].splitlines()
    assert table[0].startswith("| Model | Number of Layers | Paper: Layers |")
    rows = table[2:]
    assert [r.split("|")[1].strip() for r in rows] == [name for _, name in ex.METHODS]
    for r in rows:
        ours, paper = r.split("|")[2].strip(), r.split("|")[3].strip()
        assert ours in ("1", ">1", "NaN", "?")
        assert paper in ("1", ">5", "not run")
    assert "None: every run of the sweep is in the file." in md
    for ext in ("png", "svg"):
        assert (out / f"table1_depth.{ext}").stat().st_size > 1000


def test_report_lists_missing_runs_and_regenerates(tiny_run, tmp_path):
    out, cfg, _, _ = tiny_run
    recs = [r for r in _records(out) if r["method"] != "relu_sgd"]
    (tmp_path / ex.JSONL_NAME).write_text("".join(json.dumps(r) + "\n" for r in recs))
    ex.report(tmp_path / ex.JSONL_NAME, tmp_path, cfg=cfg, plots=False)
    md = (tmp_path / "table1.md").read_text()
    assert "- ReLU SGD, 5: seed(s) 0" in md
    assert "| ReLU SGD | ? | >5 |" in md
    # without a config: everything in the file, both sweeps (the width sweep is all missing)
    ex.report(tmp_path / ex.JSONL_NAME, tmp_path, plots=False)
    md = (tmp_path / "table1.md").read_text()
    assert "| Number of Units | Paper: Units |" in md and "Greedy Binary MIP, 10x10x10: seed(s) 0" in md


def test_report_counts_mip_statuses_per_cell(tiny_run, tmp_path):
    """Each MIP cell says how many runs were proven optimal, stopped feasible, or found
    nothing, and the three add up to the runs in the file."""
    out, cfg, _, _ = tiny_run
    recs = _records(out)
    (tmp_path / ex.JSONL_NAME).write_text("".join(json.dumps(r) + "\n" for r in recs))
    ex.report(tmp_path / ex.JSONL_NAME, tmp_path, cfg=cfg, plots=False)
    md = (tmp_path / "table1.md").read_text()
    assert "MIP statuses per cell, optimal / feasible (time limit) / no solution:" in md
    mip = [r for r in recs if r["method"] == "binary_mip"]
    want = (sum(r["status"] == "optimal" for r in mip), sum(r["status"] == "feasible" for r in mip),
            sum(r.get("test_accuracy") is None for r in mip))
    section = md.split("MIP statuses per cell")[1]
    row = next(line for line in section.splitlines() if line.startswith("| Binary MIP | "))
    assert row.split("|")[2].strip() == " / ".join(map(str, want))
    assert sum(want) == len(mip)


def test_minimum_rule():
    cells = {}
    for d, accs in ((1, [0.80, 0.86]), (2, [0.86, 0.86]), (3, [0.9])):
        c = ex.Cell(n=len(accs), finished=len(accs), accs=accs)
        cells[("relu_sgd", (5,) * d)] = c
    arch = lambda d: (5,) * d  # noqa: E731
    assert ex.minimum(cells, "relu_sgd", [1, 2, 3], arch, "depth") == ("2", None)
    assert ex.minimum(cells, "relu_sgd", [1], arch, "depth") == (">1", None)
    assert ex.minimum(cells, "relu_sgd", [1, 2, 3, 4], arch, "depth")[0] == "2"  # 4 not run: no matter
    assert ex.minimum(cells, "binary_mip", [1, 2], arch, "depth")[0] == "?"  # nothing run yet
    cells[("binary_mip", (5,))] = ex.Cell(n=1, finished=0)
    assert ex.minimum(cells, "binary_mip", [1], arch, "depth") == ("NaN", None)
    cells[("binary_mip", (5, 5))] = ex.Cell(n=1, finished=1, accs=[0.7])
    v, note = ex.minimum(cells, "binary_mip", [1, 2], arch, "depth")
    assert v == "NaN*" and "depth 1" in note
    cells[("binary_mip", (5, 5, 5))] = ex.Cell(n=1, finished=1, accs=[0.9])
    v, note = ex.minimum(cells, "binary_mip", [1, 2, 3], arch, "depth")
    assert v == "3*" and "depth 1: no result" in note


def test_parallel_runs_match_serial(tiny_run, tmp_path):
    out, _, _, _ = tiny_run
    cfg = ex.Config(**{**TINY, "methods": SGD_ONLY})
    res = ex.run_table1(tmp_path, cfg, workers=2, log=lambda s: None, make_report=False)
    assert res["errors"] == [] and res["added"] == len(SGD_ONLY)
    par = {r["key"]: r for r in _records(tmp_path)}
    ser = {r["key"]: r for r in _records(out) if r["method"] in SGD_ONLY}
    assert par.keys() == ser.keys()
    for k, r in ser.items():
        for f in ("status", "train_accuracy", "test_accuracy", "nonzero_weights"):
            assert par[k][f] == r[f], (r["method"], f)
        # not bitwise: BLAS may sum in another order in a worker (threads), not a different run
        assert par[k]["final_loss"] == pytest.approx(r["final_loss"], rel=1e-9, abs=1e-12), r["method"]


def test_cli(tmp_path, capsys):
    p = argparse.ArgumentParser(prog="annc")
    ex.add_parser(p.add_subparsers(dest="command", required=True))
    a = p.parse_args(["experiment", "table1", "--seeds", "1", "--depths", "1", "--sweeps", "depth",
                      "--epochs", "20", "--methods", "binary_sgd,relu_greedy_sgd_sgd", "--n-train", "60",
                      "--n-test", "20", "-o", str(tmp_path), "--no-plot"])
    assert a.func(a) == 0
    assert len(ex.read_jsonl(tmp_path / ex.JSONL_NAME)) == 2
    assert "table1.md" in capsys.readouterr().out
    a = p.parse_args(["experiment", "table1", "--report-only", "--seeds", "1", "--depths", "1", "--sweeps",
                      "depth", "--epochs", "20", "--methods", "binary_sgd,relu_greedy_sgd_sgd",
                      "--n-train", "60", "--n-test", "20", "-o", str(tmp_path), "--no-plot"])
    assert a.func(a) == 0
    with pytest.raises(SystemExit):
        p.parse_args(["experiment", "table1", "--methods", "adam"])
    with pytest.raises(SystemExit):
        p.parse_args(["experiment", "table1", "--sweeps", "breadth"])


@pytest.mark.parametrize("extra, message", [
    (["--jobs", "2", "--workers", "2"], "old name of --workers"),
    (["--workers", "0"], "--workers"),
    (["--scheduler", "tcp://a b"], "--scheduler"),
])
def test_cli_executor_options_are_checked(tmp_path, extra, message):
    from annc.core.errors import AnncError
    p = argparse.ArgumentParser(prog="annc")
    ex.add_parser(p.add_subparsers(dest="command", required=True))
    a = p.parse_args(["experiment", "table1", "--seeds", "1", "--depths", "1", "--sweeps", "depth",
                      "--methods", "binary_sgd", "-o", str(tmp_path / "t"), "--no-plot", *extra])
    with pytest.raises(AnncError, match=message):
        a.func(a)
    assert not (tmp_path / "t").exists()
