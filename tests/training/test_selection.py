"""Model selection on held-out data (:mod:`annc.training.modelselect.selection`): the stratified split, the
candidate grid, the choice (with a fake trainer: chosen accuracies and non-zero counts),
and one real run on a tiny XOR set."""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from annc.io.data import Dataset
from annc.core.errors import DataError, NoSolutionError, UsageError
from annc.training.modelselect.selection import (MAX_DEFAULT_CANDIDATES, Runner, Selection, candidates, select,
                                                 validation_split)
from annc.io.spec import format_spec, parse_spec
from conftest import assert_names

HINGE_PENALTY = "input 5\nhidden 4 binary\noutput 2\nloss hinge 0.5\npenalty l0 0.01\n"
HINGE = "input 5\nhidden 2 binary\noutput 2\nloss hinge 0.5\n"
NLL_WIDTH1 = "input 5\nhidden 1 binary\noutput 2\nloss nll\npenalty none\n"
NLL_L1_DEEP = "input 5\nhidden 3 relu\nhidden 2 relu\noutput 2\nloss nll\npenalty l1 0.1\n"


def dataset(counts, d: int = 3, seed: int = 1) -> Dataset:
    """An in-memory Dataset with ``counts[c]`` rows of class ``c`` (rows shuffled)."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat(np.arange(len(counts)), counts)).astype(np.int64)
    X = rng.normal(size=(len(y), d))
    return Dataset(X, y, [f"c{k}" for k in range(len(counts))], [f"x{i}" for i in range(d)], "label",
                   "toy.csv", "0" * 64, lines=np.arange(2, len(y) + 2))


# -- the split ----------------------------------------------------------------------
def test_split_is_stratified_disjoint_and_complete():
    data = dataset([40, 20, 3, 2])
    fit, val = validation_split(data, fraction=0.25, seed=3)
    for c, n in enumerate([40, 20, 3, 2]):
        k = int((val.y == c).sum())
        assert k == min(max(round(0.25 * n), 1), n - 1)
        assert int((fit.y == c).sum()) == n - k
    # disjoint and covering: every row of data is in exactly one part (rows are distinct)
    rows = {tuple(r) for r in data.X}
    got = [tuple(r) for r in fit.X] + [tuple(r) for r in val.X]
    assert len(got) == len(rows) and set(got) == rows
    assert fit.classes == val.classes == data.classes
    assert fit.features == data.features and fit.label == data.label
    assert fit.path == "toy.csv[fit]" and val.path == "toy.csv[validation]"
    assert fit.sha256 != val.sha256 and len(fit.sha256) == 64
    import hashlib
    assert fit.sha256 == hashlib.sha256(fit.X.tobytes() + fit.y.tobytes()).hexdigest()
    # rows keep their labels and their file lines
    by_row = {tuple(r): (int(c), int(line)) for r, c, line in zip(data.X, data.y, data.lines)}
    for part in (fit, val):
        for r, c, line in zip(part.X, part.y, part.lines):
            assert by_row[tuple(r)] == (int(c), int(line))


def test_split_is_deterministic_for_a_seed():
    data = dataset([30, 30])
    a, b = validation_split(data, seed=7), validation_split(data, seed=7)
    assert np.array_equal(a[1].X, b[1].X) and np.array_equal(a[0].y, b[0].y)
    c = validation_split(data, seed=8)
    assert not np.array_equal(a[1].X, c[1].X)


def test_split_refuses_a_class_with_one_row_and_bad_arguments():
    with pytest.raises(DataError, match="class c1 has only 1 row"):
        validation_split(dataset([10, 1]))
    with pytest.raises(UsageError, match="fraction"):
        validation_split(dataset([10, 10]), fraction=1.0)
    with pytest.raises(UsageError, match="seed"):
        validation_split(dataset([10, 10]), seed=-1)


# -- the candidates -----------------------------------------------------------------
def labels(text: str, grid=None) -> list[str]:
    return [label for label, _ in candidates(parse_spec(text), grid)]


def test_default_grid_with_penalty_margin_and_width():
    got = candidates(parse_spec(HINGE_PENALTY))
    assert len(got) == MAX_DEFAULT_CANDIDATES == 8
    assert got[0] == ("l0 0.01, margin 0.5, width 4", parse_spec(HINGE_PENALTY))  # the spec first
    names = [label for label, _ in got]
    assert len(set(names)) == len(names)
    for label in ["l0 0.001, margin 0.5, width 4", "l0 0.1, margin 0.5, width 4",
                  "l0 0.01, margin 0.25, width 4", "l0 0.01, margin 0.5, width 2"]:
        assert label in names  # every single change is there
    spec = dict(got)["l0 0.1, margin 0.5, width 4"]
    assert (spec.penalty, spec.penalty_weight, spec.margin, spec.hidden[0].units) == ("l0", 0.1, 0.5, 4)


def test_default_grid_without_penalty():
    assert sorted(labels(HINGE)) == sorted(
        f"{p}, margin {m}, width {w}" for p in ("no penalty", "l0 0.01") for m in (0.5, 0.25) for w in (2, 1))


def test_default_grid_nll_width_one_has_no_margin_or_width_axis():
    assert labels(NLL_WIDTH1) == ["no penalty, width 1", "l0 0.01, width 1"]
    got = labels(NLL_L1_DEEP)
    assert got[0] == "l1 0.1, widths 3,2"
    assert sorted(got) == sorted(f"l1 {p}, widths {w}" for p in ("0.1", "0.01", "1") for w in ("3,2", "2,1"))


def test_user_grid():
    got = candidates(parse_spec(HINGE), {"penalty_weight": [0, 0.5], "margin": [1.0], "width_factor": [1.0]})
    assert [label for label, _ in got] == ["no penalty, margin 1, width 2", "l0 0.5, margin 1, width 2"]
    assert parse_spec(format_spec(got[1][1])) == got[1][1]
    assert labels(HINGE, {}) == ["no penalty, margin 0.5, width 2"]


@pytest.mark.parametrize("grid, match", [
    ({"penalty": [0.1]}, "'penalty'"),
    ({"width_factor": [1.5]}, "'width_factor'"),
    ({"penalty_weight": []}, "'penalty_weight'"),
    ({"penalty_weight": [-1]}, "'penalty_weight'"),
    ([("margin", 1)], "dict"),
])
def test_bad_grid_is_a_usage_error(grid, match):
    with pytest.raises(UsageError, match=match):
        candidates(parse_spec(HINGE), grid)


def test_margin_grid_needs_a_margin_loss():
    with pytest.raises(UsageError, match="'margin'"):
        candidates(parse_spec(NLL_WIDTH1), {"margin": [1.0]})


# -- select, with a fake trainer ----------------------------------------------------
def fake_trainer(outcomes, seen=None):
    """A ``train`` callable that gives the i-th candidate ``outcomes[i]``: (validation
    accuracy, non-zero weights), or an exception to raise."""
    calls = iter(outcomes)

    def train(spec, fit, val, time_limit):
        if seen is not None:
            seen.append((spec, len(fit.y), len(val.y)))
        out = next(calls)
        if isinstance(out, Exception):
            raise out
        acc, nonzeros = out
        return SimpleNamespace(network=SimpleNamespace(nonzero_weights=lambda: nonzeros), status="optimal",
                               test_accuracy=acc, train_accuracy=1.0, seconds=0.5)
    return train


def test_select_picks_the_best_validation_accuracy():
    spec, data, seen = parse_spec(HINGE), dataset([12, 12]), []
    cands = candidates(spec)
    outcomes = [(0.5, 3), (0.75, 9), (0.7, 1)] + [(0.6, 2)] * (len(cands) - 3)
    sel = select(spec, data, Runner(train=fake_trainer(outcomes, seen)))
    assert sel.chosen == 1 and sel.spec == cands[1][1] and sel.label == cands[1][0]
    assert [s for s, _, _ in seen] == [s for _, s in cands]
    assert all((f, v) == (18, 6) for _, f, v in seen)
    assert (sel.fit_rows, sel.validation_rows) == (18, 6)


def test_candidates_share_the_selections_time():
    """Under a context, each candidate is capped, as it starts, at its share of what is left:
    with ``n`` still to start in this process, ``until_finish / n`` less a task's overhead."""
    from annc.training.context import TASK_OVERHEAD, RunContext
    spec, data, limits = parse_spec(HINGE), dataset([12, 12]), []
    n = len(candidates(spec))
    train = fake_trainer([(0.6, 2)] * n)
    ctx = RunContext.create(limit=60.0)
    select(spec, data, Runner(train=lambda s, f, v, limit: (limits.append(limit), train(s, f, v, limit))[1]), ctx=ctx)
    assert len(limits) == n
    assert all(0 < t <= (60.0 - ctx.deadline.reserve()) / (n - i) - TASK_OVERHEAD + 1e-9
               for i, t in enumerate(limits))


