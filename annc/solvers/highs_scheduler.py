"""HiGHS's process-wide thread scheduler, and annc's policy for sharing it.

HiGHS runs its parallel work on one task scheduler per process, started by the first
``Highs.run()`` with that run's ``threads`` option (0, the default, means half the
cores).  From HiGHS 1.16 on, a later run whose ``threads`` is set to another count is
refused ("Option 'threads' is set to 1 but the scheduler has already been initialized
to use 2 threads") and ``run()`` returns an error; a run that leaves ``threads`` at its
default uses whatever scheduler exists.

**annc's policy: the last explicit count wins, between solves.**  Every HiGHS run that
annc makes goes through :func:`run`, which holds a lease on the scheduler:

* a run that leaves ``threads`` at the default takes the scheduler as it is;
* a run that sets ``threads = n`` takes it as it is if the scheduler was (re)started
  with ``n`` by annc; otherwise it waits until no other annc HiGHS run in this process
  is under way, resets the scheduler (``Highs.resetGlobalScheduler(True)``, which
  waits for the workers to stop) and runs, so that HiGHS starts it anew with ``n``.

So ``annc.train(threads=2)`` followed by ``annc.train(threads=1)`` in one process works,
in either order, and runs asking for the same count share the scheduler.  Runs with
different counts in threads of one process are serialised by the lease, never mixed.
A scheduler started by code outside annc is unknown to annc: the first explicit count
resets it (when no annc run is under way).  highspy releases older than 1.16 have no
such check and no reset method: there the lease only counts runs.

:func:`new_highs` makes a ``Highs`` with its output off.  highspy 1.16 prints a banner
on stdout when the first ``Highs`` of a process is made, before any option can be set;
:func:`new_highs` silences the process's standard output (the file descriptor, since
the text comes from C++) for that first construction only, so ``-q`` means quiet.
"""
from __future__ import annotations

import os
import sys
import threading
from contextlib import contextmanager

import highspy

_cond = threading.Condition()
_state = {"threads": None, "running": 0, "made": False}  # count annc started it with (None: not known)


def new_highs() -> "highspy.Highs":
    """A ``highspy.Highs`` with ``output_flag`` off and no banner on stdout."""
    with _cond:
        first = not _state["made"]
        _state["made"] = True
    if first:
        with _stdout_silenced():
            h = highspy.Highs()
    else:
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


@contextmanager
def _stdout_silenced():
    """File descriptor 1 pointed at /dev/null for the block (Python's buffer flushed first)."""
    try:
        sys.stdout.flush()
        fd = sys.stdout.fileno() if hasattr(sys.stdout, "fileno") else 1
    except (OSError, ValueError, AttributeError):  # a stdout with no descriptor (captured)
        fd = 1
    try:
        saved = os.dup(fd)
    except OSError:  # no descriptor to redirect: nothing to silence
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        os.close(null)


@contextmanager
def lease(threads: int | None):
    """Hold the scheduler for one run with ``threads`` (None or 0: HiGHS's default);
    see the module docstring for the policy."""
    n = int(threads) if threads else None
    with _cond:
        if n is not None and _state["threads"] != n:
            _cond.wait_for(lambda: _state["running"] == 0)
            if _state["threads"] != n:  # another waiter may have set it to n meanwhile
                reset = getattr(highspy.Highs, "resetGlobalScheduler", None)
                if reset is not None:
                    reset(True)
                _state["threads"] = n
        _state["running"] += 1
    try:
        yield
    finally:
        with _cond:
            _state["running"] -= 1
            _cond.notify_all()


def run(h: "highspy.Highs", threads: int | None = None):
    """``h.run()`` with ``h``'s ``threads`` option set to ``threads`` (None: left at the
    default) under :func:`lease`; returns what ``run`` returns."""
    if threads:
        h.setOptionValue("threads", int(threads))
    with lease(threads):
        return h.run()
