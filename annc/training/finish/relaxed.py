"""After a relaxed solve: the network to export, and a lower bound to judge it by.

A model whose products are relaxed (``model.layout.relaxed``: piecewise McCormick after
ReLU layers) gives the solver points that no network need realise; its optimum is a
lower bound.  :func:`conclude_relaxed` turns the solve into a network and a bound:

* candidates, all scored by their own forward pass (annc's ``network_loss``): the
  solver's decoded network, the MIP start, and the exact finish from the solver's hidden
  layers (:func:`.exact.finish`);
* then, while time is left and the gap is open, adaptive refinement
  (:func:`.refine.refine`) alternates refined relaxations (lower bounds) and
  exact finishes (networks);
* the best network is exported; its verification is that of its own lift (exact
  products, so the objective at the point is its loss), or the solver's point when the
  solver's own network is the best.

The lower bound is the largest of the first solve's (:func:`annc.solve.verdict.lower_bound`)
and every refined relaxation's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...core.network import TrainedNetwork
from ...solve.compiler import Compiled
from ...solve.decode import decode_network
from ...solve.solvers import SolveResult
from ...solve.verdict import ABS_TOL, REL_TOL
from ...solve.verify import Verification, check
from ..context import RunContext
from ..search.start import MIN_START_BUDGET as MIN_BUDGET  # below this no finish is tried either
from ..search.start import start_budget
from ..warmstart.pool.point import complete
from .exact import finish
from .refine import Rounds, refine


@dataclass(frozen=True, eq=False)  # arrays: compared by identity
class RelaxedSolve:
    """What the solve of a relaxed MIP gave: the solver's result, the network decoded from its point,
    that network's verification, and the lower bound so far (None: none)."""

    res: SolveResult
    net: TrainedNetwork
    ver: Verification
    bound: float | None


def conclude_relaxed(c: Compiled, solved: RelaxedSolve, *, start, ctx: RunContext, say: Callable, rounds: int = 8):
    """``(network, its verification, where it comes from, lower bound)``; see the module docstring.
    The exact finish has :func:`~annc.training.search.start.start_budget` of the run's limit at
    most, the refinement what is left of the run context ``ctx``'s deadline.  ``say`` hears a line
    of the MIP's log."""
    res, ver, net, bound = solved.res, solved.ver, solved.net, solved.bound
    budget = start_budget(ctx.deadline.limit)
    if budget < MIN_BUDGET:
        say("no exact finish: the time limit is too short")
        return net, ver, "solver", bound
    clock = ctx.stopwatch()
    x = finish(c.model, c.problem, res.x, candidates=[start], ctx=ctx.within(budget),
               floor=bound if bound is not None else -float("inf"))
    took = clock.seconds()
    source = "solver"
    if x is not None and c.model.objective(x) < ver.network_loss:
        source = "MIP start" if start is not None and (x == start).all() else "exact finish"
    say(f"exact finish ({took:.1f}s): the solver's network has loss {ver.network_loss:.6g} "
        f"(its relaxed objective {res.objective:.6g})"
        + ("" if x is None else f"; the best network found {c.model.objective(x):.6g}"))
    if x is not None and ctx.limited and bound is not None:
        x, bound, refined = _refine(c, res, x, bound, ctx=ctx, say=say, rounds=rounds)
        if refined:
            source = "adaptive refinement"
    if x is None or c.model.objective(x) >= ver.network_loss:
        return net, ver, "solver", bound
    fin = decode_network(c.varmap, x)
    return fin, check(c, x, fin, status=res.status.value, solver_objective=None), source, bound


def _refine(c: Compiled, res: SolveResult, x, bound: float, *, ctx: RunContext, say: Callable, rounds: int):
    """Adaptive refinement from the exact point ``x``: ``(best exact point, bound, improved?)``."""
    gap = ctx.options.gap
    rel = REL_TOL if gap is None else gap
    tol = (lambda loss: ABS_TOL + rel * abs(loss))
    left = ctx.left()
    if left <= MIN_BUDGET or c.model.objective(x) - bound <= tol(c.model.objective(x)):
        return x, bound, False
    by = ctx.sub_solver  # the refined models exist only in memory
    say(f"adaptive refinement with {by}: lower bound {bound:.6g}, best network "
        f"{c.model.objective(x):.6g}, up to {left:.0f}s")
    r = refine(c.model, c.problem, res.x, x, bound, ctx=ctx, until=Rounds(tol, rounds, gap), log=say)
    bound = max(bound, r.lower_bound)
    if r.loss < c.model.objective(x) - 1e-9 * max(1.0, abs(r.loss)):
        y = complete(c.model, c.problem, r.weights, r.biases)
        if y is not None:
            return y, bound, True
    return x, bound, False