def test_select_breaks_ties_by_fewer_nonzeros_then_order():
    spec, data = parse_spec(HINGE), dataset([12, 12])
    n = len(candidates(spec))
    sel = select(spec, data, Runner(train=fake_trainer([(0.8, 5), (0.8 + 1e-14, 3), (0.8, 3)] + [(0.5, 0)] * (n - 3))))
    assert sel.chosen == 1  # equal accuracy (within 1e-12), fewer non-zeros; index 2 ties and comes later


def test_select_records_failures_and_table():
    spec, data = parse_spec(HINGE), dataset([12, 12])
    n = len(candidates(spec))
    outcomes = [NoSolutionError("infeasible\nkept nothing"), (0.6, 4)] + [(0.5, 4)] * (n - 2)
    lines_logged = []
    sel = select(spec, data, Runner(train=fake_trainer(outcomes)), log=lines_logged.append)
    assert sel.chosen == 1
    assert sel.rows[0].error == "infeasible\nkept nothing" and sel.rows[0].validation_accuracy is None
    table = sel.table_lines()
    assert len(table) == 2 + n and "fit on 18 of 24 training rows (75%), validate on 6 (25%)" in table[0]
    assert "failed: infeasible" in table[2] and table[3].startswith("*")
    assert sum(line.startswith("*") for line in table) == 1
    d = json.loads(json.dumps(sel.to_dict()))
    assert d["chosen"] == 1 and len(d["candidates"]) == n and d["candidates"][0]["error"].startswith("infeasible")
    assert any("chose" in line for line in lines_logged)


