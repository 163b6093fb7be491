"""``annc train``: compile, solve, decode and verify in one go; greedy layer-wise training.

Full training solves one MIP for the whole network.  Greedy training (the paper's
Algorithms 1 and 2) solves one MIP per hidden layer: layer ``l`` plus a throw-away
output layer, trained on the forward pass of the decoded layers before it (standard
semantics, not the solver's rounded variables).  When the last hidden layer is ReLU
the output layer is then retrained by the exact output-layer-only MIP (Algorithm 2);
otherwise the output layer of the last MIP is kept (Algorithm 1).  Time limits apply
to each MIP.  The chain of MIPs is :mod:`annc.chain` (which ``annc experiment`` uses
too); this module gives it the per-MIP trainer :func:`_solve_step` (files, MIP start).

Ctrl-C (one shared :class:`~annc.solvers.base.Interrupt` for the whole run) stops the
running solver, which keeps its incumbent; that incumbent is decoded and verified as
usual.  In greedy training no further layer is trained after an interrupt: the
network is the layers trained so far plus the output layer of the last MIP that has a
solution (a complete, verified network, maybe shallower than the spec, or without
Algorithm 2's exact output layer; ``meta["truncated"]`` says so).  A Ctrl-C before any
solution exists aborts (``KeyboardInterrupt``) unless a solver is running; a solver
stopped before its first incumbent gives :class:`~annc.errors.NoSolutionError`.

**Files.**  A run checks everything before it writes anything
(:func:`check_train_args`: the solver and its options, the file name, the data and the
test data against the spec, the output folder).  It then writes, in the output folder,
each MIP's model and map (and the CSV of a greedy layer's inputs, or of data given as
arrays, which the map names) together (:func:`~annc.compiler.write_artifacts`), any
file a file-based solver leaves there (its solution file), and at the end the weights
(``<stem>.weights.json`` / ``.npz``, through temporary files).  What stays when a run
fails:

* no solution (exit 3, :class:`~annc.errors.NoSolutionError`): the model and map of the
  MIP that has none (with the CSV its map names), complete and valid for another
  solver; the message names them.  Nothing else: no weights, no solution files, and
  in greedy training none of the files of the layers trained before;
* a solution that fails verification (exit 4): no weights; the same rule keeps the
  model and map of the (first) MIP whose solution failed;
* any other error or an abort (a second Ctrl-C): nothing this run wrote.

The Python API behind ``annc.compile`` and ``annc.train`` is :mod:`annc.api`; it
checks its arguments with this module's :func:`check_train_args`, as the CLI does.

Nothing here prints: progress goes to the ``log`` callback (silent by default), which
the command line sets to ``print``.
"""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from .chain import Step, run_chain, weakest
from .compiler import Compiled, build, check_name, write_artifacts
from .data import Dataset, check_against_spec
from .decode import decode_network
from .errors import NoSolutionError, UsageError
from .network import TrainedNetwork
from .outputs import check_out_dir, export_atomically, remove_files
from .solutions import Status
from .solvers import DEFAULT, SOLVERS, SolveOptions, SolveResult, solve
from .solvers.base import Interrupt, Progress
from .spec import NetworkSpec
from .varmap import file_digest
from .formulations import floor
from .verdict import Verdict, judge, sourced_bound, verdict_record
from .verify import check
from .relaxed import conclude_relaxed
from .starts.budget import MIN_START_BUDGET, start_budget
from .starts.incumbent import search_incumbent
from .starts.point import hidden_network
from .bounds import Work, best, lower_bounds
from .starts.margin import choose_eps
from .log import silent

SEARCH_SHARE = 0.75  # of the time limit, at most, for annc's own search before the full MIP
REFINE_ROUNDS = 8  # at most, of adaptive refinement after a relaxed solve (annc.starts.refine)


