"""Valid lower bounds on the optimum of a training problem, each with its name.

The training problem is ``min_theta sum_n loss_n(theta) + pen(theta)`` with every
``loss_n >= 0`` and ``pen >= 0``, over the networks of the spec: weights and biases in
their boxes (on their grids, if any) whose step units' pre-activations avoid the gap
``(0, eps)``, the class the MIP describes.  A :class:`Bound` is a number no such network
beats, with the argument that proves it:

* ``loss floor``: :func:`annc.formulations.floor` (rows with several classes: at most
  one class per row is right);
* ``conflict`` (:mod:`.conflict`): rows so close that no network with step units in its
  first layer tells them apart; a least vertex cover of the conflicting sample groups;
* ``support`` (:mod:`.support`): under an ``l0`` penalty, a network that reads few
  features sees more conflicts, and one that reads none is constant;
* ``weight levels`` (:mod:`.levels`, with :mod:`.structure`): under ``l0``, for every
  weight budget ``p`` a bound on the errors of the networks with at most ``p`` weights
  (counting arguments on all rows, plus sub-MIPs on a growing row set), the penalty
  counted once: ``min_p lambda p + errors(p)``;
* ``hull packing`` (:mod:`.hulls`): with one step unit, disjoint sample sets whose two classes'
  convex hulls meet, each costing an error (used by the weight levels under ``l0``);
* ``subset`` and ``disjoint subsets`` (:mod:`.subset`): the problem on a few rows, solved
  by HiGHS within a node limit (its dual bound, or its optimum when proven);
* ``solver``: the dual bound of a solve of the whole MIP, when the caller has one.

Each is tested against brute force on instances small enough to enumerate
(``tests/training/test_bounds.py``).  :func:`best` picks the largest.  :mod:`.proof` holds them against
the search's network before the full MIP: a run they prove optimal skips it.
"""
from __future__ import annotations

import math

from ...core.losses import LOSS
from ...formulations import floor
from ..context import RunContext
from .bound import Bound, attainable, best
from .conflict import conflict_bound
from .hulls import applies as hulls_apply
from .hulls import hull_sets, packed
from .levels import Levels, level_bound
from .subset import Work, restrict, subset_bounds
from .support import support_bound

__all__ = ["Bound", "Levels", "Work", "level_bound", "attainable", "best", "conflict_bound", "lower_bounds", "restrict",
           "subset_bounds", "support_bound"]


def lower_bounds(problem, *, incumbent=None, solver_bound: float | None = None,
                 work: Work | None = Work(), target: float | None = None, levels: Levels | None = Levels(),
                 ctx: RunContext | None = None, known: dict | None = None) -> list[Bound]:
    """Every bound of the module docstring that applies to ``problem``, in that order.

    ``incumbent``: ``(weights, biases)`` of a network on the problem's (scaled) rows, which
    picks the subsets (the rows it gets wrong); ``solver_bound``: the dual bound of a solve
    of the whole MIP; ``work``: the subset sub-MIPs' budget (None: no sub-MIPs);
    ``target``: the incumbent's objective, which the weight levels aim at (None: no weight
    levels), under ``levels`` (their work limits); ``ctx``: the run context whose solver runs
    every sub-MIP and whose deadline caps them; ``known``: a dict the caller keeps for one problem,
    where the bounds that depend on nothing else (floor, conflict, support, hull packing, and the
    weight levels' cuts on all rows) are kept after their first computation and read back on the
    next call."""
    if known is None:
        conflict, fixed, hulls = _fixed(problem, ctx)
    else:
        if "fixed" not in known:
            known["fixed"] = _fixed(problem, ctx)
        conflict, fixed, hulls = known["fixed"]
    out = list(fixed)
    if target is not None and levels is not None:
        lv = level_bound(problem, target=target, incumbent=incumbent, base=0.0 if conflict is None else conflict.value,
                         work=levels, ctx=ctx, hulls=hulls, memo=known)
        if lv is not None:
            out.append(lv)
    if work is not None and work.subsets > 0:
        out += subset_bounds(problem, incumbent=incumbent, work=work, ctx=ctx)
    if solver_bound is not None and math.isfinite(solver_bound):
        out.append(Bound(attainable(problem, solver_bound), "solver", "dual bound of the whole MIP"))
    return out


def _fixed(problem, ctx: RunContext | None) -> tuple:
    """``(conflict bound or None, [floor, conflict, support, hull packing], hull sets)``: the bounds
    of ``problem`` that depend on no incumbent, target or work limit."""
    out = [Bound(attainable(problem, floor(problem)), "loss floor", "rows with several classes")]
    conflict = conflict_bound(problem)
    if conflict is not None:
        out.append(conflict)
    support = support_bound(problem, full=None if conflict is None else conflict.value,
                            stop=None if ctx is None else ctx.stopped)
    if support is not None:
        out.append(support)
    hulls = []
    if LOSS[problem.spec.loss].counts_errors and hulls_apply(problem.spec) and problem.spec.hidden[0].units == 1:
        hulls = hull_sets(problem.X, problem.counts, problem.spec, stop=None if ctx is None else ctx.expired)
        out.append(Bound(attainable(problem, packed(hulls)), "hull packing",
                         f"{len(hulls)} disjoint sample sets whose two classes' convex hulls meet: one step unit "
                         f"errs on each"))
    return conflict, tuple(out), hulls
