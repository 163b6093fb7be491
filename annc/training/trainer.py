"""``annc train``: compile, solve, decode and verify in one go; greedy layer-wise training.

Full training solves one MIP for the whole network.  Greedy training (the paper's
Algorithms 1 and 2) solves one MIP per hidden layer: layer ``l`` plus a throw-away
output layer, trained on the forward pass of the decoded layers before it (standard
semantics, not the solver's rounded variables).  When the last hidden layer is ReLU
the output layer is then retrained by the exact output-layer-only MIP (Algorithm 2);
otherwise the output layer of the last MIP is kept (Algorithm 1).  Time limits apply
to each MIP.  The chain of MIPs is :mod:`annc.training.mip.chain` (which ``annc experiment`` uses
too); this module gives it the per-MIP trainer :func:`_solve_step` (files, MIP start).

Ctrl-C (one shared :class:`~annc.solve.solvers.base.Interrupt` for the whole run) stops the
running solver, which keeps its incumbent; that incumbent is decoded and verified as
usual.  In greedy training no further layer is trained after an interrupt: the
network is the layers trained so far plus the output layer of the last MIP that has a
solution (a complete, verified network, maybe shallower than the spec, or without
Algorithm 2's exact output layer; ``meta["truncated"]`` says so).  A first Ctrl-C at any
point is a request (:class:`~annc.solve.solvers.base.Interrupt`): in the start pool it ends the
pool after its first candidate, which the searches and the solver then keep; a run stopped
before any solution exists gives :class:`~annc.core.errors.NoSolutionError` (exit 3).  Only a
second Ctrl-C aborts (``KeyboardInterrupt``).

**Files.**  A run checks everything before it writes anything
(:meth:`annc.training.request.TrainRequest.checked`: the options, the solver, the file name, the
data and the test data against the spec, the output folder).  It then writes, in the output folder,
each MIP's model and map (and the CSV of a greedy layer's inputs, or of data given as
arrays, which the map names) together (:func:`~annc.solve.compiler.write_artifacts`), any
file a file-based solver leaves there (its solution file), and at the end the weights
(``<stem>.weights.json`` / ``.npz``, through temporary files).  What stays when a run
fails:

* no solution (exit 3, :class:`~annc.core.errors.NoSolutionError`): the model and map of the
  MIP that has none (with the CSV its map names), complete and valid for another
  solver; the message names them.  Nothing else: no weights, no solution files, and
  in greedy training none of the files of the layers trained before;
* a solution that fails verification (exit 4): no weights; the same rule keeps the
  model and map of the (first) MIP whose solution failed;
* any other error or an abort (a second Ctrl-C): nothing this run wrote.

The command line, the Python API (:mod:`annc.app.api`) and the estimator all build one
:class:`~annc.training.request.TrainRequest`, and :func:`annc.training.dispatch.run` trains it: its full
and greedy modes come here (:func:`fit`); the files of a run are :mod:`annc.training.mip.runfiles`,
its result :mod:`annc.training.results`.

Nothing here prints: progress goes to the ``log`` callback (silent by default), which
the command line sets to ``print``.
"""
from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Callable

import numpy as np

from ..core.errors import NoSolutionError
from ..core.log import silent
from ..core.network import TrainedNetwork
from ..formulations import floor
from ..io.data import Dataset
from ..io.outputs import export_atomically
from ..io.solutions import Status
from ..io.spec import NetworkSpec
from ..solve.compiler import Compiled, build, write_artifacts
from ..solve.decode import decode_network
from ..solve.solvers import DEFAULT, SOLVERS, SolveOptions, SolveResult, solve
from ..solve.solvers.base import Interrupt
from ..solve.verdict import judge, sourced_bound
from ..solve.verify import check
from .bounds import Work, best, lower_bounds
from .bounds.proof import PoolTest, prove_start, skipped_solve
from .context import RunContext
from .finish import conclude_relaxed
from .finish.deadweights import drop_dead_weights
from .large.compress import full_verdict, size_advice
from .large.largedata import enter as large_path
from .mip.chain import Step, run_chain
from .mip.runfiles import RunFiles as _RunFiles
from .mip.runfiles import changed_files as _changed_files
from .mip.runfiles import csv_backing
from .mip.stalling import stall_checks
from .request import TrainRequest, check_solver_cmd, check_train_args  # noqa: F401 - re-exported
from .results import TrainResult, accuracy, finite_or_none, result_of, trace_recorder
from .search.incumbent import kept_incumbent, kept_why, search_incumbent
from .search.start import MIN_START_BUDGET
from .warmstart.margin import resolve
from .warmstart.pool.candidates import SEED_NAME, seed_point
from .warmstart.pool.point import hidden_network

