"""The MIP start: the start pool's best network improved by the local search, and its budget.

:func:`start_search` (and :func:`mip_start`, its point) takes the best candidate of the start
pool (:func:`annc.training.warmstart.pool.start_pool`) and improves it by fix-and-optimise and weight
dropping (:func:`~.local.improve`); the run context's deadline only caps it.

**The budget.**

One rule for ``annc train`` (the start handed to the solver) and ``annc compile`` (the
start written beside the model, :mod:`annc.io.writers.startfiles`):

* the search (:func:`mip_start`: SGD seeding, then fix-and-optimise) gets
  :data:`START_BUDGET` seconds, or a quarter of the time limit if that is less
  (:func:`start_budget`); ``annc compile`` has no time limit, so it gets
  :data:`START_BUDGET` unless ``--start-budget`` gives another budget;
* under :data:`MIN_START_BUDGET` seconds (a time limit under 1 s) no start is tried: that is
  not time for a candidate's output layer (the pool's first SGD network is most often trained
  already: the default recipe's eps choice trains the same one, and
  :func:`~annc.training.warmstart.pool.seeding.sgd_net` remembers it; a one-vs-one pair under a run's
  limit has 1.5 to 2 s, and its search what is left after the eps choice and the build);
* SGD trains networks whose hidden layers are all binary or all ReLU
  (:data:`annc.training.warmstart.sgd.HIDDEN_ACTIVATIONS`); any other network (no hidden layer, ``sign``
  units, a mix) gets no start, and :func:`~.incumbent.budgeted_start` says so without searching;
* an annc error inside the search (the output-layer sub-MIP of :mod:`.seeding` refuses
  a numeric ``M`` below its valid bound, which only ``--allow-small-m`` lets the full
  model keep) means no start, with the error's first line as the reason: the model
  itself is still valid.

:func:`~.incumbent.budgeted_start` returns ``(point or None, seconds, message)``: the message is one
line for the ``log`` callback (``MIP start from a pool of N and local search ...``, or
why there is none).  The point, when there is one, satisfies every row and bound of the
model (:func:`annc.training.warmstart.pool.point.complete` drops any point that does not); writers check it
again before a file is written.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ...core.model import Model
from ...formulations import floor as lower_bound
from ...io.problem import TrainingProblem
from ..context import RunContext
from ..warmstart.pool import Candidate, start_pool
from ..warmstart.sgd import HIDDEN_ACTIVATIONS
from .local import improve

START_BUDGET = 20.0  # seconds for the MIP start's search, at most a quarter of a time limit
MIN_START_BUDGET = 0.25  # below this (a time limit under 1 s) no start is tried


class StartOutcome(NamedTuple):
    """What :func:`budgeted_start` found: the point (None if none), the seconds the search
    took, and a one-line message that says which."""

    point: np.ndarray | None
    seconds: float
    message: str


def start_budget(time_limit: float | None) -> float:
    """Seconds for a local search (the MIP start, the exact finish): :data:`START_BUDGET`,
    at most a quarter of ``time_limit``."""
    return START_BUDGET if time_limit is None else min(START_BUDGET, time_limit / 4)


def sgd_trains(problem: TrainingProblem) -> str | None:
    """None if SGD seeding covers the network of ``problem``; else why not (for messages)."""
    acts = [ls.activation for ls in problem.spec.hidden]
    if not acts:
        return "the network has no hidden layer, and the search starts from SGD's hidden layers"
    if len(set(acts)) > 1:
        return f"SGD seeding trains hidden layers of one activation, not a mix ({', '.join(sorted(set(acts)))})"
    if acts[0] not in HIDDEN_ACTIVATIONS:
        return (f"SGD seeding does not train {acts[0]} layers (only "
                + " or ".join(HIDDEN_ACTIVATIONS) + ")")
    return None


@dataclass
class StartSearch:
    """What :func:`start_search` found: the start (None if none), the pool it came from,
    and the best objective of the pool's linear separators (None: none in the pool)."""

    x: np.ndarray | None
    pool: list = field(default_factory=list)
    start_objective: float | None = None  # the start after the local search
    capped: bool = False
    proven: bool = False  # the pool's best meets the ``enough`` test: no local search ran

    @property
    def pool_best(self) -> Candidate | None:
        return min(self.pool, key=lambda c: c.objective, default=None)

    @property
    def best_linear(self) -> Candidate | None:
        return min((c for c in self.pool if c.linear), key=lambda c: c.objective, default=None)


def start_search(model: Model, problem: TrainingProblem, *, ctx: RunContext | None = None,
                 seeds: int | None = None, hidden: bool = True, enough=None) -> StartSearch:
    """The MIP start: the best candidate of the start pool, improved by the local search
    (:func:`~.local.improve`); the run context ``ctx``'s deadline only caps the search (its
    decisions are work limits: the same inputs give the same start under any load).  ``ctx``'s
    progress sink hears of each candidate and when the local search begins.  ``hidden=False``:
    the local search frees only the output layer.  ``enough``: a test of an objective
    (:class:`annc.training.bounds.proof.PoolTest`): the pool ends at the first candidate that passes it,
    and then no local search runs; its bound is the floor at which the local search stops."""
    ctx = ctx or RunContext()
    pool, capped = start_pool(model, problem, seeds=seeds, ctx=ctx, enough=enough)
    found = StartSearch(None, pool, capped=capped)
    best = found.pool_best
    if best is None:
        return found
    if enough is not None and enough(best.objective):
        found.x, found.start_objective, found.proven = best.x, best.objective, True
        return found
    ctx.report("local search", elapsed=ctx.elapsed(), best=best.objective)
    floor = lower_bound(problem) if enough is None else max(lower_bound(problem), enough.floor())
    found.x = improve(model, problem, best.x, ctx=ctx, floor=floor, hidden=hidden)
    found.start_objective = model.objective(found.x)
    return found


def mip_start(model: Model, problem: TrainingProblem, *, budget: float | None = START_BUDGET,
              ctx: RunContext | None = None, seeds: int | None = None) -> np.ndarray | None:
    """The point of :func:`start_search` within ``budget`` seconds (None: no cap), or None if the
    pool is empty."""
    return start_search(model, problem, ctx=(ctx or RunContext()).within(budget), seeds=seeds).x
