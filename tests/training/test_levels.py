"""Structural and weight-level bounds (annc.training.bounds.structure, .levels) against brute force.

The brute force is :mod:`test_bounds`'s: tiny grid instances whose every network is
enumerated.  Here it also gives, for every weight budget ``p``, the fewest errors of the
networks with at most ``p`` non-zero weights, which the structural bound ``s(p)`` may
never exceed; the weight-level bound may never exceed the optimum.  On the continuous
class both are checked against HiGHS's proven optimum and random networks in the box.
"""
from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bounds import EXACT, after, grid_layers, leads_batch, problem_of, random_networks, spec_text, tiny

from annc.training.context import RunContext
from annc.formulations import formulate
from annc.io.solutions import Status
from annc.solve.solvers import SolveOptions, solve
from annc.training.bounds import lower_bounds
from annc.training.bounds.levels import Levels, budget_model, level_bound, units_for
from annc.training.bounds.structure import Cuts, errors_by_weights, one_cut, top_errors, two_cuts, weight_count
from annc.training.bounds.subset import restrict


def errors_within(problem, units=None) -> tuple[np.ndarray, float]:
    """``(best, optimum)``: ``best[p]`` the fewest errors of the grid's networks with at most
    ``p`` non-zero weights (every unit of each activation pattern kept at its sparsest), and
    the optimum ``min_p best[p] + lambda p``; ``units = (lo, hi)``: only the networks with
    ``lo..hi`` effective units (a non-zero input and output weight each)."""
    spec = problem.spec
    (hl,), out = spec.hidden, spec.output
    d, K, J = spec.inputs, hl.units, out.units
    X, c = problem.X, problem.counts
    one = grid_layers(replace(hl, units=1), d)
    pre = X @ one[:, :d].T + one[:, d]
    cand = np.flatnonzero(~np.any((pre > 0) & (pre < spec.eps), axis=0))
    cand = cand[np.argsort(np.count_nonzero(one[cand, :d], axis=1), kind="stable")]
    _, first = np.unique((pre[:, cand] >= spec.eps).T, axis=0, return_index=True)
    kept = cand[first]
    tuples = np.array(list(itertools.product(kept, repeat=K)))
    h = (pre[:, tuples] >= spec.eps).astype(float)
    act = np.moveaxis(h if hl.activation == "binary" else 2 * h - 1, 0, 1)
    nnz0 = np.count_nonzero(one[tuples][..., :d], axis=(1, 2))
    O = grid_layers(out, K)
    W1, b1 = O[:, :K * J].reshape(-1, K, J), O[:, K * J:]
    nnz1 = np.count_nonzero(W1.reshape(len(W1), -1), axis=1)
    reads = np.count_nonzero(one[tuples][..., :d], axis=2) > 0  # layers x K: the unit has an input weight
    feeds = np.count_nonzero(W1, axis=2) > 0  # outputs x K: the unit has an output weight
    P = weight_count(spec)
    best = np.full(P + 1, np.inf)
    for lo in range(0, len(act), 64):
        scores = np.einsum("puk,okj->pouj", act[lo:lo + 64], W1) + b1[None, :, None, :]
        errors = np.sum(c * (leads_batch(scores) < spec.eps), axis=(2, 3)).astype(float)
        n = nnz0[lo:lo + 64, None] + nnz1[None]
        if units is not None:
            m = (reads[lo:lo + 64, None, :] & feeds[None]).sum(-1)
            errors[(m < units[0]) | (m > units[1])] = np.inf
        np.minimum.at(best, n.ravel(), errors.ravel())
    best = np.minimum.accumulate(best)
    lam = spec.penalty_weight
    return best, float(np.min(best + lam * np.arange(P + 1)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny())
def test_structure_never_exceeds_the_fewest_errors_of_any_weight_budget(problem):
    best, _ = errors_within(problem)
    s = errors_by_weights(problem.X, problem.counts, problem.spec, len(best) - 1)
    assert np.all(s <= best + EXACT), (s, best)
    assert np.all(np.diff(s) <= 0)  # more weights, never more errors


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny(), units=st.sampled_from([(0, 1), (2, 2), (1, 2)]))
def test_structure_by_effective_units_never_exceeds_their_fewest_errors(problem, units):
    best, _ = errors_within(problem, units)
    s = errors_by_weights(problem.X, problem.counts, problem.spec, len(best) - 1, units=units)
    assert np.all(s <= best + EXACT), (units, s, best)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny(J=3))
