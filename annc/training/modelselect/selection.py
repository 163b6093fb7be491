"""Model selection on held-out data: ``annc train --select`` and ``annc.train(..., select=True)``.

A spec fixes settings the MIP cannot choose for itself: the weight of the sparsity
penalty, the hinge margin, the widths of the hidden layers.  The MIP minimises the
*training* loss for the settings given, so comparing training objectives across
settings says nothing about how a network generalises (a wider net or a smaller
penalty never trains worse).  Selection therefore measures what matters: the
**accuracy on held-out data**, never seen by the MIP that trained the candidate.

How (like scikit-learn's ``GridSearchCV`` with one stratified split and ``refit``):

1. :func:`validation_split` splits the *training* data (never the test data) into a
   fit part and a validation part, stratified by class with a seeded permutation
   (``fraction`` of each class, 0.25 by default, goes to validation).
2. :func:`candidates` lists a small grid of specs around the one given.
3. :func:`select` trains every candidate on the fit part (through a ``train`` callable
   the caller provides) and scores its decoded, verified network on the validation
   part.  The highest validation accuracy wins; ties (equal within 1e-12) go to the
   network with **fewer non-zero weights** -- the paper's promise is parsimonious
   networks, so among equally accurate ones the sparser is kept -- and then to the
   earlier candidate (closer to the spec as written).
4. The caller then trains the chosen spec on **all** the training data: the final
   network is trained on all training data with the chosen settings (the refit), and
   :meth:`Selection.to_dict` goes into its ``meta["selection"]``.

**In parallel** (``workers`` / ``scheduler``, ``annc train --select --workers N``): the
candidates are independent, so each is one task on :class:`annc.training.large.executor.Executor` (a
local Dask cluster of ``workers`` processes, or the cluster at ``scheduler``):
:func:`train_candidate` trains it on a worker with the options given and sends back a :class:`Trial`, the few numbers the table needs.  The rows,
the rule and the tie-breaks are those of the sequential run, in candidate order whatever
the order the tasks finish in; so with the same solutions, the same candidate is chosen.
A Ctrl-C cancels the candidates still running and chooses among those that finished.

**Time.**  The candidates share the selection's :class:`~annc.training.context.RunContext`
(``ctx``: the caller gives it its share of the run's time limit): each candidate, when it
starts with ``n`` candidates still to start and ``S`` run at once (1 in this process), is
capped at ``until_finish / ceil(n / S)`` (:meth:`~annc.training.context.RunContext.slot_cap`),
so the selection ends within its share, and a candidate that ends early leaves its time to
the next.

The grids are :mod:`annc.training.modelselect.select_grid`; the stratified split is
:mod:`annc.training.modelselect.splits`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from ...core.errors import NoSolutionError, UsageError
from ...core.log import silent
from ...core.rowweights import fold_score
from ...io.data import Dataset
from ...io.spec import NetworkSpec, format_spec
from ..context import RunContext
from .chosen import Chosen
from .select_grid import (DEFAULT_GRID, GRID_KEYS, MARGIN_LOSSES, MAX_CANDIDATES,  # noqa: F401 - re-exported
                          MAX_DEFAULT_CANDIDATES, candidates)
from .splits import DEFAULT_FRACTION, split_rows, validation_split  # noqa: F401 - re-exported

__all__ = ["DEFAULT_GRID", "GRID_KEYS", "MARGIN_LOSSES", "MAX_CANDIDATES", "MAX_DEFAULT_CANDIDATES",
           "Row", "Runner", "Selection", "Trial", "candidates", "select", "train_candidate", "validation_split"]

TIE = 1e-12  # validation accuracies this close are equal


# -- the selection ------------------------------------------------------------------
@dataclass
class Row:
    """One candidate's run: validation (held-out) and fit accuracy, non-zero weights,
    the training status and seconds; or ``error`` (the message) when it failed."""

    label: str
    spec: str  # format_spec of the candidate
    validation_accuracy: float | None = None
    fit_accuracy: float | None = None
    nonzero_weights: int | None = None
    status: str | None = None
    seconds: float | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict:
        return {"label": self.label, "spec": self.spec, "validation_accuracy": self.validation_accuracy,
                "fit_accuracy": self.fit_accuracy, "nonzero_weights": self.nonzero_weights,
                "status": self.status, "seconds": None if self.seconds is None else round(self.seconds, 3),
                "error": self.error}


@dataclass
class Selection(Chosen):
    """What :func:`select` measured and chose: one :class:`Row` per candidate, the index
    :attr:`chosen` and its spec :attr:`spec` (to train on all the training data)."""

    rows: list[Row]
    chosen: int
    spec: NetworkSpec
    fraction: float
    seed: int
    fit_rows: int
    validation_rows: int
    specs: list[NetworkSpec] = field(default_factory=list, repr=False)  # the candidates, as the rows

    @property
    def label(self) -> str:
        return self.rows[self.chosen].label

    def heading(self) -> str:
        n = self.fit_rows + self.validation_rows
        return (f"model selection: fit on {self.fit_rows} of {n} training rows ({self.fit_rows / n:.0%}), "
                f"validate on {self.validation_rows} ({self.validation_rows / n:.0%}), stratified by class, "
                f"seed {self.seed}; best validation accuracy, ties to fewer non-zero weights")

    def table_lines(self) -> list[str]:
        """The heading and an aligned table, one line per candidate, the chosen one marked ``*``."""
        head = ["", "candidate", "val acc", "fit acc", "non-zeros", "status", "seconds"]
        cells = []
        for i, r in enumerate(self.rows):
            mark = "*" if i == self.chosen else ""
            if r.ok:
                cells.append([mark, r.label, f"{r.validation_accuracy:.4f}", f"{r.fit_accuracy:.4f}",
                              str(r.nonzero_weights), r.status or "",
                              "" if r.seconds is None else f"{r.seconds:.2f}"])
            else:
                cells.append([mark, r.label, "-", "-", "-", "failed: " + r.error.splitlines()[0], ""])
        width = [max(len(row[k]) for row in [head] + cells) for k in range(len(head))]
        right = {2, 3, 4, 6}

        def line(row):
            out = [c.rjust(w) if k in right else c.ljust(w) for k, (c, w) in enumerate(zip(row, width))]
            return "  ".join(out).rstrip()
        return [self.heading(), line(head)] + [line(r) for r in cells]

    def to_dict(self) -> dict:
        """JSON-able: the split, the rule, every candidate's row and the choice (for the
        exported network's ``meta["selection"]``)."""
        return {"measure": "validation accuracy (held-out part of the training data)",
                "ties": "fewer non-zero weights, then the earlier candidate",
                "fraction": self.fraction, "seed": self.seed, "fit_rows": self.fit_rows,
                "validation_rows": self.validation_rows, "chosen": self.chosen, "chosen_label": self.label,
                "refit": "the chosen spec is trained again on all the training data",
                "candidates": [r.to_dict() for r in self.rows]}


