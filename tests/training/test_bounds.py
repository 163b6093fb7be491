"""Lower bounds (annc.training.bounds): every bound checked against the true optimum.

The true optimum comes from brute force: tiny problems whose weights and biases lie on
a grid (``weights [-1, 1] grid 3``, ``bias [-1, 1] grid 5``), so every network of the
class can be enumerated with numpy; the bounds are computed on that same grid spec.  The
inputs are multiples of 1/16 and eps is not, so every pre-activation and lead is exact
in floating point and none lies on the boundary of a rule.  The enumeration is itself
checked against annc's forward pass (``network_loss``) and against the MIP solved by
HiGHS.  On the continuous class the bounds are checked against HiGHS's proven optimum
of tiny instances and against random networks in the box.
"""
from __future__ import annotations

import itertools
import os
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annc.training.bounds import Bound, Work, attainable, best, conflict_bound, lower_bounds, restrict, subset_bounds, \
    support_bound
from annc.training.bounds.conflict import _bipartite, _lp_cover, close_pairs, cover, group_edges
from annc.training.bounds.subset import choose, wrong_groups
from annc.core.errors import UsageError
from annc.formulations import ACTIVATIONS, floor, formulate, network_loss
from annc.io.problem import make_problem
from annc.io.solutions import Status
from annc.solve.solvers import SolveOptions, solve
from annc.io.spec import parse_spec

EXACT = 1e-9  # a bound may not exceed the optimum by more than this
# brute-force examples per run: 16 in CI (each enumerates a grid of networks, about 2 s); set
# ANNC_FUZZ_FRACTION=1 for the full 40 (as bench/suites/fuzz.py does for the fuzz targets)
EXAMPLES = max(16, round(40 * float(os.environ.get("ANNC_FUZZ_FRACTION", "0.1"))))


def spec_text(d: int, k: int, J: int, eps: float, *, act="binary", lam=0.5, grid=True, sym="none") -> str:
    text = f"input {d}\nhidden {k} {act}\noutput {J}\neps {eps}\nloss errors\nsymmetry {sym}\n"
    text += f"penalty l0 {lam}\n" if lam else ""
    return text + ("weights [-1, 1] grid 3\nbias [-1, 1] grid 5\n" if grid else "")


def grid_text(d: int, k: int, J: int, eps: float, **kw) -> str:
    """The grid spec with the hidden biases on the 1/16 grid of [-2, 2]: fine enough that a
    unit separates rows eps apart (so a bound too bold for the continuous class fails)."""
    return spec_text(d, k, J, eps, **kw).replace(f"hidden {k} {kw.get('act', 'binary')}",
                                                 f"hidden {k} {kw.get('act', 'binary')} {{ bias [-2, 2] grid 65 }}")


def problem_of(text: str, X, counts):
    """A problem with the given rows and per-row class counts."""
    X, counts = np.asarray(X, float), np.asarray(counts, int)
    rows = np.repeat(np.arange(len(X)), counts.sum(1))
    y = np.concatenate([np.repeat(np.arange(counts.shape[1]), c) for c in counts])
    spec = parse_spec(text)
    return make_problem(spec, X[rows], y, list(range(spec.classes)))


# -- brute force over a grid ---------------------------------------------------------------
def grid_layers(ls, n_in: int) -> np.ndarray:
    """Every (weights, bias) of a layer on its grid: rows of n_in * units + units values."""
    w, b = np.array(ls.weight_values), np.array(ls.bias_values)
    parts = [w] * (n_in * ls.units) + [b] * ls.units
    return np.array(list(itertools.product(*parts)))


def leads_batch(scores: np.ndarray) -> np.ndarray:
    """lead[..., u, j] = s_j - max_{j' != j} s_j' over the last axis."""
    top = np.sort(scores, -1)
    rival = np.where(scores >= top[..., -1:], top[..., -2:-1], top[..., -1:])
    return scores - rival


