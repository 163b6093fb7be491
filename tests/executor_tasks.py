"""Task functions for tests/training/test_executor.py: module-level, so worker processes import them."""
import os
import time


def slow_square(x):
    time.sleep(1.0)
    return x * x


def square(x):
    return x * x


def fail_on_three(x):
    if x == 3:
        raise ValueError("three is not allowed")
    return x


def worker_pid(_x):
    return os.getpid()


def report_cap(spec, data, *, solver, opts, out_dir, greedy, stem, start=None):
    """A stand-in for annc.training.trainer.train that says the time limit it was given, as
    one of annc's own errors (which a decomposition run collects from every member)."""
    from annc.core.errors import NoSolutionError
    raise NoSolutionError(f"cap {opts.time_limit!r}")