__all__ = ["TrainResult", "accuracy", "check_train_args", "csv_backing", "fit", "silent", "train"]

SEARCH_SHARE = 0.75  # of what is left before the finish, at most, for annc's own search before the full MIP
REFINE_ROUNDS = 8  # at most, of adaptive refinement after a relaxed solve (annc.training.finish.refine)


# -- solving ----------------------------------------------------------------------
def _no_solution(name: str, solver: str, res: SolveResult, opts: SolveOptions) -> NoSolutionError:
    if res.status == Status.INFEASIBLE:
        why = ("the MIP is infeasible: no weights within the spec's bounds satisfy its constraints "
               "on these data (widen 'weights'/'bias', lower 'eps', or check the data)")
    elif res.status == Status.UNBOUNDED:
        why = f"the MIP is unbounded ({res.status_text})"
    elif res.interrupted:
        why = "interrupted before the solver found any solution"
    elif opts.time_limit is not None:
        why = (f"no solution found in the {opts.time_limit:.3g} s of the time limit this MIP had "
               f"({res.status_text}); raise --time-limit, or try another solver")
    else:
        why = f"no solution found ({res.status_text})"
    return NoSolutionError(f"[{name}] {solver}: {why}: no network to export")


def _solve_step(name: str, spec: NetworkSpec, data: Dataset, *, workers: int | None = None,
                scheduler: str | None = None, **kw) -> Step:
    """One MIP (:func:`_solve_mip`), with the Dask cluster of its large-data path (if any) closed
    when the search is done or the step fails (:mod:`annc.training.large.largedata`)."""
    with ExitStack() as tasks:
        return _solve_mip(name, spec, data, tasks=tasks, workers=workers, scheduler=scheduler, **kw)


