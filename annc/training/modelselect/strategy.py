"""The strategies of model selection: :class:`Off`, :class:`Auto`, :class:`CrossValidation`, :class:`Grid`.

A training request's ``select`` names one (:func:`strategy_for`): ``False`` (``--no-select``) is
:class:`Off`, the spec trained as written; ``None`` (the default) :class:`Auto`, k-fold
cross-validation where it applies (:func:`~annc.training.modelselect.cvselect.applies`) and the spec as
written elsewhere; ``True`` (``--select``) :class:`CrossValidation`, which falls back to the held-out
grid where cross-validation does not apply; a dict :class:`Grid`, the held-out candidates of that grid.
A strategy object may be given as ``select`` too (with its own
:class:`~annc.training.modelselect.policy.SelectionPolicy`).

Each strategy's :meth:`choose` takes the request, the run's context (its share of the time limit is
the policy's ``select_share`` of the limit the user gave) and the function that trains a candidate
(:func:`annc.training.trainer.train`, passed by :func:`annc.training.dispatch.run`: this package never
imports the trainer), and returns a :class:`~annc.training.modelselect.chosen.Chosen` or None (train
the spec as written).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from ...solve.solvers.base import Interrupt
from ..context import RunContext
from .chosen import Chosen
from .cvselect import applies, cross_validate
from .policy import DEFAULT_POLICY, SelectionPolicy
from .selection import Runner, select

__all__ = ["Auto", "CrossValidation", "Grid", "Off", "Strategy", "strategy_for"]


class Strategy:
    """A way to choose what a spec leaves open (module docstring)."""

    policy: SelectionPolicy = DEFAULT_POLICY

    def choose(self, r, whole: RunContext, train: Callable) -> Chosen | None:
        raise NotImplementedError

    def part(self, r, whole: RunContext) -> RunContext:
        """Selection's part of the run's context ``whole``: ``select_share`` of the limit the user gave
        (the same cap on any machine, whatever the start took), ending no later than ``whole``."""
        if not whole.limited:
            return whole
        return whole.within(self.policy.select_share * r.opts.time_limit)


@dataclass(frozen=True)
class Off(Strategy):
    """No selection: the spec as written."""

    def choose(self, r, whole: RunContext, train: Callable) -> None:
        return None


@dataclass(frozen=True)
class Grid(Strategy):
    """Held-out selection among the candidates of ``grid`` (None: the default grid;
    :mod:`annc.training.modelselect.selection`), each trained by ``train`` on the fit part."""

    grid: dict | None = None
    policy: SelectionPolicy = DEFAULT_POLICY

    def choose(self, r, whole: RunContext, train: Callable) -> Chosen:
        options = dict(solver=r.solver, stem=r.stem, merge=r.merge, greedy=r.greedy, warm_start=r.warm_start,
                       max_nonzeros=r.max_nonzeros, refine=r.refine)
        if r.workers is not None or r.scheduler is not None:  # one task per candidate, capped as it starts
            runner = Runner(task=train, workers=r.workers, scheduler=r.scheduler,
                            options=dict(options, opts=replace(r.opts, progress=None, interrupt=None)))
        else:
            runner = Runner(train=lambda cand, fit_part, val, limit: train(
                cand, fit_part, test=val, out_dir=None, **options,  # no files, no progress lines; a Ctrl-C
                # stops this candidate and the search, not the final training
                opts=replace(r.opts, time_limit=limit, progress=None, interrupt=Interrupt(log=r.log))))
        return select(r.spec, r.data, runner, grid=self.grid, fraction=r.select_fraction, seed=r.select_seed,
                      log=r.log, ctx=self.part(r, whole))


@dataclass(frozen=True)
class CrossValidation(Strategy):
    """k-fold cross-validation of the open settings (:mod:`annc.training.modelselect.cvselect`) where it
    applies; elsewhere ``fallback`` (None: the spec as written)."""

    policy: SelectionPolicy = DEFAULT_POLICY
    fallback: Strategy | None = None

    def choose(self, r, whole: RunContext, train: Callable) -> Chosen | None:
        if not applies(r.spec, r.data, r.opts.time_limit, self.policy):
            return None if self.fallback is None else self.fallback.choose(r, whole, train)
        parallel = None if r.workers is None and r.scheduler is None else dict(workers=r.workers,
                                                                             scheduler=r.scheduler)
        return cross_validate(r.spec, r.data, ctx=self.part(r, whole), merge=r.merge,
                              parallel=parallel, log=r.log, policy=self.policy, kept_ctx=whole)


@dataclass(frozen=True)
class Auto(Strategy):
    """The default: cross-validation where it applies and the policy's ``by_default`` holds; else the
    spec as written."""

    policy: SelectionPolicy = DEFAULT_POLICY

    def choose(self, r, whole: RunContext, train: Callable) -> Chosen | None:
        if not self.policy.by_default:
            return None
        return CrossValidation(self.policy).choose(r, whole, train)


def strategy_for(select) -> Strategy:
    """The strategy a request's ``select`` names (module docstring)."""
    if isinstance(select, Strategy):
        return select
    if select is False:
        return Off()
    if select is None:
        return Auto()
    if select is True:
        return CrossValidation(fallback=Grid())
    return Grid(select)