@dataclass
class TrainResult:
    network: TrainedNetwork
    steps: list[Step]
    train_accuracy: float
    test_accuracy: float | None
    files: list[Path] = field(default_factory=list)
    greedy: bool = False
    interrupted: bool = False
    truncated: str | None = None  # why a greedy network is shallower than its spec
    selection: object | None = None  # with select: the annc.selection.Selection that chose the spec

    @property
    def status(self) -> Status:
        """The weakest verdict over the MIPs solved (optimal only if every one's network
        was proven optimal: :mod:`annc.verdict`)."""
        return weakest(s.verdict.status for s in self.steps)

    @property
    def verdict(self) -> Verdict | None:
        """The verdict on the exported network (full training; None for greedy training,
        whose network no single MIP describes)."""
        return None if self.greedy else self.steps[0].verdict

    @property
    def seconds(self) -> float:
        return sum(s.result.seconds for s in self.steps)

    @property
    def verified(self) -> bool:
        return all(s.verification is not None and s.verification.ok for s in self.steps)

    # the trained network's interface, for convenience
    def predict(self, X) -> np.ndarray:
        return self.network.predict(X)

    def predict_index(self, X) -> np.ndarray:
        return self.network.predict_index(X)

    def score(self, X, y) -> float:
        """Accuracy on ``(X, y)`` (``y`` as class labels)."""
        return float(np.mean(self.network.predict(X) == np.asarray(y, dtype=object)))


def accuracy(net: TrainedNetwork, data: Dataset) -> float:
    return float(np.mean(net.predict_index(data.X) == data.y))


# -- files ------------------------------------------------------------------------
def csv_backing(data: Dataset, out: Path | None, name: str) -> tuple[Dataset, bytes | None]:
    """``data`` backed by a CSV file, and the bytes still to write for it: as is (None)
    if it was read from one, else ``<out>/<name>.csv`` (so that the map points at data
    ``annc decode`` can verify), written with the model and its map."""
    if out is None or (Path(data.path).is_file() and file_digest(data.path) == data.sha256):
        return data, None
    from .datasets import csv_bytes
    raw = csv_bytes(data.X, np.asarray(data.classes, dtype=object)[data.y], data.features, data.label)
    return replace(data, path=str(out / f"{name}.csv"), sha256=hashlib.sha256(raw).hexdigest()), raw


class _RunFiles:
    """The files one training run writes in its output folder, and what stays of them
    when it fails (see the module docstring): the model and map (and the data CSV the
    map names) of the MIP that failed, and nothing else."""

    def __init__(self):
        self.paths: list[Path] = []
        self.artifacts: dict[str, list[Path]] = {}  # MIP name -> [data CSV,] model, map

    def add(self, paths, artifacts_of: str | None = None) -> None:
        paths = [Path(p) for p in paths]
        self.paths += [p for p in paths if p not in self.paths]
        if artifacts_of is not None:
            self.artifacts[artifacts_of] = paths

    def keep_only(self, name: str | None) -> list[Path]:
        """Remove every file of the run but the artifacts of MIP ``name``; return those."""
        keep = self.artifacts.get(name, []) if name is not None else []
        remove_files(p for p in self.paths if p not in keep)
        self.paths = list(keep)
        return list(keep)

    @property
    def latest(self) -> str | None:
        """The MIP whose model and map were written last."""
        return next(reversed(self.artifacts), None)


def _changed_files(folder: Path | None, prefix: str, before: dict | None = None) -> dict:
    """The files ``<folder>/<prefix>*`` with their (inode, size, mtime); with ``before``,
    only those that are new or changed since."""
    if folder is None:
        return {}
    now = {}
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return {}
    for e in entries:
        if e.name.startswith(prefix):
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            now[Path(e.path)] = (st.st_ino, st.st_size, st.st_mtime_ns)
    if before is None:
        return now
    return {p: v for p, v in now.items() if before.get(p) != v}


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
        why = (f"no solution found within the time limit of {opts.time_limit:g} s "
               f"({res.status_text}); raise --time-limit, or try another solver")
    else:
        why = f"no solution found ({res.status_text})"
    return NoSolutionError(f"[{name}] {solver}: {why}: no network to export")