def brute_force(problem) -> tuple[float, tuple]:
    """The optimum over every network of the grid (one hidden layer) and a network at it.

    Each unit is enumerated alone (its weights and bias on the grid, kept when no row's
    pre-activation falls in the gap (0, eps)); a layer is K such units, so its patterns
    are the K-tuples of the units' patterns, each with its sparsest weights."""
    spec = problem.spec
    (hl,), out = spec.hidden, spec.output
    d, K, J = spec.inputs, hl.units, out.units
    X, c, lam = problem.X, problem.counts, spec.penalty_weight
    one = grid_layers(replace(hl, units=1), d)  # every (w, b) of one unit
    pre = X @ one[:, :d].T + one[:, d]  # U x configs
    ok = ~np.any((pre > 0) & (pre < spec.eps), axis=0)
    cand = np.flatnonzero(ok)
    cand = cand[np.argsort(np.count_nonzero(one[cand, :d], axis=1), kind="stable")]
    _, first = np.unique((pre[:, cand] >= spec.eps).T, axis=0, return_index=True)
    units = cand[first]  # one sparsest unit per activation pattern
    tuples = np.array(list(itertools.product(units, repeat=K)))  # layers of K units
    h = (pre[:, tuples] >= spec.eps).astype(float)  # U x layers x K
    act = np.moveaxis(h if hl.activation == "binary" else 2 * h - 1, 0, 1)  # layers x U x K
    nnz0 = np.count_nonzero(one[tuples][..., :d], axis=(1, 2))
    O = grid_layers(out, K)
    W1, b1 = O[:, :K * J].reshape(-1, K, J), O[:, K * J:]
    cost1 = lam * np.count_nonzero(W1.reshape(len(W1), -1), axis=1)
    best_cost, best_at = np.inf, None
    for lo in range(0, len(act), 64):
        scores = np.einsum("puk,okj->pouj", act[lo:lo + 64], W1) + b1[None, :, None, :]
        errors = np.sum(c * (leads_batch(scores) < spec.eps), axis=(2, 3))
        cost = errors + cost1[None] + lam * nnz0[lo:lo + 64, None]
        i, o = np.unravel_index(np.argmin(cost), cost.shape)
        if cost[i, o] < best_cost:
            best_cost, best_at = float(cost[i, o]), (lo + i, o)
    i, o = best_at
    units_wb = one[tuples[i]]  # K x (d + 1)
    return best_cost, ([units_wb[:, :d].T, W1[o]], [units_wb[:, d], b1[o]])


def annc_objective(problem, weights, biases) -> float:
    """The objective by annc's own forward pass and loss (network_loss)."""
    spec, act = problem.spec, problem.X
    for ls, W, b in zip(spec.hidden, weights, biases):
        act = ACTIVATIONS[ls.activation].lift_units(act @ W + b, spec.eps)[1]
    return network_loss(spec, act @ weights[-1] + biases[-1], problem.counts, weights)


@st.composite
def tiny(draw, J: int = 2):
    """A tiny grid instance: 4-7 rows of multiples of 1/16, 1-4 samples per row."""
    d = draw(st.integers(2, 3)) if J == 2 else 2
    k = draw(st.integers(1, 2)) if J == 2 and d == 2 else 1
    U = draw(st.integers(4, 7))
    cells = draw(st.lists(st.tuples(*[st.integers(0, 16)] * d), min_size=U, max_size=U, unique=True))
    X = np.array(cells, float) / 16
    counts = np.zeros((U, J), int)
    for u in range(U):  # one class per row, and now and then a second one
        classes = {draw(st.integers(0, J - 1))}
        if draw(st.integers(0, 3)) == 0:
            classes.add(draw(st.integers(0, J - 1)))
        for cls in classes:
            counts[u, cls] = draw(st.integers(1, 2))
    eps = draw(st.sampled_from([0.1, 0.2, 0.3, 0.45]))
    lam = draw(st.sampled_from([0.0, 0.25, 0.5]))
    act = draw(st.sampled_from(["binary", "sign"]))
    return problem_of(grid_text(d, k, J, eps, act=act, lam=lam), X, counts)


