"""Data beyond one MIP: one-vs-one ensembles and batch training, each sub-MIP a Dask task.

One MIP is rarely solved or bounded within minutes beyond a few hundred real rows (annc advises above
:data:`~annc.training.large.compress.ADVISE_ROWS` distinct rows).  Both schemes here cut the training set into
independent MIPs, run them on :class:`annc.training.large.executor.Executor` (a local cluster of worker
processes, or an existing Dask cluster), and put the networks back together:

**ovo** (``training ovo``, ``--ensemble ovo``; BeMi, Bernardelli et al. 2025): for every
pair of classes ``i < j``, the spec with two outputs is trained (full training) on the rows of ``i`` and ``j`` only, optionally at most ``per_class`` rows of
each (sampled with ``seed``).  The input scaling is fitted once on all the training rows
and the members train on scaled rows (``scale none``), so the ensemble applies it once.
The members vote (:class:`annc.core.ensemble.Ensemble`).  The ensemble's status is the weakest
member status: it is ``optimal`` only if every member was proven optimal *on its own
pair's rows*, which says nothing about optimality of the vote.  A pair whose MIP finds no
solution fails the whole run (:class:`~annc.core.errors.NoSolutionError` naming the pair): an
ensemble with a missing voter would silently favour the other classes.

**batches K** (``training batches K``; mip_nn, Thorbjarnarson and Yorke-Smith 2023): a
heuristic, reported as one.  A stratified 20% of the rows is held out for validation; the
rest is dealt into ``K`` stratified batches; each batch's MIP trains the whole network.
The ``K`` networks are combined by validation-accuracy-weighted averaging of every weight
and bias, ``W = sum_k a_k W_k / sum_k a_k``.  Averaging unrelated networks (hidden units
can come in any order, and step units are not smooth) may be worse than any one of them,
so the averaged network and each batch's network are re-checked on all the training rows
by annc's forward pass and the most accurate one is exported; ``meta["batches"]`` says
which.  Its status is ``feasible`` at best: no bound applies to it.

**Time.**  The time limit is the whole run's, as for every other mode: the sub-MIPs are fed
to the cluster as many at a time as it has worker threads (``S``), and each, when it is
submitted with ``n`` sub-MIPs still to start, gets ``until_finish / ceil(n / S)`` seconds less
a task's overhead (:meth:`~annc.training.context.RunContext.slot_cap`), so a sub-MIP that
ends early leaves its time to the ones after it.  Within that cap each sub-MIP's search
runs by its work limits, as any training does.  A limit that would give the first sub-MIPs
less than :data:`MEMBER_MIN` seconds is refused before any of them starts, with the limit
that would do.  Each sub-MIP's start pool also gets its problem's first separator network
(:func:`member_start`, one LP): a slot too short for the pool's annealed and SGD candidates
still starts from a separator.

Both return a :class:`DecomposedResult`, whose ``network`` (an ``Ensemble`` or a
``TrainedNetwork``) is what ``annc eval``, ``annc report``, ``annc export`` and ``predict``
take; its accuracies are computed by annc's forward pass on all the rows.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from ...core import errors
from ...core.deadline import FINISH_MIN, FINISH_SHARE
from ...core.ensemble import Ensemble
from ...core.errors import AnncError, NoSolutionError, UsageError
from ...core.log import silent
from ...core.network import Layer, TrainedNetwork
from ...core.scaling import fit_scaling
from ...io.data import Dataset, array_digest
from ...io.outputs import export_atomically, prepare_out_dir
from ...io.solutions import Status
from ...io.spec import NetworkSpec
from ...solve.compiler import prepare
from ...solve.solvers import SolveOptions
from ..context import TASK_OVERHEAD, RunContext, rounds
from ..large.executor import Executor, TaskFailed
from ..mip.chain import weakest
from ..modelselect.splits import split_rows
from ..request import check_batches, check_per_class
from ..warmstart.pool.linear import separator_networks

VALIDATION_FRACTION = 0.2  # batches: the part held out to weight the average
MEMBER_MIN = 1.0  # seconds: the least time limit a sub-MIP is started with
CLUSTER_START = 5.0  # seconds a local Dask cluster may take to start (counted in the limit that _enough suggests)


@dataclass
class MemberResult:
    """What a sub-MIP's worker sends back: the verified network and its verdict, no model."""

    name: str
    network: TrainedNetwork
    status: str
    describe: str
    objective: float | None
    lower_bound: float | None
    seconds: float
    verified: bool
    rows: int

    def meta(self) -> dict:
        return {"name": self.name, "status": self.status, "describe": self.describe,
                "objective": self.objective, "lower_bound": self.lower_bound,
                "seconds": round(self.seconds, 3), "verified": self.verified, "rows": self.rows}


