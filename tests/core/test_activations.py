"""The table of hidden activations (:mod:`annc.core.activations`): its claims hold, and every
layer that reads it (spec, network, formulations, SGD) agrees with it."""
from __future__ import annotations

import numpy as np
import pytest

from annc.training import sgd
from annc.core.activations import EXACT, HIDDEN, MCCORMICK, takes_pieces
from annc.formulations import ACTIVATIONS as FORMULATIONS
from annc.core.network import ACTIVATIONS, activate
from annc.io.spec.types import HIDDEN_ACTIVATIONS

PRE = np.r_[np.linspace(-5, 5, 41), -1e-12, 0.0, 1e-12, 123.456]
NAMES = sorted(HIDDEN)


def test_every_layer_names_the_same_activations():
    """A new activation registered in the table but not in the formulation registry (or the
    other way round) fails here."""
    assert list(FORMULATIONS) == list(HIDDEN)
    assert HIDDEN_ACTIVATIONS == tuple(HIDDEN)
    assert ACTIVATIONS == (*HIDDEN, "linear")
    assert set(sgd.HIDDEN_ACTIVATIONS) <= set(HIDDEN)


@pytest.mark.parametrize("name", NAMES)
def test_the_table_says_what_the_formulation_does(name):
    a = HIDDEN[name]
    assert a.name == name
    assert FORMULATIONS[name].RELAXES_PRODUCTS == (a.products == MCCORMICK)
    assert takes_pieces(name) == (a.products == MCCORMICK)
    assert a.products in (EXACT, MCCORMICK)


@pytest.mark.parametrize("name", NAMES)
def test_range_and_scaling_hold(name):
    a = HIDDEN[name]
    out = activate(name, PRE)
    assert out.dtype == float and out.shape == PRE.shape
    assert np.all(out >= a.low)
    assert np.all(np.abs(out) <= a.bound(np.abs(PRE)))  # bounded, or |f(pre)| <= |pre|
    for c in (0.25, 3.0):
        if a.step:
            assert np.array_equal(activate(name, c * PRE), out)
        if a.homogeneous:
            assert np.allclose(activate(name, c * PRE), c * out)
    assert not (a.step and a.homogeneous)


def test_the_forward_passes():
    pre = np.array([-0.5, 0.0, 2.0])
    assert activate("binary", pre).tolist() == [0.0, 1.0, 1.0]
    assert activate("relu", pre).tolist() == [0.0, 0.0, 2.0]
    assert activate("sign", pre).tolist() == [-1.0, 1.0, 1.0]
    assert activate("linear", pre) is pre


@pytest.mark.parametrize("name", sgd.HIDDEN_ACTIVATIONS)
def test_sgd_trains_the_tables_forward_pass(name):
    for dtype in (np.float32, np.float64):
        got, _ = sgd._hidden(name, PRE.astype(dtype))
        assert got.dtype == dtype
        assert np.array_equal(got, HIDDEN[name].forward(PRE.astype(dtype)))