def after(n: int):
    """A stop test that turns true at its ``n + 1``-th call (a deadline that passes mid-enumeration)."""
    calls = iter(range(n + 1))
    return lambda: next(calls, None) is None


def check_all_bounds(problem, optimum: float, seed: int) -> list[Bound]:
    incumbent = ([np.zeros((problem.spec.inputs, problem.spec.hidden[0].units)),
                  np.zeros((problem.spec.hidden[0].units, problem.spec.classes))],
                 [np.zeros(problem.spec.hidden[0].units), np.zeros(problem.spec.classes)])
    work = Work(subsets=2, rows=3, node_limit=50, time_cap=20, seed=seed, disjoint=True)
    found = lower_bounds(problem, incumbent=incumbent, work=work)
    found += subset_bounds(problem, work=Work(subsets=1, rows=problem.num_rows, node_limit=20, seed=seed,
                                              symmetry=None))
    found += [b for b in (support_bound(problem, depth=depth) for depth in (0, 1)) if b is not None]
    # cut short by a deadline after a few feature sets: the sizes enumerated whole still bound
    found += [b for b in (support_bound(problem, stop=after(n)) for n in (0, 1, 3)) if b is not None]
    for b in found:
        assert b.value <= optimum + EXACT, (b, optimum)
        assert b.value >= 0
    return found


# -- the brute force is right ------------------------------------------------------------------
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny())
def test_brute_force_agrees_with_annc_and_the_mip(problem):
    optimum, (W, b) = brute_force(problem)
    assert annc_objective(problem, W, b) == pytest.approx(optimum, abs=1e-9)
    res = solve(formulate(problem), "highs", SolveOptions(threads=1, time_limit=60))
    assert res.status == Status.OPTIMAL
    assert res.objective == pytest.approx(optimum, abs=1e-6)


# -- every bound against brute force -----------------------------------------------------------
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny(), seed=st.integers(0, 3))
def test_every_bound_is_at_most_the_brute_force_optimum(problem, seed):
    optimum, _ = brute_force(problem)
    check_all_bounds(problem, optimum, seed)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny(J=3), seed=st.integers(0, 3))
def test_every_bound_is_at_most_the_optimum_with_three_classes(problem, seed):
    optimum, _ = brute_force(problem)
    check_all_bounds(problem, optimum, seed)


def test_the_bounds_reach_the_optimum_where_conflicts_decide_it():
    """Rows 1/16 apart (eps 0.1): no network separates them; the conflict bound is exact."""
    X = [[0, 0], [1 / 16, 0], [1, 1], [1, 15 / 16]]
    pb = problem_of(grid_text(2, 1, 2, 0.1, lam=0.0), X, [[1, 0], [0, 1], [2, 0], [0, 2]])
    optimum, _ = brute_force(pb)
    assert optimum == 3  # 1 of the close pair, 2 of the other
    found = check_all_bounds(pb, optimum, 0)
    assert best(found).value == optimum and best(found).source == "conflict"


def test_support_and_subset_bounds_reach_the_optimum_of_two_far_rows():
    """Two rows of different classes far apart, l0 0.5: one error (1) or two weights (1.0)."""
    pb = problem_of(grid_text(2, 1, 2, 0.1, lam=0.5), [[0, 0], [1, 1]], [[1, 0], [0, 1]])
    optimum, _ = brute_force(pb)
    assert optimum == 1.0
    found = {b.source: b for b in check_all_bounds(pb, optimum, 0)}
    assert found["support"].value == 1.0 and found["subset"].value == 1.0
    assert found["conflict"].value == 0 and found["loss floor"].value == 0


