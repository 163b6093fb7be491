"""What every solver driver takes and returns, and the honest reading of its status.

A driver solves a :class:`~annc.core.model.Model` and returns a :class:`SolveResult` whose
``x`` is in the model's column order.  Status is annc's own verdict, not the solver's
word: *optimal* only when the solver proved it within the default relative gap
(1e-4); a run stopped at a time, node or gap limit, or by Ctrl-C, with an incumbent
is *feasible* with its gap (PuLP calls a stopped CBC run "Optimal": annc does not).
"""
from __future__ import annotations

import math
import numbers
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from ...core.errors import UsageError
from ...io.solutions import Status

OPTIMAL_GAP = 1e-4  # relative gap within which a proved optimum is called "optimal"
OPTIMAL_ABS_GAP = 1e-6  # ... or this absolute gap (objectives near 0: HiGHS's mip_abs_gap default)
MAX_THREADS = 1024  # HiGHS aborts the whole process (std::terminate) when it cannot start its threads
MAX_NODE_LIMIT = 2**31 - 1  # HiGHS's mip_max_nodes is a C int
MAX_TIME_LIMIT = 1e9  # seconds (31 years); GLPK takes its limit in milliseconds as a C int


@dataclass
class SolveOptions:
    time_limit: float | None = None
    gap: float | None = None  # relative gap at which to stop
    threads: int | None = None
    progress: Callable[["Progress"], None] | None = None
    workdir: str | None = None  # where file-based drivers write model and solution (default: a temp dir)
    command: str | None = None  # external command template (solver "cmd")
    model_file: str | None = None  # an MPS file of this very model already written (skip writing it again)
    interrupt: "Interrupt | None" = None  # shared Ctrl-C state (e.g. over the MIPs of greedy training)
    start: "np.ndarray | None" = None  # a feasible point to start from (MIP start), in column order
    node_limit: int | None = None  # branch-and-bound nodes per solve (a work limit; None: no limit)
    native: tuple = ()  # the solver's own options, ((name, value), ...) as --solver-option NAME=VALUE gives them
    stall_checks: int | None = None  # stop after this many work checks that move neither incumbent nor bound
    # (annc.solve.solvers.stall; drivers with Driver.stall apply it; None: no such stop)
    stop_at: float | None = None  # a valid lower bound from outside the solver (annc's): the stall
    # rule's drivers stop once the incumbent meets it (annc.solve.solvers.stall)
    stall: bool | int = True  # a training run's full MIP: True annc's rule (work checks scaled by the problem,
    # annc.training.mip.stalling), False none, a whole number N that many checks; the trainer sets stall_checks

    def checked(self) -> "SolveOptions":
        """A copy with ``time_limit``, ``gap``, ``threads`` and ``node_limit`` checked and
        normalised (float, float, int, int); :class:`~annc.core.errors.UsageError` if one is out of
        range.  The one check of these settings: the CLI and the Python API both come here."""
        return replace(self, time_limit=check_time_limit(self.time_limit), gap=check_gap(self.gap),
                       threads=check_threads(self.threads), node_limit=check_node_limit(self.node_limit),
                       native=check_native(self.native), stall=check_stall(self.stall),
                       stall_checks=_whole(self.stall_checks, "stall_checks", "stall_checks", 1,
                                                   MAX_NODE_LIMIT))


