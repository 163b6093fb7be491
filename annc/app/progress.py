"""What ``annc train`` and ``annc compile`` show while they work: :class:`Reporter`.

Two sources feed it: the training ``log`` callback (whole lines, printed as they come:
``[xor] 650 columns ...``) and the :class:`~annc.solve.solvers.base.Progress` callback, which
hears of every phase of a MIP (:data:`~annc.solve.solvers.base.PHASES`: build, start pool,
local search, neighbourhood search, solve, finish), of each candidate of the start pool
(how many were tried, the best objective so far) and of the solver's incumbent and bound.
From them the reporter keeps one status: phase, candidates tried, best objective,
incumbent, bound, time left of the MIP's time limit.

* **In a terminal** (the output is a TTY) that status is a live line at the bottom of the
  screen, redrawn four times a second with a spinner, under the lines printed above it.
* **In a pipe or a log** a plain line, stamped with the seconds since the command began
  (``"    12.3s  start pool: 5 candidates tried, best 1.22, time left 14s"``), says each
  new phase, each better start or incumbent, each moved bound; and while nothing else is
  stamped, a heartbeat thread prints the status every :data:`HEARTBEAT` seconds at most,
  so a log has no long silences from the start to the verdict.  The start search runs in
  the calling thread and may not return for many seconds, hence a thread: it wakes every
  :data:`WAKE` seconds and calls :meth:`Reporter.tick`.  The clock is injectable
  (``clock=``, ``heartbeat=False`` for no thread) so a test can drive :meth:`tick` with a
  fake clock.
* **Quiet** (``-q``): nothing but warnings (on stderr); the command prints its verdict.

Log lines are not stamped (their ``[mip]`` prefix stays first on the line); every other
line of the reporter is, and two stamped lines are at most :data:`HEARTBEAT` seconds apart.

**Why rich.**  The live line uses `rich <https://github.com/Textualize/rich>`_ (``Live``
with a ``Spinner``), not tqdm: the line is a status with no total to count towards (a
MIP's progress is a gap, not a fraction of iterations), which is what rich's ``Live``
draws and tqdm's bar is not; ``Live`` redraws from its own thread, so the elapsed time and
time left keep moving while the start search holds the main thread; and it redirects
``print`` (the log lines, the Ctrl-C message on stderr) above the live line instead of
through it.  rich is imported only for a terminal: a pipe pays nothing for it.
"""
from __future__ import annotations

import math
import os
import sys
import threading
import time
from typing import Callable, TextIO

HEARTBEAT = 5.0  # seconds: the longest gap between two stamped lines in a pipe or a log
WAKE = 0.25  # seconds between the heartbeat thread's looks at the clock
EARLY = 1.0  # seconds: a heartbeat is due this much before HEARTBEAT (the thread's own delays, the GIL)
SEARCH = ("start pool", "local search", "neighbourhood search")


def _num(v: float | None) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.6g}"


def _gap(inc: float | None, bound: float | None) -> str:
    if inc is None or bound is None or not math.isfinite(bound):
        return "-"
    diff = abs(inc - bound)
    if diff <= 1e-9:
        return "0.00%"
    return "inf" if abs(inc) <= 1e-9 else f"{100 * diff / abs(inc):.2f}%"


