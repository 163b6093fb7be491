"""Independent tasks (sub-MIPs, sweep runs) on ``dask.distributed``: one code path from a
laptop to a cluster.

:class:`Executor` is a ``distributed.Client`` of either

* a ``LocalCluster`` it starts and stops: ``workers`` worker processes with one thread
  each (default: as many as the machine has cores, at most one per task), or
* the existing cluster whose scheduler is at ``scheduler`` (``tcp://host:8786``),
  started with ``dask scheduler`` and ``dask worker tcp://host:8786`` on any machines
  that have annc installed.

:meth:`Executor.run` submits ``fn(item)`` for every item and hands each result back to
the caller as it finishes (``on_result``: progress streams back while the rest run).
Every task carries its own options (a sub-MIP its own time limit).  With ``prepare``, the
tasks are fed to the cluster :attr:`Executor.slots` at a time, and each is prepared just
before it is submitted, knowing how many are still waiting: a caller under one deadline
gives each task its share of what is left then (:meth:`annc.training.context.RunContext.slot_cap`).  A task whose worker
dies (killed, out of memory) is rerun on another worker by the scheduler (up to
``distributed.scheduler.allowed-failures`` times); a task that raises is retried
``retries`` times, then its entry is a :class:`TaskFailed` saying why, so one bad
sub-problem never loses the others.  Ctrl-C cancels what is left.

Why Dask: it is pure Python and pip-installable; a ``LocalCluster`` of worker processes
runs in the tests on two cores; and the same client code drives a real cluster, with
the scheduler's rescheduling of lost tasks that a ``ProcessPoolExecutor`` lacks (a killed
pool worker breaks the whole pool).  Worker processes get ``OPENBLAS_NUM_THREADS=1``: a
task is one core.

A local cluster and its client run on one event loop that the executor starts in its own
thread (:class:`_LoopThread`) and hands to both.  Left to itself, each of them starts a loop
thread of its own and gives it a fixed 10 s to come up (``distributed.utils.LoopRunner``:
``start_evt.wait(timeout=10)``, then ``assert loop is not None``), a deadline that a thread
starved of CPU on a busy machine misses: the executor waits for its loop to run, or for its
thread to end with an error, with no deadline.
"""
from __future__ import annotations

import asyncio
import logging
import os
import threading
import uuid
from dataclasses import dataclass
from typing import Callable, Sequence

from ...core.errors import UsageError
from ...core.log import silent

CONNECT_TIMEOUT = 10  # seconds to reach a scheduler given by address
WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass
class TaskFailed:
    """A task that raised (after its retries) or whose workers kept dying: its result entry."""

    index: int
    name: str
    message: str  # "ExceptionType: text"

    def __str__(self) -> str:
        return f"{self.name}: {self.message}"


def check_workers(value) -> int | None:
    """``None`` or a whole number of worker processes >= 1; :class:`UsageError` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UsageError(f"--workers (workers) must be a whole number >= 1, not {value!r}")
    return value


def check_scheduler(value) -> str | None:
    """``None`` or a scheduler address such as ``tcp://10.0.0.5:8786``; :class:`UsageError` otherwise."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value.strip()):
        raise UsageError(f"--scheduler (scheduler) must be an address such as tcp://127.0.0.1:8786, "
                         f"not {value!r}")
    return value.strip()


class _LoopThread:
    """A running event loop (a tornado ``IOLoop`` over asyncio) in a daemon thread, for
    ``distributed``'s ``loop=``; :meth:`stop` ends it."""

    def __init__(self):
        self.loop = None
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="annc dask loop", daemon=True)
        self._thread.start()
        # no deadline: the loop comes up or its thread ends (then with its error)
        while not self._ready.wait(1.0) and self._thread.is_alive():
            pass
        if self.loop is None:
            raise RuntimeError(f"the Dask event loop did not start: {self._error!r}")

    def _run(self) -> None:
        from tornado.ioloop import IOLoop

        async def main() -> None:
            self.loop, self._stop = IOLoop.current(), asyncio.Event()
            self._ready.set()
            await self._stop.wait()
        try:
            asyncio.run(main())
        except BaseException as e:  # noqa: BLE001 - reported by __init__ if the loop never ran
            self._error = e
        finally:
            self._ready.set()

    def stop(self, timeout: float = 10.0) -> None:
        if self.loop is not None and self._thread.is_alive():
            self.loop.add_callback(self._stop.set)
            self._thread.join(timeout)


