"""Adaptive refinement of the McCormick partitions: both bounds of a relaxed model, alternately.

A ReLU net's MIP relaxes each product ``a q'`` over a partition of the weight box
(:mod:`annc.formulations.relu`).  Any partition gives a valid relaxation, so every
relaxation's bound (its optimum, or a solver's dual bound) is a lower bound on the
training loss of every network; and every network, scored by its own forward pass,
is an upper bound.  As Alpine.jl's adaptive multivariate partitioning does, each round

1. re-partitions every relaxed weight's box around the last relaxation's weights, with
   a narrower middle piece each round (:func:`annc.formulations.relu.refined`): the
   envelope is exact at a piece's end and tight near it, so the relaxation's point comes
   closer to a network;
2. solves that relaxation from the best network so far (a lower bound ``lb``);
3. finishes exactly from its point (:func:`.exact.finish`: the solver's hidden
   layers, the exact output layer, fix-and-optimise) for a network (an upper bound);

until ``best - lb`` is within the tolerance, the rounds run out, the run context's deadline
passes, or Ctrl-C.  Each relaxation runs on the run's sub-MIP solver with half of what is left.
The lower bound reported is the largest over all relaxations solved.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from ...core.model import Model
from ...formulations import formulate
from ...formulations.relu import refined
from ...io.problem import TrainingProblem
from ..context import RunContext
from ..search.start import MIN_START_BUDGET, START_BUDGET
from ..warmstart.pool.point import complete, hidden_network
from .exact import finish

SHRINK = 4.0  # each round's middle piece is this much narrower than the last


@dataclass
class Refinement:
    """What refinement found: the best network's (weights, biases), its loss, the best lower
    bound, and one ``(round, lower bound, best loss)`` per round."""

    weights: list
    biases: list
    loss: float
    lower_bound: float
    rounds: list


def _partitions(model: Model, problem: TrainingProblem, x: np.ndarray, width: float) -> dict:
    """Breakpoints around the weights at ``x`` for every layer whose products are relaxed."""
    spec, out = problem.spec, {}
    for L in model.layout.layers:
        if L.relaxed:
            lo, hi = spec.layers[L.index].weight_bounds
            out[L.index] = refined(x[L.weight], lo, hi, spec.partitions, width * (hi - lo))
    return out


@dataclass(frozen=True)
class Rounds:
    """When refinement stops: after ``rounds`` rounds at most, or once the gap between the best loss
    and the bound is ``tolerance(loss)`` or less; each round's relaxation stops at relative ``gap``."""

    tolerance: Callable[[float], float]
    rounds: int = 8
    gap: float | None = None


def refine(model: Model, problem: TrainingProblem, x: np.ndarray, best: np.ndarray, lower_bound: float, *,
           ctx: RunContext, until: Rounds, log: Callable[[str], None] = lambda line: None) -> Refinement:
    """Refine from the relaxation's point ``x`` and the best exact point ``best`` (both of
    ``model``, whose lower bound is ``lower_bound``) until ``until`` says (:class:`Rounds`); each
    relaxation is solved by ``ctx`` (:meth:`~annc.training.context.RunContext.solve`) within half
    of what is left of its deadline."""
    rounds, tolerance, gap = until.rounds, until.tolerance, until.gap
    clock = ctx.stopwatch()
    W, b = hidden_network(model, best)
    loss, lb, history = model.objective(best), lower_bound, []
    width = 1.0 / problem.spec.partitions
    for k in range(1, rounds + 1):
        left = ctx.left()
        if loss - lb <= tolerance(loss) or (left is not None and left <= MIN_START_BUDGET) or ctx.interrupted:
            break
        width /= SHRINK
        pb = replace(problem, partitions=_partitions(model, problem, x, width))
        m = formulate(pb, name=f"{model.name}.refine{k}")
        start = complete(m, pb, W, b)
        r = ctx.share(0.5, of_finish=False).solve(m, start=start, gap=gap)
        if r.bound is not None and math.isfinite(r.bound):
            lb = max(lb, r.bound)
        elif r.status.value == "optimal" and r.objective is not None:
            lb = max(lb, r.objective)
        if r.x is not None:
            x = r.x
            y = finish(m, pb, r.x, candidates=[start], ctx=ctx.within(START_BUDGET), floor=lb)
            if y is not None and m.objective(y) < loss - 1e-9 * max(1.0, abs(loss)):
                W, b = hidden_network(m, y)
                loss = m.objective(y)
        history.append((k, lb, loss))
        log(f"refinement round {k}: lower bound {lb:.6g}, best network {loss:.6g} "
            f"({clock.seconds():.1f}s)")
    return Refinement(W, b, loss, lb, history)