def _solve_mip(name: str, spec: NetworkSpec, data: Dataset, *, solver: str, opts: SolveOptions,
               out_dir: Path | None, merge: bool, log: Callable, files: _RunFiles,
               warm_start: bool = True, max_nonzeros: int | None = None, refine: bool = True,
               seed=None, keep: tuple[str, str] | None = None, tasks: ExitStack, workers: int | None = None,
               scheduler: str | None = None) -> Step:
    ctx = RunContext.create(solver, opts)  # every step below takes its time and solver settings from it
    ctx.report("build")
    # large data: the MIP on representatives, its clustering and annealed seeds on Dask when asked
    full, (data, compression, ctx) = data, large_path(tasks, name, data, merge=merge, ctx=ctx, workers=workers,
                                                      scheduler=scheduler, log=log)
    compressed = None if compression is None else (data, compression)
    if compressed is not None:
        log(f"[{name}] {compression.message()}")
    data, csv = csv_backing(data, out_dir, name)  # a greedy layer's inputs: <out>/<name>.csv
    # the recipe made concrete once, on the data prepared once
    spec, recipe, prepared = resolve(spec, data, merge=merge, max_nonzeros=max_nonzeros)
    c = build(spec, data, name=name, merge=merge, max_nonzeros=max_nonzeros, recipe=recipe, prepared=prepared)
    asked = opts  # the user's options: what messages quote
    opts = ctx.options  # the user's, with the run's interrupt; the solver's time limit is set before the solve
    for w in c.model.warnings:
        log(f"warning: {w}")
    for setting in c.recipe.settings:  # the loss, penalty and eps in force, and where each came from
        log(f"[{name}] {setting.sentence()}")
    advice = None if compressed is not None else size_advice(c.problem.num_rows, len(c.problem.classes))
    if advice:
        log(f"[{name}] {advice}")
    st = c.model.stats()
    log(f"[{name}] {st['columns']} columns ({st['binary']} binary), {st['rows']} rows, "
        f"{st['nonzeros']} non-zeros; solving with {solver}")
    step_files: list[Path] = []
    step_opts, times = opts, {}
    if out_dir is not None:
        step_files = write_artifacts(c, out_dir, name, data_csv=csv)
        files.add(step_files, artifacts_of=name)
        # file-based solvers reuse this MPS and leave their solution beside it, where `annc decode` finds the map
        step_opts = replace(opts, model_file=str(c.model_path), workdir=str(out_dir))
    times["build"] = ctx.elapsed()
    record, known = None, {}  # known: the bounds that need no incumbent, computed once (the pool's test, the proof)
    provable = compressed is None and not c.model.layout.relaxed and bool(c.problem.spec.hidden)
    kept = kept_incumbent(c, seed, keep[0], ctx=ctx, log=lambda line: log(f"[{name}] {line}")) if keep and seed is not None \
        else None
    if kept is not None:
        step_opts, record = replace(step_opts, start=kept.x), kept
        times["start pool"] = record.seconds
    elif warm_start and SOLVERS[solver].mip_start and step_opts.start is None:
        enough = PoolTest(c, known, ctx, opts.gap) if provable else None
        step_opts, record = _with_start(name, c, step_opts, ctx, log, seed, enough)
        times["start pool"], times["search"] = record.pool_seconds, record.seconds - record.pool_seconds
    tasks.close()  # the large-data path's cluster, if any: closed before the solver's limit is taken
    ctx = replace(ctx, executor=None)
    proof = pre = None  # annc's own bound may prove the search's network optimal: then no full MIP
    if step_opts.start is not None and provable:
        proving = ctx.stopwatch()
        pre, proof = prove_start(c, step_opts.start, ctx=ctx, rel_tol=opts.gap, known=known)
        times["bounds"] = proving.seconds()
        if proof is not None:
            log(f"[{name}] proven optimal before the full MIP: lower bound {proof.bound.line()}")
        elif pre is not None:
            log(f"[{name}] lower bound {pre.line()}")
    if ctx.limited:  # the solver's limit, taken now: what the build and the search left, less the finish's
        limit = ctx.until_finish()
        if refine and c.model.layout.relaxed:  # half is left to refine it
            limit = max(ctx.share(0.5).left(), MIN_START_BUDGET)
        step_opts = replace(step_opts, time_limit=limit)
    before = _changed_files(out_dir, f"{name}.")
    trace: list[list] = []
    step_opts = replace(step_opts, progress=trace_recorder(trace, step_opts.progress))
    ctx.report("solve", best=None if record is None else record.objective, time_limit=step_opts.time_limit)
    solving = ctx.stopwatch()
    skipped = None if proof is not None else kept_why(*keep) if kept is not None else \
        _no_time_for_the_full_mip(c, step_opts, record, ctx)
    if skipped:
        log(f"[{name}] {skipped}")
    try:
        if proof is not None:
            res = skipped_solve(solver, step_opts.start, proof)
        elif skipped:
            res = SolveResult(solver, Status.FEASIBLE, skipped, record.objective, None, record.x)
        else:  # the stall rule (annc.training.mip.stalling): it ends when it has nothing left to gain
            res = solve(c.model, solver, replace(step_opts, stall_checks=stall_checks(c.model, solver, opts.stall),
                                                 stop_at=None if pre is None else pre.value))
    finally:  # what the solver wrote (a solution file, a log), even if it failed
        times["full MIP"] = solving.seconds()
        solver_files = sorted(_changed_files(out_dir, f"{name}.", before))
        files.add(solver_files)
    step_files += [p for p in solver_files if p not in step_files]
    if res.x is not None and opts.interrupt is not None:
        opts.interrupt.has_solution = True  # from now on a Ctrl-C keeps what there is
    if res.x is None:
        err = _no_solution(name, solver, res, asked)
        err.interrupted = bool(res.interrupted)  # a Ctrl-C before any network: selection stops its search
        raise err
    ctx.report("finish")
    finishing = ctx.stopwatch()
    net = decode_network(c.varmap, res.x)
    ver = check(c, res.x, net, status=res.status.value, solver_objective=res.objective)
    source = "solver"
    bound, bound_source = sourced_bound(solver_status=res.status, solver_objective=res.objective,
                                        solver_bound=res.bound, floor=floor(c.problem))
    if pre is not None and (bound is None or pre.value > bound + 1e-9):  # valid whatever the network
        bound, bound_source = pre.value, f"{pre.source}: {pre.detail}"
    if ver.ok and pre is None and not c.model.layout.relaxed and c.problem.spec.hidden:  # else done before
        bounding = ctx.stopwatch()
        on = "on the representatives: " if compressed is not None else ""  # not a bound of the full problem
        # half of what is left: the rest is the finish's (decode, verify, score)
        bound, bound_source = _stronger_bound(c, res.x, bound, bound_source, ctx.share(0.5, of_finish=False),
                                              log=lambda line: log(f"[{name}] {on}{line}"))
        times["bounds"] = bounding.seconds()
    if ver.ok and c.model.layout.relaxed:  # the solver's point is a relaxation's: find a network
        net, ver, source, bound = conclude_relaxed(
            name, c, res, ver, net, bound, start=step_opts.start, ctx=ctx.before_finish(), log=log,
            rounds=REFINE_ROUNDS if refine else 0)
    found_loss = ver.network_loss  # the network found, before its dead weights are dropped
    if ver.ok and c.problem.spec.hidden:
        dropped = drop_dead_weights(c, net, ver, status=res.status.value, solver_objective=res.objective)
        if dropped is not None:
            net, ver, n = dropped
            net.meta["dead_weights_dropped"] = n
            log(f"[{name}] dropped {n} weight{'s' if n != 1 else ''} into hidden units that no output reads: "
                f"objective {found_loss:.6g} -> {ver.network_loss:.6g}")
    verdict = judge(ver.network_loss, bound, relaxed=c.model.layout.relaxed, source=source, rel_tol=opts.gap,
                    solver_objective=res.objective, verified=ver.ok,
                    bound_source=bound_source if not c.model.layout.relaxed else None)
    if record is not None and record.x is not None and ver.ok:
        from_solver = not skipped and proof is None and source == "solver" and found_loss < record.objective - 1e-6
        verdict.search = record.conclude(found_loss, from_solver=from_solver)
    if found_loss > ver.network_loss:
        verdict.dead_weights = (net.meta["dead_weights_dropped"], found_loss)
    if compressed is not None and ver.ok:  # the verdict is the full problem's, the MIP's kept beside it
        verdict = full_verdict(c, net, full, verdict, compression, rel_tol=opts.gap)
        log(f"[{name}] on all {compression.samples:,} samples: objective {verdict.objective:.6g} (the "
            f"{compression.representatives:,} representatives': {ver.network_loss:.6g})")
    trace.append([round(res.seconds, 3), finite_or_none(res.objective), finite_or_none(res.bound)])
    verdict.sub_mips = ctx.ledger.to_dict() if ctx.ledger.counts else None
    verdict.ended = _why_ended(res, proof, skipped)
    times["finish"] = finishing.seconds() - (times.get("bounds", 0.0) if pre is None else 0.0)
    times["step"] = ctx.elapsed()
    return Step(name, c, res, ver, net, step_files, accuracy(net, c.scaled_data), verdict, trace, times)