def _status_text(status) -> str:
    return str(getattr(status, "value", status))


def _better(a: Row, b: Row) -> bool:
    """Whether row ``a`` beats row ``b`` (``a`` comes later): strictly higher validation
    accuracy, or equal within :data:`TIE` and strictly fewer non-zero weights."""
    if a.validation_accuracy > b.validation_accuracy + TIE:
        return True
    return abs(a.validation_accuracy - b.validation_accuracy) <= TIE and a.nonzero_weights < b.nonzero_weights


# -- one candidate as a task (parallel selection) ---------------------------------------
@dataclass
class Trial:
    """What a worker sends back for one candidate: what :func:`select` reads of a
    :class:`~annc.training.trainer.TrainResult` (``status`` as text, ``nonzero_weights`` counted
    on the worker), or ``error`` when its MIP found no solution."""

    status: str | None = None
    seconds: float = 0.0
    verified: bool = False
    interrupted: bool = False
    test_accuracy: float | None = None  # on the validation part
    train_accuracy: float | None = None  # on the fit part
    nonzero_weights: int | None = None
    error: str | None = None


def scored(r, fit: Dataset, val: Dataset):
    """The result ``r`` of a candidate with its accuracies as selection scores them: balanced
    accuracy on the fit and validation parts when the data carry class weights
    (:func:`annc.core.rowweights.fold_score`), else ``r`` as it is."""
    if fit.class_weight is None:
        return r
    score = lambda d: fold_score(d.y, r.network.predict_index(d.X), len(d.classes), True)  # noqa: E731
    return replace(r, test_accuracy=score(val), train_accuracy=score(fit))