def _solve_step(name: str, spec: NetworkSpec, data: Dataset, *, solver: str, opts: SolveOptions,
                out_dir: Path | None, merge: bool, log: Callable, files: _RunFiles,
                warm_start: bool = True, max_nonzeros: int | None = None, refine: bool = True) -> Step:
    data, csv = csv_backing(data, out_dir, name)  # a greedy layer's inputs: <out>/<name>.csv
    _phase(opts, "build")
    started = time.perf_counter()
    c = build(spec, data, name=name, merge=merge, max_nonzeros=max_nonzeros, eps_rule=choose_eps)
    if opts.time_limit is not None:  # the build (and the eps rule's SGD run) spends the time limit too
        opts = replace(opts, time_limit=max(opts.time_limit - (time.perf_counter() - started), 1.0))
    for w in c.model.warnings:
        log(f"warning: {w}")
    for setting in c.recipe.settings:  # the loss, penalty and eps in force, and where each came from
        log(f"[{name}] {setting.sentence()}")
    st = c.model.stats()
    log(f"[{name}] {st['columns']} columns ({st['binary']} binary), {st['rows']} rows, "
        f"{st['nonzeros']} non-zeros; solving with {solver}")
    step_files: list[Path] = []
    step_opts = opts
    if out_dir is not None:
        step_files = write_artifacts(c, out_dir, name, data_csv=csv)
        files.add(step_files, artifacts_of=name)
        # file-based solvers reuse the MPS just written and leave their solution file
        # beside it, where `annc decode` finds the matching map
        step_opts = replace(opts, model_file=str(c.model_path), workdir=str(out_dir))
    t0 = time.perf_counter()
    record = None
    if warm_start and SOLVERS[solver].mip_start and step_opts.start is None:
        step_opts, record = _with_start(name, c, step_opts, log)
    if refine and c.model.layout.relaxed and step_opts.time_limit is not None:  # half is left to refine it
        step_opts = replace(step_opts, time_limit=max(step_opts.time_limit / 2, MIN_START_BUDGET))
    before = _changed_files(out_dir, f"{name}.")
    trace: list[list] = []
    step_opts = replace(step_opts, progress=_recorder(trace, step_opts.progress))
    _phase(opts, "solve", None if record is None else record.objective, step_opts.time_limit)  # best: the start
    try:
        res = solve(c.model, solver, step_opts)
    finally:  # what the solver wrote (a solution file, a log), even if it failed
        solver_files = sorted(_changed_files(out_dir, f"{name}.", before))
        files.add(solver_files)
    step_files += [p for p in solver_files if p not in step_files]
    if res.x is not None and opts.interrupt is not None:
        opts.interrupt.has_solution = True  # from now on a Ctrl-C keeps what there is
    if res.x is None:
        raise _no_solution(name, solver, res, opts)
    _phase(opts, "finish")
    net = decode_network(c.varmap, res.x)
    ver = check(c, res.x, net, status=res.status.value, solver_objective=res.objective)
    source = "solver"
    bound, bound_source = sourced_bound(solver_status=res.status, solver_objective=res.objective,
                                        solver_bound=res.bound, floor=floor(c.problem))
    if ver.ok and not c.model.layout.relaxed and c.problem.spec.hidden:
        bound, bound_source = _stronger_bound(c, res.x, bound, bound_source, opts, t0, log=lambda line: log(
            f"[{name}] {line}"))
    if ver.ok and c.model.layout.relaxed:  # the solver's point is a relaxation's: find a network
        left = None if opts.time_limit is None else opts.time_limit - (time.perf_counter() - t0)
        net, ver, source, bound = conclude_relaxed(
            name, c, res, ver, net, bound, start=step_opts.start, solver=solver, opts=opts, time_left=left,
            budget=start_budget(opts.time_limit), log=log, rounds=REFINE_ROUNDS if refine else 0)
    verdict = judge(ver.network_loss, bound, relaxed=c.model.layout.relaxed, source=source, rel_tol=opts.gap,
                    solver_objective=res.objective, verified=ver.ok,
                    bound_source=bound_source if not c.model.layout.relaxed else None)
    if record is not None and record.x is not None and ver.ok:
        from_solver = source == "solver" and ver.network_loss < record.objective - 1e-6
        verdict.search = record.conclude(ver.network_loss, from_solver=from_solver)
    trace.append([round(res.seconds, 3), _finite_or_none(res.objective), _finite_or_none(res.bound)])
    return Step(name, c, res, ver, net, step_files, accuracy(net, c.scaled_data), verdict, trace)


