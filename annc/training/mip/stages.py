"""One MIP's run as named stages: build -> start -> bound -> solve -> finish -> judge.

In the spirit of CVXPY's reduction chain, each stage is a small function over frozen
dataclasses: it takes what it needs (the :class:`MipJob` and the outputs of the stages before
it) and returns only what it adds.  :func:`annc.training.mip.runner.run_mip` composes them:

* :func:`build` (:class:`Built`): the large-data path (:mod:`annc.training.large.largedata`), the
  recipe made concrete (:func:`annc.training.warmstart.margin.resolve`), the model compiled and
  its files written;
* :func:`start` (:class:`Started`): the MIP start, model selection's kept network
  (:func:`~annc.training.search.incumbent.kept_incumbent`) or annc's own search
  (:func:`~annc.training.search.incumbent.search_incumbent`, within :data:`SEARCH_SHARE` of what is
  left before the finish), which a start network (cross-validation's) joins as a candidate;
* :func:`bound` (:class:`Bounded`): annc's own lower bound aimed at the start
  (:func:`~annc.training.bounds.proof.prove_start`); a proof makes the full MIP needless;
* :func:`solve` (:class:`Solved`): the user's solver on the full MIP, with the start, the stall
  rule (:mod:`annc.training.mip.stalling`) and annc's bound as its stop; not run when a proof, a
  kept network or a too short budget (:func:`too_short`) says so;
* :func:`finish` (:class:`Finished`): the network decoded and verified, the best lower bound
  (the solver's, the start's, annc's bounds on the solver's network), a relaxed solve's network
  found (:func:`~annc.training.finish.conclude_relaxed`), dead weights dropped;
* :func:`judge`: the :class:`~annc.solve.verdict.Verdict`, built once with all its fields, and the
  :class:`~annc.training.mip.chain.Step` with its :class:`StepTimes`.

**Time.**  Every stage takes its time from the MIP's run context (:class:`~annc.training.context.RunContext`):
the search a share of it, the bounds half of what is left, the solver a budget (:func:`solver_budget`:
what the build and the search left, less the finish's reserve), which only the driver turns into
its solver's time limit (:meth:`annc.solve.solvers.driver.Driver.solve_within`).
"""
from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Callable

import numpy as np

from ...core.errors import NoSolutionError
from ...formulations import floor
from ...io.solutions import Status
from ...solve.compiler import Compiled, build as compile_mip, write_artifacts
from ...solve.decode import decode_network
from ...solve.solvers import SolveResult
from ...solve.solvers.driver import SolveInputs
from ...solve.verdict import closes, judge as verdict_of, sourced_bound
from ...solve.verify import check
from ..bounds import Work, best, lower_bounds
from ..bounds.proof import Bound, PoolTest, prove_start, skipped_solve
from ..context import RunContext
from ..finish import RelaxedSolve, conclude_relaxed
from ..finish.deadweights import drop_dead_weights
from ..large.compress import full_verdict, size_advice
from ..large.largedata import enter as large_path
from ..search.incumbent import SearchRecord, kept_incumbent, kept_why, search_incumbent
from ..search.start import MIN_START_BUDGET
from ..warmstart.margin import resolve
from ..warmstart.pool.candidates import seed_point
from ..warmstart.pool.point import hidden_network
from .chain import Step, accuracy, finite_or_none, trace_recorder
from .job import Bounded, Built, Finished, MipJob, Solved, SolverSetup, Started, StepTimes
from .runfiles import changed_files, csv_backing
from .stalling import stall_checks

SEARCH_SHARE = 0.75  # of what is left before the finish, at most, for annc's own search before the full MIP
REFINE_ROUNDS = 8  # at most, of adaptive refinement after a relaxed solve (annc.training.finish.refine)
BOUND_WORK = Work(subsets=4, rows=8, node_limit=200)  # the subset bounds' sub-MIPs (finish)