def _why_ended(res: SolveResult, proof, skipped: str | None) -> str:
    """Why this MIP's run ended, for the verdict (``ended``): proven before the full MIP, the full
    MIP not run, stalled (the stall rule, only where the driver applied it), or the solver's own
    word (proved optimal, a time or node limit, interrupted)."""
    if proof is not None:
        return "proven optimal before the full MIP: it was not run"
    if skipped:
        return skipped
    if res.extra.get("stalled"):
        return str(res.extra["stalled"])
    return "interrupted" if res.interrupted else res.status_text


SETUP_NONZEROS_PER_SECOND = 1e5  # a solver's setup before it checks its clock: measured with HiGHS 1.16 on
# moons10k's model (889k non-zeros), 2 to 20 s before its first callback on this 2-core machine
SETUP_MIN_NONZEROS = 5e5  # below this the setup is short (breast_cancer's 199k: well under a second): always run


def _no_time_for_the_full_mip(c: Compiled, opts: SolveOptions, record, ctx: RunContext) -> str | None:
    """Why the full MIP is not run (None: it is): annc's search has a network, and what is left
    for the solver is shorter than its setup on this model (:data:`SETUP_NONZEROS_PER_SECOND`, on a model of
    :data:`SETUP_MIN_NONZEROS` non-zeros or more),
    during which HiGHS does not look at its clock; it would end the run late without a chance to
    improve the network.  A cap, like every use of the clock: the network is then the search's."""
    if record is None or record.x is None or not ctx.limited or opts.time_limit is None:
        return None
    nonzeros = int(c.model.A.nnz)
    if nonzeros < SETUP_MIN_NONZEROS:
        return None
    setup = nonzeros / SETUP_NONZEROS_PER_SECOND
    if opts.time_limit >= setup:
        return None
    return (f"the full MIP is not run: the {opts.time_limit:.1f} s left are less than the solver's setup on "
            f"this model (about {setup:.0f} s for {nonzeros:,} non-zeros, during which it does not stop)")