def test_structure_with_three_classes(problem):
    best, _ = errors_within(problem)
    assert np.all(errors_by_weights(problem.X, problem.counts, problem.spec, len(best) - 1) <= best + EXACT)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny(), seed=st.integers(0, 3), rows=st.integers(1, 5))
def test_level_bound_never_exceeds_the_brute_force_optimum(problem, seed, rows):
    if problem.spec.penalty_weight == 0:
        problem = replace(problem, spec=replace(problem.spec, penalty="l0", penalty_weight=0.5))
    _, optimum = errors_within(problem)
    for target in (optimum, optimum + 2.0, 100.0):  # the target steers the work, never the value
        b = level_bound(problem, target=target, work=Levels(rows=rows, grow=1, max_subs=6, node_limit=50,
                                                            seed=seed))
        assert b is not None and 0 <= b.value <= optimum + EXACT, (b, optimum, target)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny(J=3), seed=st.integers(0, 3))
def test_level_bound_with_three_classes(problem, seed):
    if problem.spec.penalty_weight == 0:
        problem = replace(problem, spec=replace(problem.spec, penalty="l0", penalty_weight=0.25))
    _, optimum = errors_within(problem)
    b = level_bound(problem, target=optimum, work=Levels(rows=3, grow=2, max_subs=5, node_limit=50, seed=seed))
    assert b.value <= optimum + EXACT


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), eps=st.sampled_from([0.1, 0.3]))
def test_level_bound_on_the_continuous_class(seed, eps):
    """No grid: below HiGHS's proven optimum and every random network in the box."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((6, 2)) * 16) / 16
    counts = rng.integers(0, 3, (6, 2))
    counts[counts.sum(1) == 0, 0] = 1
    pb = problem_of(spec_text(2, 2, 2, eps, lam=0.5, grid=False), X, counts)
    res = solve(formulate(pb), "highs", SolveOptions(threads=1, time_limit=60))
    assert res.status == Status.OPTIMAL
    b = level_bound(pb, target=res.objective, work=Levels(rows=3, grow=1, max_subs=6, node_limit=100))
    assert b.value <= res.objective + 1e-6
    assert b.value <= random_networks(pb, 20_000, rng).min() + EXACT
    s = errors_by_weights(pb.X, pb.counts, pb.spec, weight_count(pb.spec))
    assert s[0] == top_errors(pb.counts.sum(0), 1)


def test_units_for_keeps_every_budget_network_and_drops_units_only_below_it():
    pb = problem_of(spec_text(2, 3, 2, 0.1, lam=0.5), [[0, 0], [1, 1]], [[1, 0], [0, 1]])
    assert units_for(pb.spec, 7).hidden[0].units == 3
    small = units_for(pb.spec, 3)
    assert small.hidden[0].units == 1
    assert small.output.bias_bounds == (-3.0, 3.0) and small.output.bias_grid is None
    model, row = budget_model(restrict(pb, [0, 1]), None, 3)
    assert model.row_block("budget").size == 1 and model.sense[row] == "L"


def test_one_cut_is_the_best_threshold():
    X = np.array([[0.0, 3], [1, 2], [2, 1], [3, 0]])
    counts = np.array([[1, 0], [1, 0], [0, 1], [1, 1]])
    # feature 0: cut between 1 and 2 -> left {0,1} class 0 (0 errors), right class 1 wins 2 of 3
    assert one_cut(X, counts) == 1.0


def test_level_bound_proves_a_one_threshold_optimum():
    """Two classes split by one feature: the best network has 2 weights and no error
    (objective 2 lambda); fewer weights give constant outputs.  The bound meets it."""
    X = np.array([[0.0, 0.5], [0.25, 0.0], [0.75, 0.5], [1.0, 0.0]])
    pb = problem_of(spec_text(2, 2, 2, 0.1, lam=0.5, grid=False), X, [[2, 0], [1, 0], [0, 1], [0, 2]])
    b = level_bound(pb, target=1.0)
    assert b.value == pytest.approx(1.0)


def test_level_bound_proves_xor_needs_more_weights():
    """XOR of two features: one unit makes an error (a halfspace), two units and their
    output weights cost 6 weights; with lambda 0.25 the optimum 1.5 is proven by the
    sub-MIPs (structure alone gives less)."""
    X = np.array([[0.0, 0.0], [1, 1], [0, 1], [1, 0]])
    pb = problem_of(spec_text(2, 2, 2, 0.1, lam=0.25, grid=False), X, [[1, 0], [1, 0], [0, 1], [0, 1]])
    res = solve(formulate(pb), "highs", SolveOptions(threads=1, time_limit=60))
    assert res.status == Status.OPTIMAL
    b = level_bound(pb, target=res.objective, work=Levels(rows=4, max_subs=12, node_limit=2000))
    assert b.value <= res.objective + 1e-6
    assert b.value == pytest.approx(res.objective)
    assert "sub-MIPs" in b.detail


def test_level_bound_stops_at_the_deadline():
    X = np.array([[0.0, 0.0], [1, 1], [0, 1], [1, 0]])
    pb = problem_of(spec_text(2, 2, 2, 0.1, lam=0.25, grid=False), X, [[1, 0], [1, 0], [0, 1], [0, 1]])
    b = level_bound(pb, target=10.0, ctx=RunContext.create(limit=1e-9))
    assert "0 sub-MIPs" in b.detail


def test_lower_bounds_include_the_weight_levels_with_a_target():
    X = np.array([[0.0, 0.5], [0.25, 0.0], [0.75, 0.5], [1.0, 0.0]])
    pb = problem_of(spec_text(2, 2, 2, 0.1, lam=0.5, grid=False), X, [[2, 0], [1, 0], [0, 1], [0, 2]])
    sources = [b.source for b in lower_bounds(pb, work=None, target=1.0)]
    assert "weight levels" in sources
    assert "weight levels" not in [b.source for b in lower_bounds(pb, work=None)]


def test_a_start_proven_by_annc_skips_the_full_mip():
    """One feature splits the classes: annc's search finds the 2-weight network, annc's
    bounds prove it before the full MIP (support and weight levels tie: the first is
    named), and the verdict says so."""
    from annc.app.api import train_api
    rng = np.random.default_rng(0)
    X = np.column_stack([np.linspace(0, 1, 40), rng.random(40)])
    y = (X[:, 0] > 0.5).astype(int)
    spec = "input 2\nhidden 2 binary\noutput 2\nloss errors\npenalty l0 0.5\n"
    r = train_api(spec, (X, y), threads=1, out_dir=None)  # no time limit: work limits only, no race
    step = r.steps[0]
    assert r.status == "optimal"
    assert step.verdict.objective == pytest.approx(1.0)
    assert step.verdict.bound_source.split(":")[0] in ("support", "weight levels")
    assert step.result.status_text.startswith("not run")
    # the pool ended at its first network that meets the bound, and no search ran after it
    search = step.verdict.search
    assert search["added"] == "proof" and search["sub_mips"] == 0 and not search["certificates"]
    objectives = [c["objective"] for c in search["pool"]]
    assert objectives[-1] == pytest.approx(1.0) and all(o > 1.0 + 1e-6 for o in objectives[:-1])
    from annc.export.report import search_lines
    assert any("the MIP added      a proof" in line for line in search_lines(step.verdict))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny(), more=st.floats(0.0, 6.0))
def test_the_pools_quick_bound_aimed_higher_is_never_weaker_and_what_it_keeps_changes_nothing(problem, more):
    """The start pool's test (:class:`annc.training.bounds.proof.PoolTest`) computes the bound once, aimed
    at its first objective, and compares the later, lower ones with it: a bound aimed higher must
    never be weaker, and every value stays below the brute-force optimum.  The bounds it keeps for
    the proof (``known``) give the same values as a fresh computation."""
    from annc.training.bounds import best
    from annc.training.bounds.proof import QUICK_LEVELS
    if problem.spec.penalty_weight == 0:
        problem = replace(problem, spec=replace(problem.spec, penalty="l0", penalty_weight=0.5))
    _, optimum = errors_within(problem)
    known = {}
    high = best(lower_bounds(problem, work=None, target=optimum + more, levels=QUICK_LEVELS, known=known))
    low = best(lower_bounds(problem, work=None, target=optimum, levels=QUICK_LEVELS, known=known))
    fresh = best(lower_bounds(problem, work=None, target=optimum, levels=QUICK_LEVELS))
    assert low.value <= high.value + EXACT and high.value <= optimum + EXACT, (low, high, optimum)
    assert fresh.value == low.value and "cuts on all rows" in known and "fixed" in known


def test_two_cuts_against_plain_enumeration():
    rng = np.random.default_rng(3)
    for _ in range(20):
        X = rng.integers(0, 4, (9, 3)).astype(float)
        counts = np.eye(3, dtype=int)[rng.integers(0, 3, 9)]
        best = np.inf
        for f, g in itertools.product(range(3), repeat=2):
            for tf, tg in itertools.product(np.arange(5) - 0.5, repeat=2):
                cell = (X[:, f] > tf) * 2 + (X[:, g] > tg)
                err = sum(counts[cell == k].sum() - counts[cell == k].sum(0).max(initial=0) for k in range(4))
                best = min(best, err)
        assert two_cuts(X, counts) == best
    assert two_cuts(X, counts, max_cells=10) is None


def test_two_cuts_cut_short_bound_nothing():
    """A deadline before the last pair: no minimum over some pairs (it could exceed the least), so
    None, and the cuts the weight levels keep count D_2 as 0."""
    rng = np.random.default_rng(1)
    X, counts = rng.random((30, 3)), np.eye(2, dtype=int)[rng.integers(0, 2, 30)]
    assert two_cuts(X, counts, stop=after(1)) is None and two_cuts(X, counts, stop=after(3)) is not None
    assert Cuts(X, counts, stop=lambda: True).least(2) == 0.0
    assert Cuts(X, counts).least(2) == two_cuts(X, counts)


@pytest.mark.parametrize("seed", range(6))
def test_structure_holds_for_random_sparse_networks_on_larger_data(seed):
    """Instances too large to enumerate (30 rows, 3 features, 3 units, 2-4 classes): every
    random sparse network in the class makes at least s(its weight count) errors."""
    rng = np.random.default_rng(seed)
    J = 2 + seed % 3
    X = np.round(rng.random((30, 3)) * 16) / 16
    counts = np.eye(J, dtype=int)[rng.integers(0, J, 30)]
    pb = problem_of(spec_text(3, 3, J, 0.1, lam=0.5, grid=False), X, counts)
    s = errors_by_weights(pb.X, pb.counts, pb.spec, weight_count(pb.spec))
    n, d, K = 20_000, 3, 3
    keep0, keep1 = rng.random((n, d, K)) < rng.random((n, 1, 1)), rng.random((n, K, J)) < rng.random((n, 1, 1))
    W0 = rng.uniform(-1, 1, (n, d, K)) * keep0
    W1 = rng.uniform(-1, 1, (n, K, J)) * keep1
    b0, b1 = rng.uniform(-1, 1, (n, K)), rng.uniform(-1, 1, (n, J))
    pre = np.einsum("ud,ndk->nuk", pb.X, W0) + b0[:, None, :]
    ok = ~np.any((pre > 0) & (pre < 0.1), axis=(1, 2))
    scores = np.einsum("nuk,nkj->nuj", (pre >= 0.1).astype(float), W1) + b1[:, None, :]
    errors = np.sum(pb.counts[None] * (leads_batch(scores) < 0.1), axis=(1, 2))
    nnz = np.count_nonzero(W0.reshape(n, -1), 1) + np.count_nonzero(W1.reshape(n, -1), 1)
    assert ok.sum() > 1000
    assert np.all(s[nnz[ok]] <= errors[ok] + EXACT)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny(), budget=st.integers(0, 4), seed=st.integers(0, 3))
def test_a_weight_budget_solves_to_the_budgeted_brute_force_optimum_and_bounds_stay_below(problem, budget, seed):
    """``max_weights K``: HiGHS's optimum of the MIP is ``min_{p <= K} errors(p) + lambda p`` over the
    enumerated networks (row ``nmax``), and every bound of the budgeted problem (weight levels up to
    ``K``, support without the larger feature sets, subsets) is at most it."""
    from annc.training.bounds import Work
    if problem.spec.penalty != "l0":
        problem = replace(problem, spec=replace(problem.spec, penalty="l0", penalty_weight=0.0))
    lam = problem.spec.penalty_weight
    best, _ = errors_within(problem)  # the fewest errors with at most p weights, p = 0..all
    optimum = float(min(best[p] + lam * p for p in range(min(budget, len(best) - 1) + 1)))
    budgeted = replace(problem, spec=replace(problem.spec, max_weights=budget))
    res = solve(formulate(budgeted), "highs", SolveOptions(threads=1, time_limit=60))
    assert res.status == Status.OPTIMAL and res.objective == pytest.approx(optimum, abs=1e-6)
    units = problem.spec.hidden[0].units
    zeros = ([np.zeros((problem.spec.inputs, units)), np.zeros((units, problem.spec.classes))],
             [np.zeros(units), np.zeros(problem.spec.classes)])
    found = lower_bounds(budgeted, incumbent=zeros, target=optimum,
                         work=Work(subsets=2, rows=3, node_limit=50, time_cap=20, seed=seed, disjoint=True),
                         levels=Levels(rows=3, grow=1, max_subs=6, node_limit=50, seed=seed))
    assert {b.source for b in found} >= {"loss floor"}
    for b in found:
        assert 0 <= b.value <= optimum + EXACT, (b, optimum, budget)


def test_the_pools_bound_is_the_floor_at_which_the_searches_stop(monkeypatch):
    """The pool's test hands its bound to the local and neighbourhood searches as the floor at which
    they stop: with the bound put above every objective (and the test made never to pass, so the
    searches do run), both are given it, and the neighbourhood search solves no sub-MIP."""
    from sklearn.datasets import make_moons
    from annc.app.api import as_data
    from annc.io.spec import parse_spec
    from annc.solve.compiler import build
    from annc.training.bounds.proof import PoolTest
    from annc.training.search import incumbent, lns, start
    from annc.training.search.incumbent import search_incumbent
    monkeypatch.setattr(PoolTest, "__call__", lambda self, objective: False)
    floors = {}

    def spy(name, real):
        def call(*args, floor, **kwargs):
            floors[name] = floor
            return real(*args, floor=floor, **kwargs)
        return call
    monkeypatch.setattr(start, "improve", spy("local", start.improve))
    monkeypatch.setattr(incumbent.lns, "search", spy("neighbourhoods", lns.search))
    c = build(parse_spec("input 2\nhidden 2 binary\noutput 2\neps 0.001\n"),
              as_data(make_moons(30, noise=0.3, random_state=0)))
    test = PoolTest(c, {})
    test.value = np.inf
    rec = search_incumbent(c.model, c.problem, enough=test)
    assert floors == {"local": np.inf, "neighbourhoods": np.inf}
    assert rec.x is not None and rec.sub_mips == 0 and not rec.steps
