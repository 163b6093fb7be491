""":func:`run`: one training request (:class:`~annc.training.request.TrainRequest`), whatever its mode.

The command line, ``annc.train`` and ``MIPNetClassifier.fit`` all end here.  The request
is checked once (:meth:`~annc.training.request.TrainRequest.checked`), then:

* ``full`` and ``greedy``: :func:`annc.training.trainer.fit` (with ``workers`` or ``scheduler``,
  each MIP above 10,000 distinct rows runs its clustering and annealed seeds as Dask tasks:
  :mod:`annc.training.largedata`);
* ``select`` None (the default) or True, on a spec and data where
  :func:`annc.training.cvselect.applies`: :func:`annc.training.cvselect.cross_validate` chooses the open
  settings by k-fold cross-validation within :data:`~annc.training.cvselect.SELECT_SHARE` of the time
  limit (a share of the run's :class:`~annc.training.context.RunContext`), and
  :func:`annc.training.trainer.fit` trains the chosen setting on all the rows in the time left;
* ``select`` True elsewhere, or a grid dict: :func:`annc.training.selection.select` chooses the spec among candidates, each
  trained by :func:`annc.training.trainer.train` on the fit part of the data (no files, no
  progress line; a Ctrl-C stops that candidate and the search, not the final training),
  in this process or as Dask tasks (``workers``, ``scheduler``); the chosen spec is then
  trained on all the data by :func:`annc.training.trainer.fit`, which records the selection;
* ``ovo`` and ``batches``: :func:`annc.training.decomposition.train_ovo` /
  :func:`~annc.training.decomposition.train_batches`, whose Dask tasks train each sub-MIP by
  :func:`annc.training.trainer.train`.

Selection and decomposition receive that ``train`` function from here: neither imports
:mod:`annc.training.trainer`.
"""
from __future__ import annotations

from dataclasses import replace

from ..solve.solvers.base import Interrupt
from .context import RunContext
from . import cvselect
from .cvselect import applies, cross_validate, select_share
from .decomposition import train_batches, train_ovo
from .request import TrainRequest
from .selection import select
from .trainer import fit, train

__all__ = ["run"]

SELECT_SHARE: float | None = None  # None: cvselect.select_share of the rows (a test may set a share)


def run(request: TrainRequest):
    """Check ``request`` and train it: a :class:`~annc.training.results.TrainResult`, or for ovo and
    batches a :class:`~annc.training.decomposition.DecomposedResult`."""
    r = request.checked()
    mode = r.mode
    if mode == "ovo":
        return train_ovo(r.spec, r.data, train=train, per_class=r.per_class, **_decomposed(r))
    if mode == "batches":
        return train_batches(r.spec, r.data, r.batches, train=train, **_decomposed(r))
    if mode in ("full", "select") and (r.select is True or (r.select is None and cvselect.by_default(r.data))) \
            and applies(r.spec, r.data, r.opts.time_limit):
        return _cross_validated(r)
    if mode != "select":
        return fit(r)
    whole = RunContext.create(r.solver, r.opts)
    chosen = _select(r, whole.share(_share(r), of_finish=False))
    return fit(replace(r, spec=chosen.spec, opts=replace(r.opts, time_limit=whole.cap())), selection=chosen)


def _share(r: TrainRequest) -> float:
    """The share of the time limit that selection (folds or candidates) may take."""
    return SELECT_SHARE if SELECT_SHARE is not None else select_share(len(r.data.y))


def _cross_validated(r: TrainRequest):
    """Cross-validation of the open settings, within :func:`~annc.training.cvselect.select_share` of
    the time limit (a share of the run's context), then the chosen setting trained on all the rows
    in what is left."""
    whole = RunContext.create(r.solver, r.opts)
    chosen = cross_validate(r.spec, r.data, time_limit=r.opts.time_limit,
                            ctx=whole.share(_share(r), of_finish=False), merge=r.merge, workers=r.workers,
                            scheduler=r.scheduler, log=r.log)
    final = replace(r.opts, time_limit=whole.cap())
    if chosen is None:
        return fit(replace(r, opts=final))
    r.log(f"[select] training the chosen setting ({chosen.label}) on all {len(r.data.y)} training rows")
    return fit(replace(r, spec=chosen.spec, opts=final), selection=chosen)


def _decomposed(r: TrainRequest) -> dict:
    return dict(test=r.test, solver=r.solver, opts=r.opts, workers=r.workers, scheduler=r.scheduler,
                out_dir=r.out_dir, stem=r.stem, log=r.log)


def _select(r: TrainRequest, ctx: RunContext):
    """The :class:`~annc.training.selection.Selection` of ``r``'s spec, its candidates sharing ``ctx``'s time."""
    options = dict(solver=r.solver, stem=r.stem, merge=r.merge, greedy=r.greedy, warm_start=r.warm_start,
                   max_nonzeros=r.max_nonzeros, refine=r.refine)
    if r.workers is not None or r.scheduler is not None:  # one task per candidate, capped as it starts
        how = dict(workers=r.workers, scheduler=r.scheduler,
                   options=dict(options, opts=replace(r.opts, progress=None, interrupt=None)))
    else:
        how = dict(train=lambda cand, fit_part, val, limit: train(
            cand, fit_part, test=val, out_dir=None, **options,  # no files, no progress lines;
            # a Ctrl-C stops this candidate and the search, not the final training
            opts=replace(r.opts, time_limit=limit, progress=None, interrupt=Interrupt(log=r.log))))
    chosen = select(r.spec, r.data, grid=None if r.select is True else r.select, fraction=r.select_fraction,
                    seed=r.select_seed, log=r.log, task=train, ctx=ctx, **how)
    r.log(f"[select] training the chosen candidate ({chosen.label}) on all {len(r.data.y)} training rows")
    return chosen
