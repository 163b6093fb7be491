"""Extending annc: a new loss (with an argument), a new model format and a new hidden
activation (with its ONNX export) are each one new module plus its registration.

The modules are in ``tests/extensions/``, written against annc's public pieces only:
``sqhinge.py`` (the squared hinge with its margin), ``coo.py`` (the model as text
triplets), ``flip.py`` (``1 - 1[pre >= 0]``).  Each test registers one at run time with
one line (:func:`annc.formulations.register` for a loss or an activation, which also puts
the module's facts in their table; one ``MODEL_FORMATS`` entry for a format), undone after
the test (these are throwaway entries), and drives it
end to end through the spec language, the compiler, the command line, a solve with
verification, selection, the estimator's spec and the ONNX export, none of which was
edited for it.  docs/architecture.md ("What a change touches") lists the same places
for a built-in one.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import annc
from annc import formulations
from annc.core import losses
from annc.io import writers
from annc.io.datasets import xor_data
from annc.formulations import formulate
from annc.core.limits import model_size
from annc.io.problem import make_problem
from annc.io.spec import format_spec, parse_spec
from conftest import SPECS, run_cli, assert_names
from extensions import coo, flip, sqhinge
from test_formulation_registry import check_lift, instances


@pytest.fixture
def register(request):
    """A formulation module's one registration line, :func:`annc.formulations.register`, undone
    after the test (these are throwaway entries)."""
    done = set()

    def add(module):
        if module not in done:  # a property test registers once for all its examples
            done.add(module)
            request.addfinalizer(formulations.register(module))
    return add


def test_a_registration_is_refused_twice_and_undone():
    undo = formulations.register(sqhinge)
    try:
        assert formulations.LOSSES["sqhinge"] is sqhinge and losses.LOSS["sqhinge"] is sqhinge.LOSS
        with pytest.raises(ValueError, match="'sqhinge' is taken"):
            formulations.register(sqhinge)
    finally:
        undo()
    assert "sqhinge" not in formulations.LOSSES and "sqhinge" not in losses.LOSS
    with pytest.raises(ValueError, match="exactly one of"):
        formulations.register(coo)


def assert_size_is_the_model_size(spec, X, y):
    """:func:`annc.core.limits.model_size` (read from the tables) counts the model that is built:
    columns and rows exactly, non-zeros as a bound that is exact unless a big-M is 0."""
    pb = make_problem(spec, X, y, [0, 1])
    st = formulate(pb).stats()
    size = model_size(spec, pb.num_rows, int(np.count_nonzero(pb.X)), int(np.count_nonzero(pb.counts)))
    assert (size.columns, size.rows) == (st["columns"], st["rows"])
    assert st["nonzeros"] <= size.nonzeros <= 1.3 * st["nonzeros"]


XOR = "input 5\nhidden 3 binary\noutput 2\nweights [-1, 1]\nbias [-1, 1]\neps 0.01\n"


# -- a loss with an argument: the squared hinge with its margin -------------------------------------
def test_a_new_loss_with_its_margin(register):
    register(sqhinge)
    spec = parse_spec(XOR + "loss sqhinge 0.5\n")
    assert spec.loss == "sqhinge" and spec.margin == 0.5
    assert "loss sqhinge 0.5" in format_spec(spec) and parse_spec(format_spec(spec)) == spec
    assert parse_spec(XOR + "loss sqhinge\n").margin == 1.0  # the argument's default
    with pytest.raises(annc.core.errors.SpecError, match="margin.*> 0"):
        parse_spec(XOR + "loss sqhinge -1\n")
    with pytest.raises(annc.core.errors.SpecError, match=r"'loss hinge', 'loss sqhinge'"):
        parse_spec(XOR + "loss errors 1\n")
    X, y = xor_data(24, noise=0.1, seed=0)
    assert_size_is_the_model_size(spec, X, y)
    r = annc.train(spec, (X, y), warm_start=False, time_limit=15)  # the network need not be optimal, only verified
    assert r.verified and r.network.scores(X).shape == (24, 2)
    from annc.training.modelselect.selection import candidates
    assert any("margin 0.25" in label for label, _ in candidates(spec))
    from annc.app.estimator import MIPNetClassifier
    from annc.app.estimator_spec import spec_text
    text = spec_text(MIPNetClassifier(hidden_layer_sizes=(2,), loss="sqhinge", margin=0.5), 5, 2)
    assert "loss sqhinge 0.5" in text


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                  HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_new_loss_lifts_and_its_value_is_the_objective(register, data):
    """The registry's property test (tests/formulations/test_formulation_registry.py) on the new loss."""
    register(sqhinge)
    check_lift("binary", "sqhinge", data.draw(st.sampled_from(["none", "l1", "l0"])), data.draw(instances("binary")))


# -- a model format: text triplets --------------------------------------------------------------------
def test_a_new_model_format(monkeypatch, tmp_path):
    monkeypatch.setitem(writers.MODEL_FORMATS, "coo", coo.FORMAT)
    assert writers.format_from_path("m.coo.gz") == ("coo", True)
    out = tmp_path / "out"
    code, stdout, err = run_cli("compile", SPECS / "xor.ann", SPECS / "xor_sample.csv", "--format", "coo",
                                "--no-start", "-o", out)
    assert code == 0, err
    assert json.loads((out / "xor.map.json").read_text())["model"]["format"] == "coo"
    lines = (out / "xor.coo").read_text().splitlines()
    c = annc.compile(SPECS / "xor.ann", SPECS / "xor_sample.csv", start=False)
    assert [float(v) for v in lines[0].split()[1:]] == list(c.model.obj)
    assert sum(line.startswith("a ") for line in lines) == c.model.A.nnz
    assert sum(line.startswith("col ") for line in lines) == c.model.num_cols
    code, _, err = run_cli("compile", SPECS / "xor.ann", SPECS / "xor_sample.csv", "--format", "coo",
                           "--writer", "pulp", "--no-start", "-o", tmp_path / "pulp")
    assert code == 2
    assert_names(err, "PuLP", "coo")
    code, _, err = run_cli("compile", SPECS / "xor.ann", SPECS / "xor_sample.csv", "--format", "coo", "--gz",
                           "--no-start", "-o", tmp_path / "gz")
    assert code == 0 and (tmp_path / "gz" / "xor.coo.gz").is_file(), err


# -- a hidden activation with its ONNX export -------------------------------------------------------
def test_a_new_activation_trains_verifies_and_exports_to_onnx(register):
    ort = pytest.importorskip("onnxruntime")
    from annc.export.onnx_export import to_onnx
    register(flip)
    spec = parse_spec(XOR.replace("binary", "flip") + "loss errors\n")
    assert "hidden 3 flip" in format_spec(spec)
    X, y = xor_data(24, noise=0.1, seed=0)
    assert_size_is_the_model_size(spec, X, y)
    r = annc.train(spec, (X, y), warm_start=False)
    assert r.verified and r.network.layers[0].activation == "flip"
    sess = ort.InferenceSession(to_onnx(r.network).SerializeToString(), providers=["CPUExecutionProvider"])
    scores, label = sess.run(["scores", "label"], {"X": X})
    assert np.array_equal(label, r.network.predict_index(X))
    np.testing.assert_allclose(scores, r.network.scores(X), rtol=1e-12, atol=1e-12)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                  HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_new_activation_lifts_and_its_value_is_the_objective(register, data):
    register(flip)
    loss = data.draw(st.sampled_from(sorted(formulations.LOSSES)))
    check_lift("flip", loss, "l0", data.draw(instances("flip")))
