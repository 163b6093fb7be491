"""The run context: one object per MIP that every step of a training run draws from.

A training run is a chain of steps (the recipe's eps, the build, the start pool, the local
and neighbourhood searches, the user's solver, the bounds, the finish).  Each needs three
things it must not invent for itself: **time**, **the solver settings** and **the
interrupt**.  :class:`RunContext` holds them, created once per run by
:func:`annc.training.dispatch.run` (its deadline from the user's command's start), and derived from
that for each MIP (:meth:`RunContext.for_mip`, or :meth:`RunContext.renewed` for each greedy layer),
fold, member or batch:

* the deadline (:class:`~annc.core.deadline.Deadline`): ``T`` seconds from the run's start;
* the user's solver as its driver (resolved once, by the request) and :class:`~annc.solve.solvers.base.SolveOptions` (threads, gap, native
  options), the Ctrl-C :class:`~annc.solve.solvers.base.Interrupt` and the progress sink;
* the :class:`SubMipLedger`, shared by every share of the context: which solver ran how many
  of annc's own sub-MIPs, and why HiGHS stood in when the user's solver could not;
* where independent tasks run: :attr:`RunContext.executor`, None (in this process) or the
  open :class:`~annc.training.large.executor.Executor` of the large-data path (``--workers`` /
  ``--scheduler``, :mod:`annc.training.large.largedata`), which every share keeps.  A task takes its
  cap from :meth:`RunContext.task_cap` (what is left, from when the task starts) and the caller
  waits at most :meth:`RunContext.task_wait` for it, so the deadline holds on a cluster too.

**Time.**  No module of :mod:`annc.training` reads the clock or subtracts times: it asks the
context (a test greps for it).  With ``left = max(t0 + T - now, 0)`` and the finish's reserve
``r = max(5% T, 1 s)``:

* :meth:`RunContext.left` is ``left``; :meth:`RunContext.until_finish` is ``max(left - r, 0.1)``;
* :meth:`RunContext.share` ``(f)`` is a context whose deadline is ``f * until_finish`` from now
  (never past the parent's), for a step that may spend that fraction of what is left;
* :meth:`RunContext.stopped` is true once the deadline has passed or Ctrl-C was pressed.

Decisions are work limits (seeds, epochs, node limits, sub-MIPs solved): the deadline only
caps, so a run on a busy machine makes the same choices and stops sooner.  What cannot be
interrupted is sized by work to fit.

**Sub-MIPs on the user's solver.**  :meth:`RunContext.solve` runs one of annc's sub-MIPs (an
output layer, a neighbourhood, a bound's subset) on the user's solver, with the user's
threads and native options, when its driver serves sub-MIPs
(:attr:`~annc.solve.solvers.driver.Driver.sub_mips`: it solves in-process, takes a MIP start
and a node limit); otherwise on HiGHS, and the ledger says why (the verdict prints it).  Each
sub-MIP's time limit is what is left of the deadline.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable

from ..core.deadline import FLOOR, Deadline
from ..solve.solvers import DEFAULT, SolveOptions, SolveResult, get_driver
from ..solve.solvers.base import Interrupt, Progress
from ..solve.solvers.driver import Driver, SolveInputs

TASK_GRACE = 0.5  # seconds a caller waits beyond its deadline for a task its own cap has stopped
TASK_OVERHEAD = 0.5  # seconds a task spends outside its own cap (sent, unpickled, its result sent back)
FALLBACK = DEFAULT  # the bundled solver that runs a sub-MIP the user's solver cannot take


@dataclass
class SubMipLedger:
    """The sub-MIPs of one run: how many each solver ran, and why HiGHS stood in (None: it did not)."""

    counts: Counter = field(default_factory=Counter)
    fallback: str | None = None

    def to_dict(self) -> dict:
        return {"by_solver": dict(self.counts), "fallback": self.fallback}


class Stopwatch:
    """Seconds since it was made: :meth:`seconds`.  For the record (the verdict's wall-time
    parts), never for a decision."""

    def __init__(self):
        self._t0 = time.perf_counter()

    def seconds(self) -> float:
        return time.perf_counter() - self._t0


@dataclass(frozen=True)
class RunContext:
    """One MIP's deadline, solver settings, interrupt and sub-MIP ledger (module docstring)."""

    deadline: Deadline = field(default_factory=lambda: Deadline(None))
    driver: Driver = field(default_factory=lambda: get_driver(DEFAULT))  # the user's solver, resolved once
    options: SolveOptions = field(default_factory=SolveOptions)  # the user's settings; time in the deadline
    ledger: SubMipLedger = field(default_factory=SubMipLedger)
    executor: object | None = field(default=None, compare=False)  # an open Executor, or None: this process

    @classmethod
    def create(cls, solver: str | Driver = DEFAULT, options: SolveOptions | None = None,
               limit: float | None = None, started: float | None = None) -> "RunContext":
        """A context: ``limit`` seconds (default ``options.time_limit``, as the request checked it) from
        ``started`` (a ``time.perf_counter()`` reading: the user's command's start; default now), on
        ``solver`` (a driver, or its name)."""
        options = options or SolveOptions()
        if options.interrupt is None:
            options = replace(options, interrupt=Interrupt())
        start = time.perf_counter() if started is None else started
        driver = solver if isinstance(solver, Driver) else get_driver(solver)
        deadline = Deadline(options.time_limit if limit is None else limit, start=start)
        return cls(deadline, driver, replace(options, time_limit=None))  # the deadline is the one budget

    @property
    def solver(self) -> str:
        """The user's solver's name."""
        return self.driver.name

    def for_mip(self) -> "RunContext":
        """One MIP's context: what is left of this one's deadline, counted from now (its finish's
        reserve sized by that), and a sub-MIP ledger of its own."""
        return replace(self, deadline=Deadline(self.cap(), start=time.perf_counter()), ledger=SubMipLedger())

    def renewed(self) -> "RunContext":
        """A context with this one's whole limit again from now and a sub-MIP ledger of its own (each of
        greedy training's MIPs: its limit is each layer's)."""
        return replace(self, deadline=Deadline(self.deadline.limit, start=time.perf_counter()), ledger=SubMipLedger())

    def solver_part(self, fraction: float = 1.0, *, at_least: float = FLOOR) -> "RunContext":
        """The full MIP's budget: ``fraction`` of :meth:`until_finish` from now, at least ``at_least``
        seconds (unlimited: this context)."""
        if not self.limited:
            return self
        return replace(self, deadline=Deadline(max(fraction * self.until_finish(), at_least), start=time.perf_counter()))

    # -- time ---------------------------------------------------------------------------
    @property
    def limited(self) -> bool:
        return self.deadline.limit is not None

    def left(self) -> float | None:
        """Seconds left (never negative); None without a limit."""
        return self.deadline.left()

    def until_finish(self) -> float | None:
        """What is left less the finish's reserve, at least :data:`~annc.core.deadline.FLOOR`."""
        return self.deadline.until_finish()

    def cap(self) -> float | None:
        """What is left, at least :data:`~annc.core.deadline.FLOOR` (:meth:`~annc.core.deadline.Deadline.cap`)."""
        return self.deadline.cap()

    def share(self, fraction: float, *, of_finish: bool = True) -> "RunContext":
        """A context whose deadline is ``fraction`` of what is left from now (of
        :meth:`until_finish`, or of :meth:`left` with ``of_finish=False``); the same solver,
        interrupt and ledger."""
        if not self.limited:
            return self
        now = time.perf_counter()
        left = self._left_at(now)
        base = max(left - self.deadline.reserve(), FLOOR) if of_finish else left
        return replace(self, deadline=Deadline(min(fraction * base, left), start=now))

    def within(self, seconds: float | None) -> "RunContext":
        """A context that ends after ``seconds`` from now or at this one's deadline, whichever
        comes first (None: this one's)."""
        if seconds is None:
            return self
        now = time.perf_counter()
        left = self._left_at(now)
        return replace(self, deadline=Deadline(seconds if left is None else min(seconds, left), start=now))

    def task_cap(self) -> float | None:
        """A task's own time limit, counted from when it starts on a worker: what is left now
        (None: no limit).  A worker's clock is not this process's, so the cap is a duration."""
        return self.left()

    def slot_cap(self, waiting: int, slots: int) -> float | None:
        """The cap of a task that starts now when ``waiting`` tasks (itself included) are still
        to start on ``slots`` tasks run at once: each slot runs ``ceil(waiting / slots)`` more
        tasks one after another, so each gets that share of :meth:`until_finish`, less
        :data:`TASK_OVERHEAD`, at least :data:`~annc.core.deadline.FLOOR` (None: no limit).
        Taken when each task is submitted, the shares follow what the earlier ones really took."""
        room = self.until_finish()
        if room is None:
            return None
        return max(room / rounds(waiting, slots) - TASK_OVERHEAD, FLOOR)

    def task_wait(self) -> float | None:
        """How long to wait for tasks capped by :meth:`task_cap`: what is left, plus
        :data:`TASK_GRACE` for a task stopped by its cap to hand its result back (None: no limit)."""
        left = self.left()
        return None if left is None else left + TASK_GRACE

    def _left_at(self, now: float) -> float | None:
        """Seconds left at the instant ``now`` (a new deadline anchored there ends no later than this one)."""
        d = self.deadline
        return None if d.limit is None else max(d.limit - (now - d.start), 0.0)

    def before_finish(self) -> "RunContext":
        """A context that ends where the finish's reserve begins (:meth:`until_finish` from now)."""
        return self.within(self.until_finish()) if self.limited else self

    def expired(self) -> bool:
        left = self.left()
        return left is not None and left <= 0.0

    def stopped(self) -> bool:
        """The deadline has passed, or Ctrl-C was pressed."""
        return self.expired() or self.interrupted

    def elapsed(self) -> float:
        return self.deadline.elapsed()

    @staticmethod
    def stopwatch() -> Stopwatch:
        return Stopwatch()

    # -- the user's settings ------------------------------------------------------------
    @property
    def interrupt(self) -> Interrupt | None:
        return self.options.interrupt

    @property
    def interrupted(self) -> bool:
        return self.options.interrupt is not None and self.options.interrupt.requested

    @property
    def progress(self) -> Callable[[Progress], None] | None:
        return self.options.progress

    def report(self, phase: str, *, elapsed: float = 0.0, best: float | None = None,
               candidates: int | None = None, time_limit: float | None = None) -> None:
        """Tell the progress sink (the command line's progress line) where the run is."""
        if self.options.progress is not None:
            self.options.progress(Progress(elapsed, None, None, phase=phase, best=best, candidates=candidates,
                                           time_limit=time_limit))

    def with_options(self, **changes) -> "RunContext":
        """The same context with the user's options changed (e.g. ``progress=None``)."""
        return replace(self, options=replace(self.options, **changes))

    # -- annc's own sub-MIPs ------------------------------------------------------------
    @property
    def sub_solver(self) -> str:
        """The solver of annc's sub-MIPs: the user's when its driver serves them, else HiGHS."""
        return self.solver if self.driver.sub_mips else FALLBACK

    def solve(self, model, *, node_limit: int | None = None, start=None, gap: float | None = 0.0) -> SolveResult:
        """One sub-MIP of annc's own (module docstring): ``node_limit`` nodes (a work limit),
        from ``start``, stopping at relative ``gap``, on :attr:`sub_solver` with the user's
        threads and native options; capped by what is left of the deadline."""
        by = self.driver if self.driver.sub_mips else get_driver(FALLBACK)
        if by is not self.driver and self.ledger.fallback is None:
            self.ledger.fallback = _why_not(self.driver)
        native = self.options.native if by is self.driver else ()
        settings = SolveOptions(gap=gap, threads=self.options.threads, interrupt=self.options.interrupt, native=native)
        inputs = SolveInputs(start=start if by.mip_start else None, node_limit=node_limit)
        self.ledger.counts[by.title or by.name] += 1
        return by.solve_within(model, settings, inputs, self.deadline)


def seconds_since(started: float) -> float:
    """Seconds since ``started``, a ``time.perf_counter()`` value (the user's command's start:
    :mod:`annc.training.dispatch` takes them from the time limit, the command line's time left too)."""
    return time.perf_counter() - started


def rounds(tasks: int, slots: int) -> int:
    """How many tasks each of ``slots`` runs one after another to run ``tasks``: ``ceil(tasks / slots)``
    (at least one of each)."""
    return -(-max(int(tasks), 1) // max(int(slots), 1))


def _why_not(d: Driver) -> str:
    missing = [what for what, ok in (("solves as a separate program", d.in_process),
                                     ("takes no MIP start", d.mip_start),
                                     ("has no node limit", "node_limit" in d.parameters)) if not ok]
    return (f"{d.title or d.name} {' and '.join(missing)}, so annc's own sub-MIPs ran on "
            f"{get_driver(FALLBACK).title}")