BOUND_WORK = Work(subsets=4, rows=8, node_limit=200)  # the subset bounds' sub-MIPs


def _stronger_bound(c: Compiled, x: np.ndarray, bound, source, ctx: RunContext, log: Callable):
    """The best of ``bound`` (from ``source``) and annc's own valid lower bounds
    (:func:`annc.training.bounds.lower_bounds`: the conflict, support, weight-level and subset
    bounds, with the solver's network picking the rows), with its source; the sub-MIPs run under
    :data:`BOUND_WORK` and the weight levels' defaults (work limits) on the run's solver, capped by
    ``ctx``'s deadline.  Runs when no bound was computed before the full MIP
    (:func:`annc.training.bounds.proof.prove_start`, on annc's search's network)."""
    W, b = hidden_network(c.model, x)
    found = best(lower_bounds(c.problem, incumbent=(W, b), solver_bound=None, work=BOUND_WORK, ctx=ctx,
                              target=c.model.objective(x)))
    if found is not None and (bound is None or found.value > bound + 1e-9):
        log(f"lower bound {found.value:.6g} ({found.source}: {found.detail})")
        return found.value, f"{found.source}: {found.detail}"
    return bound, source


def _with_start(name: str, c: Compiled, opts: SolveOptions, ctx: RunContext, log: Callable, seed=None, enough=None):
    """``opts`` with annc's incumbent as the MIP start (:func:`~annc.training.search.incumbent.search_incumbent`:
    the start pool, local search and exact neighbourhood search, within
    :data:`SEARCH_SHARE` of what is left before the finish: its decisions are work limits, the
    share only stops it), and the search's record; the solver then has what the search left,
    less the finish's reserve (:meth:`~annc.training.context.RunContext.until_finish`).  ``seed``:
    model selection's network of the chosen setting, a candidate of the pool before the
    neighbourhood search.  ``enough``: the :class:`~annc.training.bounds.proof.PoolTest` that ends the search."""
    search = ctx.share(SEARCH_SHARE)
    y = None if seed is None else seed_point(c, seed, search)
    record = search_incumbent(c.model, c.problem, ctx=search, log=lambda line: log(f"[{name}] {line}"),
                              given=() if y is None else ((SEED_NAME, y),), enough=enough)
    log(f"[{name}] {record.message}")
    return (opts if record.x is None else replace(opts, start=record.x)), record