@dataclass
class DecomposedResult:
    """The outcome of ovo or batch training (see the module docstring)."""

    kind: str  # "ovo" | "batches"
    network: object  # Ensemble (ovo) or TrainedNetwork (batches)
    members: list[MemberResult]
    train_accuracy: float
    test_accuracy: float | None
    seconds: float
    files: list[Path] = field(default_factory=list)

    @property
    def status(self) -> Status:
        """ovo: the weakest member's status; batches: at best feasible (a heuristic)."""
        worst = weakest(Status(m.status) for m in self.members)
        if self.kind == "batches" and worst == Status.OPTIMAL:
            return Status.FEASIBLE
        return worst

    @property
    def verified(self) -> bool:
        return all(m.verified for m in self.members)

    def predict(self, X) -> np.ndarray:
        return self.network.predict(X)

    def score(self, X, y) -> float:
        return float(np.mean(self.network.predict(X) == np.asarray(y, dtype=object)))


# -- one sub-MIP, on a worker -----------------------------------------------------------
@dataclass
class MemberFailure:
    """A sub-MIP that ended in one of annc's own errors (no solution within its time limit,
    a verification failure, ...): sent back as a value, so that Dask does not log it as a
    crashed task, and raised in the parent with every failed pair named."""

    name: str
    error: str  # the annc.core.errors class name
    message: str


def train_member(item) -> MemberResult | MemberFailure:
    """Train ``spec`` on ``data`` with the solve options ``opts`` (picklable: no callbacks); runs on a Dask
    worker: ``item = (name, spec, data, solver, opts, train)``, ``train`` the (picklable)
    training function, :func:`annc.training.trainer.train` as :func:`annc.training.dispatch.run` passes it."""
    name, spec, data, solver, opts, train = item
    try:
        r = train(spec, data, solver=solver, opts=opts, out_dir=None, greedy=False, stem=name,
                  start=member_start(spec, data))
    except AnncError as e:
        text = str(e).removeprefix(f"[{name}] ").removesuffix(": no network to export")
        return MemberFailure(name, type(e).__name__, text)
    s = r.steps[0]
    return MemberResult(name, r.network.core(), r.status.value, s.verdict.describe(), s.verdict.objective,
                        s.verdict.lower_bound, s.result.seconds, r.verified, len(data.y))


def member_start(spec: NetworkSpec, data: Dataset) -> tuple | None:
    """``(name, (weights, biases))``: a member MIP's first separator network (the sparse margin LP's
    hyperplanes in the spec's layers, :func:`~annc.training.warmstart.pool.linear.separator_networks`),
    a candidate of its start pool beside the
    pool's own: one LP, so that a member whose slot of the time limit is too short for the pool's
    annealed and SGD candidates still starts from a separator (at 2.6 s a pair of the 10-class
    decomposition bench got only SGD's network, no better than a constant).  None where the problem has
    no separator network (a spec without hidden layer; more classes than the layer places)."""
    problem = prepare(spec, data).problem
    found = next(separator_networks(problem), None)
    return None if found is None else (f"the member's separator: {found[0]}", (found[1], found[2]))


def _error_class(failure) -> type[AnncError]:
    """The annc error a failed sub-MIP is raised as: its own (a VerificationError stays one),
    NoSolutionError for a task that crashed or was lost."""
    cls = getattr(errors, failure.error, None) if isinstance(failure, MemberFailure) else None
    if isinstance(cls, type) and issubclass(cls, AnncError) and cls is not errors.SpecError:
        return cls
    return NoSolutionError


