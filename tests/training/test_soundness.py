"""Soundness across settings: no lower bound exceeds the objective of any network found for the same MIP.

Issue 37 asks: "no bound ever exceeds the objective of a network found for the same data, by any
run, any setting or any solver".  A MIP here is a spec (width, eps, ``penalty l0 lambda``, all
written out, so that no run chooses them from the data) with its data; every run of it, whatever
its solver (HiGHS, SCIP, CBC), stall rule, MIP start or time limit, reports

* bounds: the verdict's lower bound (the best of the solver's dual bound and annc's own), the
  solver's dual bound of the MIP alone, and annc's own bounds (:func:`annc.training.bounds.lower_bounds`)
  under other work limits;
* networks: the exported network's objective by annc's forward pass (``Verdict.objective``).

Then ``max(bounds) <= min(objectives) + TOL``, over all the runs of the MIP together.  The
instances are cut from the bench's kinds of data (``bench/real/sets.py``): a few dozen rows of
breast_cancer and wine (scikit-learn's), of a noisy moons set, and of a tiny set with a text
column.  On grid instances small enough to enumerate (:mod:`test_bounds`'s brute force) every
run's bound is also at most the true optimum, and every network's objective at least it.

No timing is asserted: the time limits only keep the runs short.  The instances are built from
fixed seeds in each test (no dependence on the order of the tests or on the working folder).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bounds import brute_force, grid_text

from annc.app.api import compile_api, train_api
from annc.core.errors import NoSolutionError
from annc.training.bounds import Levels, Work, lower_bounds
from annc.training.warmstart.pool.point import hidden_network

TOL = 1e-5  # a bound may exceed a network's objective by no more than this (solvers' tolerances)
SOLVERS = ["highs", "scip", "cbc", "gurobi"]  # Gurobi's pip licence takes these small models


def _available(solver: str) -> bool:
    try:
        if solver == "scip":
            import pyscipopt  # noqa: F401
        elif solver == "gurobi":
            import gurobipy  # noqa: F401
        elif solver == "cbc":
            from annc.solve.solvers.cbc import cbc_path
            cbc_path()
        return True
    except Exception:  # noqa: BLE001 - a solver that is not installed is left out
        return False


AVAILABLE = [s for s in SOLVERS if _available(s)]


# -- the bench's kinds of data, cut small --------------------------------------------------------
def _cut(X, y, rows: int, features: int, seed: int):
    """``rows`` rows (both classes, stratified by a fixed seed) and the ``features`` most varied columns."""
    rng = np.random.default_rng(seed)
    y = np.asarray(y)
    keep = np.concatenate([rng.permutation(np.flatnonzero(y == c))[: rows // len(np.unique(y))]
                           for c in np.unique(y)])
    X = np.asarray(X, float)[keep]
    cols = np.argsort(-(X.std(0) / (np.abs(X).mean(0) + 1e-12)), kind="stable")[:features]
    return X[:, np.sort(cols)], y[keep]


def breast_cancer():
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True)
    return _cut(X, y, 30, 4, 0)


def wine():
    from sklearn.datasets import load_wine
    X, y = load_wine(return_X_y=True)
    keep = y < 2  # two of its three cultivars, as a binary set
    return _cut(X[keep], y[keep], 30, 4, 1)


def moons():
    from sklearn.datasets import make_moons
    X, y = make_moons(n_samples=40, noise=0.3, random_state=3)
    return X, y


def text_column():
    """A tiny set with a text column (as gbsg2's ``tgrade``): one number and one category."""
    import pandas as pd
    rng = np.random.default_rng(7)
    grade = rng.choice(["I", "II", "III"], size=30)
    size = np.round(rng.uniform(0, 1, 30), 2)
    y = ((grade == "III") | (size > 0.7)).astype(int)
    y[rng.choice(30, 3, replace=False)] ^= 1  # a few noisy labels
    return pd.DataFrame({"size": size, "grade": grade}), y


KINDS = {"breast_cancer": breast_cancer, "wine": wine, "moons": moons, "text": text_column}


def spec_of(X, width: int, lam: float, eps: float) -> str:
    d = X.shape[1] + (2 if hasattr(X, "columns") else 0)  # the text column one-hot: 3 categories for 1 column
    return f"input {d}\nhidden {width} binary\noutput 2\nloss errors\npenalty l0 {lam}\neps {eps}\n"


# -- one MIP, many runs ------------------------------------------------------------------------
run_settings = st.fixed_dictionaries({
    "solver": st.sampled_from(AVAILABLE),
    "stall": st.sampled_from([True, False, 3]),
    "warm_start": st.booleans(),
    "time_limit": st.sampled_from([2.0, 4.0]),
})


def bounds_and_objectives(spec: str, data, runs: list[dict]) -> tuple[list, list]:
    """Every bound and every network's objective that ``runs`` report for the MIP of ``spec`` on ``data``."""
    bounds, objectives, problems = [], [], []
    for kw in runs:
        try:
            r = train_api(spec, data, threads=1, out_dir=None, select=False, **kw)
        except NoSolutionError:  # a run that found no network within its limit reports nothing
            continue
        step, v = r.steps[0], r.verdict
        c = step.compiled
        problems.append((c.problem.X.tobytes(), c.problem.counts.tobytes(), str(c.spec)))
        objectives.append((v.objective, kw))
        if v.lower_bound is not None:
            bounds.append((v.lower_bound, f"verdict ({v.bound_source})", kw))
        if step.result.bound is not None:
            bounds.append((step.result.bound, "solver's dual bound", kw))
        x = step.result.x
        if x is not None and not c.model.layout.relaxed:  # annc's bounds under other work limits
            for b in lower_bounds(c.problem, incumbent=hidden_network(c.model, x),
                                  work=Work(subsets=2, rows=6, node_limit=100, seed=len(bounds)),
                                  target=v.objective, levels=Levels(max_subs=3, node_limit=100)):
                bounds.append((b.value, f"{b.source}: {b.detail}", kw))
    assert len(set(problems)) <= 1, "the runs must solve one and the same MIP"
    return bounds, objectives


def assert_sound(bounds, objectives) -> None:
    if not objectives:
        return
    best_obj, by = min(objectives, key=lambda o: o[0])
    for value, source, kw in bounds:
        assert value <= best_obj + TOL, (f"bound {value} ({source}, run {kw}) exceeds the objective {best_obj} "
                                         f"of the network of run {by}")


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(max_examples=2, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(width=st.integers(1, 2), lam=st.sampled_from([0.25, 0.5, 1.0]), eps=st.sampled_from([0.01, 0.05]),
       runs=st.lists(run_settings, min_size=1, max_size=2))
def test_no_bound_exceeds_any_network_of_the_same_mip(kind, width, lam, eps, runs):
    X, y = KINDS[kind]()
    bounds, objectives = bounds_and_objectives(spec_of(X, width, lam, eps), (X, y), runs + [{"time_limit": 2.0}])
    assert objectives and bounds  # the last run (HiGHS from annc's start) always finds a network
    assert_sound(bounds, objectives)


def test_every_solver_and_stall_setting_on_one_mip():
    """One MIP (breast_cancer's cut, 2 units), every available solver at a stall of 1 work check, and
    HiGHS with the rule on and off (without annc's start): every bound below every network (a
    deterministic companion of the property test)."""
    X, y = breast_cancer()
    runs = [{"solver": "highs", "stall": True, "time_limit": 2.0},
            {"solver": "highs", "stall": False, "time_limit": 2.0, "warm_start": False}]
    runs += [{"solver": s, "stall": 1, "time_limit": 2.0} for s in AVAILABLE]
    bounds, objectives = bounds_and_objectives(spec_of(X, 2, 0.5, 0.01), (X, y), runs)
    assert_sound(bounds, objectives)


# -- against brute force -----------------------------------------------------------------------
@st.composite
def grid_instance(draw):
    """A grid instance small enough to enumerate (:mod:`test_bounds`'s brute force): 5-7 rows of
    multiples of 1/16 in 2 features, one or two units, as training data (rows repeated)."""
    k = draw(st.integers(1, 2))
    U = draw(st.integers(5, 7))
    cells = draw(st.lists(st.tuples(st.integers(0, 16), st.integers(0, 16)), min_size=U, max_size=U, unique=True))
    X = np.array(cells, float) / 16
    y = np.array([draw(st.integers(0, 1)) for _ in range(U)])
    if len(set(y)) < 2:
        y[0] = 1 - y[0]
    reps = np.array([draw(st.integers(1, 2)) for _ in range(U)])
    eps = draw(st.sampled_from([0.1, 0.2, 0.3]))
    lam = draw(st.sampled_from([0.0, 0.25, 0.5]))
    spec = grid_text(2, k, 2, eps, lam=lam) + "scale none\n"
    return spec, np.repeat(X, reps, axis=0), np.repeat(y, reps)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=grid_instance(), runs=st.lists(run_settings, min_size=1, max_size=2))
def test_every_run_is_bounded_by_the_brute_force_optimum(instance, runs):
    spec, X, y = instance
    bounds, objectives = bounds_and_objectives(spec, (X, y), runs)
    optimum, _ = brute_force(compile_api(spec, (X, y), start=False).problem)
    for value, source, kw in bounds:
        assert value <= optimum + TOL, f"bound {value} ({source}, run {kw}) exceeds the optimum {optimum}"
    for value, kw in objectives:
        assert value >= optimum - TOL, f"a network of run {kw} beats the enumerated optimum {optimum}: {value}"
    assert_sound(bounds, objectives)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=grid_instance(), gap=st.sampled_from([None, 0.5, 1.0]))
def test_a_proof_in_the_verdict_holds_against_brute_force_whatever_the_gap_asked(instance, gap):
    """A run may stop at the ``gap`` asked (then it is ``optimal`` in the solvers' sense), but the
    words "proven optimal" and :attr:`Verdict.proven` are kept for an objective no network beats."""
    from annc.export.report import headline
    spec, X, y = instance
    r = train_api(spec, (X, y), threads=1, out_dir=None, select=False, gap=gap, time_limit=4.0)
    optimum, _ = brute_force(compile_api(spec, (X, y), start=False).problem)
    v = r.verdict
    line = headline(v, train=(r.train_accuracy, len(y)), test=None, weights=r.network.nonzero_weights())
    claims = "proven optimal" in line.replace("not proven optimal", "")
    assert claims == (v.status.value == "optimal" and v.proven)
    if claims:
        assert v.objective <= optimum + TOL, f"'proven optimal' at {v.objective}, the enumerated optimum is {optimum}"
    if v.lower_bound is not None:
        assert v.lower_bound <= optimum + TOL
