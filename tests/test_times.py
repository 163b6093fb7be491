"""The verdict's times (issue 38): the run's wall time and its parts (build, start pool,
search, full MIP, bounds, finish), not the solver's seconds alone."""
import re

import annc
from annc.export.report import time_line
from annc.training.results import TIME_PARTS

from conftest import SPECS, run_cli


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
    assert r.steps[0].times["step"] <= r.wall + 1e-6
    assert set(r.network.meta["steps"][0]["times"]) >= {"build", "full MIP", "step"}


def test_the_cli_verdict_prints_the_wall_time(xor_csv, tmp_path):
    code, out, err = run_cli("train", SPECS / "xor.ann", xor_csv, "-o", tmp_path / "out", "-q")
    assert code == 0, err
    m = re.search(r"^  wall time +([0-9.]+) s \((.*)\)$", out, re.M)
    assert m and "solve time" not in out, out
    parts = dict(re.findall(r"(build|start pool|search|full MIP|bounds|finish|the rest) ([0-9.]+) s", m.group(2)))
    assert "full MIP" in parts and abs(sum(map(float, parts.values())) - float(m.group(1))) < 0.05