def _run(items: list, *, kind: str, ctx: RunContext, workers, scheduler, log: Callable) -> list[MemberResult]:
    """Every sub-MIP on the executor, each capped by its share of ``ctx``'s time (module
    docstring); if any failed, one error naming every failed one."""
    clock = RunContext.stopwatch()
    what = "pair" if kind == "ovo" else "batch"

    def done(i, res):
        said = (f"failed: {res.message}" if isinstance(res, (TaskFailed, MemberFailure))
                else f"{res.describe} on {res.rows} rows")
        log(f"[{items[i][0]}] {said} ({clock.seconds():.0f} s)")

    def first_cap(slots: int, starting: float = 0.0) -> float:
        """The first sub-MIPs' cap, with ``starting`` seconds still to go on starting the cluster."""
        cap = ctx.slot_cap(len(items), slots)
        each = cap - starting / rounds(len(items), slots)
        if each < MEMBER_MIN:
            raise UsageError(
                f"{kind}: a time limit of {ctx.deadline.limit:g} s leaves {len(items)} {what} MIPs on "
                f"{slots} worker(s) {max(each, 0):.2g} s each, under the {MEMBER_MIN:g} s a MIP needs; give "
                f"--time-limit {_enough(ctx, len(items), slots):g} or more, or more workers")
        return cap

    def prepare(i, item, waiting):
        name, spec, data, solver, opts, train = item
        if i == 0:  # once the workers are warm: refused, or said, with the first cap they get
            log(f"[{kind}] {len(items)} {what} MIPs, {ex.slots} at a time, within the run's "
                f"{ctx.deadline.limit:g} s: about {first_cap(ex.slots):.1f} s each")
        return name, spec, data, solver, replace(opts, time_limit=ctx.slot_cap(waiting, ex.slots)), train

    workers = min(workers, len(items)) if workers else None
    if ctx.limited and scheduler is None:  # a local cluster: refused before it starts, counting its start
        first_cap(Executor.local_slots(workers), CLUSTER_START)
    with Executor(workers=workers, scheduler=scheduler, log=log) as ex:
        results = ex.run(train_member, items, names=[it[0] for it in items], retries=0, on_result=done,
                         prepare=prepare if ctx.limited else None, warm=(items[0][5].__module__,),
                         timeout=ctx.task_wait())
    failed = [r for r in results if isinstance(r, (TaskFailed, MemberFailure))]
    if failed:
        raise _error_class(failed[0])(
            f"{kind}: {len(failed)} of {len(items)} {what} MIPs failed, so there is no "
            f"{'ensemble' if kind == 'ovo' else 'network'} to export:\n"
            + "\n".join(f"  {what} {f.name}: {f.message}" for f in failed))
    return results


def _enough(ctx: RunContext, tasks: int, slots: int) -> float:
    """A whole-second time limit that gives each of ``tasks`` sub-MIPs on ``slots`` at least
    :data:`MEMBER_MIN` seconds (what :meth:`~annc.training.context.RunContext.slot_cap` gives),
    counting the time this run has already taken and the finish's reserve."""
    return float(math.ceil((ctx.elapsed() + CLUSTER_START + rounds(tasks, slots) * (MEMBER_MIN + TASK_OVERHEAD) + FINISH_MIN)
                           / (1 - FINISH_SHARE)) + 1)


@dataclass(frozen=True)
class Decomposition:
    """How a decomposition's members are trained: ``train`` trains one on a worker
    (:func:`annc.training.trainer.train`, picklable), within the run's context ``ctx`` (its deadline,
    the solver's driver, the user's settings), on ``workers`` or ``scheduler``; the test data, the
    output folder, the name of the files (None: the mode's) and the log."""

    train: Callable
    ctx: RunContext = field(default_factory=RunContext.create)
    test: Dataset | None = None
    workers: int | None = None
    scheduler: str | None = None
    out_dir: str | None = None
    stem: str | None = None
    log: Callable = silent

    def members(self) -> SolveOptions:
        """Every member's settings: the user's (gap, threads, native options); what cannot travel to a
        worker (the progress sink, the Ctrl-C state, files) stays here, and each member's time limit is
        its share of the run's deadline, set as it is submitted."""
        return replace(self.ctx.options, progress=None, interrupt=None, start=None, workdir=None, model_file=None)