def _finalise_pending_clients() -> None:
    """Run the garbage collector now, so that no unreachable ``distributed.Client`` is left for it.

    A client that failed to connect is half made and sits in a reference cycle; its ``__del__``
    closes it through ``LoopRunner.stop``, which takes a lock shared by every ``LoopRunner``
    (a class attribute in distributed).  If the collector happens to run while a new cluster's
    ``LoopRunner.start`` holds that lock, the ``__del__`` waits for it on the same thread: a
    deadlock (seen once in CI: a test starting a ``LocalCluster`` hung in ``Client.__del__``).
    Collecting at the points where annc makes or drops clients, before any lock is taken,
    leaves the collector nothing of the kind to find later."""
    import gc
    gc.collect()


class Executor:
    """Runs independent tasks on a Dask cluster; a context manager (see the module docstring)."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None, *,
                 log: Callable[[str], None] | None = None, connect_timeout: float = CONNECT_TIMEOUT):
        self.workers = check_workers(workers)
        self.scheduler = check_scheduler(scheduler)
        if self.workers is not None and self.scheduler is not None:
            raise UsageError("give either --workers (a local cluster) or --scheduler (an existing one), not both")
        self.log = log or silent
        self.connect_timeout = connect_timeout
        self.client = self.cluster = self._loop = None
        self.slots = 0  # tasks the cluster runs at once (its worker threads), once open
        self.size = 0  # its worker processes, once open

    def __enter__(self) -> "Executor":
        import dask
        from distributed import Client, LocalCluster
        dask.config.set({"distributed.worker.daemon": False})  # a task may start processes (solvers)
        _finalise_pending_clients()
        if self.scheduler is not None:
            # distributed's own loop here: a client that fails to connect is half made, and
            # its __del__ would later close it on a loop the executor had stopped
            try:
                self.client = Client(self.scheduler, timeout=self.connect_timeout)
            except ValueError as e:  # not an address at all
                failed = UsageError(f"--scheduler {self.scheduler!r} is not a Dask scheduler address such as "
                                    f"tcp://127.0.0.1:8786 ({e})")
            except (OSError, TimeoutError) as e:
                failed = UsageError(f"cannot reach the Dask scheduler at {self.scheduler} within "
                                    f"{self.connect_timeout:g} s ({type(e).__name__}: {e})")
            else:
                failed = None
            if failed is not None:  # the half-made client is garbage now (its frames are gone): close it here
                _finalise_pending_clients()
                raise failed from None
            try:
                self.client.wait_for_workers(1, timeout=3 * self.connect_timeout)
            except (OSError, TimeoutError) as e:
                self.__exit__()
                raise UsageError(f"the Dask scheduler at {self.scheduler} has no worker: start one with "
                                 f"'dask worker {self.scheduler}' ({type(e).__name__})") from None
            info = self.client.scheduler_info().get("workers", {})
            n = self.size = len(info)
            self.slots = max(sum(int(w.get("nthreads", 1) or 1) for w in info.values()), 1)
            self.log(f"[dask] connected to {self.scheduler} ({n} worker(s))")
        else:
            n = self.local_slots(self.workers)
            self._loop = _LoopThread()  # the one loop of the cluster and its client (module docstring)
            loop = self._loop.loop
            try:
                self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                            dashboard_address=":0", silence_logs=logging.ERROR,
                                            env=dict(WORKER_ENV), loop=loop)
            except RuntimeError as e:  # e.g. the worker processes cannot start (no __main__ guard)
                self.__exit__()
                raise UsageError(f"could not start a local Dask cluster of {n} worker(s): {e} (a Python script that "
                                 "starts one needs its code under if __name__ == '__main__':, as for "
                                 "multiprocessing)") from None
            self.client = Client(self.cluster, loop=loop)
            self.slots = self.size = n
            self.log(f"[dask] local cluster of {n} worker process(es)")
        return self

    def _warm(self, modules: Sequence[str]) -> None:
        """Import ``modules`` on every worker now (a fresh worker process takes seconds to import
        annc's training modules, time a capped task should not spend inside its cap)."""
        import importlib
        for name in dict.fromkeys(modules):
            self.client.run(importlib.import_module, name)

    @staticmethod
    def local_slots(workers: int | None) -> int:
        """The worker processes of a local cluster: ``workers``, or one per core."""
        return workers or os.cpu_count() or 1

    def __exit__(self, *exc) -> None:
        for thing in (self.client, self.cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # noqa: BLE001 - closing a cluster that is already gone
                    pass
        if self._loop is not None:
            self._loop.stop()
        self.client = self.cluster = self._loop = None

    def run(self, fn: Callable, items: Sequence, *, names: Sequence[str] | None = None, retries: int = 1,
            on_result: Callable[[int, object], None] | None = None, timeout: float | None = None,
            prepare: Callable[[int, object, int], object] | None = None, warm: Sequence[str] = ()) -> list:
        """``fn(item)`` for every item, on the cluster; the results in item order (a
        :class:`TaskFailed` where a task failed).  ``on_result(index, result)`` runs in
        this process as each task finishes.  ``timeout`` (seconds from the call; None: no
        limit): the tasks not finished by then are cancelled, and each is a :class:`TaskFailed`
        that says so (a caller under a deadline never waits past it for a task queued late).
        ``prepare(index, item, waiting)`` (None: every task is submitted at once, as given):
        at most :attr:`slots` tasks are in flight; each item is replaced by what ``prepare``
        returns just before it is submitted, ``waiting`` the tasks not yet submitted, itself
        included; before the first, every worker imports ``fn``'s module and the modules of
        ``warm`` (the modules of what the items carry, such as the training function), so that a
        cap ``prepare`` sets is not spent on a fresh worker's imports."""
        from distributed import as_completed
        if self.client is None:
            raise UsageError("Executor.run outside its with-block")
        items = list(items)
        names = [f"task {i}" for i in range(len(items))] if names is None else list(names)
        tag = uuid.uuid4().hex[:8]
        at_once = len(items) if prepare is None else max(self.slots, 1)
        if prepare is not None:
            self._warm([fn.__module__, *warm])
        futures: list = [None] * len(items)
        where: dict = {}

        def submit(i: int):
            item = items[i] if prepare is None else prepare(i, items[i], len(items) - i)
            futures[i] = fut = self.client.submit(fn, item, key=f"annc-{tag}-{i}", retries=retries, pure=False)
            where[fut.key] = i
            return fut
        first = [submit(i) for i in range(min(at_once, len(items)))]
        queued = iter(range(len(first), len(items)))
        results: list = [_PENDING] * len(items)

        def take(i: int, fut) -> None:
            try:
                res = fut.result()
            except Exception as e:  # noqa: BLE001 - the task's error, or KilledWorker
                res = TaskFailed(i, names[i], f"{type(e).__name__}: {e}")
            results[i] = res
            fut.release()
            if on_result is not None:
                on_result(i, res)
        try:
            flow = as_completed(first, timeout=timeout)
            for fut in _completed(flow):
                take(where[fut.key], fut)
                if (i := next(queued, None)) is not None:
                    flow.add(submit(i))
            for i, fut in enumerate(futures):  # the timeout passed: the finished ones are kept
                if results[i] is _PENDING and fut is not None and fut.done():
                    take(i, fut)
        except BaseException:
            self.client.cancel([f for f in futures if f is not None and not f.done()])
            raise
        self._cancel_late(results, futures, names, timeout)
        return results

    def _cancel_late(self, results: list, futures: list, names: list, timeout: float | None) -> None:
        """The tasks still pending after ``timeout``: cancelled, each result a :class:`TaskFailed` saying so."""
        late = [i for i, r in enumerate(results) if r is _PENDING]
        if late:
            self.client.cancel([futures[i] for i in late if futures[i] is not None])
            for i in late:
                results[i] = TaskFailed(i, names[i], f"not finished within {timeout:g} s: cancelled")


_PENDING = object()  # a result not in yet


def _completed(futures):
    """The futures of a ``distributed.as_completed`` as they finish, ending quietly at its timeout."""
    try:
        yield from futures
    except TimeoutError:
        return
