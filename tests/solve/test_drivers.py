"""Solver drivers: declared capabilities, the one option table, and that the layers below
the command line say nothing themselves (they take a ``log`` callback)."""
from __future__ import annotations

import ast
import os
import signal
from pathlib import Path

import pytest

import annc.solve.solvers
import annc.io.writers
from annc.io.datasets import write_csv, xor_data
from annc.core.errors import AnncError
from annc.solve.solvers import SOLVERS, SolveOptions, get_driver
from annc.solve.solvers.base import Interrupt
from annc.solve.solvers.driver import OPTIONS, Driver
from annc.solve.solvers.highs import HighsDriver

from conftest import ROOT, SPECS, run_cli

CAPABILITIES = ("in_memory", "mip_start", "progress", "interrupt")
ABOVE = {"decode", "verify", "varmap", "compiler", "warmstart", "starts", "chain", "training", "api",
         "experiment", "cli"}  # not for solvers


def test_every_driver_declares_its_capabilities_and_parameters():
    assert list(SOLVERS) == ["highs", "cbc", "scip", "glpk", "gurobi", "cplex", "xpress", "cmd"]
    for name, driver in SOLVERS.items():
        assert isinstance(driver, Driver) and driver.name == name and get_driver(name) is driver
        assert all(isinstance(getattr(driver, c), bool) for c in CAPABILITIES), name
        assert set(driver.parameters) <= set(OPTIONS), name
        assert set(driver.conversions) <= set(driver.parameters), name
    # what train and the README rely on
    assert [n for n, d in SOLVERS.items() if d.mip_start] == ["highs", "scip", "gurobi", "cplex", "xpress"]
    assert [n for n, d in SOLVERS.items() if d.in_memory] == ["highs"]
    assert all(d.progress for d in SOLVERS.values())
    with pytest.raises(AnncError, match="unknown solver 'nope'"):
        get_driver("nope")


def test_one_option_table_mapped_to_each_solvers_names():
    opts = SolveOptions(time_limit=2.6, gap=0.01, threads=3)
    assert SOLVERS["highs"].settings(opts) == [("time_limit", 2.6), ("mip_rel_gap", 0.01), ("threads", 3)]
    assert SOLVERS["gurobi"].settings(opts) == [("TimeLimit", 2.6), ("MIPGap", 0.01), ("Threads", 3)]
    assert SOLVERS["glpk"].settings(opts) == [("--tmlim", 3), ("--mipgap", 0.01)]  # whole seconds, no threads
    assert SOLVERS["cmd"].settings(opts) == []  # the template says what the program does
    assert SOLVERS["scip"].settings(SolveOptions(gap=0.5)) == [("limits/gap", 0.5)]  # unset: not passed
    cmd = SOLVERS["cbc"].command(opts)
    assert cmd[1:] == ["{model}", "-timeMode", "elapsed", "-sec", "2.6", "-ratio", "0.01", "-threads", "3",
                       "-solve", "-solu", "{sol}"]


def test_node_limit_is_mapped_to_each_solvers_name_and_checked():
    opts = SolveOptions(node_limit=7)
    names = {"highs": "mip_max_nodes", "scip": "limits/nodes", "gurobi": "NodeLimit", "cplex": "mip.limits.nodes",
             "xpress": "maxnode"}
    for solver, name in names.items():
        assert SOLVERS[solver].settings(opts) == [(name, 7)], solver
    assert SOLVERS["glpk"].settings(opts) == []  # GLPK has no node limit
    assert SOLVERS["cbc"].command(opts)[4:6] == ["-maxNodes", "7"]
    assert SolveOptions(node_limit=3.0).checked().node_limit == 3
    for bad in (-1, 2.5, True, "10", 2**31):
        with pytest.raises(AnncError, match="node limit"):
            SolveOptions(node_limit=bad).checked()


def test_train_asks_the_driver_for_a_mip_start(tmp_path, monkeypatch):
    X, y = xor_data(16, noise=0.1, seed=0)
    csv = write_csv(tmp_path / "xor16.csv", X, y)
    code, out, err = run_cli("train", SPECS / "xor.ann", csv, "-o", tmp_path / "a")  # no -q: the log says it
    assert code == 0, out + err
    assert "MIP start" in out

    class NoStart(HighsDriver):
        mip_start = False

    monkeypatch.setitem(annc.solve.solvers.SOLVERS, "highs", NoStart())
    code, out, err = run_cli("train", SPECS / "xor.ann", csv, "-o", tmp_path / "b")
    assert code == 0, out + err
    assert "MIP start" not in out


def test_interrupt_message_goes_to_the_log_callback(capfd):
    for log in (None, []):
        intr = Interrupt(log=None if log is None else log.append)
        intr.on_interrupt = lambda: None  # a solver is running: the first Ctrl-C stops it
        with intr.armed():
            os.kill(os.getpid(), signal.SIGINT)
        assert intr.requested
        if log is not None:
            assert log == [Interrupt.MESSAGE]
    assert capfd.readouterr() == ("", "")  # without a log nothing is said


def test_writer_benchmark_reports_through_log(tmp_path, capsys):
    lines = []
    out = annc.io.writers.benchmark(nnz=2000, folder=tmp_path, names=("b.mps", "b.lp"), log=lines.append)
    assert set(out) == {"b.mps", "b.lp"} and len(lines) == 2 and lines[0].startswith("b.mps: ")
    annc.io.writers.benchmark(nnz=2000, folder=tmp_path, names=("b.mps",))
    assert capsys.readouterr().out == ""


def test_solvers_import_neither_decode_nor_verify():
    """The solver layer aligns solutions with annc.io.solutions.align, never the decode layer."""
    for path in sorted((ROOT / "annc" / "solvers").glob("*.py")):
        for node in ast.walk(ast.parse(Path(path).read_text())):
            if isinstance(node, ast.ImportFrom):
                names = (node.module or "").split(".") + [a.name for a in node.names]
                assert not ABOVE & set(names), f"{path.name}: from {node.module} import ..."