def _check(spec: NetworkSpec, data: Dataset, run: Decomposition) -> None:
    if not isinstance(spec, NetworkSpec) or not isinstance(data, Dataset):
        raise UsageError("ovo and batch training take a NetworkSpec and a Dataset")
    if not callable(run.train):
        raise UsageError("ovo and batch training take train: a picklable training function "
                         f"(annc.training.trainer.train), not {type(run.train).__name__}")


def _scaled(spec: NetworkSpec, data: Dataset):
    """The scaling fitted on all the training rows, and the data it scales."""
    scaling = fit_scaling(spec.scale, data.X, data.columns.onehot if data.columns is not None else None)
    X = np.ascontiguousarray(scaling.apply(data.X), dtype=float)
    return scaling, replace(data, X=X, sha256=array_digest(X, data.y))


def _rows(data: Dataset, rows: np.ndarray, y: np.ndarray, classes: list, name: str) -> Dataset:
    X = np.ascontiguousarray(data.X[rows], dtype=float)
    return Dataset(X, np.asarray(y, dtype=int), list(classes), list(data.features), data.label, name,
                   array_digest(X, np.asarray(y, dtype=int)), categories=dict(data.categories))


def _finish(kind, net, members, data, test, out_dir, stem, seconds) -> DecomposedResult:
    net.columns = data.columns  # the names of the training columns, which every weights file records
    acc = float(np.mean(net.predict_index(data.X) == data.y))
    tacc = None if test is None else float(np.mean(net.predict_index(test.X) == test.y))
    result = DecomposedResult(kind, net, members, acc, tacc, seconds)
    net.meta.update({"training": kind, "status": result.status.value, "train_accuracy": acc,
                     "members" if kind == "ovo" else "batch_runs": [m.meta() for m in members]})
    if out_dir is not None:
        out = prepare_out_dir(out_dir)
        result.files = export_atomically(net.export, out / stem)
    return result


# -- ovo ----------------------------------------------------------------------------------
def train_ovo(spec: NetworkSpec, data: Dataset, run: Decomposition, *, per_class: int | None = None,
              seed: int = 0) -> DecomposedResult:
    """One binary network per pair of classes, combined by vote (see the module docstring);
    ``run.train`` trains each pair's MIP on a worker (:func:`annc.training.trainer.train`)."""
    _check(spec, data, run)
    o, solver, stem, log = run.members(), run.ctx.solver, run.stem or "ovo", run.log
    check_per_class(per_class)
    C = len(data.classes)
    if C < 2:
        raise UsageError("ovo needs at least 2 classes in the data")
    clock = RunContext.stopwatch()
    scaling, scaled = _scaled(spec, data)
    member_spec = replace(spec, output=replace(spec.output, units=2), training="full", scale="none", batches=0)
    rng = np.random.default_rng(seed)
    items, pairs = [], []
    for i, j in itertools.combinations(range(C), 2):
        rows = []
        for c in (i, j):
            rc = np.flatnonzero(data.y == c)
            if per_class is not None and len(rc) > per_class:
                rc = np.sort(rng.choice(rc, per_class, replace=False))
            rows.append(rc)
        if not len(rows[0]) or not len(rows[1]):
            raise UsageError(f"ovo: class {data.classes[i] if not len(rows[0]) else data.classes[j]} has no "
                             "training row")
        idx = np.concatenate(rows)
        y = np.concatenate([np.zeros(len(rows[0]), int), np.ones(len(rows[1]), int)])
        name = f"{stem}_{data.classes[i]}_vs_{data.classes[j]}"
        items.append((name, member_spec, _rows(scaled, idx, y, [data.classes[i], data.classes[j]],
                                                f"<{name}>"), solver, o, run.train))
        pairs.append((i, j))
    log(f"[ovo] {len(items)} pair MIPs of {len(items[0][2].y)}-{max(len(it[2].y) for it in items)} rows each")
    members = _run(items, kind="ovo", ctx=run.ctx, workers=run.workers, scheduler=run.scheduler, log=log)
    ens = Ensemble(list(data.classes), [m.network for m in members], pairs,
                   {"spec": spec.source, "spec_text": spec.text, "solver": solver,
                    "per_class": per_class, "seed": seed},
                   None if scaling.identity else scaling)
    return _finish("ovo", ens, members, data, run.test, run.out_dir, stem, clock.seconds())