# -- the stages ------------------------------------------------------------------------------
def build(job: MipJob, tasks: ExitStack) -> tuple[Built, RunContext]:
    """The MIP compiled on the data prepared once (large data: on representatives, its cluster opened
    on ``tasks``), its model and map written; with the run context of its large-data path."""
    job.ctx.report("build")
    data, compression, ctx = large_path(tasks, job.data, merge=job.settings.merge, ctx=job.ctx,
                                        workers=job.settings.workers, scheduler=job.settings.scheduler,
                                        say=job.say, large=job.settings.large)
    if compression is not None:
        job.say(compression.message())
    out = job.settings.out_dir
    data, csv = csv_backing(data, out, job.name)  # a greedy layer's inputs: <out>/<name>.csv
    spec, recipe, prepared = resolve(job.spec, data, merge=job.settings.merge, max_nonzeros=job.settings.max_nonzeros)
    c = compile_mip(spec, data, name=job.name, merge=job.settings.merge, max_nonzeros=job.settings.max_nonzeros,
                    recipe=recipe, prepared=prepared)
    _say_built(job, c, compression)
    files: list[Path] = []
    if out is not None:
        files = write_artifacts(c, out, job.name, data_csv=csv)
        job.settings.files.add(files, artifacts_of=job.name)
    return Built(c, job.data, compression, tuple(files), out, ctx.elapsed()), ctx


def _say_built(job: MipJob, c: Compiled, compression) -> None:
    for w in c.model.warnings:
        job.settings.log(f"warning: {w}")
    for setting in c.recipe.settings:  # the loss, penalty and eps in force, and where each came from
        job.say(setting.sentence())
    advice = None if compression is not None else size_advice(c.problem.num_rows, len(c.problem.classes))
    if advice:
        job.say(advice)
    st = c.model.stats()
    job.say(f"{st['columns']} columns ({st['binary']} binary), {st['rows']} rows, "
            f"{st['nonzeros']} non-zeros; solving with {job.ctx.solver}")


def start(job: MipJob, built: Built, ctx: RunContext) -> Started:
    """The MIP start: model selection's kept network, else annc's own search (where the solver takes
    a start), the start network among its candidates."""
    s = job.settings
    if s.keep and s.start_network is not None:
        kept = kept_incumbent(built.c, s.start_network, s.keep[0], ctx=ctx, log=job.say)
        if kept is not None:
            return Started(kept, kept=True, pool_seconds=kept.seconds)
    if not (s.warm_start and ctx.driver.mip_start):
        return Started()
    known: dict = {}
    enough = PoolTest(built.c, known, ctx, ctx.options.gap) if built.provable else None
    search = ctx.share(SEARCH_SHARE)
    y = None if s.start_network is None else seed_point(built.c, s.start_network, search)
    record = search_incumbent(built.c.model, built.c.problem, ctx=search, log=job.say,
                              given=() if y is None else ((s.start_name, y),), enough=enough)
    job.say(record.message)
    return Started(record, known=known, pool_seconds=record.pool_seconds,
                   search_seconds=record.seconds - record.pool_seconds)


def bound(job: MipJob, built: Built, started: Started, ctx: RunContext) -> Bounded:
    """annc's own bound aimed at the start; a proof when it meets the start's objective."""
    if started.x is None or not built.provable:
        return Bounded()
    proving = ctx.stopwatch()
    pre, proof = prove_start(built.c, started.x, ctx=ctx, rel_tol=ctx.options.gap, known=started.known)
    if proof is not None:
        job.say(f"{_proof_words(proof)} before the full MIP: lower bound {proof.bound.line()}")
    elif pre is not None:
        job.say(f"lower bound {pre.line()}")
    return Bounded(pre, proof, proving.seconds())


