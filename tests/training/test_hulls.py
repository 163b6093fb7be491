"""The hull packing (annc.training.bounds.hulls) against brute force.

Every network of one effective step unit errs on a sample of each set of the packing, and the
sets are disjoint in samples, so the packing may never exceed the fewest errors of those
networks: :mod:`test_levels`'s enumeration of the grid (weights on ``[-1, 1]`` grid 3, hidden
biases on the 1/16 grid of ``[-2, 2]``: fine enough to split rows eps apart) gives them.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bounds import EXACT, grid_text, problem_of
from test_levels import errors_within

from annc.training.bounds import lower_bounds
from annc.training.bounds.conflict import radius
from annc.training.bounds.hulls import HullSet, applies, hull_sets, packed


@st.composite
def rows_1_2(draw):
    """8-12 distinct rows of multiples of 1/16 in one or two features, two classes (now and then
    a row with both), 1-2 samples a class; one or two hidden units; eps 0.1 or 0.3."""
    d = draw(st.integers(1, 2))
    U = draw(st.integers(8, 12))
    cells = draw(st.lists(st.tuples(*[st.integers(0, 16)] * d), min_size=U, max_size=U, unique=True))
    X = np.array(cells, float) / 16
    counts = np.zeros((U, 2), int)
    for u in range(U):
        counts[u, draw(st.integers(0, 1))] = draw(st.integers(1, 2))
        if draw(st.integers(0, 5)) == 0:
            counts[u, 1 - counts[u].argmax()] = 1
    k = draw(st.integers(1, 2)) if d == 1 else 1
    return problem_of(grid_text(d, k, 2, draw(st.sampled_from([0.1, 0.3])), lam=0.0), X, counts)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=rows_1_2())
def test_the_packing_never_exceeds_the_fewest_errors_of_one_unit(problem):
    sets = hull_sets(problem.X, problem.counts, problem.spec)
    best, _ = errors_within(problem, units=(0, 1))
    assert packed(sets) <= best.min() + EXACT
    used = np.zeros_like(problem.counts, float)  # disjoint in samples: no group over its count
    for s in sets:
        assert len({g[1] for g in s.groups}) == 2 and s.weight > 0
        for g in s.groups:
            used[g] += s.weight
    assert np.all(used <= problem.counts + 1e-9)


def test_two_separate_a_b_a_runs_cost_two_errors_and_the_packing_proves_it():
    """A B A, then A B A further on (one feature): one threshold errs twice at least, and
    each run is a set whose B row lies in the hull of its A rows."""
    X = [[0.0], [0.125], [0.25], [0.625], [0.75], [0.875]]
    pb = problem_of(grid_text(1, 1, 2, 0.1, lam=0.0), X, [[1, 0], [0, 1], [1, 0], [1, 0], [0, 1], [1, 0]])
    sets = hull_sets(pb.X, pb.counts, pb.spec)
    best, _ = errors_within(pb)
    assert packed(sets) == best.min() == 2
    assert all(isinstance(s, HullSet) and len(s.groups) == 3 for s in sets)
    found = {b.source: b for b in lower_bounds(pb, work=None)}
    assert found["hull packing"].value == 2


def test_rows_a_margin_apart_count_and_farther_ones_do_not():
    """The certificate is W ||z_A - z_B||_1 < eps: a B row a little off the A rows' segment
    (within eps / W) still costs an error, one farther off does not."""
    spec_rows = [[0.0, 0.0], [1.0, 0.0]]
    for off, expected in ((0.05, 1), (0.2, 0)):  # eps 0.1, W 1: the radius is 0.1
        pb = problem_of(grid_text(2, 1, 2, 0.1, lam=0.0), spec_rows + [[0.5, off]], [[1, 0], [1, 0], [0, 1]])
        assert radius(pb.spec) == pytest.approx(0.1)
        assert packed(hull_sets(pb.X, pb.counts, pb.spec)) == expected


def test_it_applies_to_one_hidden_layer_of_step_units_only():
    assert applies(problem_of(grid_text(1, 1, 2, 0.1), [[0.0], [1.0]], [[1, 0], [0, 1]]).spec)
    relu = problem_of(grid_text(1, 1, 2, 0.1, act="relu"), [[0.0], [1.0]], [[1, 0], [0, 1]])
    assert not applies(relu.spec) and hull_sets(relu.X, relu.counts, relu.spec) == []


def test_the_sets_left_out_of_a_row_set_are_those_that_touch_it():
    sets = [HullSet(((0, 0), (1, 1), (2, 0)), 1.0), HullSet(((3, 0), (4, 1), (5, 0)), 0.5)]
    assert packed(sets) == 1.5 and packed(sets, leave_out=[4]) == 1.0 and packed(sets, leave_out=[0, 5]) == 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=rows_1_2(), lam=st.sampled_from([0.25, 0.5]))
def test_the_weight_levels_with_the_packing_stay_below_the_optimum_and_above_without(problem, lam):
    from dataclasses import replace

    from annc.training.bounds.levels import Levels, level_bound
    problem = replace(problem, spec=replace(problem.spec, penalty="l0", penalty_weight=lam))
    _, optimum = errors_within(problem)
    sets = hull_sets(problem.X, problem.counts, problem.spec)
    work = Levels(max_subs=0)  # structure only: what the packing adds
    with_sets = level_bound(problem, target=optimum + 10, work=work, hulls=sets)
    without = level_bound(problem, target=optimum + 10, work=work)
    assert without.value - EXACT <= with_sets.value <= optimum + EXACT
    if problem.spec.hidden[0].units == 1 and packed(sets) > 0:
        assert with_sets.value >= min(2 * lam + packed(sets), problem.counts.sum() - problem.counts.sum(0).max()) - EXACT
