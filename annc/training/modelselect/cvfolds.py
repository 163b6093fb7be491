"""The folds of cross-validation and running them (:mod:`annc.training.modelselect.cvselect`).

:func:`folds` cuts the plan's stratified folds (scikit-learn's ``StratifiedKFold``, shuffled, the
plan's seed) from :func:`sample`, a stratified sample of at most the policy's ``max_cv_rows`` rows;
:func:`run_folds` scores every setting on every fold, and on the whole sample where the plan
scores a whole-set part (its networks seed the final training).  In this process the folds run
width by width (the classic models first, then all folds of width 1, then of width 2, ...), so that
a cap leaves the narrower settings scored on every fold; with ``workers`` or ``scheduler`` each fold
is a task (:class:`~annc.training.modelselect.settings.FoldTask`) on
:class:`annc.training.large.executor.Executor`, capped as it starts at its share of the folds' time
(:meth:`~annc.training.context.RunContext.slot_cap`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ...core.log import silent
from ...io.data import Dataset
from ...io.spec import NetworkSpec
from ..context import RunContext
from .cvpath import fold_path, fold_task
from .settings import FoldScore, FoldState, FoldTask, Plan, Stop
from .splits import _subset

__all__ = ["FoldRun", "folds", "run_folds", "sample"]


def folds(data: Dataset, plan: Plan) -> list[tuple[Dataset, Dataset]]:
    """The (fit, validation) Datasets of the plan's stratified folds."""
    from sklearn.model_selection import StratifiedKFold
    skf = StratifiedKFold(n_splits=plan.folds, shuffle=True, random_state=plan.seed)
    return [(_subset(data, tr, f"fold{f}"), _subset(data, va, f"fold{f} validation"))
            for f, (tr, va) in enumerate(skf.split(np.zeros(len(data.y)), data.y))]


def sample(data: Dataset, rows: int, seed: int = 0) -> Dataset:
    """At most ``rows`` rows of ``data``, stratified by class (seeded)."""
    if len(data.y) <= rows:
        return data
    from sklearn.model_selection import train_test_split
    keep, _ = train_test_split(np.arange(len(data.y)), train_size=rows, stratify=data.y, random_state=seed)
    return _subset(data, np.sort(keep), "cv sample")


@dataclass
class FoldRun:
    """What the folds scored: ``scores[i][f]``, setting ``i`` on fold ``f``; ``whole[i]`` on the whole
    sample (unscored, :attr:`Stop.SKIPPED`, where the plan scores no whole-set part) and the whole
    set's networks (Setting: ``((W, b), scaling)``)."""

    scores: list[list[FoldScore]]
    whole: list[FoldScore]
    networks: dict = field(default_factory=dict)

    @property
    def capped(self) -> bool:
        """Whether the clock (not a work limit) left some setting unscored somewhere."""
        return any(s.stop in (Stop.TIME_LIMIT, Stop.INTERRUPTED) for row in self.scores + [self.whole] for s in row)


def run_folds(spec: NetworkSpec, parts: list, plan: Plan, ctx: RunContext, *, whole_part: bool,
              parallel: dict | None = None, log=silent) -> FoldRun:
    """Every setting of ``plan`` on every part of ``parts`` (the folds, then the whole sample where
    ``whole_part``), capped by ``ctx``; ``parallel`` the executor's ``workers`` and ``scheduler``
    (None: in this process, width by width)."""
    if parallel is not None:
        done = _in_parallel(spec, parts, plan, ctx, parallel, log)
    else:
        done = _in_process(spec, parts, plan, ctx, log, whole_part)
    k = plan.folds
    per_fold = [d[0] for d in done[:k]]
    scores = [[per_fold[f][i] for f in range(k)] for i in range(len(plan.settings))]
    if whole_part:
        return FoldRun(scores, done[-1][0], done[-1][1])
    skipped = FoldScore.unscored(Stop.SKIPPED, "not scored: the two-way plan scores no whole-set part")
    return FoldRun(scores, [skipped] * len(plan.settings))


def _in_parallel(spec, parts, plan, ctx, how, log) -> list:
    """Each part a :class:`FoldTask` on the executor, capped as it starts at its share of ``ctx``."""
    from ..large.executor import Executor, TaskFailed
    k = plan.folds
    tasks = [FoldTask(spec, fit, val, plan, None, ctx.solver, keep=f == k) for f, (fit, val) in enumerate(parts)]

    def prepare(i, task, waiting):  # each part capped, as it starts, at its share of the folds' time
        return replace(task, until=ctx.slot_cap(waiting, ex.slots))
    workers = how.get("workers")
    with Executor(workers=min(workers, len(tasks)) if workers else None, scheduler=how.get("scheduler"),
                  log=log) as ex:
        names = [f"fold {f}" for f in range(k)] + (["all rows"] if len(parts) > k else [])
        results = ex.run(fold_task, tasks, names=names, retries=0, prepare=prepare if ctx.limited else None,
                         timeout=ctx.task_wait())
    failed = [FoldScore.unscored(Stop.FAILED, r.message) if isinstance(r, TaskFailed) else None for r in results]
    return [([failed[f]] * len(plan.settings), {}) if failed[f] is not None else r for f, r in enumerate(results)]


def _in_process(spec, parts, plan, ctx, log, whole_part: bool) -> list:
    """The parts in this process: the classic models first (cheap), each on every part before the
    next, then each group of the path on every part: a cap leaves the classic models and the narrower
    groups it reached scored on every fold."""
    found: list[dict] = [{} for _ in parts]
    states = [FoldState() for _ in parts]
    what = f"{plan.folds} folds" + (" and all rows" if whole_part else "")
    for s in plan.kept:  # one classic model on every part, then the next: a cap leaves the first ones complete
        for f, (fit, val) in enumerate(parts):
            found[f].update(fold_path(spec, fit, val, plan, ctx=ctx, groups=[], kept=(s,), state=states[f]))
    if plan.kept:
        log(f"[select] {what} of the logistic separators and trees done ({ctx.elapsed():.1f}s)")
    for group in plan.groups():
        for f, (fit, val) in enumerate(parts):
            found[f].update(fold_path(spec, fit, val, plan, ctx=ctx, groups=[group], state=states[f]))
        log(f"[select] {what} of {group[1][0].label(spec).split(', ', 1)[1]} done ({ctx.elapsed():.1f}s)")
    return [([d[s] for s in plan.settings], states[f].networks) for f, d in enumerate(found)]