def _train_mips(spec: NetworkSpec, data: Dataset, stem: str, greedy: bool, intr: Interrupt, kw: dict,
                log: Callable) -> tuple[list[Step], TrainedNetwork, str | None]:
    """Solve the MIP of full training, or those of greedy training (:func:`~annc.training.mip.chain.run_chain`,
    each MIP by :func:`_solve_step`): ``(steps, network, why the network is truncated or None)``."""
    with intr.armed():
        return run_chain(spec, data, stem, greedy=greedy, interrupt=intr, log=log,
                         solve=lambda name, sub, d: _solve_step(name, sub, d, **kw))


def train(spec: NetworkSpec, data: Dataset, *, test: Dataset | None = None, solver: str = DEFAULT,
          opts: SolveOptions | None = None, out_dir: str | Path | None = "out", stem: str | None = None,
          merge: bool = True, greedy: bool | None = None, log: Callable = silent,
          warm_start: bool = True, max_nonzeros: int | None = None, refine: bool = True) -> TrainResult:
    """Train ``spec`` on ``data`` by full or greedy training; see the module docstring.

    Checks everything first (:meth:`annc.training.request.TrainRequest.checked`), then :func:`fit`.
    Selection, ovo and batches are modes of :func:`annc.training.dispatch.run` (``annc.train``).
    """
    request = TrainRequest(spec, data, test, solver=solver, opts=opts, out_dir=out_dir, stem=stem, merge=merge,
                           greedy=greedy, log=log, warm_start=warm_start, max_nonzeros=max_nonzeros, refine=refine)
    return fit(request.checked())


def fit(request: TrainRequest, selection=None) -> TrainResult:
    """Full or greedy training of a checked request (:meth:`~annc.training.request.TrainRequest.checked`).

    ``selection`` (the :class:`~annc.training.modelselect.chosen.Chosen` that chose ``request.spec``, if
    any: its start network, kept or not) goes into ``.selection`` and the network's ``meta["selection"]`` (so every
    weights file).  Raises :class:`~annc.core.errors.NoSolutionError` when a MIP ends without a
    solution (infeasible, or stopped before an incumbent was found); the message names
    the model and map that are kept.
    """
    r, opts, log = request, request.opts, request.log
    out = Path(r.out_dir) if r.out_dir is not None else None
    greedy = r.spec.training == "greedy" if r.greedy is None else r.greedy
    greedy = bool(greedy and r.spec.hidden)
    files = _RunFiles()
    kw = dict(solver=r.solver, opts=opts, out_dir=out, merge=r.merge, log=log, warm_start=r.warm_start,
              refine=r.refine, files=files, max_nonzeros=r.max_nonzeros, workers=r.workers, scheduler=r.scheduler,
              seed=None if greedy or selection is None else selection.start_network,  # cross-validation's network
              keep=None if greedy or selection is None or not selection.keeps else (selection.label, selection.kept_reason))
    clock = RunContext.stopwatch()
    try:
        steps, net, truncated = _train_mips(r.spec, r.data, r.stem, greedy, opts.interrupt, kw, log)
        result = result_of(net, steps, r.data, r.test, solver=r.solver, greedy=greedy, truncated=truncated,
                           interrupted=opts.interrupt.requested)
        if selection is not None:
            result.selection = selection
            net.meta["selection"] = selection.to_dict()
        if out is not None and result.verified:
            result.files = files.paths + export_atomically(net.export, out / r.stem)
        elif out is not None:  # no weights for a network that fails verification
            failed = next(s.name for s in steps if not (s.verification and s.verification.ok))
            result.files = files.keep_only(failed)
            log(f"[{failed}] the solution fails verification: no weights written; kept the model and "
                "its map for another solver: " + ", ".join(map(str, result.files)))
        result.wall = clock.seconds()
    except NoSolutionError as e:
        kept = files.keep_only(files.latest)
        if not kept:
            raise
        err = NoSolutionError(f"{e}\nkept the model and its map for another solver: " + ", ".join(map(str, kept)))
        err.interrupted = getattr(e, "interrupted", False)
        raise err from None
    except BaseException:
        files.keep_only(None)
        raise
    return result