# -- the continuous class ------------------------------------------------------------------------
def random_networks(problem, n: int, rng) -> np.ndarray:
    """The objective of ``n`` random networks in the box (about half their weights zero);
    inf where a pre-activation falls in the gap (0, eps): not in the class."""
    spec = problem.spec
    (hl,), J, d, K = spec.hidden, spec.classes, spec.inputs, spec.hidden[0].units
    W0 = rng.uniform(-1, 1, (n, d, K)) * (rng.random((n, d, K)) < 0.5)
    b0 = rng.uniform(-1, 1, (n, K))
    W1 = rng.uniform(-1, 1, (n, K, J)) * (rng.random((n, K, J)) < 0.6)
    b1 = rng.uniform(-1, 1, (n, J))
    pre = np.einsum("ud,ndk->nuk", problem.X, W0) + b0[:, None, :]
    ok = ~np.any((pre > 0) & (pre < spec.eps), axis=(1, 2))
    scores = np.einsum("nuk,nkj->nuj", (pre >= spec.eps).astype(float), W1) + b1[:, None, :]
    errors = np.sum(problem.counts[None] * (leads_batch(scores) < spec.eps), axis=(1, 2))
    nnz = np.count_nonzero(W0.reshape(n, -1), 1) + np.count_nonzero(W1.reshape(n, -1), 1)
    return np.where(ok, errors + spec.penalty_weight * nnz, np.inf)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), eps=st.sampled_from([0.1, 0.3]), lam=st.sampled_from([0.0, 0.5]))