# -- batches ------------------------------------------------------------------------------
def train_batches(spec: NetworkSpec, data: Dataset, run: Decomposition, batches: int | None = None, *,
                  seed: int = 0) -> DecomposedResult:
    """One MIP per batch, weights averaged by validation accuracy (see the module docstring);
    ``run.train`` trains each batch's MIP on a worker (:func:`annc.training.trainer.train`)."""
    _check(spec, data, run)
    o, solver, stem, log = run.members(), run.ctx.solver, run.stem or "batches", run.log
    K = check_batches(spec.batches if batches is None else batches)
    clock = RunContext.stopwatch()
    scaling, scaled = _scaled(spec, data)
    fit, val = split_rows(data.y, data.classes, VALIDATION_FRACTION, seed, name=data.path)
    rng = np.random.default_rng(seed)
    deal = [[] for _ in range(K)]
    for c in range(len(data.classes)):  # stratified: each class's rows dealt round-robin
        rc = rng.permutation(fit[data.y[fit] == c])
        for n, r in enumerate(rc):
            deal[(n + c) % K].append(r)
    batch_spec = replace(spec, training="full", scale="none", batches=0)
    items = []
    for k, rows in enumerate(deal):
        rows = np.sort(np.asarray(rows, dtype=int))
        if not len(rows):
            raise UsageError(f"batch {k + 1} of {K} would have no row: fewer batches, please")
        items.append((f"{stem}_batch{k + 1}", batch_spec,
                      _rows(scaled, rows, data.y[rows], data.classes, f"<{stem} batch {k + 1}>"), solver, o,
                      run.train))
    log(f"[batches] {K} batch MIPs of about {len(deal[0])} rows; {len(val)} rows held out for the weights")
    members = _run(items, kind="batches", ctx=run.ctx, workers=run.workers, scheduler=run.scheduler, log=log)
    Xv, yv = scaled.X[val], data.y[val]
    accs = np.array([float(np.mean(m.network.predict_index(Xv) == yv)) for m in members])
    weights = accs / accs.sum() if accs.sum() > 0 else np.full(K, 1.0 / K)
    nets = [m.network for m in members]
    averaged = TrainedNetwork(list(data.classes), [
        Layer(L.activation, sum(w * n.layers[i].weight for w, n in zip(weights, nets)),
              sum(w * n.layers[i].bias for w, n in zip(weights, nets)))
        for i, L in enumerate(nets[0].layers)])
    candidates = [("average", averaged)] + [(m.name, m.network) for m in members]
    scored = [(float(np.mean(n.predict_index(scaled.X) == data.y)), -i, name, n)
              for i, (name, n) in enumerate(candidates)]
    best_acc, _, chosen, net = max(scored)
    log(f"[batches] the validation-weighted average has train accuracy {scored[0][0]:.4f}; "
        f"exporting {chosen} ({best_acc:.4f} on all {len(data.y)} rows)")
    net = net.with_scaling(scaling)
    net.meta.update({"spec": spec.source, "spec_text": spec.text, "solver": solver,
                     "batches": {"K": K, "validation_rows": int(len(val)), "validation_accuracy": accs.tolist(),
                                 "weights": weights.tolist(), "exported": chosen,
                                 "average_train_accuracy": scored[0][0]}})
    return _finish("batches", net, members, data, run.test, run.out_dir, stem, clock.seconds())