def solver_budget(job: MipJob, built: Built, ctx: RunContext) -> RunContext:
    """The solver's part of ``ctx``: what the build and the search left, less the finish's reserve;
    after a relaxed solve that is refined, half of that (at least the start's budget)."""
    if job.settings.refine and built.c.model.layout.relaxed:
        return ctx.solver_part(0.5, at_least=MIN_START_BUDGET)
    return ctx.solver_part()


def solve(job: MipJob, built: Built, started: Started, bounded: Bounded, ctx: RunContext) -> Solved:
    """The full MIP on the user's solver (its driver takes the budget), unless a proof, a kept
    network or a budget shorter than the solver's setup makes it needless; what it wrote is kept."""
    budget = solver_budget(job, built, ctx)
    out, c = job.settings.out_dir, built.c
    before = changed_files(out, f"{job.name}.")
    trace: list[list] = []
    ctx.report("solve", best=None if started.record is None else started.record.objective,
               time_limit=budget.left())
    solving = ctx.stopwatch()
    skipped = None if bounded.proof is not None else kept_why(*job.settings.keep) if started.kept else \
        too_short(c, started.record, budget, job.settings.setup)
    if skipped:
        job.say(skipped)
    try:
        if bounded.proof is not None:
            res = skipped_solve(ctx.solver, started.x, bounded.proof)
        elif skipped:
            res = SolveResult(ctx.solver, Status.FEASIBLE, skipped, started.record.objective, None, started.x)
        else:  # the stall rule (annc.training.mip.stalling): it ends when it has nothing left to gain
            inputs = SolveInputs(start=started.x, stop_at=None if bounded.pre is None else bounded.pre.value,
                                 model_file=None if out is None else str(c.model_path),
                                 workdir=None if out is None else str(out),
                                 progress=trace_recorder(trace, ctx.progress),
                                 stall_checks=stall_checks(c.model, ctx.driver, ctx.options.stall))
            res = ctx.driver.solve_within(c.model, ctx.options, inputs, budget.deadline)
    finally:  # what the solver wrote (a solution file, a log), even if it failed
        seconds = solving.seconds()
        solver_files = tuple(sorted(changed_files(out, f"{job.name}.", before)))
        job.settings.files.add(list(solver_files))
    return Solved(res, skipped, solver_files, trace, seconds)


def too_short(c: Compiled, record: SearchRecord | None, budget: RunContext,
              setup: SolverSetup = SolverSetup()) -> str | None:
    """Why the full MIP is not run (None: it is): annc's search has a network, and the solver's
    ``budget`` is shorter than its ``setup`` on this model (``setup.nonzeros_per_second``, on a model
    of ``setup.min_nonzeros`` non-zeros or more), during which HiGHS does not look at its clock;
    it would end the run late without a chance to improve the network.  A cap, like every use of
    the clock: the network is then the search's."""
    if record is None or record.x is None or not budget.limited:
        return None
    nonzeros = int(c.model.A.nnz)
    if nonzeros < setup.min_nonzeros:
        return None
    seconds, left = nonzeros / setup.nonzeros_per_second, budget.cap()
    if left >= seconds:
        return None
    return (f"the full MIP is not run: the {left:.1f} s left are less than the solver's setup on "
            f"this model (about {seconds:.0f} s for {nonzeros:,} non-zeros, during which it does not stop)")


def no_solution(job: MipJob, res: SolveResult, ctx: RunContext) -> NoSolutionError:
    """The error of a MIP that ended without a network (``interrupted``: a Ctrl-C came first)."""
    if res.status == Status.INFEASIBLE:
        why = ("the MIP is infeasible: no weights within the spec's bounds satisfy its constraints "
               "on these data (widen 'weights'/'bias', lower 'eps', or check the data)")
    elif res.status == Status.UNBOUNDED:
        why = f"the MIP is unbounded ({res.status_text})"
    elif res.interrupted:
        why = "interrupted before the solver found any solution"
    elif ctx.limited:
        why = (f"no solution found in the {ctx.deadline.limit:.3g} s of the time limit this MIP had "
               f"({res.status_text}); raise --time-limit, or try another solver")
    else:
        why = f"no solution found ({res.status_text})"
    err = NoSolutionError(f"[{job.name}] {ctx.solver}: {why}: no network to export")
    err.interrupted = bool(res.interrupted)  # a Ctrl-C before any network: selection stops its search
    return err


