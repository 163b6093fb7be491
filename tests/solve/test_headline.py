"""The verdict's first line (annc.export.report.headline): plain words, one line, honest about
what is proven (the training objective's bound, never test accuracy)."""
from __future__ import annotations

import pytest

from annc.export.report import headline
from annc.solve.verdict import judge


def _line(v, test=(0.947, 171)):
    return headline(v, train=(0.9925, 398), test=test, weights=8)


def test_a_gap_is_a_bound_on_the_training_objective():
    v = judge(7.0, 1.5, relaxed=False, source="solver")
    v.search = {"found_by": "model selection: L1 logistic C=3 thinned, width 1, eps 0.001, kept"}
    line = _line(v)
    assert "\n" not in line and line.startswith("network: 94.7% on the 171 test rows")
    assert "8 non-zero weights" in line and "found by model selection (L1 logistic C=3 thinned" in line
    assert "not proven optimal" in line and "below 1.5" in line and "at most 78.6% lower" in line
    assert "not on test accuracy" in line


def test_without_test_rows_it_gives_the_training_accuracy():
    v = judge(0.0, 0.0, relaxed=False, source="solver")
    line = _line(v, test=None)
    assert "99.2% on the 398 training rows (no test rows" in line
    assert "; proven optimal" in line and "found by the solver" in line


def test_a_bound_of_zero_proves_nothing():
    line = _line(judge(7.0, 0.0, relaxed=False, source="solver"))
    assert "nothing proven" in line and "at most" not in line


@pytest.mark.parametrize("verified", [False])
def test_no_network_no_claim(verified):
    line = headline(None, train=(0.5, 10), test=None, weights=0, verified=verified)
    assert line.startswith("network: none") and "proven" not in line


def test_a_gap_asked_is_not_a_proof():
    """``--gap 1`` makes objective 17 against bound 2.5 ``optimal`` (the solvers' meaning of a gap
    tolerance), but nothing in the verdict calls it proven."""
    v = judge(17.0, 2.5, relaxed=False, source="MIP start", rel_tol=1.0)
    assert v.status.value == "optimal" and not v.proven
    assert "within the gap asked" in v.describe()
    line = _line(v)
    assert "proven optimal" not in line.replace("not proven optimal", "")
    assert "within the gap asked" in line and "below 2.5" in line
    assert judge(17.0, 17.0, relaxed=False, source="solver", rel_tol=1.0).proven