BOUND_WORK = Work(subsets=4, rows=8, node_limit=200, time_cap=None)  # the subset bounds' sub-MIPs


def _stronger_bound(c: Compiled, x: np.ndarray, bound, source, opts: SolveOptions, t0: float, log: Callable):
    """The best of ``bound`` (from ``source``) and annc's own valid lower bounds
    (:func:`annc.bounds.lower_bounds`: the conflict, support and subset bounds, with the
    solver's network picking the subsets), with its source; the subset sub-MIPs run under
    :data:`BOUND_WORK` (work limits) and, as a cap only, what is left of the time limit."""
    left = None if opts.time_limit is None else max(opts.time_limit - (time.perf_counter() - t0), 1.0)
    W, b = hidden_network(c.model, x)
    found = best(lower_bounds(c.problem, incumbent=(W, b), solver_bound=None,
                              work=replace(BOUND_WORK, time_cap=left)))
    if found is not None and (bound is None or found.value > bound + 1e-9):
        log(f"lower bound {found.value:.6g} ({found.source}: {found.detail})")
        return found.value, f"{found.source}: {found.detail}"
    return bound, source


def _phase(opts: SolveOptions, phase: str, best: float | None = None, time_limit: float | None = None):
    """Tell ``opts.progress`` (the command line's progress line) that ``phase`` begins."""
    if opts.progress is not None:
        opts.progress(Progress(0.0, None, None, phase=phase, best=best, time_limit=time_limit))


TRACE_EVERY = 0.25  # seconds between trace points that only move the bound
TRACE_MAX = 5000  # points kept per MIP (the final one is always added)


def _finite_or_none(v) -> float | None:
    return float(v) if v is not None and np.isfinite(v) else None


def _recorder(trace: list, progress: Callable | None) -> Callable:
    """A progress callback that appends ``[seconds, incumbent, bound]`` (None where the
    solver has none, or it is not finite) to ``trace``, then calls ``progress`` if any:
    the incumbent and bound over time that ``meta["steps"][k]["trace"]`` records."""
    def record(p) -> None:
        point = [round(p.elapsed, 3), _finite_or_none(p.incumbent), _finite_or_none(p.bound)]
        # every new incumbent; a moved bound alone at most every TRACE_EVERY seconds
        if not trace or point[1] != trace[-1][1] or point[0] - trace[-1][0] >= TRACE_EVERY:
            if len(trace) < TRACE_MAX:
                trace.append(point)
        if progress is not None:
            progress(p)
    return record


def _with_start(name: str, c: Compiled, opts: SolveOptions, log: Callable):
    """``opts`` with annc's incumbent as the MIP start (:func:`~annc.starts.incumbent.search_incumbent`:
    the start pool, local search and exact neighbourhood search, capped at
    :data:`SEARCH_SHARE` of the time limit: its decisions are work limits, the cap only
    stops it), and the search's record; the time it took comes off the time limit (which
    then still leaves the solver a quarter of it)."""
    limit = opts.time_limit
    cap = None if limit is None else SEARCH_SHARE * limit
    record = search_incumbent(c.model, c.problem, budget=cap, interrupt=opts.interrupt,
                              log=lambda line: log(f"[{name}] {line}"), progress=opts.progress)
    log(f"[{name}] {record.message}")
    if record.x is None:
        return opts, record
    left = None if limit is None else max(limit - record.seconds, limit / 4)
    return replace(opts, start=record.x, time_limit=left), record


