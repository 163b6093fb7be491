"""The large-data path of one MIP, in this process or on a Dask cluster, and what the user is told.

Above :data:`~annc.training.large.compress.LARGE_ROWS` distinct training rows (merging on), a MIP
is built on weighted representatives (:mod:`annc.training.large.compress`) and its start pool
begins with the annealed sigmoids (:mod:`annc.training.large.anneal`).  Two parts of that path
are heavy and independent, so they are the tasks a cluster can take:

* the clustering, one task per class (:func:`~annc.training.large.compress.kmeans_task`);
* the annealed seeds of the start pool, one task per seed
  (:func:`~annc.training.large.anneal.seed_task`).

The rest is sequential by nature: each step of the local and neighbourhood searches starts
from the previous one's network, and the full MIP is one solver run.  (The folds of
cross-validation and the members of ovo and batch training are tasks already:
:mod:`annc.training.modelselect.cvselect`, :mod:`annc.training.decompose.decomposition`.)

**No new code in the user's hands.**  ``--workers N`` (a local cluster of ``N`` worker
processes) or ``--scheduler ADDRESS`` (an existing cluster), the flags of selection, ovo and
batches, reach every MIP of full and greedy training (:func:`annc.training.trainer.fit`).
:func:`enter` opens the :class:`~annc.training.large.executor.Executor` only when the MIP takes the
large-data path, hands it to the run context (:attr:`~annc.training.context.RunContext.executor`,
which every share of the context keeps), and the trainer closes it once the search has run,
before the full MIP gets its time limit, so starting and closing the cluster are paid from the
run's deadline.  On smaller data the flags change nothing, and the user is told so.

**The same network with and without workers.**  Every task receives its data and every work
limit (rows, ``k``, seeds, steps, batch) from this process, and its results are combined in
the order of the items, not of their arrival: only a binding time cap can change the result,
as it does in this process under load.

**Ctrl-C.**  A first Ctrl-C is a request that this process sees between steps; it does not reach
tasks already on the workers, which end at their work limits or their cap (seconds for a seed
or a class), and the search then stops as it does in one process.  A second Ctrl-C cancels
them (:meth:`~annc.training.large.executor.Executor.run`).

**What the user is told, at the start:** one line naming the path before anything heavy
runs (``large data: 70,000 distinct training rows (above 10,000): ... on a local Dask cluster
of 2 workers``), then the compression done (``70,000 distinct training rows -> 4,000 weighted
representatives (..., on 2 Dask workers)``); the verdict records both (``compression``).
"""
from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from typing import Callable

from ...io.data import Dataset
from ..context import RunContext
from . import compress
from .compress import Compression, LargeData, large_rows, representatives

__all__ = ["enter"]


def enter(stack: ExitStack, data: Dataset, *, merge: bool, ctx: RunContext, workers: int | None,
          scheduler: str | None, say: Callable, large: LargeData = LargeData()
          ) -> tuple[Dataset, Compression | None, RunContext]:
    """The data the MIP is built on, how it was compressed (None: it was not) and the run
    context of the large-data path (above ``large.rows`` distinct rows): with ``workers`` or
    ``scheduler`` on large data, an :class:`~annc.training.large.executor.Executor` is opened on
    ``stack`` (whose closing closes it) and set in the context.  ``say`` (a line of the MIP's log,
    behind its name) hears which path the MIP takes (module docstring)."""
    rows = large_rows(data, merge=merge, large=large.rows)
    parallel = workers is not None or scheduler is not None
    if rows is None:
        if parallel:
            why = ("merging is off, so the MIP has a row per sample" if not merge else
                   f"not above {large.rows:,}, the large-data path's threshold")
            say(f"--workers/--scheduler are not used: {_distinct(data):,} distinct training rows, {why}: "
                "this MIP is trained in this process")
        return data, None, ctx
    target = (f"on the Dask cluster at {scheduler}" if scheduler is not None else
              f"on a local Dask cluster of {workers} worker{'s' if workers != 1 else ''}" if parallel else
              "in this process (--workers N or --scheduler ADDRESS run them on Dask)")
    say(f"large data: {rows:,} distinct training rows (above {large.rows:,}): the MIP is built on "
        f"at most {large.representatives:,} weighted representatives; the clustering and the annealed seeds "
        f"run {target}")
    where = "in this process"
    if parallel:
        from .executor import Executor
        ex = stack.enter_context(Executor(workers=workers, scheduler=scheduler, log=say))
        where = f"on {ex.size} Dask worker{'s' if ex.size != 1 else ''}"
        ctx = replace(ctx, executor=ex)
    compressed, compression = representatives(data, merge=merge, k=large.representatives, large=large.rows,
                                              executor=ctx.executor, where=where)
    return compressed, compression, ctx


def _distinct(data: Dataset) -> int:
    return compress.distinct_rows(data.X) if len(data.X) else 0
