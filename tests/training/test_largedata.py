"""The large-data path on Dask (:mod:`annc.training.large.largedata`): the clustering and the annealed
seeds run as tasks when ``workers`` (or ``scheduler``) is given, and the network is the same
with and without workers.

The size at which annc takes the large-data path is lowered (a smaller
:class:`~annc.training.large.compress.LargeData` passed in), so that a few hundred rows take it in
seconds.  One local cluster of two worker processes serves the module's tests (a module fixture:
starting one costs seconds).  Nothing here asserts a time: the deadline tests are in ``tests/training/test_run_context.py``."""
from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_moons

import annc.training.large.compress as compress
from annc.app.api import as_data, train_request
from annc.training.large.anneal import Rows, Schedule, best_annealed
from annc.training.context import RunContext
from annc.training.large.executor import Executor
from annc.training.large.largedata import enter


@pytest.fixture(scope="module")
def cluster():
    with Executor(workers=2) as ex:
        yield ex


def train_on(spec, data, large, *, log=None, **kw):
    """``annc.train`` with the large-data path's thresholds ``large`` (a
    :class:`~annc.training.large.compress.LargeData`) and, with ``log``, its lines."""
    from annc.training.dispatch import run
    r = replace(train_request(spec, data, **kw), large=large)
    if log is not None:
        r.log = log
    return run(r)


def moons(n, seed=0):
    return make_moons(n_samples=n, noise=0.3, random_state=seed)


def same_network(a, b):
    assert len(a.layers) == len(b.layers)
    for p, q in zip(a.layers, b.layers):
        assert np.array_equal(p.weight, q.weight) and np.array_equal(p.bias, q.bias)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(300, 900), k=st.integers(10, 80), seed=st.integers(0, 3), classes=st.integers(2, 4))
def test_the_clustering_on_workers_is_the_clustering_here(cluster, n, k, seed, classes):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = rng.integers(0, classes, size=n)
    data = as_data((X, y))
    here, how = compress.representatives(data, k=k, large=100, seed=seed)
    there, how_there = compress.representatives(data, k=k, large=100, seed=seed, executor=cluster,
                                                where="on 2 Dask workers")
    assert np.array_equal(here.X, there.X) and np.array_equal(here.y, there.y)
    assert how.representatives == how_there.representatives and how_there.where == "on 2 Dask workers"


def test_the_annealed_seeds_on_workers_are_the_seeds_here(cluster):
    X, y = moons(400)
    w = np.arange(1, 401) % 3 + 1.0  # weighted rows, as the representatives are
    here, scores = best_annealed(Rows(X, y, 2, w), [3], seeds=range(3), schedule=Schedule(steps=300))
    there, scores_there = best_annealed(Rows(X, y, 2, w), [3], seeds=range(3), schedule=Schedule(steps=300),
                                        ctx=RunContext(executor=cluster))
    same_network(here, there)
    assert scores == scores_there and here.meta["seed"] == there.meta["seed"]


def test_a_seed_lost_on_every_worker_is_trained_here():
    class Lost:  # an executor whose tasks all fail
        def run(self, fn, items, **kw):
            from annc.training.large.executor import TaskFailed
            return [TaskFailed(i, "seed", "KilledWorker") for i in range(len(items))]
    X, y = moons(200)
    net, scores = best_annealed(Rows(X, y, 2), [2], seeds=range(3), schedule=Schedule(steps=100),
                                ctx=RunContext(executor=Lost()))
    alone, _ = best_annealed(Rows(X, y, 2), [2], seeds=range(1), schedule=Schedule(steps=100))
    same_network(net, alone)
    assert len(scores) == 1


def test_the_path_is_told_and_small_data_stays_here():
    lines = []
    X, y = moons(500)
    with ExitStack() as stack:
        _, how, ctx = enter(stack, as_data((X, y)), merge=True, ctx=RunContext(), workers=None,
                            scheduler=None, say=lambda s: lines.append(f"[spec] {s}"))
    assert how is None and ctx.executor is None and lines == []  # small data, no flags: nothing to say
    with ExitStack() as stack:
        enter(stack, as_data((X, y)), merge=True, ctx=RunContext(), workers=2, scheduler=None,
              say=lambda s: lines.append(f"[spec] {s}"))
    assert lines == [("[spec] --workers/--scheduler are not used: 500 distinct training rows, not above 10,000, "
                      "the large-data path's threshold: this MIP is trained in this process")]


def test_a_large_run_on_two_workers_is_the_run_here(capsys):
    """Forced through the large-data path (above 200 rows, 12 representatives: the MIP is solved in
    a second, and the search ends by its work limits), the same network with and without two
    workers, and the user told at the start which path it takes, and where.  No time limit: the
    two runs must differ in where they run, not in where a clock cut them (beside two CPU-bound
    processes the run on two workers took over 60 s and its limit cut it)."""
    X, y = moons(400)
    spec = "input 2\nhidden 2 binary\noutput 2\n"
    kw = dict(time_limit=None, threads=1, out_dir=None, select=False)
    small = compress.LargeData(rows=200, representatives=12)
    here = train_on(spec, (X, y), small, log=print, **kw)
    said_here = capsys.readouterr().out
    there = train_on(spec, (X, y), small, log=print, workers=2, **kw)
    said_there = capsys.readouterr().out
    same_network(here.network, there.network)
    assert here.verdict.objective == there.verdict.objective
    assert here.verdict.compression["representatives"] == there.verdict.compression["representatives"] <= 12
    assert here.verdict.compression["where"] == "in this process"
    assert there.verdict.compression["where"] == "on 2 Dask workers"
    assert "large data: 400 distinct training rows (above 200)" in said_here
    assert "run in this process (--workers N or --scheduler ADDRESS run them on Dask)" in said_here
    assert "run on a local Dask cluster of 2 workers" in said_there
    assert "400 distinct training rows (400 samples) -> " in said_there
    # the path is told before the MIP is built
    assert said_there.index("large data: 400") < said_there.index("columns (")
