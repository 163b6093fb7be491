"""Weighted representatives: one MIP for data of any size.

The training MIP has a block of rows and binaries per distinct training row and hidden unit:
on 70,000 rows of a 2-feature set and 4 binary units it has a million columns, takes minutes
to build and gigabytes to hold, and no search moves it.  annc's duplicate merging is the exact
special case of what follows: rows with identical features become one row weighted by their
samples of each class.

**Representatives.**  Above :data:`LARGE_ROWS` distinct rows, each class's rows are clustered
into ``k_c`` groups (Lloyd's k-means on the standardised features from seeded random centres,
a fixed number of iterations: work limits; scikit-learn's chunked ``pairwise_distances_argmin``
assigns the rows), with ``k_c`` proportional to the class's
share of the samples and :data:`REPRESENTATIVES` in all; every row is then replaced by its
group's centre.  Identical centres merge as duplicates do, so the MIP is built on at most
:data:`REPRESENTATIVES` rows, each weighted by the samples it stands for.

**On a cluster.**  The classes are clustered independently, so with an open
:class:`~annc.training.large.executor.Executor` (``--workers`` / ``--scheduler``) each class is one
task (:func:`kmeans_task`).  The task receives its rows, ``k_c`` and the seed, so a worker
computes exactly what this process would: the same centres with and without workers.  A
class's clustering is a fixed amount of work (no clock), so it is not capped; a task that
fails (a worker lost twice) is clustered here instead.

**What the verdict keeps apart.**  The network trained on the representatives is scored on
*every* training row by annc's forward pass: its objective is that of the full problem.  A
lower bound of the representatives' MIP (the solver's, annc's own) bounds the compressed
problem only, so it is not reported as a bound of the full problem; the verdict's lower
bound is the loss floor of the full rows (:func:`annc.formulations.floor`), valid there,
and the representatives' objective and bound are recorded beside it, named as such
(:class:`Compression`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from sklearn.metrics import pairwise_distances_argmin

from ...core.network import TrainedNetwork
from ...formulations import floor, network_loss
from ...io.data import Dataset, array_digest
from ...io.problem import make_problem
from ...solve.verdict import Verdict, judge

ADVISE_ROWS = 1_000  # distinct training rows above which annc says what one MIP of them means
LARGE_ROWS = 10_000  # distinct training rows above which the MIP is built on representatives
REPRESENTATIVES = 4_000  # rows of that MIP, at most
KMEANS_STEPS = 5  # Lloyd iterations of the clustering (a work limit)


@dataclass(frozen=True)
class LargeData:
    """Where the large-data path begins and how far it compresses: above ``rows`` distinct training
    rows, the MIP is built on at most ``representatives`` weighted rows (:data:`LARGE_ROWS` and
    :data:`REPRESENTATIVES` by default; a test passes smaller ones)."""

    rows: int = LARGE_ROWS
    representatives: int = REPRESENTATIVES


@dataclass(frozen=True)
class Compression:
    """How the rows were compressed: ``rows`` distinct training rows into ``representatives``
    weighted rows, by ``method``; the MIP's own objective and bound on them, once solved."""

    samples: int
    rows: int
    representatives: int
    method: str = "k-means per class on the standardised features"
    where: str = "in this process"  # or "on N Dask workers": where the clustering and the annealed seeds ran
    objective: float | None = None  # the representatives' MIP objective of the exported network
    bound: float | None = None  # a lower bound of the representatives' problem (not of the full one)

    def message(self) -> str:
        return (f"large data: {self.rows:,} distinct training rows ({self.samples:,} samples) -> "
                f"{self.representatives:,} weighted representatives ({self.method}, {self.where}); the MIP is "
                "built on them, and the network is scored on every row")

    def to_dict(self) -> dict:
        return {"samples": self.samples, "rows": self.rows, "representatives": self.representatives,
                "method": self.method, "where": self.where, "objective": self.objective, "bound": self.bound}


def size_advice(rows: int, classes: int) -> str | None:
    """What a user should know at the start about a MIP of ``rows`` distinct rows (None: nothing):
    above :data:`ADVISE_ROWS` the search, not the solver, finds the network, and what to try."""
    if rows <= ADVISE_ROWS:
        return None
    more = "; for many classes, --ensemble ovo (one small MIP per pair)" if classes > 2 else ""
    return (f"{rows:,} distinct training rows: a MIP of this size is rarely solved or bounded within minutes, "
            "so annc's own search (annealed start, neighbourhoods) finds the network; "
            f"above {LARGE_ROWS:,} rows the MIP is built on {REPRESENTATIVES:,} weighted representatives. "
            f"To try: --batches K (one MIP per batch){more}")


def distinct_rows(X: np.ndarray) -> int:
    return len(np.unique(np.asarray(X, float), axis=0))