def _train_mips(spec: NetworkSpec, data: Dataset, stem: str, greedy: bool, intr: Interrupt, kw: dict,
                log: Callable) -> tuple[list[Step], TrainedNetwork, str | None]:
    """Solve the MIP of full training, or those of greedy training (:func:`~annc.chain.run_chain`,
    each MIP by :func:`_solve_step`): ``(steps, network, why the network is truncated or None)``."""
    with intr.armed():
        return run_chain(spec, data, stem, greedy=greedy, interrupt=intr, log=log,
                         solve=lambda name, sub, d: _solve_step(name, sub, d, **kw))


def check_train_args(spec: NetworkSpec, data: Dataset, test: Dataset | None, *, solver: str,
                     opts: SolveOptions, stem: str, out_dir) -> SolveOptions:
    """Everything a training run checks before it writes anything (the CLI and the Python
    API both come here): the solver, the options (returned checked), the name of the
    files, the data and the test data against the spec, and the output folder."""
    if solver not in SOLVERS:
        raise UsageError(f"unknown solver {solver!r}: choose one of "
                         + ", ".join(s for s in SOLVERS if s != "cmd") + " (or a solver command)")
    if solver == "cmd":
        check_solver_cmd(opts.command)
    opts = opts.checked()
    check_name(stem)
    check_against_spec(spec, data)
    if test is not None:
        check_against_spec(spec, test)  # the test CSV's width (its classes are the data's)
    if out_dir is not None:
        check_out_dir(out_dir)
    return opts


def check_solver_cmd(template) -> str:
    """A ``--solver-cmd`` template: text with both ``{model}`` and ``{sol}``."""
    if not isinstance(template, str) or "{model}" not in template or "{sol}" not in template:
        raise UsageError("--solver-cmd (solver_cmd) needs both {model} and {sol} in its template, e.g. "
                         "'gurobi_cl ResultFile={sol} {model}'")
    return template