def train_candidate(item) -> Trial:
    """Train one candidate on a worker: ``item = (spec, fit, val, options, task)``, run as
    ``task(spec, fit, test=val, out_dir=None, **options)`` (``task``: :func:`annc.training.trainer.train`,
    ``options`` its keyword arguments: ``solver``, ``opts``, ...); no files are written.  A
    MIP without a solution is a Trial with ``error``, not an exception (so the task is not
    retried)."""
    spec, fit, val, options, task = item
    try:
        r = scored(task(spec, fit, test=val, **{**options, "out_dir": None}), fit, val)
    except NoSolutionError as e:
        return Trial(error=str(e) or "no solution")
    return Trial(_status_text(r.status), float(r.seconds), bool(r.verified), bool(r.interrupted),
                 float(r.test_accuracy), float(r.train_accuracy), int(r.network.nonzero_weights()))


def _record(row: Row, result) -> bool:
    """Fill ``row`` from a candidate's training result (a TrainResult, a :class:`Trial`
    or a look-alike); whether that run was interrupted."""
    if isinstance(result, Trial) and result.error is not None:
        row.error = result.error
        return False
    row.status = _status_text(result.status)
    row.seconds = float(result.seconds)
    if getattr(result, "verified", True) is False:
        row.error = "the network fails verification"
    else:
        row.validation_accuracy = float(result.test_accuracy)
        row.fit_accuracy = float(result.train_accuracy)
        row.nonzero_weights = int(result.nonzero_weights if isinstance(result, Trial)
                                  else result.network.nonzero_weights())
    return bool(getattr(result, "interrupted", False))


def _log_row(log: Callable, k: int, n: int, row: Row) -> None:
    if row.ok:
        what = f"validation accuracy {row.validation_accuracy:.4f}, {row.nonzero_weights} non-zero weights"
    else:
        what = ("failed: " if row.status is None else "") + row.error.splitlines()[0]
    log(f"[select] {k}/{n} {row.label}: {what}" + (f" ({row.status})" if row.status else ""))


def _train_sequentially(cands, fit: Dataset, val: Dataset, train: Callable, rows: list[Row],
                        log: Callable, ctx) -> None:
    """Each candidate in turn in this process, with its share of ``ctx``'s time; none after
    one that was interrupted."""
    interrupted = False
    for i, (_label, cand) in enumerate(cands):
        if interrupted:
            rows[i].error = "not trained: an earlier run was interrupted"
            continue
        try:
            result = scored(train(cand, fit, val, ctx.slot_cap(len(cands) - i, 1)), fit, val)
        except NoSolutionError as e:
            rows[i].error = str(e) or "no solution"
            interrupted = bool(getattr(e, "interrupted", False))  # a Ctrl-C before this run had a network
        else:
            interrupted = _record(rows[i], result)
        _log_row(log, i + 1, len(cands), rows[i])


@dataclass(frozen=True)
class Runner:
    """How :func:`select` trains its candidates: ``train(candidate_spec, fit, val, time_limit)`` in this
    process, or, with ``workers`` (a local Dask cluster of that many processes) or ``scheduler`` (a
    cluster's address), ``task(candidate_spec, fit, test=val, out_dir=None, **options)`` as a task
    each (``task`` picklable, :func:`annc.training.trainer.train`; ``options`` its keyword arguments)."""

    train: Callable | None = None
    task: Callable | None = None
    options: dict | None = None
    workers: int | None = None
    scheduler: str | None = None

    @property
    def parallel(self) -> bool:
        return self.workers is not None or self.scheduler is not None

    def checked(self) -> "Runner":
        """This runner with its workers and scheduler checked; a :class:`~annc.core.errors.UsageError`
        for what it lacks (options and task in parallel, train in this process)."""
        from ..large.executor import check_scheduler, check_workers
        r = replace(self, workers=check_workers(self.workers), scheduler=check_scheduler(self.scheduler))
        if r.parallel and not isinstance(r.options, dict):
            raise UsageError("parallel selection (workers or scheduler) takes options: a dict of the keyword "
                             "arguments of annc.training.trainer.train for every candidate")
        if r.parallel and not callable(r.task):
            raise UsageError("parallel selection (workers or scheduler) takes task: a picklable training function "
                             f"(annc.training.trainer.train), not {type(r.task).__name__}")
        if not r.parallel and not callable(r.train):
            raise UsageError(f"train must be a callable, not {type(r.train).__name__}")
        return r