def large_rows(data: Dataset, *, merge: bool = True, large: int | None = None) -> int | None:
    """The number of distinct training rows of ``data`` when it takes the large-data path (more
    than ``large``, default :data:`LARGE_ROWS`); None when it does not (or
    ``merge`` is off: then every row is its own MIP row by the user's choice)."""
    large = LARGE_ROWS if large is None else large
    X = np.asarray(data.X, float)
    if not merge or len(X) <= large:
        return None
    rows = distinct_rows(X)
    return rows if rows > large else None


def representatives(data: Dataset, *, merge: bool = True, k: int | None = None, seed: int = 0,
                    large: int | None = None, executor=None,
                    where: str = "in this process") -> tuple[Dataset, Compression] | None:
    """``data`` with each row replaced by its class's cluster centre (module docstring), and
    what was done; None when it does not take the large-data path (:func:`large_rows`).
    ``k`` defaults to :data:`REPRESENTATIVES`; ``executor`` (an open
    :class:`~annc.training.large.executor.Executor`, or None) runs one class per task, and ``where``
    says where, for the record."""
    rows = large_rows(data, merge=merge, large=large)
    if rows is None:
        return None
    k = REPRESENTATIVES if k is None else k
    X = np.asarray(data.X, float)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    Z = (X - mu) / sd
    out = X.copy()
    classes, counts = np.unique(data.y, return_counts=True)
    groups = []  # (rows of the class, k_c)
    for c, n_c in zip(classes, counts):
        k_c = int(min(n_c, max(1, round(k * n_c / len(X)))))
        if k_c < n_c:
            groups.append((np.flatnonzero(data.y == c), k_c))
    items = [(Z[idx], k_c, seed) for idx, k_c in groups]
    centres = _run(executor, items)
    for (idx, _), centre in zip(groups, centres):
        out[idx] = centre * sd + mu
    reps = distinct_rows(out)
    compressed = replace(data, X=out, path="", sha256=array_digest(out, data.y), lines=None)
    return compressed, Compression(len(X), rows, reps, where=where)


def _run(executor, items: list) -> list:
    """:func:`kmeans_task` of every item: on ``executor``'s workers when given (an item whose task
    failed is clustered here), else in this process."""
    if executor is None or len(items) < 2:
        return [kmeans_task(item) for item in items]
    from .executor import TaskFailed
    done = executor.run(kmeans_task, items, names=[f"k-means of class group {i}" for i in range(len(items))],
                        retries=1)
    return [kmeans_task(item) if isinstance(r, TaskFailed) else r for r, item in zip(done, items)]


def kmeans_task(item) -> np.ndarray:
    """One class's clustering as a task: ``item = (Z, k, seed)``; each row's representative."""
    from .anneal import aligned
    Z, k, seed = item
    return _kmeans(aligned(Z, float), k, seed)  # aligned: the same sums as in this process


def _kmeans(Z: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Each row of ``Z`` replaced by the mean of its group among ``k``: Lloyd's k-means from ``k`` rows
    drawn at random (seeded), :data:`KMEANS_STEPS` iterations (a work limit), the groups those of
    the last assignment (so each representative is the centroid of the rows it stands for)."""
    rng = np.random.default_rng([seed, len(Z), k])
    centres = Z[rng.choice(len(Z), size=k, replace=False)]
    for _ in range(KMEANS_STEPS):
        labels = pairwise_distances_argmin(Z, centres)
        sums = np.zeros_like(centres)
        np.add.at(sums, labels, Z)
        sizes = np.bincount(labels, minlength=k)[:, None]
        centres = np.where(sizes > 0, sums / np.maximum(sizes, 1), centres)
    return centres[labels]  # each row's group mean: the representative is the centroid of its rows


FULL_FLOOR = "loss floor of every training row (the representatives' bounds hold for them only)"


def full_verdict(c, net: TrainedNetwork, full: Dataset, v: Verdict, compression: Compression,
                 rel_tol: float | None = None, **record) -> Verdict:
    """The verdict on ``net`` (the network of the representatives' MIP ``c``, on scaled inputs) for
    the full problem: its objective on every row of ``full`` by annc's forward pass, against the
    floor of the full rows; ``v`` (the representatives' verdict) is kept in the record, with the
    verdict's other fields ``record`` (:func:`~annc.solve.verdict.judge`)."""
    problem = make_problem(c.spec, c.scaling.apply(np.asarray(full.X, float)), full.y, full.classes,
                           weights=full.weights)
    scores = net.forward(problem.X)[-1]
    objective = network_loss(c.spec, scores, problem.counts, [L.weight for L in net.layers])
    return judge(objective, floor(problem), relaxed=v.relaxed, source=v.source, rel_tol=rel_tol,
                 solver_objective=v.solver_objective, verified=True, bound_source=FULL_FLOOR,
                 compression=replace(compression, objective=v.objective, bound=v.lower_bound).to_dict(), **record)