def finish(job: MipJob, built: Built, started: Started, bounded: Bounded, solved: Solved,
           ctx: RunContext) -> Finished:
    """The solver's point decoded and verified, its best lower bound, a relaxed solve's network
    found, dead weights dropped."""
    c, res = built.c, solved.result
    ctx.report("finish")
    finishing = ctx.stopwatch()
    net = decode_network(c.varmap, res.x)
    ver = check(c, res.x, net, status=res.status.value, solver_objective=res.objective)
    source, (bound_, bound_source), bounds_seconds = "solver", _solver_bound(c, res, bounded.pre), None
    if ver.ok and bounded.pre is None and built.provable:  # else bounded before the full MIP
        bounding = ctx.stopwatch()
        on = "on the representatives: " if built.compression is not None else ""
        # half of what is left: the rest is the finish's (decode, verify, score)
        bound_, bound_source = _stronger_bound(c, res.x, bound_, bound_source, ctx.share(0.5, of_finish=False),
                                               log=lambda line: job.say(on + line))
        bounds_seconds = bounding.seconds()
    if ver.ok and c.model.layout.relaxed:  # the solver's point is a relaxation's: find a network
        net, ver, source, bound_ = conclude_relaxed(
            c, RelaxedSolve(res, net, ver, bound_), start=started.x, ctx=ctx.before_finish(), say=job.say,
            rounds=REFINE_ROUNDS if job.settings.refine else 0)
    found_loss = ver.network_loss
    if ver.ok and c.problem.spec.hidden:
        net, ver = _without_dead_weights(job, c, res, net, ver)
    return Finished(net, ver, source, bound_, bound_source, found_loss, bounds_seconds,
                    finishing.seconds() - (bounds_seconds or 0.0))


def _solver_bound(c: Compiled, res: SolveResult, pre: Bound | None) -> tuple[float | None, str | None]:
    """The solver's bound (or claim, or the formulation's floor), or annc's ``pre`` where stronger."""
    bound_, source = sourced_bound(solver_status=res.status, solver_objective=res.objective,
                                   solver_bound=res.bound, floor=floor(c.problem))
    if pre is not None and (bound_ is None or pre.value > bound_ + 1e-9):  # valid whatever the network
        return pre.value, f"{pre.source}: {pre.detail}"
    return bound_, source


def _stronger_bound(c: Compiled, x: np.ndarray, bound_, source, ctx: RunContext, log: Callable):
    """The best of ``bound_`` (from ``source``) and annc's own valid lower bounds
    (:func:`annc.training.bounds.lower_bounds`: the conflict, support, weight-level and subset
    bounds, with the solver's network picking the rows), with its source; the sub-MIPs run under
    :data:`BOUND_WORK` and the weight levels' defaults (work limits) on the run's solver, capped by
    ``ctx``'s deadline."""
    W, b = hidden_network(c.model, x)
    found = best(lower_bounds(c.problem, incumbent=(W, b), solver_bound=None, work=BOUND_WORK, ctx=ctx,
                              target=c.model.objective(x)))
    if found is not None and (bound_ is None or found.value > bound_ + 1e-9):
        log(f"lower bound {found.value:.6g} ({found.source}: {found.detail})")
        return found.value, f"{found.source}: {found.detail}"
    return bound_, source


