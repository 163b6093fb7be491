"""The one feasibility rule (:meth:`annc.core.model.Model.check`, :mod:`annc.core.feasibility`):
typed violations, one tolerance policy, NaN always a violation."""
from __future__ import annotations

import numpy as np
import pytest

from annc.core.builder import ModelBuilder
from annc.core.feasibility import KINDS, SOLUTION_TOL, START_TOL, Violation


def model(rhs=10.0):
    """``x`` in [0, 4] integer (shape 2), ``y`` in [-1, 1]; rows ``x_0 + x_1 + y <= rhs``
    (``r``) and ``x_0 - y >= 0`` (``s_0``)."""
    mb = ModelBuilder("t")
    x = mb.var("x", (2,), 0, 4, integer=True)
    y = mb.var("y", (), -1, 1)
    mb.rows("r", (), "L", rhs, [(x, 1.0), (y, 1.0)])
    mb.rows("s", (1,), "G", 0.0, [(x[:1], 1.0), (y, -1.0)])
    return mb.build()


def test_a_solution_has_no_violation():
    c = model().check([1, 2, 0.5])
    assert c.ok and c.violations == () and c.tol == SOLUTION_TOL
    assert all(c.worst(k) is None for k in KINDS)
    assert model().violations([1, 2, 0.5]) == {k: {"max": 0.0, "where": None}
                                               for k in ("row", "bound", "integrality")}


def test_each_kind_is_named_and_measured():
    c = model().check([1.25, 5, -2])  # x_0 fractional, x_1 over its bound, y under its bound
    assert not c.ok
    assert [v.kind for v in c.violations] == ["integrality", "bound"]
    assert c.worst("integrality") == Violation("integrality", "x_0", 0.25)
    assert c.worst("bound") == Violation("bound", "x_1", 1.0)
    assert c.count("bound") == 2  # x_1 and y
    assert c.worst("bound").describe() == "bound violated by 1 at x_1"
    assert c.worst("integrality").describe() == "x_0 is 0.25 away from an integer"
    row = model().check([0, 0, 1]).worst("row")  # x_0 - y = -1 >= 0
    assert row == Violation("row", "s_0", 1.0) and row.describe() == "row s_0 violated by 1"


def test_rows_are_scaled_by_the_largest_rhs_bounds_and_integrality_are_not():
    # r: 4 + 4 + 1 = 9 <= rhs; violated by 1e-4 when rhs = 9 - 1e-4
    x = [4, 4, 1.0]
    assert not model(rhs=9 - 1e-4).check(x, tol=1e-5).ok  # scale max(1, 9) -> limit 9e-5 < 1e-4
    assert model(rhs=9 - 1e-4).check(x, tol=2e-5).ok  # limit 1.8e-4
    assert model(rhs=9 - 1e-4).check(x, tol=2e-5).row_scale == pytest.approx(9 - 1e-4)
    assert not model().check([4 + 2e-5, 0, 0], tol=1e-5).ok  # bound: absolute
    assert not model().check([2e-5, 0, 0], tol=1e-5).ok  # integrality: absolute


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_value_is_always_a_violation(bad):
    c = model().check([1, bad, 0], tol=np.inf)
    assert not c.ok and c.violations[0].kind == "non-finite" and c.count("non-finite") == 1
    assert c.violations[0].where == "x_1" and c.violations[0].describe() == f"column x_1 has the value {bad}"
    assert c.worst("bound") is None and c.worst("integrality") is None  # reported once, as non-finite


def test_an_overflowing_row_is_a_violation():
    """``x_0 - y`` overflows to +inf on a ``>=`` row: satisfied "in the limit", but no
    number, so a violation (NaN), even with an infinite tolerance."""
    c = model().check([1.7e308, 0, -1.7e308], tol=np.inf)
    assert [v.kind for v in c.violations] == ["row"]
    assert c.violations[0].where == "s_0" and np.isnan(c.violations[0].amount)


def test_the_start_tolerance_is_the_stricter():
    assert START_TOL < SOLUTION_TOL
    assert model().check([1 + 1e-6, 2, 0]).ok and not model().check([1 + 1e-6, 2, 0], START_TOL).ok
