"""The verdict's times (issue 38): the run's wall time and its parts (build, start pool,
search, full MIP, bounds, finish), not the solver's seconds alone."""
import re

import annc
from annc.export.report import time_line
from annc.training.results import TIME_PARTS

from conftest import SPECS, run_cli, assert_names


def test_time_line_gives_the_wall_time_and_its_parts():
    line = time_line(33.0, {"build": 1.0, "start pool": 8.0, "search": 5.0, "full MIP": 7.39, "bounds": 3.0,
                            "finish": 0.0})
    assert line.split(None, 2)[:2] == ["wall", "time"]
    assert "33.00 s (build 1.00 s, start pool 8.00 s, search 5.00 s, full MIP 7.39 s, bounds 3.00 s, " \
           "the rest 8.61 s)" in line
    assert "finish" not in line  # a part that took no time is left out


def test_train_records_the_parts_of_its_wall_time(xor_csv, tmp_path):
    r = annc.train(SPECS / "xor.ann", xor_csv, out_dir=tmp_path / "out", time_limit=60)
    parts = r.times()
    assert list(parts) == list(TIME_PARTS)
    assert parts["full MIP"] >= r.seconds - 1e-6 and parts["build"] > 0
    assert r.wall is not None and sum(parts.values()) <= r.wall + 1e-6
    assert r.steps[0].times.step <= r.wall + 1e-6
    assert set(r.network.meta["steps"][0]["times"]) >= {"build", "full MIP", "step"}


def test_the_cli_verdict_prints_the_wall_time(xor_csv, tmp_path):
    code, out, err = run_cli("train", SPECS / "xor.ann", xor_csv, "-o", tmp_path / "out", "-q")
    assert code == 0, err
    m = re.search(r"^  wall time +([0-9.]+) s \((.*)\)$", out, re.M)
    assert m and "solve time" not in out, out
    parts = dict(re.findall(r"(build|start pool|search|full MIP|bounds|finish|the rest) ([0-9.]+) s", m.group(2)))
    assert "full MIP" in parts and abs(sum(map(float, parts.values())) - float(m.group(1))) < 0.05


# -- the time limit counts from the command's start ------------------------------------------
def _request(xor_csv, started, limit):
    from annc.app.api import train_request
    from dataclasses import replace
    return replace(train_request(SPECS / "xor.ann", xor_csv, time_limit=limit, out_dir=None), started=started)


def test_the_seconds_before_training_are_taken_from_the_limit(xor_csv, monkeypatch):
    """A command that began 3 s before training (starting annc, reading the data) leaves
    training at most its limit less those 3 s, and says so: the run's context, built once by the
    dispatch, counts from the command's start."""
    import time
    from dataclasses import replace
    from annc.training import dispatch
    lines, left = [], []
    monkeypatch.setattr(dispatch, "fit", lambda r, ctx, **kw: left.append(ctx.left()))
    dispatch.run(replace(_request(xor_csv, time.perf_counter() - 3.0, 10.0), log=lines.append, select=False))
    assert 0 < left[0] <= 7.0
    assert any(re.match(r"\[time\] [0-9.]+ s of the 10 s limit went on starting annc", line) for line in lines)
    dispatch.run(replace(_request(xor_csv, time.perf_counter() - 3.0, None), select=False))  # no limit: none
    assert left[1] is None


def test_the_folds_plan_and_cap_read_the_users_limit_and_the_final_training_has_the_rest(xor_csv, monkeypatch):
    """30 s given, 5 s of it spent before training: cross-validation is planned for 30 s and
    capped at its share of 30 s (as on a machine that starts in no time), and the final training
    has what is left of the 30 s from the command's start."""
    import time
    from dataclasses import dataclass, replace
    from annc.training import dispatch
    from annc.training.modelselect.policy import DEFAULT_POLICY
    from annc.training.modelselect.strategy import Strategy
    seen = {}

    @dataclass(frozen=True)
    class Folds(Strategy):  # records what cross-validation would be given, and chooses nothing
        def choose(self, r, whole, train):
            seen.update(plan=r.opts.time_limit, cap=self.part(r, whole).left())
            return None  # nothing chosen: the spec as written is trained
    monkeypatch.setattr(dispatch, "fit", lambda r, ctx, **kw: seen.update(final=ctx.left()))  # the run's context
    dispatch.run(replace(_request(xor_csv, time.perf_counter() - 5.0, 30.0), select=Folds()))
    share = DEFAULT_POLICY.select_share * 30.0
    assert seen["plan"] == 30.0
    assert share - 5.0 < seen["cap"] <= share  # its share of the user's 30 s, not of the 25 s left
    assert seen["final"] <= 25.0


def test_a_limit_spent_before_training_is_refused_and_nothing_is_written(xor_csv, tmp_path):
    """--time-limit shorter than what starting the command took: annc's usage error (exit 2),
    naming the seconds spent, and no file written."""
    code, out, err = run_cli("train", SPECS / "xor.ann", xor_csv, "--time-limit", "1e-9", "-o", tmp_path / "out")
    assert code == 2, out + err
    assert "Traceback" not in err
    assert_names(err, "time limit", "1e-09 s")
    assert not (tmp_path / "out").exists()