def _without_dead_weights(job: MipJob, c: Compiled, res: SolveResult, net, ver):
    """``(net, ver)`` with the weights into hidden units that no output reads dropped (said in the log
    and ``net.meta["dead_weights_dropped"]``), or as they were."""
    dropped = drop_dead_weights(c, net, ver, status=res.status.value, solver_objective=res.objective)
    if dropped is None:
        return net, ver
    new, new_ver, n = dropped
    new.meta["dead_weights_dropped"] = n
    job.say(f"dropped {n} weight{'s' if n != 1 else ''} into hidden units that no output reads: "
            f"objective {ver.network_loss:.6g} -> {new_ver.network_loss:.6g}")
    return new, new_ver


def judge(job: MipJob, built: Built, started: Started, bounded: Bounded, solved: Solved, finished: Finished,
          ctx: RunContext) -> Step:
    """The verdict on the network (built once, with all its fields) and the MIP's step."""
    c, res, f = built.c, solved.result, finished
    relaxed = c.model.layout.relaxed
    fields = dict(search=_search(started, bounded, solved, f), ended=ended(res, bounded.proof, solved.skipped),
                  sub_mips=ctx.ledger.to_dict() if ctx.ledger.counts else None)
    if built.compression is not None and f.ver.ok:  # the verdict is the full problem's, the MIP's kept beside it
        mine = verdict_of(f.ver.network_loss, f.bound, relaxed=relaxed, source=f.source, rel_tol=ctx.options.gap,
                          solver_objective=res.objective, verified=f.ver.ok,
                          bound_source=f.bound_source if not relaxed else None)
        verdict = full_verdict(c, f.net, built.full, mine, built.compression, rel_tol=ctx.options.gap, **fields)
        job.say(f"on all {built.compression.samples:,} samples: objective {verdict.objective:.6g} (the "
                f"{built.compression.representatives:,} representatives': {f.ver.network_loss:.6g})")
    else:
        dead = (f.net.meta["dead_weights_dropped"], f.found_loss) if f.found_loss > f.ver.network_loss else None
        verdict = verdict_of(f.ver.network_loss, f.bound, relaxed=relaxed, source=f.source, rel_tol=ctx.options.gap,
                             solver_objective=res.objective, verified=f.ver.ok,
                             bound_source=f.bound_source if not relaxed else None, dead_weights=dead, **fields)
    trace = solved.trace + [[round(res.seconds, 3), finite_or_none(res.objective), finite_or_none(res.bound)]]
    times = StepTimes(build=built.seconds, start_pool=started.pool_seconds, search=started.search_seconds,
                      bounds=f.bounds_seconds if f.bounds_seconds is not None else bounded.seconds,
                      full_mip=solved.seconds, finish=f.seconds, step=ctx.elapsed())
    files = list(built.files) + [p for p in solved.files if p not in built.files]
    return Step(job.name, c, res, f.ver, f.net, files, accuracy(f.net, c.scaled_data), verdict, trace, times)


def _search(started: Started, bounded: Bounded, solved: Solved, f: Finished) -> dict | None:
    """What annc's search added, judged against the exported network (its record's conclusion)."""
    record = started.record
    if record is None or record.x is None or not f.ver.ok:
        return None
    from_solver = not solved.skipped and bounded.proof is None and f.source == "solver" \
        and f.found_loss < record.objective - 1e-6
    return record.conclude(f.found_loss, from_solver=from_solver)


def _proof_words(proof) -> str:
    """A proof of the start's objective in words: proven optimal, or (a ``--gap`` above the
    verdict's own tolerance) only within the gap asked."""
    return "proven optimal" if closes(proof.objective, proof.bound.value) else "within the gap asked"


def ended(res: SolveResult, proof, skipped: str | None) -> str:
    """Why this MIP's run ended, for the verdict (``ended``): proven before the full MIP, the full
    MIP not run, stalled (the stall rule, only where the driver applied it), or the solver's own
    word (proved optimal, a time or node limit, interrupted)."""
    if proof is not None:
        return f"{_proof_words(proof)} before the full MIP: it was not run"
    if skipped:
        return skipped
    if res.extra.get("stalled"):
        return str(res.extra["stalled"])
    return "interrupted" if res.interrupted else res.status_text
