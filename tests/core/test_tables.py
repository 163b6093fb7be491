"""Every registry agrees with its table at the bottom layer, and a missing entry fails loudly.

A registry holds the modules that do a concept's work (the formulations of a loss, the
writer of a format, a solver's driver); its table holds the facts the lower layers read
(:mod:`annc.core.losses`, :mod:`annc.core.activations`, :mod:`annc.io.writers.startfiles`).  A name
in one and not the other fails here, and a reader asked for a name its table lacks
raises a ``KeyError`` instead of treating it like another entry.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from annc import formulations
from annc.core import losses
from annc.core.losses import LOSS


# -- losses: annc.formulations.LOSSES (the mathematics) and annc.core.losses.LOSS (the facts) ----------
def test_every_loss_has_a_table_entry_and_every_entry_a_formulation():
    from annc.io.spec.types import LOSSES as SPEC_LOSSES
    assert set(formulations.LOSSES) == set(LOSS) == set(SPEC_LOSSES)
    assert all(name == loss.name for name, loss in LOSS.items())


def test_every_penalty_has_a_table_entry_and_every_entry_a_formulation():
    from annc.core.penalties import PENALTY
    from annc.io.spec.types import PENALTIES as SPEC_PENALTIES
    assert set(formulations.PENALTIES) == set(PENALTY) == set(SPEC_PENALTIES)
    assert all(name == p.name for name, p in PENALTY.items())
    assert all(p.weighted == (p.per_weight is not None) for p in PENALTY.values())


def test_a_loss_argument_is_a_spec_field_with_the_table_default():
    from dataclasses import fields

    from annc.io.spec import NetworkSpec
    from annc.io.spec.values import ValueChecker
    spec_fields = {f.name: f.default for f in fields(NetworkSpec)}
    for name in losses.with_argument():
        argument = LOSS[name].argument
        assert spec_fields[argument.name] == argument.default
        assert callable(getattr(ValueChecker, argument.check))


def test_a_loss_missing_from_the_table_fails_loudly(monkeypatch):
    """Sizes, magnitudes, the spec's text and model selection look the loss up: none of them
    quietly treats a loss it does not know like another one."""
    from annc.io.datasets import xor_data
    from annc.core.limits import data_size
    from annc.io.magnitudes import check_numbers
    from annc.training.modelselect.selection import candidates
    from annc.io.spec import format_spec, parse_spec
    spec = parse_spec("input 2\nhidden 2 binary\noutput 2\nloss hinge 0.5\n")
    X, y = xor_data(8, noise=0.1, seed=0)
    monkeypatch.delitem(LOSS, "hinge")
    for call in (lambda: data_size(spec, X), lambda: check_numbers(spec, SimpleNamespace(X=X, y=y)),
                 lambda: format_spec(spec), lambda: candidates(spec)):
        with pytest.raises(KeyError, match="hinge"):
            call()


# -- model formats: annc.io.writers.MODEL_FORMATS, and what reads it -------------------------------------
def test_the_compiler_the_command_line_and_pulp_read_the_writer_registry():
    import pulp

    from annc.solve import compiler
    from annc.app.cli import parser
    from annc.io.writers import FORMATS, MODEL_FORMATS
    assert list(FORMATS) == list(MODEL_FORMATS) and compiler.FORMATS is FORMATS
    assert all(name == f.name for name, f in MODEL_FORMATS.items())
    compile_cmd = parser()._subparsers._group_actions[0].choices["compile"]
    choices = next(a.choices for a in compile_cmd._actions if "--format" in a.option_strings)
    assert list(choices) == list(MODEL_FORMATS)
    for f in MODEL_FORMATS.values():
        assert f.pulp_method is None or callable(getattr(pulp.LpProblem, f.pulp_method))


# -- activations: annc.formulations.ACTIVATIONS and annc.core.activations.HIDDEN, with its ONNX hooks ----
def test_every_activation_has_an_onnx_hook_that_computes_its_forward_pass():
    onnxruntime = pytest.importorskip("onnxruntime")
    import numpy as np

    from annc.core.activations import HIDDEN
    from annc.core.network import Layer, TrainedNetwork
    from annc.export.onnx_export import to_onnx
    assert set(formulations.ACTIVATIONS) == set(HIDDEN)
    X = np.array([[-2.0], [-1e-300], [0.0], [1e-300], [0.5], [3.0]])
    for name, act in HIDDEN.items():
        assert callable(act.onnx), name
        net = TrainedNetwork([0, 1], [Layer(name, [[1.0]], [0.0]), Layer("linear", [[1.0, -1.0]], [0.0, 0.0])])
        sess = onnxruntime.InferenceSession(to_onnx(net).SerializeToString(), providers=["CPUExecutionProvider"])
        scores = sess.run(["scores"], {"X": X})[0]
        np.testing.assert_array_equal(scores[:, 0], act.forward(X[:, 0]), err_msg=name)


# -- solver drivers and the start files: Driver.start_format and annc.io.writers.startfiles ------------
def test_every_driver_reads_a_known_start_file_and_every_start_file_has_a_reader():
    from annc.solve.solvers import SOLVERS
    from annc.io.writers.startfiles import START_FILES, START_FORMATS, start_readers
    assert set(START_FORMATS) == {f.format for f in START_FILES}
    for name, driver in SOLVERS.items():
        assert driver.title, name
        assert driver.start_format is None or driver.start_format in START_FORMATS, (name, driver.start_format)
    for f in START_FILES:
        assert start_readers(f, SOLVERS.values()), f"no driver reads the start file .{f.suffix}"
    assert start_readers(START_FORMATS["sol"], SOLVERS.values()) == "Gurobi"
    assert start_readers(START_FORMATS["scip-sol"], SOLVERS.values()) == "SCIP"


# -- meta["search"]: stored once, read from where it is (and from older files) ---------------------
def test_search_record_reads_the_first_step_and_older_files():
    from annc.solve.verdict import search_record
    record = {"pool": [], "found_by": "start pool"}
    assert search_record({"steps": [{"search": record}]}) == record
    assert search_record({"search": record, "steps": [{}]}) == record  # a file of an older annc
    assert search_record({"steps": []}) is None and search_record({}) is None and search_record(None) is None
