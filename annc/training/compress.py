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

from ..core.network import TrainedNetwork
from ..formulations import floor, network_loss
from ..io.data import Dataset, array_digest
from ..io.problem import make_problem
from ..solve.verdict import Verdict, judge

ADVISE_ROWS = 1_000  # distinct training rows above which annc says what one MIP of them means
LARGE_ROWS = 10_000  # distinct training rows above which the MIP is built on representatives
REPRESENTATIVES = 4_000  # rows of that MIP, at most
KMEANS_STEPS = 5  # Lloyd iterations of the clustering (a work limit)


@dataclass(frozen=True)
class Compression:
    """How the rows were compressed: ``rows`` distinct training rows into ``representatives``
    weighted rows, by ``method``; the MIP's own objective and bound on them, once solved."""

    samples: int
    rows: int
    representatives: int
    method: str = "k-means per class on the standardised features"
    objective: float | None = None  # the representatives' MIP objective of the exported network
    bound: float | None = None  # a lower bound of the representatives' problem (not of the full one)

    def message(self) -> str:
        return (f"large data: {self.rows:,} distinct training rows ({self.samples:,} samples); the MIP is built on "
                f"{self.representatives:,} weighted representatives ({self.method}), and the network is scored "
                "on every row")

    def to_dict(self) -> dict:
        return {"samples": self.samples, "rows": self.rows, "representatives": self.representatives,
                "method": self.method, "objective": self.objective, "bound": self.bound}


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


def representatives(data: Dataset, *, merge: bool = True, k: int = REPRESENTATIVES, seed: int = 0,
                    large: int = LARGE_ROWS) -> tuple[Dataset, Compression] | None:
    """``data`` with each row replaced by its class's cluster centre (module docstring), and
    what was done; None when ``data`` has at most ``large`` distinct rows (or ``merge`` is off:
    then every row is its own MIP row by the user's choice)."""
    X = np.asarray(data.X, float)
    if not merge or len(X) <= large:
        return None
    rows = distinct_rows(X)
    if rows <= large:
        return None
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    Z = (X - mu) / sd
    out = X.copy()
    classes, counts = np.unique(data.y, return_counts=True)
    for c, n_c in zip(classes, counts):
        idx = np.flatnonzero(data.y == c)
        k_c = int(min(n_c, max(1, round(k * n_c / len(X)))))
        if k_c >= n_c:
            continue
        out[idx] = _kmeans(Z[idx], k_c, seed) * sd + mu
    reps = distinct_rows(out)
    compressed = replace(data, X=out, path="", sha256=array_digest(out, data.y), lines=None)
    return compressed, Compression(len(X), rows, reps)


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
                 rel_tol: float | None = None) -> Verdict:
    """The verdict on ``net`` (the network of the representatives' MIP ``c``, on scaled inputs) for
    the full problem: its objective on every row of ``full`` by annc's forward pass, against the
    floor of the full rows; ``v`` (the representatives' verdict) is kept in the record."""
    problem = make_problem(c.spec, c.scaling.apply(np.asarray(full.X, float)), full.y, full.classes)
    scores = net.forward(problem.X)[-1]
    objective = network_loss(c.spec, scores, problem.counts, [L.weight for L in net.layers])
    out = judge(objective, floor(problem), relaxed=v.relaxed, source=v.source, rel_tol=rel_tol,
                solver_objective=v.solver_objective, verified=True, bound_source=FULL_FLOOR)
    out.search = v.search
    out.compression = replace(compression, objective=v.objective, bound=v.lower_bound).to_dict()
    return out