def test_select_raises_when_every_candidate_fails():
    spec, data = parse_spec(NLL_WIDTH1), dataset([12, 12])
    with pytest.raises(NoSolutionError, match="none of the 2 candidates"):
        select(spec, data, Runner(train=fake_trainer([NoSolutionError("a"), NoSolutionError("b")])))


# -- one real run -------------------------------------------------------------------
@pytest.mark.slow  # over 20 s on a 2-core machine: pytest -m slow
def test_select_end_to_end_on_xor():
    from annc.app.api import as_data
    from annc.io.datasets import xor_data
    from annc.solve.solvers import SolveOptions
    from annc.training.trainer import train

    data = as_data(xor_data(64, noise=0.1, seed=0))
    spec = parse_spec(HINGE)

    def fit(candidate, fit_data, val_data, time_limit):
        assert time_limit is None  # select() without a ctx: no limit of its own
        return train(candidate, fit_data, test=val_data, out_dir=None, opts=SolveOptions(time_limit=2))

    sel = select(spec, data, Runner(train=fit))
    assert isinstance(sel, Selection)
    cands = candidates(spec)
    assert sel.spec in [s for _, s in cands] and sel.spec == cands[sel.chosen][1]
    assert len(sel.table_lines()) == 2 + len(cands)
    assert [r.label for r in sel.rows] == [label for label, _ in cands]
    row = sel.rows[sel.chosen]
    assert row.ok and 0 <= row.validation_accuracy <= 1
    assert all(r.validation_accuracy <= row.validation_accuracy + 1e-12 for r in sel.rows if r.ok)
    json.dumps(sel.to_dict())


def test_select_skips_unverified_networks_and_stops_after_an_interrupt():
    spec, data = parse_spec(HINGE), dataset([12, 12])
    n = len(candidates(spec))
    results = iter([dict(verified=False, interrupted=False, acc=0.9), dict(verified=True, interrupted=True, acc=0.6)])

    def train(candidate, fit, val, time_limit):
        r = next(results)
        return SimpleNamespace(network=SimpleNamespace(nonzero_weights=lambda: 2), status="feasible",
                               test_accuracy=r["acc"], train_accuracy=0.7, seconds=1.0, verified=r["verified"],
                               interrupted=r["interrupted"])
    sel = select(spec, data, Runner(train=train))  # only two calls: the rest are not trained
    assert sel.chosen == 1
    assert sel.rows[0].error == "the network fails verification"
    assert all(r.error.startswith("not trained") for r in sel.rows[2:]) and len(sel.rows) == n


