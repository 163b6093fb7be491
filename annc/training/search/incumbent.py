"""The incumbent annc hands to the solver, and the record of how it was found.

Before the full MIP is solved, :func:`search_incumbent` runs, on work limits:

1. the start pool and local search (:func:`.start.start_search`): SGD seeds and the
   sparse linear separators of :mod:`.linear`, each with its exact output layer, the best
   one improved by fix-and-optimise and weight dropping;
2. the exact neighbourhood search (:mod:`.lns`) from that start, which improves it and
   earns a certificate when every neighbourhood of a size is proven not to improve (and
   one for the largest band of rows near the thresholds proven not to improve).

:class:`SearchRecord` keeps what the verdict reports: the pool (names and objectives), the
best linear separator's objective, the start's objective, the neighbourhood search's
steps and certificate.  :meth:`SearchRecord.conclude` then compares the network the user
gets (its own objective) with them: whether the MIP **improved** on every candidate of the
pool, holds a **certificate** (of at least one hidden unit and the output layer), or
added **none** of these; and whether the network is no better than the best linear
separator found.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...core.errors import AnncError
from ...core.model import Model
from ...formulations import floor as loss_floor
from ...io.problem import TrainingProblem
from ...solve.compiler import Compiled
from ..context import RunContext
from ..warmstart.pool.candidates import SEED_NAME, seed_point
from . import lns
from .local import drop_weights
from .start import MIN_START_BUDGET, StartOutcome, sgd_trains, start_budget, start_search

IMPROVE_TOL = 1e-9


@dataclass
class SearchRecord:
    x: np.ndarray | None = None
    pool: list = field(default_factory=list)  # (name, objective) per candidate
    best_linear: float | None = None
    start_objective: float | None = None
    found_by: str | None = None
    certificate: lns.Certificate | None = None
    band: lns.Certificate | None = None  # the largest band of rows proven for the incumbent
    steps: list = field(default_factory=list)  # (neighbourhood, objective) per accepted LNS step
    sub_mips: int = 0
    capped: bool = False  # a wall-clock cap stopped a step before its work limit
    kept: bool = False  # model selection's network kept as it is (a logistic separator or a tree): no search ran
    met_bound: bool = False  # the pool's best met annc's lower bound: no search ran after the pool
    seconds: float = 0.0
    pool_seconds: float = 0.0  # the start pool and its local search; the rest of ``seconds`` is the LNS
    message: str = ""

    @property
    def pool_best(self) -> float | None:
        return min((o for _, o in self.pool), default=None)

    @property
    def objective(self) -> float | None:
        """The objective of the incumbent handed to the solver."""
        return self.steps[-1][1] if self.steps else self.start_objective

    def conclude(self, final: float, *, from_solver: bool) -> dict:
        """``meta["search"]``: the record, judged against the exported network's objective
        ``final`` (``from_solver``: the full MIP's solver found a better network than the
        incumbent, so the certificate, which speaks of the incumbent, does not apply)."""
        best = self.pool_best
        improved = best is not None and final < best - IMPROVE_TOL
        cert = None if from_solver or self.certificate is None else self.certificate
        certs = [] if from_solver else [c for c in (self.certificate, self.band) if c is not None]
        if from_solver:
            found = "solver (the full MIP, from annc's incumbent)" if self.x is not None else "solver"
        else:
            found = self.found_by
        added = ("kept" if self.kept else "improved" if improved else "proof" if self.met_bound else
                 "certificate" if cert is not None and cert.key != "output" else "none")
        return {
            "start_objective": self.start_objective,
            "pool": [{"name": n, "objective": o} for n, o in self.pool],
            "pool_best": best,
            "best_linear": self.best_linear,
            "final_objective": final,
            "found_by": found,
            "certificate": None if cert is None else cert.to_dict(),
            "certificates": [c.to_dict() for c in certs],  # each neighbourhood kind proven, its own sentence
            "added": added,
            "no_better_than_linear": self.best_linear is not None and final >= self.best_linear - IMPROVE_TOL,
            "sub_mips": self.sub_mips,
            "capped": self.capped,
        }


def search_incumbent(model: Model, problem: TrainingProblem, *, ctx: RunContext | None = None,
                     log=None, neighbourhoods: bool = True, given: tuple = (), enough=None) -> SearchRecord:
    """Steps 1-2 of the module docstring (``neighbourhoods=False``: step 1 only, its local search
    then freeing every layer); the run context ``ctx``'s deadline caps the whole of it (the
    start pool and its local search take half), and its decisions are work limits.  ``given``:
    ``(name, point)`` pairs of this model made elsewhere (model selection's network on all rows),
    candidates of the pool beside the local search's start: the best of them all is the start of
    the neighbourhood search.  ``enough``: a test of an objective against a lower bound
    (:class:`annc.training.bounds.proof.PoolTest`): the pool ends at the first network that passes it,
    and no search runs after it (it has nothing left to gain); its bound, once computed, is the
    floor at which the neighbourhood search stops.
    The record's ``x`` is None when no start could be made (then nothing else ran).  ``ctx``'s
    progress sink hears of each phase and candidate."""
    ctx = ctx or RunContext()
    say = log or (lambda *_: None)
    rec = SearchRecord()
    budget = ctx.left()
    why = "the time limit is too short" if budget is not None and budget < MIN_START_BUDGET else sgd_trains(problem)
    if why is not None:  # no search; the points made elsewhere are made already, so they still start
        _take_given(rec, model, given, say)
        rec.message = f"no MIP start: {why}" if rec.x is None else f"MIP start: {rec.found_by} alone ({why} to search)"
        return rec
    clock = ctx.stopwatch()
    ctx.report("start pool", candidates=0, time_limit=budget)
    exact = neighbourhoods and lns.applies(model, problem)  # then the neighbourhood search moves the hidden layers
    found = start_search(model, problem, ctx=ctx.share(0.5, of_finish=False), hidden=not exact, enough=enough)
    rec.pool_seconds = rec.seconds = clock.seconds()
    _record_pool(rec, model, found, say)
    _take_given(rec, model, given, say)
    if rec.x is None:
        rec.message = f"no MIP start: the search found no feasible point ({clock.seconds():.1f}s)"
        return rec
    if enough is not None and enough(rec.start_objective):
        rec.met_bound, rec.seconds = True, clock.seconds()
        rec.message = (f"annc's search: objective {rec.start_objective:.6g}, found by {rec.found_by} "
                       f"({rec.seconds:.1f}s): it meets annc's lower bound, so no search ran after the pool")
        return rec
    if exact:
        ctx.report("neighbourhood search", elapsed=clock.seconds(), best=rec.start_objective)
        _neighbourhood_search(rec, model, problem, ctx=ctx, enough=enough, say=say)
    rec.seconds = clock.seconds()
    rec.message = (f"annc's search: objective {model.objective(rec.x):.6g}, found by {rec.found_by} ({rec.seconds:.1f}s"
                   + (f", {rec.sub_mips} sub-MIPs" if rec.sub_mips else "")
                   + (", cut short by the time limit" if rec.capped else "") + ")")
    return rec


def _record_pool(rec: SearchRecord, model: Model, found, say: Callable) -> None:
    """The start pool's outcome ``found`` in ``rec``: its candidates, its best linear separator and,
    when it made one, the start and who found it."""
    rec.pool = [(c.name, c.objective) for c in found.pool]
    lin = found.best_linear
    rec.best_linear = None if lin is None else lin.objective
    rec.capped = found.capped
    if found.x is None:
        return
    rec.x, rec.start_objective = found.x, model.objective(found.x)
    best = found.pool_best
    rec.found_by = (f"start pool: {best.name}" if rec.start_objective >= best.objective - IMPROVE_TOL
                    else f"local search from {best.name}")
    how = " (it ended at a network that meets annc's lower bound)" if found.proven else " and local search"
    say(f"MIP start from a pool of {len(found.pool)}{how}: objective {rec.start_objective:.6g} "
        f"(best of the pool: {best.name}, {best.objective:.6g}"
        + (f"; best linear separator {lin.objective:.6g}" if lin else "") + ")")


def _take_given(rec: SearchRecord, model: Model, given: tuple, say: Callable) -> None:
    """The points made elsewhere, ``(name, point)``, in the pool of ``rec``; the start where better."""
    for name, y in given:
        obj = model.objective(y)
        rec.pool.append((name, obj))
        if rec.x is None or obj < rec.start_objective - IMPROVE_TOL:
            rec.x, rec.start_objective, rec.found_by = y, obj, f"start pool: {name}"
            say(f"{name} is the better start: objective {obj:.6g}")


def _neighbourhood_search(rec: SearchRecord, model: Model, problem: TrainingProblem, *, ctx: RunContext,
                          enough, say: Callable) -> None:
    """Step 2 of the module docstring from ``rec``'s start, its outcome in ``rec``: under an l0
    penalty each accepted step is polished by dropping weights; it stops at the loss floor, or at
    ``enough``'s bound where higher."""
    polish = None
    if problem.spec.penalty == "l0" and problem.spec.penalty_weight > 0:
        def polish(y):  # within what is left of the deadline (one lift per weight: minutes on 150k rows)
            return drop_weights(model, problem, y, ctx=ctx)
    floor = loss_floor(problem) if enough is None else max(loss_floor(problem), enough.floor())
    r = lns.search(model, problem, rec.x, ctx=ctx, floor=floor, log=say, polish=polish)
    rec.x, rec.certificate, rec.steps, rec.sub_mips = r.x, r.certificate, r.improvements, r.sub_mips
    rec.band = r.band
    rec.capped = rec.capped or r.capped
    if r.improvements:
        rec.found_by = f"neighbourhood search: {r.improvements[-1][0]}"


def budgeted_start(model: Model, problem: TrainingProblem, *, time_limit: float | None = None,
                   budget: float | None = None, ctx: RunContext | None = None) -> StartOutcome:
    """``annc compile``'s MIP start: step 1 of :func:`search_incumbent` under the budget rules of
    :mod:`.start`: ``budget`` seconds if given, else :func:`~.start.start_budget` of ``time_limit``;
    ``ctx`` gives the solver, the interrupt and the progress sink (its deadline caps the budget)."""
    explicit = budget is not None
    budget = float(budget) if explicit else start_budget(time_limit)
    if budget < MIN_START_BUDGET:  # not even time for one SGD run
        why = (f"a start budget of {budget:g} s is too short (at least {MIN_START_BUDGET:g} s)" if explicit
               else "the time limit is too short")
        return StartOutcome(None, 0.0, f"no MIP start: {why}")
    why = sgd_trains(problem)
    if why is not None:
        return StartOutcome(None, 0.0, f"no MIP start: {why}")
    clock = RunContext.stopwatch()
    lines = []
    try:
        rec = search_incumbent(model, problem, ctx=(ctx or RunContext()).within(budget), log=lines.append,
                               neighbourhoods=False)
    except AnncError as e:  # e.g. a sub-MIP of the search refuses the spec's own numeric M
        took = clock.seconds()
        return StartOutcome(None, took, f"no MIP start: the search stopped ({took:.1f}s): "
                                        f"{str(e).splitlines()[0]}")
    took = clock.seconds()
    if rec.x is None:
        return StartOutcome(None, took, rec.message + ("" if "(" in rec.message else f" ({took:.1f}s of a "
                                                       f"{budget:g} s budget)"))
    return StartOutcome(rec.x, took, f"{lines[0]} ({took:.1f}s" + (", cut short by the budget" if rec.capped else "")
                        + ")")


def kept_why(what: str, why: str) -> str:
    """Why the full MIP did not run where model selection kept ``what`` (the chosen setting's label),
    ``why`` its reason (:attr:`annc.training.modelselect.cvresults.CVSelection.kept_reason`)."""
    return f"the full MIP is not run: model selection chose {what}, whose network is kept ({why}); annc's bounds bound it"


def kept_incumbent(c: Compiled, seed, what: str, *, ctx: RunContext | None = None, log=None) -> SearchRecord | None:
    """Model selection's kept network ``seed`` (``what``: a logistic separator's or a tree's label; a
    network on the raw inputs:
    :attr:`annc.training.modelselect.cvresults.CVSelection.keeps`) as the run's incumbent, with no search: lifted
    into the compiled problem ``c`` (:func:`~annc.training.warmstart.pool.candidates.seed_point`), its record
    ``kept`` (the verdict then says the MIP added a bound); None when it cannot be lifted (``log``
    hears which)."""
    ctx, say = ctx or RunContext(), log or (lambda *_: None)
    clock = ctx.stopwatch()
    y = seed_point(c, seed, ctx)
    if y is None:
        say(f"{what}, which model selection chose, cannot be lifted: searching instead")
        return None
    obj = float(c.model.objective(y))
    rec = SearchRecord(x=y, pool=[(SEED_NAME, obj)], start_objective=obj, kept=True,
                       found_by=f"model selection: {what}, kept")
    rec.seconds = rec.pool_seconds = clock.seconds()
    rec.message = f"model selection's {what} kept: objective {obj:.6g}"
    say(rec.message)
    return rec
