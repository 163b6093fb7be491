"""HiGHS's thread scheduler, and annc's policy for sharing it.

HiGHS runs its parallel work on a task scheduler started by a thread's first
``Highs.run()`` with that run's ``threads`` option (0, the default, means half the cores).
From HiGHS 1.16 on, a later run *in the same thread* whose ``threads`` is set to another
count is refused ("Option 'threads' is set to 1 but the scheduler has already been
initialized to use 2 threads") and ``run()`` returns an error; a run that leaves
``threads`` at its default uses whatever scheduler the thread has.  The scheduler belongs
to the calling thread (measured with highspy 1.16.0: after the main thread ran with 2, new
threads ran with 1, 2 and 1 again, and the main thread still refused 1), and
``Highs.resetGlobalScheduler(True)`` resets the calling thread's.

**annc's policy: the last explicit count wins, per thread.**  Every HiGHS run that annc
makes goes through :func:`lease` (or :func:`run`):

* a run that leaves ``threads`` at the default takes the thread's scheduler as it is;
* a run that sets ``threads = n`` takes it as it is if annc last (re)started it with
  ``n`` in this thread; otherwise it resets the thread's scheduler first
  (``resetGlobalScheduler(True)``, which waits for its workers to stop), so that HiGHS
  starts it anew with ``n``.

So ``annc.train(threads=2)`` followed by ``annc.train(threads=1)`` in one process works,
in either order.  (annc's driver runs each solve in a thread of its own, whose
scheduler starts fresh; :func:`run` serves code that runs HiGHS in the calling thread.)
A scheduler started by code outside annc is unknown to annc: the first explicit count
resets it.  highspy releases before 1.16 have no such check (and those before 1.8 no
reset method): there the lease changes nothing.

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

_made = threading.Lock()
_state = {"made": False}
_local = threading.local()  # .threads: the count annc (re)started this thread's scheduler with


def new_highs() -> "highspy.Highs":
    """A ``highspy.Highs`` with ``output_flag`` off and no banner on stdout."""
    with _made:
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
    """Hold this thread's scheduler for one run with ``threads`` (None or 0: HiGHS's
    default); see the module docstring for the policy."""
    n = int(threads) if threads else None
    if n is not None and getattr(_local, "threads", None) != n:
        reset = getattr(highspy.Highs, "resetGlobalScheduler", None)
        if reset is not None:
            reset(True)
        _local.threads = n
    yield


def run(h: "highspy.Highs", threads: int | None = None):
    """``h.run()`` with ``h``'s ``threads`` option set to ``threads`` (None: left at the
    default) under :func:`lease`; returns what ``run`` returns."""
    if threads:
        h.setOptionValue("threads", int(threads))
    with lease(threads):
        return h.run()
