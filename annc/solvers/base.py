"""What every solver driver takes and returns, and the honest reading of its status.

A driver solves a :class:`~annc.model.Model` and returns a :class:`SolveResult` whose
``x`` is in the model's column order.  Status is annc's own verdict, not the solver's
word: *optimal* only when the solver proved it within the default relative gap
(1e-4); a run stopped at a time, node or gap limit, or by Ctrl-C, with an incumbent
is *feasible* with its gap (PuLP calls a stopped CBC run "Optimal": annc does not).
"""
from __future__ import annotations

import math
import signal
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..solutions import Status

OPTIMAL_GAP = 1e-4


@dataclass
class SolveOptions:
    time_limit: float | None = None
    gap: float | None = None  # relative gap at which to stop
    threads: int | None = None
    progress: Callable[["Progress"], None] | None = None
    workdir: str | None = None  # where file-based drivers write model and solution
    command: str | None = None  # external command template (solver "cmd")


@dataclass
class Progress:
    elapsed: float
    incumbent: float | None
    bound: float | None

    @property
    def gap(self) -> float | None:
        return relative_gap(self.incumbent, self.bound)

    def line(self) -> str:
        inc = "-" if self.incumbent is None else f"{self.incumbent:.6g}"
        bnd = "-" if self.bound is None else f"{self.bound:.6g}"
        g = self.gap
        gs = "-" if g is None else ("inf" if math.isinf(g) else f"{100 * g:.2f}%")
        return f"  {self.elapsed:8.1f}s  incumbent {inc:>12}  bound {bnd:>12}  gap {gs:>8}"


@dataclass
class SolveResult:
    solver: str
    status: Status
    status_text: str
    objective: float | None = None
    bound: float | None = None
    x: np.ndarray | None = None
    seconds: float = 0.0
    interrupted: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        return relative_gap(self.objective, self.bound)

    def describe(self) -> str:
        if self.status == Status.FEASIBLE:
            g = self.gap
            gs = "unknown" if g is None else ("inf" if math.isinf(g) else f"{100 * g:.2f}%")
            why = "interrupted" if self.interrupted else self.status_text
            return f"feasible, gap {gs} ({why})"
        return f"{self.status.value} ({self.status_text})"


def relative_gap(obj: float | None, bound: float | None) -> float | None:
    """``|obj - bound| / |obj|`` (0 when both are 0), the convention of HiGHS and Gurobi."""
    if obj is None or bound is None or not math.isfinite(bound):
        return None
    diff = abs(obj - bound)
    if diff <= 1e-9:
        return 0.0
    return diff / abs(obj) if abs(obj) > 1e-9 else math.inf


def verdict(proved_optimal: bool, has_solution: bool, obj, bound, limit_text: str,
            infeasible=False, unbounded=False) -> tuple[Status, str]:
    """annc's status from what a solver established (see module docstring)."""
    if infeasible:
        return Status.INFEASIBLE, "infeasible"
    if unbounded:
        return Status.UNBOUNDED, "unbounded"
    if not has_solution:
        return Status.NO_SOLUTION, limit_text or "no solution found"
    gap = relative_gap(obj, bound)
    if proved_optimal and (gap is None or gap <= OPTIMAL_GAP):
        return Status.OPTIMAL, "proved optimal"
    return Status.FEASIBLE, limit_text or "stopped before proving optimality"


class Interrupt:
    """Ctrl-C while solving: the first SIGINT asks the solver to stop (keeping its
    incumbent), a second one aborts.  ``on_interrupt`` is called in the main thread."""

    def __init__(self):
        self.requested = False
        self.on_interrupt: Callable[[], None] | None = None

    @contextmanager
    def armed(self):
        def handler(signum, frame):
            if self.requested:
                raise KeyboardInterrupt
            self.requested = True
            print("\ninterrupt: stopping the solver and keeping the best solution "
                  "(Ctrl-C again to abort)", file=sys.stderr, flush=True)
            if self.on_interrupt:
                self.on_interrupt()

        try:
            old = signal.signal(signal.SIGINT, handler)
        except ValueError:  # not the main thread: leave SIGINT alone
            yield self
            return
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, old)


class Clock:
    def __init__(self):
        self.t0 = time.perf_counter()

    def __call__(self) -> float:
        return time.perf_counter() - self.t0