def _real(value, what: str, option: str) -> float | None:
    """``value`` as a float (None stays None); booleans, text and the like are refused."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UsageError(f"{what} ({option}) must be a number, not {type(value).__name__} {value!r}")
    try:
        return float(value)
    except (OverflowError, ValueError):  # an integer too large for a float
        return math.inf if value > 0 else -math.inf


def check_time_limit(value) -> float | None:
    """Seconds per MIP: a finite number > 0 and at most :data:`MAX_TIME_LIMIT` (None: no limit)."""
    v = _real(value, "the time limit", "time_limit / --time-limit")
    if v is not None and not 0 < v <= MAX_TIME_LIMIT:
        raise UsageError(f"time limit {v:g} is out of range: give seconds > 0 and at most "
                         f"{MAX_TIME_LIMIT:g} (leave it out for no limit)")
    return v


def check_gap(value) -> float | None:
    """The relative gap at which to stop: a number in [0, 1] (None: the solver's default)."""
    v = _real(value, "the gap", "gap / --gap")
    if v is not None and not 0 <= v <= 1:
        raise UsageError(f"gap {v:g} is out of range: give a relative gap between 0 and 1 (e.g. 0.01)")
    return v


def _whole(value, what: str, name: str, lo: int, hi: int, hint: str = "") -> int | None:
    """``value`` as an int from ``lo`` to ``hi`` (None stays None); booleans, NaN, text and
    fractions are refused (:class:`~annc.core.errors.UsageError`, naming ``what``)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value \
            or (not isinstance(value, numbers.Integral) and not float(value).is_integer()):
        raise UsageError(f"{what} must be a whole number, not {value!r}")
    n = int(value)
    if not lo <= n <= hi:
        raise UsageError(f"{name} {n} is out of range: give {lo} to {hi}{hint}")
    return n


def check_threads(value) -> int | None:
    """Solver threads: a whole number from 1 to :data:`MAX_THREADS` (None: the solver's default)."""
    return _whole(value, "threads (threads / --threads)", "threads", 1, MAX_THREADS)


def check_node_limit(value) -> int | None:
    """Branch-and-bound nodes per solve: a whole number from 0 to :data:`MAX_NODE_LIMIT`
    (None: no limit; HiGHS stops at 0 before its root node is done, with no bound)."""
    return _whole(value, "the node limit (node_limit)", "node limit", 0, MAX_NODE_LIMIT,
                  " (leave it out for no limit)")


def check_stall(value) -> bool | int:
    """The stall rule of a training run's full MIP (``stall`` / ``--stall``): True (annc's rule),
    False (none), or a whole number of work checks from 1 to :data:`MAX_NODE_LIMIT`
    (:mod:`annc.solve.solvers.stall`)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Real) and value == value and float(value).is_integer():
        return _whole(value, "the stall rule (stall / --stall)", "stall", 1, MAX_NODE_LIMIT, " work checks (or off)")
    raise UsageError(f"the stall rule (stall / --stall) must be True, False or a whole number of work checks, "
                     f"not {value!r}")


def stall_setting(text: str) -> bool | int:
    """``--stall auto|off|N`` as :func:`check_stall` takes it: True, False or N."""
    low = str(text).strip().lower()
    if low in ("auto", "on", "true"):
        return True
    if low in ("off", "none", "false", "no"):
        return False
    try:
        return check_stall(int(low))
    except ValueError:
        raise UsageError(f"--stall {text!r}: give auto, off or a whole number of work checks") from None


def native_value(text: str):
    """A native option's value as the command line gives it (``--solver-option NAME=VALUE``):
    ``true``/``false`` as booleans, whole numbers as ints, other numbers as floats, the rest as text."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def solver_options(texts) -> tuple:
    """``--solver-option NAME=VALUE`` arguments as ``((name, value), ...)``, each value read by
    :func:`native_value`; :class:`~annc.core.errors.UsageError` for an argument without ``=``."""
    out = []
    for text in texts or ():
        name, eq, value = str(text).partition("=")
        if not eq or not name.strip():
            raise UsageError(f"--solver-option {text!r}: give NAME=VALUE, e.g. --solver-option presolve=off")
        out.append((name.strip(), native_value(value)))
    return check_native(out)


def check_native(value) -> tuple:
    """The solver's own options: a mapping or pairs ``(name, value)``, names non-empty text
    without spaces or ``=``; returned as a tuple of pairs (order kept, the last of a name wins)."""
    if not value:
        return ()
    pairs = list(value.items()) if isinstance(value, dict) else list(value)
    out: dict = {}
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise UsageError(f"a solver option must be NAME=VALUE, not {pair!r}")
        name, v = pair
        if not isinstance(name, str) or not name.strip() or any(c.isspace() or c == "=" for c in name):
            raise UsageError(f"solver option name {name!r} must be a word without spaces or '=' "
                             "(as --solver-option NAME=VALUE)")
        if v is None or (isinstance(v, str) and not v.strip()):
            raise UsageError(f"solver option {name} has no value (give --solver-option {name}=VALUE)")
        out[name] = v
    return tuple(out.items())


BOUND_EVERY = 1.0  # seconds between progress reports that only move the bound
MOVE_TOL = 1e-9  # relative: an incumbent or bound that moves less has not moved (a solver's re-evaluation)


def moved(new: float | None, old: float | None) -> bool:
    """Whether a reported incumbent or bound changed: it appeared, vanished, or moved by more
    than :data:`MOVE_TOL` relative (HiGHS reports a MIP start's 1.22 as 1.2199999999998934,
    then again as 1.2199999999998528: one incumbent, one progress line)."""
    if new is None or old is None:
        return (new is None) != (old is None)
    return abs(new - old) > MOVE_TOL * max(1.0, abs(new), abs(old))


@dataclass
class Progress:
    """Where a training run is: a solver's report (``phase`` "solve": seconds since the solve
    began, its incumbent and bound), or, through the same callback, the other phases of
    ``annc.train`` (:data:`PHASES`): the MIP being built, the start search (``best`` the
    best objective found so far, ``candidates`` how many candidates were tried), the
    finish after the solve.  Only a solver sets ``incumbent`` and ``bound``: a callback
    that waits for the solver's first incumbent is not woken by the start search.
    ``time_limit`` is the phase's own limit in seconds, where it has one (given when the
    phase begins, with ``elapsed`` 0)."""

    elapsed: float
    incumbent: float | None
    bound: float | None
    phase: str = "solve"
    candidates: int | None = None
    best: float | None = None
    time_limit: float | None = None

    @property
    def gap(self) -> float | None:
        return relative_gap(self.incumbent, self.bound)

    def line(self) -> str:
        inc = "-" if self.incumbent is None else f"{self.incumbent:.6g}"
        if self.phase != "solve":  # another phase: its name, the candidates tried, the best so far
            tried = "" if self.candidates is None else f"  {self.candidates} tried"
            best = "" if self.best is None else f"  best {self.best:.6g}"
            return f"  {self.elapsed:8.1f}s  {self.phase}{tried}{best}"
        bnd = "-" if self.bound is None else f"{self.bound:.6g}"
        g = self.gap
        gs = "-" if g is None else ("inf" if math.isinf(g) else f"{100 * g:.2f}%")
        return f"  {self.elapsed:8.1f}s  incumbent {inc:>12}  bound {bnd:>12}  gap {gs:>8}"


# the phases a Progress names, in the order a MIP goes through them
PHASES = ("build", "start pool", "local search", "neighbourhood search", "solve", "finish")


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
    closed = (gap is None or gap <= OPTIMAL_GAP
              or (bound is not None and math.isfinite(bound) and abs(obj - bound) <= OPTIMAL_ABS_GAP))
    if proved_optimal and closed:
        return Status.OPTIMAL, "proved optimal"
    if proved_optimal:  # stopped at a looser gap (--gap, or the solver's own tolerance)
        return Status.FEASIBLE, "stopped at the gap tolerance"
    return Status.FEASIBLE, limit_text or "stopped before proving optimality"


class Interrupt:
    """Ctrl-C while training or solving: the first SIGINT asks the run to stop and keep
    the best solution found so far, a second one aborts (``KeyboardInterrupt``).

    One object can be shared by several solves (``SolveOptions.interrupt``, as greedy
    training and the start pool do) and armed around all of them: arming is re-entrant.
    Each driver sets ``on_interrupt`` (called in the main thread, from the signal handler)
    while its solver runs.  A first Ctrl-C while no solver runs is kept as a request,
    which every step of the run checks (the start pool ends after its current candidate,
    the searches stop, the next solve stops at once and keeps its MIP start): the run then
    ends with the best network found so far, or, if it has none yet (``has_solution`` is
    False), with "no solution" (:class:`~annc.core.errors.NoSolutionError`, exit 3).

    A solve that arms its own ``Interrupt`` inside an armed one (a sub-MIP of the start
    pool with no shared interrupt) passes the signal on to the enclosing one, so the run
    hears of a Ctrl-C that arrives during any sub-MIP; the sub-MIP itself stops only if the
    run already has a solution (else it may be the step that finds the first one).

    ``log`` receives the line that tells the user what the first Ctrl-C does (the
    command-line layer passes a function that prints it; by default nothing is said).
    """

    MESSAGE = "\ninterrupt: stopping and keeping the best solution found (Ctrl-C again to abort)"
    NOTHING_YET = ("\ninterrupt: stopping; no network has been found yet, so the run will end with no "
                   "solution (exit 3) unless the current step finds one (Ctrl-C again to abort)")

    def __init__(self, log: Callable[[str], None] | None = None):
        self.log = log
        self.requested = False
        self.has_solution = False
        self.on_interrupt: Callable[[], None] | None = None
        self._depth = 0

    def request(self) -> None:
        """What the first Ctrl-C does (also callable directly, e.g. from a GUI or a test)."""
        self.requested = True
        if self.on_interrupt:
            self.on_interrupt()

    def signalled(self) -> None:
        """A SIGINT: the first one is a :meth:`request` (with the line for ``log``), the
        second aborts."""
        if self.requested:
            raise KeyboardInterrupt
        if self.log:
            self.log(self.MESSAGE if self.has_solution or self.on_interrupt else self.NOTHING_YET)
        self.request()

    @contextmanager
    def armed(self):
        if self._depth:  # already armed by an enclosing solve or training run
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        try:
            old = signal.getsignal(signal.SIGINT)
            outer = getattr(old, "interrupt", None)  # an enclosing run's Interrupt, armed

            def handler(signum, frame):
                if isinstance(outer, Interrupt) and outer is not self:
                    outer.signalled()  # the enclosing run hears it (a second Ctrl-C aborts here)
                    if outer.has_solution:  # this sub-MIP stops, unless it may give the run its first network
                        self.request()
                else:
                    self.signalled()

            handler.interrupt = self
            signal.signal(signal.SIGINT, handler)
        except ValueError:  # not the main thread: leave SIGINT alone
            yield self
            return
        self._depth = 1
        try:
            yield self
        finally:
            self._depth = 0
            signal.signal(signal.SIGINT, old)


def interrupt_of(opts: SolveOptions) -> Interrupt:
    """The shared :class:`Interrupt` of ``opts``, or a fresh one for this solve only."""
    return opts.interrupt if opts.interrupt is not None else Interrupt()


class Clock:
    def __init__(self):
        self.t0 = time.perf_counter()

    def __call__(self) -> float:
        return time.perf_counter() - self.t0