def is_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal that can redraw a line (not ``TERM=dumb``)."""
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class Reporter:
    """The command line's progress (module docstring).

    ``out``: where lines go (default: ``sys.stdout`` when the reporter is made, so a
    redirected stdout is honoured); ``live``: draw the live line (default: ``out`` is a
    TTY); ``quiet``: print nothing but warnings (to ``err``); ``time_limit``: seconds of
    each MIP (start search and solve), for the time left; ``clock``: seconds, monotonic;
    ``heartbeat``: run the heartbeat thread (pipe mode only).  Use it as a context manager
    (or :meth:`start`, :meth:`close`); :meth:`log` and :meth:`progress` are the two
    callbacks, safe to call from any thread.
    """

    def __init__(self, out: TextIO | None = None, *, err: TextIO | None = None, live: bool | None = None,
                 quiet: bool = False, time_limit: float | None = None, clock: Callable[[], float] = time.monotonic,
                 heartbeat: bool = True, every: float = HEARTBEAT, phase: str = "working"):
        self.out = sys.stdout if out is None else out
        self.err = sys.stderr if err is None else err
        self.quiet = quiet
        self.live = not quiet and (is_terminal(self.out) if live is None else live)
        self.time_limit = time_limit
        self.clock = clock
        self.every = every
        self.t0 = clock()
        self.last_stamp = self.t0  # when the last stamped line was printed (the start counts)
        self.phase = phase
        self.candidates: int | None = None
        self.best: float | None = None  # the start search's best objective so far
        self.incumbent: float | None = None
        self.bound: float | None = None
        self.deadline: float | None = None  # clock() at which the MIP's time limit runs out
        self.solver_seen = False  # the solve phase has had a report from the solver
        self._said = None  # what the last stamped status line said (no line says it twice)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread = None
        self._heartbeat = heartbeat and not quiet and not self.live
        self._live = None
        self._console = None
        self._spinner = None

    # -- life cycle ------------------------------------------------------------------
    def start(self) -> "Reporter":
        if self.live:
            from rich.console import Console
            from rich.live import Live
            from rich.spinner import Spinner
            self._console = Console(file=self.out)
            self._spinner = Spinner("dots", text="")
            self._live = Live(self, console=self._console, refresh_per_second=4, transient=True)
            self._live.start()
        elif self._heartbeat:
            self._thread = threading.Thread(target=self._beat, name="annc-heartbeat", daemon=True)
            self._thread.start()
        return self

    def close(self, *, done: bool = True) -> None:
        """Stop the thread and the live line; in a pipe, a last stamped ``done`` line (with
        ``done``: the command is about to print its verdict)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2 * WAKE + 1)
            self._thread = None
        if self._live is not None:
            self._live.stop()
            self._live = None
        if done and not self.quiet and not self.live:
            with self._lock:
                self._stamp("done")

    def __enter__(self) -> "Reporter":
        return self.start()

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(done=exc_type is None)

    # -- the two callbacks -----------------------------------------------------------
    def log(self, line: str) -> None:
        """A line of the training log, printed as it is (quiet: warnings only, on stderr)."""
        with self._lock:
            if self.quiet:
                if line.startswith("warning:"):
                    print(line, file=self.err, flush=True)
                return
            self._print(line)

    def progress(self, p) -> None:
        """A :class:`~annc.solve.solvers.base.Progress`: update the status, and print it when it
        says something new (a phase, a better start or incumbent, a moved bound)."""
        if self.quiet:
            return
        with self._lock:
            now = self.clock()
            phase = getattr(p, "phase", "solve")
            if phase != self.phase:
                self._begin(phase, p, now)
            best = getattr(p, "best", None)
            if phase == "solve":
                if p.incumbent is None and p.bound is None:  # the solve begins (from the search's best)
                    self.incumbent = best
                else:  # the solver's report
                    self.incumbent, self.bound, self.solver_seen = p.incumbent, p.bound, True
            elif phase in SEARCH:
                if best is not None:
                    self.best = best
                if getattr(p, "candidates", None) is not None:
                    self.candidates = p.candidates
            said = self._key()
            # a solve's beginning is not stamped: the solver's first report follows at once (a
            # MIP start is reported as its incumbent), else the heartbeat says "solve: from ..."
            if said != self._said and (phase != "solve" or self.solver_seen):
                self._stamp(self.status(now))

    def _begin(self, phase: str, p, now: float) -> None:
        self.phase = phase
        limit = getattr(p, "time_limit", None)
        if phase == "build":  # a new MIP
            self.candidates = self.best = self.incumbent = self.bound = self.deadline = None
        elif phase == "start pool":
            self.candidates = self.best = None
            if self.time_limit is not None:  # the MIP's time limit counts from its start search
                self.deadline = now + self.time_limit
        elif phase == "solve":
            self.solver_seen, self.bound = False, None
            # the solver's own limit: what the search left of the MIP's (unknown: no time left)
            self.deadline = None if limit is None else now + limit
        elif phase == "finish":
            self.deadline = None

    def _key(self):
        if self.phase == "solve":
            return self.phase, self.solver_seen, _num(self.incumbent), _num(self.bound)
        if self.phase in SEARCH:
            return self.phase, _num(self.best)
        return (self.phase,)

    # -- the status ------------------------------------------------------------------
    def status(self, now: float | None = None, *, live: bool = False) -> str:
        """``start pool: 5 candidates tried, best 1.22, time left 14s`` and the like.  A
        solver's report is, in a pipe, the line annc has always printed (``incumbent 1.22
        bound 0.94  gap 22.95%``, aligned, its stamp saying when), in the live line labelled
        and with the time left."""
        now = self.clock() if now is None else now
        if self.phase == "solve" and self.solver_seen and not live:
            return (f"incumbent {_num(self.incumbent):>12}  bound {_num(self.bound):>12}  "
                    f"gap {_gap(self.incumbent, self.bound):>8}")
        start = "no start" if self.incumbent is None else f"from the start {_num(self.incumbent)}"
        what = {
            "build": "building the MIP",
            "start pool": (f"{self.candidates or 0} candidate{'' if self.candidates == 1 else 's'} tried, "
                           f"best {_num(self.best)}"),
            "local search": f"improving the best candidate, {_num(self.best)}",
            "neighbourhood search": f"incumbent {_num(self.best)}",
            "solve": (f"incumbent {_num(self.incumbent)}, bound {_num(self.bound)}, "
                      f"gap {_gap(self.incumbent, self.bound)}") if self.solver_seen else start,
            "finish": "decoding and verifying the network",
        }.get(self.phase)
        text = self.phase if what is None else f"{self.phase}: {what}"
        if self.deadline is not None:
            text += f", time left {max(0.0, self.deadline - now):.0f}s"
        return text

    def __rich__(self):
        """The live line (rich calls this at each redraw)."""
        from rich.text import Text
        with self._lock:
            self._spinner.update(text=Text(f"{self.clock() - self.t0:6.1f}s  {self.status(live=True)}"))
        return self._spinner

    # -- printing --------------------------------------------------------------------
    def tick(self) -> None:
        """The heartbeat: print the status if no stamped line is nearly :data:`HEARTBEAT` old."""
        with self._lock:
            if self.quiet or self.live:
                return
            if self.clock() - self.last_stamp >= self.every - EARLY:
                self._stamp(self.status())

    def _beat(self) -> None:
        while not self._stop.wait(WAKE):
            try:
                self.tick()
            except (ValueError, OSError):  # the output was closed under us (a broken pipe)
                return

    def _stamp(self, text: str) -> None:
        now = self.clock()
        self._print(f"  {now - self.t0:8.1f}s  {text}")
        self.last_stamp = now
        self._said = self._key()

    def _print(self, line: str) -> None:
        if self._live is not None:
            self._console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            print(line, file=self.out, flush=True)


def parse_stamps(text: str) -> list[float]:
    """The seconds of the stamped lines of a :class:`Reporter`'s output, in order."""
    import re
    return [float(m.group(1)) for m in re.finditer(r"^  +(\d+\.\d)s  ", text, re.M)]