def test_cli_select_prints_the_table_and_records_it_in_the_weights(tmp_path, capsys):
    """``annc train --select``: the table is printed, the chosen spec is trained on all the
    training rows, and every weights file records the selection."""
    import json

    from annc.app.cli import main
    from annc.io.datasets import write_csv, xor_data
    X, y = xor_data(64, noise=0.1, seed=0)
    write_csv(tmp_path / "d.csv", X, y)
    (tmp_path / "n.ann").write_text("input 5\nhidden 1 binary\noutput 2\nloss nll\n")  # 2 candidates
    assert main(["train", str(tmp_path / "n.ann"), str(tmp_path / "d.csv"), "--select", "--time-limit", "3",
                 "-q", "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "selection:" in out and "val acc" in out and "\n*" in out
    meta = json.loads((tmp_path / "out" / "n.weights.json").read_text())["meta"]
    record = meta["selection"]
    assert 0 <= record["chosen"] < len(record["candidates"])
    assert main(["train", str(tmp_path / "n.ann"), str(tmp_path / "d.csv"), "--select", "--select-fraction",
                 "1.5", "-o", str(tmp_path / "bad")]) == 2
    assert not (tmp_path / "bad").exists()


# -- in parallel, on Dask -----------------------------------------------------------
@pytest.mark.slow  # over 20 s on a 2-core machine: pytest -m slow
def test_parallel_selection_gives_the_sequential_table():
    """``workers=2``: every candidate is a task on a local Dask cluster; the table has the
    same candidates in the same order as the sequential run, each with a verified result,
    and the choice follows the same rule."""
    import annc
    from annc.io.datasets import xor_data

    X, y = xor_data(32, noise=0.1, seed=0)
    grid = {"penalty_weight": [0, 0.01, 0.1]}
    spec = HINGE.replace("hidden 2", "hidden 1")
    runs = [annc.train(spec, (X, y), select=grid, time_limit=2, threads=1, out_dir=None, **kw)
            for kw in ({}, {"workers": 2})]
    seq, par = (r.selection for r in runs)
    assert [(r.label, r.spec) for r in par.rows] == [(r.label, r.spec) for r in seq.rows]
    assert len(par.rows) == 3 and all(r.ok and r.status for r in seq.rows + par.rows)
    for sel in (seq, par):
        best = max(r.validation_accuracy for r in sel.rows)
        assert sel.rows[sel.chosen].validation_accuracy == best
        assert sel.chosen == min(i for i, r in enumerate(sel.rows) if r.validation_accuracy == best
                                 and r.nonzero_weights == min(q.nonzero_weights for q in sel.rows
                                                              if q.validation_accuracy == best))
    assert runs[1].verified and runs[1].network.meta["selection"]["chosen"] == par.chosen


def test_parallel_selection_reports_failed_tasks():
    """A candidate whose task raises on the worker is a failed row; all failed: NoSolutionError."""
    from annc.training.trainer import train
    spec, data = parse_spec(NLL_WIDTH1), dataset([6, 6])
    lines = []
    with pytest.raises(NoSolutionError, match="none of the 2 candidates") as err:
        select(spec, data, Runner(options={"solver": "no-such-solver"}, task=train, workers=1), log=lines.append)
    assert "UsageError" in str(err.value)
    assert sum("failed: UsageError" in line for line in lines) == 2


@pytest.mark.parametrize("kw, match", [
    (dict(workers=0, options={}), "--workers"),
    (dict(scheduler="tcp://a b", options={}), "--scheduler"),
    (dict(workers=2), "takes options"),
])
def test_parallel_selection_checks_its_arguments(kw, match):
    with pytest.raises(UsageError, match=match):
        select(parse_spec(NLL_WIDTH1), dataset([6, 6]), Runner(**kw))


def test_workers_on_small_data_train_in_this_process_and_say_so(tmp_path, capsys):
    import annc
    from annc.app.cli import main
    from annc.io.datasets import write_csv, xor_data
    X, y = xor_data(16, noise=0.1, seed=0)
    r = annc.train(NLL_WIDTH1, (X, y), workers=2, out_dir=None, verbose=True, time_limit=5)
    assert r.network is not None  # full training takes the flags: its large-data path would use them
    said = capsys.readouterr().out
    assert "--workers/--scheduler are not used: " in said and "this MIP is trained in this process" in said
    write_csv(tmp_path / "d.csv", X, y)
    (tmp_path / "n.ann").write_text(NLL_WIDTH1)
    assert main(["train", str(tmp_path / "n.ann"), str(tmp_path / "d.csv"), "--select", "--workers", "0",
                 "-o", str(tmp_path / "out")]) == 2
    assert_names(capsys.readouterr().err, "--workers", "whole number")  # the --select path
    assert not (tmp_path / "out").exists()