def test_continuous_bounds_are_below_the_proven_optimum_and_random_networks(seed, eps, lam):
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((6, 2)) * 16) / 16
    counts = rng.integers(0, 3, (6, 2))
    counts[counts.sum(1) == 0, 0] = 1
    pb = problem_of(spec_text(2, 2, 2, eps, lam=lam, grid=False), X, counts)
    res = solve(formulate(pb), "highs", SolveOptions(threads=1, time_limit=60))
    assert res.status == Status.OPTIMAL
    found = check_all_bounds(pb, res.objective + 1e-6, seed)
    costs = random_networks(pb, 20_000, rng)
    assert np.isfinite(costs).sum() > 1000
    assert best(found).value <= costs.min() + EXACT


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_support_bound_of_relu_units_is_below_the_grid_optimum(seed):
    """ReLU units on a weight grid: the MIP is exact, so HiGHS's proven optimum is the
    grid class's; the support bound (equal projections conflict) stays below it."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((6, 2)) * 4) / 4  # a coarse lattice: equal projections are common
    counts = np.eye(2, dtype=int)[rng.integers(0, 2, 6)]
    pb = problem_of(spec_text(2, 1, 2, 0.1, act="relu"), X, counts)
    res = solve(formulate(pb), "highs", SolveOptions(threads=1, time_limit=60))
    assert res.status == Status.OPTIMAL and not formulate(pb).layout.relaxed
    for depth in (0, 1, 2):
        assert support_bound(pb, depth=depth).value <= res.objective + 1e-6


# -- the conflict bound ------------------------------------------------------------------------
def test_conflict_bound_of_two_close_rows_is_one_and_of_far_rows_zero():
    close = problem_of(spec_text(3, 2, 2, 0.1, grid=False), [[0.5, 0.5, 0.5], [0.52, 0.5, 0.47]], [[1, 0], [0, 3]])
    assert conflict_bound(close).value == 1
    far = problem_of(spec_text(3, 2, 2, 0.1, grid=False), [[0.5, 0.5, 0.5], [0.55, 0.5, 0.45]], [[1, 0], [0, 3]])
    assert conflict_bound(far).value == 0  # L1 distance 0.1 = eps: a unit can tell them apart
    wide = parse_spec(spec_text(3, 2, 2, 0.1, grid=False).replace("weights [-1, 1] grid 3", "") + "weights [-2, 2]\n")
    assert conflict_bound(restrict(close, [0, 1], wide)).value == 0  # |w| <= 2: eps/W = 0.05 < 0.06
    relu = problem_of(spec_text(3, 2, 2, 0.1, act="relu", grid=False), close.X, [[1, 0], [0, 3]])
    assert conflict_bound(relu) is None  # ReLU units: no margin argument (support uses equal projections)
    nll = problem_of(spec_text(3, 2, 2, 0.1, grid=False).replace("loss errors", "loss nll"), close.X, [[1, 0], [0, 3]])
    assert conflict_bound(nll) is None and support_bound(nll) is None


def test_conflict_bound_includes_the_floor_without_counting_it_twice():
    # row 0 holds both classes (floor 1); row 1 (class 1, two samples) is close to it
    pb = problem_of(spec_text(2, 1, 2, 0.1, grid=False), [[0, 0], [0.01, 0.02]], [[2, 1], [0, 2]])
    assert floor(pb) == 1
    assert conflict_bound(pb).value == 2  # the 2 class-0 samples of row 0 against 3 of class 1
    three = problem_of(spec_text(2, 1, 3, 0.1, grid=False), [[0, 0], [1, 1]], [[1, 1, 1], [0, 0, 2]])
    assert floor(three) == 2 and conflict_bound(three).value == 2  # the clique row of a 3-class row


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), J=st.integers(2, 4), d=st.integers(1, 3))
def test_pairs_and_covers_agree_with_plain_computations(seed, J, d):
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((30, d)) * 16) / 16
    X = np.unique(X, axis=0)
    r = rng.choice([0.1, 0.2, 0.5])
    u, v = close_pairs(X, r)
    dist = np.abs(X[:, None] - X[None]).sum(-1)
    want = {(a, b) for a, b in zip(*np.nonzero(dist < r)) if a < b}
    assert set(zip(u.tolist(), v.tolist())) == want
    counts = rng.integers(0, 3, (len(X), J))
    counts[counts.sum(1) == 0, 0] = 1
    tau, _ = cover(counts, u, v)
    # any sample matching along the conflict edges is at most tau; the floor too
    assert tau >= np.sum(counts.sum(1) - counts.max(1))
    totals = counts.sum(0)
    assert tau <= totals.sum() - totals.max()
    if J == 2:
        gid, a, b = group_edges(counts, u, v)
        weight = counts[counts > 0]
        assert _lp_cover(weight.astype(float), gid, a, b) == tau == _bipartite(weight, np.nonzero(counts > 0)[1], a, b)


# -- the support bound, attainable values, best --------------------------------------------------
def test_support_bound_is_positive_without_any_conflict():
    rng = np.random.default_rng(0)
    X = rng.random((40, 5))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    pb = make_problem(parse_spec(spec_text(5, 3, 2, 0.001, grid=False)), X, y, [0, 1])
    assert conflict_bound(pb).value == 0 and floor(pb) == 0
    s = support_bound(pb)
    assert s.value >= 0.5 * 2  # a feature and an output weight, or constant outputs
    assert s.source == "support"


def test_attainable_values_of_errors_and_l0():
    pb = problem_of(spec_text(2, 1, 2, 0.1, lam=0.5, grid=False), [[0, 0], [1, 1]], [[1, 0], [0, 1]])
    assert [attainable(pb, v) for v in (0.0, 1e-7, 0.2, 0.5, 0.5000004, 0.51, 1.2)] == [0, 0, 0.5, 0.5, 0.5, 1.0, 1.5]
    third = restrict(pb, [0, 1], parse_spec(spec_text(2, 1, 2, 0.1, lam=0.3, grid=False)))
    assert attainable(third, 0.65) == pytest.approx(0.9)  # 0.6 < 0.65; next: 0.9 (3 weights) vs 1.0 (an error)
    assert attainable(third, 0.95) == 1.0
    none = restrict(pb, [0, 1], parse_spec(spec_text(2, 1, 2, 0.1, lam=0, grid=False)))
    assert attainable(none, 1.2) == 2.0
    nll = restrict(pb, [0, 1], parse_spec(spec_text(2, 1, 2, 0.1, grid=False).replace("errors", "nll")))
    assert attainable(nll, 1.2) == 1.2


def test_best_keeps_the_first_of_equal_bounds():
    a, b, c = Bound(1.0, "a"), Bound(2.0, "b"), Bound(2.0, "c")
    assert best([a, b, c]) is b and best([]) is None
    assert Bound(1.5, "subset", "2 sub-MIPs").line() == "1.5 (subset: 2 sub-MIPs)" and a.line() == "1 (a)"


# -- subsets -----------------------------------------------------------------------------------
def test_restrict_keeps_the_rows_and_their_samples():
    pb = problem_of(spec_text(2, 1, 2, 0.1), [[0, 0], [0.5, 0.5], [1, 1]], [[1, 2], [0, 1], [3, 0]])
    sub = restrict(pb, [2, 0])
    assert np.array_equal(sub.X, pb.X[[2, 0]]) and np.array_equal(sub.counts, pb.counts[[2, 0]])
    assert sub.num_samples == 6 and np.array_equal(np.bincount(sub.sample_row), sub.counts.sum(1))
    assert all(sub.counts[r, c] > 0 for r, c in zip(sub.sample_row, sub.y))


def test_subsets_are_disjoint_and_start_at_the_incumbents_errors():
    rng = np.random.default_rng(1)
    X = rng.random((60, 2))
    y = (X[:, 0] > 0.5).astype(int)
    pb = make_problem(parse_spec(spec_text(2, 2, 2, 0.01, grid=False)), X, y, [0, 1])
    # a network that says class 1 everywhere: wrong on exactly the class-0 rows
    inc = ([np.zeros((2, 2)), np.zeros((2, 2))], [np.zeros(2), np.array([0.0, 1.0])])
    rows, classes = wrong_groups(pb, *inc)
    assert set(rows) == set(np.flatnonzero(pb.counts[:, 0] > 0)) and set(classes) == {0}
    assert annc_objective(pb, *inc) == pb.counts[:, 0].sum()
    chosen = choose(pb, inc, 4, 8, np.random.default_rng(0))
    flat = np.concatenate(chosen)
    assert len(chosen) == 4 and len(set(flat)) == len(flat) and max(map(len, chosen)) <= 8
    assert pb.counts[chosen[0][0], 0] > 0  # the first subset starts at a row the incumbent gets wrong
    for S in chosen:  # every subset holds both classes
        assert (pb.counts[S] > 0).any(0).all()
    with pytest.raises(UsageError, match="2 layers"):
        wrong_groups(pb, [np.zeros((2, 2))], [np.zeros(2)])


def test_subset_bound_is_positive_under_l0_and_its_work_is_counted():
    rng = np.random.default_rng(2)
    X = rng.random((40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    pb = make_problem(parse_spec(spec_text(2, 2, 2, 0.01, grid=False)), X, y, [0, 1])
    (b,) = subset_bounds(pb, work=Work(subsets=2, rows=4, node_limit=500, time_cap=30, seed=0))
    # separating two classes takes a feature weight and an output weight: 2 x 0.5, or an error
    assert b.value == 1.0 and b.source == "subset" and "proven" in b.detail
    res = solve(formulate(restrict(pb, np.arange(8))), "highs", SolveOptions(node_limit=3, threads=1))
    assert res.extra["nodes"] <= 3 and res.bound is not None and res.bound <= 1.0 + 1e-6


def test_lower_bounds_names_every_source():
    pb = problem_of(spec_text(2, 1, 2, 0.1, lam=0.5), [[0, 0], [1 / 16, 0], [1, 1]], [[1, 1], [0, 1], [1, 0]])
    found = lower_bounds(pb, solver_bound=0.7, work=Work(subsets=1, rows=3, node_limit=100, disjoint=True))
    assert [b.source for b in found] == ["loss floor", "conflict", "support", "hull packing", "subset", "solver"]
    assert found[-1].value == 1.0  # 0.7 raised to the next attainable objective
    assert [b.source for b in lower_bounds(pb, work=None)] == ["loss floor", "conflict", "support", "hull packing"]