def train(spec: NetworkSpec, data: Dataset, *, test: Dataset | None = None, solver: str = DEFAULT,
          opts: SolveOptions | None = None, out_dir: str | Path | None = "out", stem: str | None = None,
          merge: bool = True, greedy: bool | None = None, log: Callable = silent,
          warm_start: bool = True, max_nonzeros: int | None = None, refine: bool = True,
          select: bool | dict = False, select_fraction: float = 0.25, select_seed: int = 0,
          workers: int | None = None, scheduler: str | None = None) -> TrainResult:
    """Train ``spec`` on ``data``; see the module docstring.

    With ``select`` (True for the default grid, or a grid dict) the spec is first chosen
    among candidates by accuracy on a held-out part of ``data`` (:mod:`annc.selection`:
    each candidate trained with these options, no files, on the fit part); the chosen
    spec is then trained on all of ``data`` as usual, ``.selection`` holds the table and
    the network's ``meta["selection"]`` (so every weights file) its record.  Each
    candidate gets the full time limit.  With ``workers`` (a local Dask cluster of that
    many processes) or ``scheduler`` (a Dask cluster's address) the candidates train in
    parallel, one task each (:func:`annc.selection.train_candidate`); without, one after
    the other in this process.

    Checks everything first (:func:`check_train_args`).  Raises
    :class:`~annc.errors.NoSolutionError` when a MIP ends without a solution
    (infeasible, or stopped before an incumbent was found); the message names the model
    and map that are kept.
    """
    if stem is None:
        stem = Path(spec.source).stem.strip("<>").replace(" ", "_") or "net"
    opts = check_train_args(spec, data, test, solver=solver, opts=opts or SolveOptions(), stem=stem,
                            out_dir=out_dir)  # a checked copy: the caller's stays as it was
    if opts.interrupt is None:
        opts.interrupt = Interrupt(log=log)  # the first Ctrl-C says what it does
    selection = None
    if (workers is not None or scheduler is not None) and (select is False or select is None):
        raise UsageError("workers and scheduler (--workers, --scheduler) apply to select (--select), "
                         "ovo ensembles and batch training")
    if select is not False and select is not None:
        from .executor import check_scheduler, check_workers
        from .selection import select as choose
        if select is not True and not isinstance(select, dict):
            raise UsageError(f"select must be True, False or a grid dict, not {select!r}")
        workers, scheduler = check_workers(workers), check_scheduler(scheduler)
        run = dict(solver=solver, stem=stem, merge=merge, greedy=greedy, warm_start=warm_start,
                   max_nonzeros=max_nonzeros, refine=refine)
        if workers is not None or scheduler is not None:  # one task per candidate, its own time limit
            how = dict(workers=workers, scheduler=scheduler,
                       options=dict(run, opts=replace(opts, progress=None, interrupt=None)))
        else:
            how = dict(train=lambda cand, fit, val: train(
                cand, fit, test=val, out_dir=None, **run,  # no files, no progress lines;
                # a Ctrl-C stops this candidate and the search, not the final training
                opts=replace(opts, progress=None, interrupt=Interrupt(log=log))))
        selection = choose(spec, data, grid=None if select is True else select, fraction=select_fraction,
                           seed=select_seed, log=log, **how)
        spec = selection.spec
        log(f"[select] training the chosen candidate ({selection.label}) on all {len(data.y)} training rows")
    out = Path(out_dir) if out_dir is not None else None
    greedy = spec.training == "greedy" if greedy is None else greedy
    greedy = bool(greedy and spec.hidden)
    files = _RunFiles()
    kw = dict(solver=solver, opts=opts, out_dir=out, merge=merge, log=log, warm_start=warm_start, refine=refine,
              files=files,
              max_nonzeros=max_nonzeros)
    try:
        steps, net, truncated = _train_mips(spec, data, stem, greedy, opts.interrupt, kw, log)
        result = _result(net, steps, data, test, solver=solver, greedy=greedy, truncated=truncated,
                         interrupted=opts.interrupt.requested)
        if selection is not None:
            result.selection = selection
            net.meta["selection"] = selection.to_dict()
        if out is not None and result.verified:
            result.files = files.paths + export_atomically(net.export, out / stem)
        elif out is not None:  # no weights for a network that fails verification
            failed = next(s.name for s in steps if not (s.verification and s.verification.ok))
            result.files = files.keep_only(failed)
            log(f"[{failed}] the solution fails verification: no weights written; kept the model and "
                "its map for another solver: " + ", ".join(map(str, result.files)))
    except NoSolutionError as e:
        kept = files.keep_only(files.latest)
        if not kept:
            raise
        raise NoSolutionError(f"{e}\nkept the model and its map for another solver: "
                              + ", ".join(map(str, kept))) from None
    except BaseException:
        files.keep_only(None)
        raise
    return result


def _result(net: TrainedNetwork, steps: list[Step], data: Dataset, test: Dataset | None, *, solver: str,
            greedy: bool, truncated: str | None, interrupted: bool) -> TrainResult:
    """The :class:`TrainResult` of a run; records the run in ``net.meta``."""
    net.columns = data.columns  # the names of the training columns, which every weights file records
    result = TrainResult(net, steps, accuracy(net, data), accuracy(net, test) if test is not None else None,
                         greedy=greedy, interrupted=interrupted, truncated=truncated)
    net.meta.update({"solver": solver, "status": result.status.value,
                     "steps": [_step_meta(s) for s in steps]})
    if not greedy and steps[0].verdict is not None and steps[0].verdict.search:
        net.meta["search"] = steps[0].verdict.search  # what annc's own search added (full training)
    if interrupted:
        net.meta["interrupted"] = True
    return result


def _step_meta(s: Step) -> dict:
    """What ``net.meta`` records of one MIP: the verdict on its network and the solver's own claim."""
    return {"name": s.name, **verdict_record(s.verdict),
            "solver": {"status": s.result.status.value, "describe": s.result.describe(),
                       "objective": s.result.objective, "bound": s.result.bound},
            "seconds": round(s.result.seconds, 3), "verified": bool(s.verification and s.verification.ok),
            "trace": s.trace}
