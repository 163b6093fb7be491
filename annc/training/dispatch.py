""":func:`run`: one training request (:class:`~annc.training.request.TrainRequest`), whatever its mode.

The command line, ``annc.train`` and ``MIPNetClassifier.fit`` all end here.  The request
is checked once (:meth:`~annc.training.request.TrainRequest.checked`), then:

* ``full`` and ``greedy``: :func:`annc.training.trainer.fit` (with ``workers`` or ``scheduler``,
  each MIP above 10,000 distinct rows runs its clustering and annealed seeds as Dask tasks:
  :mod:`annc.training.large.largedata`);
* model selection first, by the strategy ``select`` names
  (:func:`annc.training.modelselect.strategy.strategy_for`: None cross-validates where
  :func:`annc.training.modelselect.cvselect.applies`, True falls back to the held-out grid elsewhere,
  a dict is that grid, False is none), within the policy's ``select_share`` of the time limit (a
  share of the run's :class:`~annc.training.context.RunContext`); the held-out candidates are each
  trained by :func:`annc.training.trainer.train` on the fit part (no files, no progress line; a Ctrl-C
  stops that candidate and the search, not the final training).  :func:`annc.training.trainer.fit`
  then trains the chosen spec on all the rows in the time left and records the selection;
* ``ovo`` and ``batches``: :func:`annc.training.decompose.decomposition.train_ovo` /
  :func:`~annc.training.decompose.decomposition.train_batches`, whose Dask tasks train each sub-MIP by
  :func:`annc.training.trainer.train`.

Selection and decomposition receive that ``train`` function from here: neither imports
:mod:`annc.training.trainer`.

**The time limit counts from the user's command** (``request.started``, set by
:func:`annc.app.cli.main` as it begins): the seconds before training (starting Python and annc,
loading scikit-learn, reading the data) count against the limit: :func:`run` builds the run's
:class:`~annc.training.context.RunContext` once, its deadline counting from that start (:func:`_started`
refuses a limit already spent), and every mode takes it; no mode below does its own time arithmetic.  So
``annc train --time-limit T`` ends within ``T`` plus the finish's overrun as its user times it (on a
2-core EPYC annc's imports alone took 6 s).  What the limit *sizes* (whether cross-validation runs,
its folds) is the limit the user gave, never what is left of it: the same command gives the same
plan on any machine.  ``annc.train`` and the estimator leave ``started`` unset: a Python process
loads annc once, and their limit counts from the call (after the imports).  Greedy training's limit
is each layer's MIP's, from that MIP's start, as before.
"""
from __future__ import annotations

from dataclasses import replace

from ..core.errors import UsageError
from .context import RunContext, seconds_since
from .decompose.decomposition import Decomposition, train_batches, train_ovo
from .modelselect.strategy import strategy_for
from .request import TrainRequest
from .trainer import fit, train

__all__ = ["run"]

SAY_SPENT = 1.0  # seconds before training from which the run says how much of its limit they took


def run(request: TrainRequest):
    """Check ``request`` and train it: a :class:`~annc.training.results.TrainResult`, or for ovo and
    batches a :class:`~annc.training.decompose.decomposition.DecomposedResult`.  The run's context
    (:class:`~annc.training.context.RunContext`: its deadline from the command's start, the solver's
    driver, the user's settings) is built here, once; full, greedy and selected training take it."""
    r = _started(request.checked())
    mode = r.mode
    whole = RunContext.create(r.driver, r.opts, started=r.started)
    if mode == "ovo":
        return train_ovo(r.spec, r.data, _decomposed(r, whole), per_class=r.per_class)
    if mode == "batches":
        return train_batches(r.spec, r.data, _decomposed(r, whole), r.batches)
    if mode in ("full", "select"):  # the request's strategy of model selection (select: None, True, False, a grid)
        chosen = strategy_for(r.select).choose(r, whole, train)
        if chosen is None:
            return fit(r, whole)
        r.log(f"[select] training the chosen setting ({chosen.label}) on all {len(r.data.y)} training rows")
        return fit(replace(r, spec=chosen.spec), whole, selection=chosen)
    return fit(r, whole)


def _started(r: TrainRequest) -> TrainRequest:
    """``r``, once its limit is known to outlast the seconds since ``r.started`` (module docstring):
    a line says how many went before training; :class:`~annc.core.errors.UsageError` if they took
    it all.  ``started`` cleared where the limit does not count from it (no limit; greedy, whose
    limit is each layer's)."""
    limit = r.opts.time_limit
    if r.started is None or limit is None or r.mode == "greedy":
        return replace(r, started=None)
    spent = seconds_since(r.started)
    if spent >= limit:
        raise UsageError(f"the time limit of {limit:g} s was spent before training began: starting annc and reading "
                         f"the data took {spent:.1f} s here; give a longer --time-limit")
    if spent >= SAY_SPENT:
        r.log(f"[time] {spent:.1f} s of the {limit:g} s limit went on starting annc and reading the data: "
              f"training has {limit - spent:.1f} s")
    return r


def _decomposed(r: TrainRequest, whole: RunContext) -> Decomposition:
    """How ``r``'s members are trained: by :func:`annc.training.trainer.train`, within ``whole``."""
    return Decomposition(train, whole, test=r.test, workers=r.workers, scheduler=r.scheduler, out_dir=r.out_dir,
                         stem=r.stem, log=r.log)