def _train_in_parallel(cands, fit: Dataset, val: Dataset, runner: Runner, rows: list[Row], log: Callable,
                       ctx) -> None:
    """Every candidate as a task on the executor, with its share of ``ctx``'s time; rows
    filled as the tasks finish."""
    from ..large.executor import Executor, TaskFailed
    finished = [False] * len(cands)
    options, task, workers = runner.options, runner.task, runner.workers

    def done(i, result):
        if isinstance(result, TaskFailed):
            rows[i].error = result.message
        else:
            _record(rows[i], result)
        finished[i] = True
        _log_row(log, sum(finished), len(cands), rows[i])

    items = [(cand, fit, val, options, task) for _, cand in cands]
    try:
        with Executor(workers=min(workers, len(items)) if workers else None, scheduler=runner.scheduler,
                      log=log) as ex:
            def prepare(i, item, waiting):
                cand, fit_part, val_part, opts_of, fn = item
                limit = ctx.slot_cap(waiting, ex.slots)
                return cand, fit_part, val_part, {**opts_of, "opts": replace(opts_of["opts"], time_limit=limit)}, fn
            ex.run(train_candidate, items, names=[label for label, _ in cands], retries=0, on_result=done,
                   prepare=prepare if ctx.limited and "opts" in options else None, warm=(task.__module__,),
                   timeout=ctx.task_wait())
    except KeyboardInterrupt:
        if not any(finished[i] and rows[i].ok for i in range(len(rows))):
            raise
        log("[select] interrupted: choosing among the candidates that finished")
        for i, row in enumerate(rows):
            if not finished[i]:
                row.error = "not trained: the selection was interrupted"


def select(spec: NetworkSpec, data: Dataset, runner: Runner, *, grid: dict | None = None,
           fraction: float = DEFAULT_FRACTION, seed: int = 0, log: Callable = silent,
           ctx: RunContext | None = None) -> Selection:
    """Choose among :func:`candidates` by accuracy on a held-out part of ``data``.

    ``data`` is the *training* data; :func:`validation_split` makes ``(fit, val)`` of it.
    Each candidate is trained by the :class:`Runner`: in this process by ``runner.train(candidate_spec,
    fit, val, time_limit)`` (it sets the solver and the output folder; ``time_limit`` is the
    candidate's share of ``ctx``, None without a limit), returning a
    :class:`~annc.training.trainer.TrainResult` or an object with ``.network``, ``.status``,
    ``.test_accuracy`` (here the validation accuracy), ``.train_accuracy`` (the fit accuracy) and
    ``.seconds``; in parallel as tasks :func:`train_candidate`.  A candidate whose training raises
    :class:`~annc.core.errors.NoSolutionError`, whose network fails verification (``.verified``
    False), or whose task fails, is recorded as failed and skipped.  After a run that was
    interrupted (``.interrupted``, Ctrl-C) no further candidate is trained.  This module never
    imports :mod:`annc.training.trainer`.

    The highest validation accuracy wins: it estimates how the network does on data the
    MIP never saw, which the training objective does not.  Ties (within 1e-12) go to
    fewer non-zero weights (``network.nonzero_weights()``) -- parsimony, the paper's
    promise -- then to the earlier candidate.  Raises NoSolutionError when every
    candidate failed.  The caller trains :attr:`Selection.spec` on all of ``data``.

    ``ctx`` (None: no time limit) is the selection's share of the run's time (module docstring).
    """
    if not isinstance(runner, Runner):
        raise UsageError(f"select takes a Runner (how the candidates are trained), not {type(runner).__name__}")
    runner = runner.checked()
    ctx = ctx if ctx is not None else RunContext()
    fit, val = validation_split(data, fraction, seed)
    cands = candidates(spec, grid)
    log(f"[select] {len(cands)} candidates; fitting on {len(fit.y)} rows, validating on {len(val.y)}"
        + (" (in parallel)" if runner.parallel else ""))
    rows = [Row(label, format_spec(cand)) for label, cand in cands]
    if runner.parallel:
        _train_in_parallel(cands, fit, val, runner, rows, log, ctx)
    else:
        _train_sequentially(cands, fit, val, runner.train, rows, log, ctx)
    best: int | None = None
    for i, row in enumerate(rows):  # candidate order: the tie-break to the earlier one
        if row.ok and (best is None or _better(row, rows[best])):
            best = i
    if best is None:
        raise NoSolutionError(f"model selection: none of the {len(cands)} candidates gave a verified network: "
                              + "; ".join(f"{r.label}: {r.error.splitlines()[0]}" for r in rows))
    log(f"[select] chose {rows[best].label}")
    return Selection(rows, best, cands[best][1], float(fraction), int(seed), len(fit.y), len(val.y),
                     specs=[c for _, c in cands])
