"""The Dask executor: results in order and streamed back, failures as TaskFailed, a killed
worker's tasks rerun, and an existing cluster reached by its scheduler's address."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import executor_tasks as tasks
from annc.core.errors import UsageError
from annc.training.large.executor import Executor, TaskFailed, check_scheduler, check_workers

TESTS = Path(__file__).resolve().parents[1]  # executor_tasks.py, importable by the worker processes


def test_results_in_order_and_streamed():
    seen = []
    with Executor(workers=2) as ex:
        out = ex.run(tasks.square, range(7), on_result=lambda i, r: seen.append((i, r)))
        env = ex.client.run(lambda: os.environ.get("OPENBLAS_NUM_THREADS"))
    assert out == [i * i for i in range(7)]
    assert sorted(seen) == [(i, i * i) for i in range(7)]  # once per task
    assert set(env.values()) == {"1"}  # a task is one core


def test_a_failing_task_is_reported_not_raised():
    with Executor(workers=1) as ex:
        out = ex.run(tasks.fail_on_three, range(5), names=[f"t{i}" for i in range(5)], retries=1)
    assert out[:3] == [0, 1, 2] and out[4] == 4
    assert isinstance(out[3], TaskFailed) and out[3].index == 3 and out[3].name == "t3"
    assert "ValueError: three is not allowed" in out[3].message


def test_killed_worker_tasks_are_rerun():
    killed = []
    with Executor(workers=2) as ex:
        pids = sorted(set(ex.client.run(os.getpid).values()))
        assert len(pids) == 2

        def kill_one(i, result):
            if not killed:  # at the first result both workers are busy with the next tasks
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

        out = ex.run(tasks.slow_square, range(6), on_result=kill_one)
    assert killed
    assert out == [i * i for i in range(6)]  # every task accounted for, none failed


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_existing_cluster_by_scheduler_address(tmp_path):
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"], env=env, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", addr, "--nthreads", "1",
                                       "--no-dashboard"], env=env, cwd=tmp_path,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        lines = []
        deadline = time.monotonic() + 60
        while True:  # the scheduler takes a moment to listen
            try:
                with Executor(scheduler=addr, log=lines.append, connect_timeout=5) as ex:
                    out = ex.run(tasks.square, range(5))
                    workers = set(ex.run(tasks.worker_pid, range(3)))
                    slots = ex.slots
                    fed = ex.run(tasks.square, range(3), prepare=lambda i, item, waiting: item + waiting)
                break
            except UsageError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)
        assert out == [0, 1, 4, 9, 16]
        assert slots == 1  # the one worker thread the test started
        assert fed == [(i + 3 - i) ** 2 for i in range(3)]
        assert len(workers) == 1 and os.getpid() not in workers  # the one worker the test started
        assert any(addr in line for line in lines)
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def test_unreachable_scheduler_is_a_usage_error():
    port = _free_port()  # nothing listens there
    with pytest.raises(UsageError, match="cannot reach the Dask scheduler"):  # it gives up, no hang
        with Executor(scheduler=f"tcp://127.0.0.1:{port}", connect_timeout=2):
            pass


def test_a_failed_connection_leaves_no_client_for_the_garbage_collector():
    """The half-made client of a failed connection is closed before the error reaches the caller.
    Left in a reference cycle, it would be closed by whichever later allocation runs the garbage
    collector, and if that is inside a new cluster's start (which holds distributed's LoopRunner
    lock, the one its close needs), the run deadlocks: a CI run hung there once."""
    import gc
    from distributed import Client
    gc.disable()  # only annc's own collection may finalise it
    try:
        with pytest.raises(UsageError, match="cannot reach the Dask scheduler"):
            with Executor(scheduler=f"tcp://127.0.0.1:{_free_port()}", connect_timeout=1):
                pass
        # type(), not isinstance(): a dead weakref.proxy among the objects raises on isinstance
        assert not [o for o in gc.get_objects() if type(o) is Client]
    finally:
        gc.enable()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_check_workers(bad):
    with pytest.raises(UsageError, match="--workers"):
        check_workers(bad)
    assert check_workers(None) is None and check_workers(3) == 3


@pytest.mark.parametrize("bad", ["", "   ", "tcp://a b", 42])
def test_check_scheduler(bad):
    with pytest.raises(UsageError, match="--scheduler"):
        check_scheduler(bad)
    assert check_scheduler(" tcp://h:1 ") == "tcp://h:1"


def test_workers_and_scheduler_together_is_an_error():
    with pytest.raises(UsageError, match="not both"):
        Executor(workers=2, scheduler="tcp://127.0.0.1:1")


def test_a_malformed_scheduler_address_is_a_usage_error():
    with pytest.raises(UsageError, match="not a Dask scheduler address"):
        with Executor(scheduler="not-an-address", connect_timeout=2):
            pass


def test_no_loop_thread_with_a_deadline(monkeypatch):
    """Under load, distributed's own loop thread missed its fixed 10 s start (LoopRunner:
    ``assert loop is not None``): the executor hands the client and the cluster its own
    running loop, so distributed starts no loop thread of its own."""
    import distributed.utils

    class NoThread:
        def __init__(self, *a, **k):
            raise AssertionError("distributed started a loop thread with a 10 s deadline")

    monkeypatch.setattr(distributed.utils, "_CollectErrorThread", NoThread)
    with Executor(workers=1) as ex:
        assert ex.run(tasks.square, [3]) == [9]
    assert not [t for t in threading.enumerate() if t.name == "annc dask loop"]  # stopped with the executor


@pytest.mark.parametrize("workers", [1, 2])
def test_prepare_feeds_the_tasks_a_slot_at_a_time(workers):
    """With ``prepare`` at most ``slots`` tasks are in flight: each is prepared (and told how
    many are still waiting, itself included) only once an earlier one has finished."""
    events = []

    def prepare(i, item, waiting):
        events.append(("prepare", i, waiting, sum(e[0] == "done" for e in events)))
        return item + 1

    with Executor(workers=workers) as ex:
        assert ex.slots == workers
        out = ex.run(tasks.square, list(range(5)), on_result=lambda i, r: events.append(("done", i)), prepare=prepare)
    assert out == [(i + 1) ** 2 for i in range(5)]  # in item order, each as prepared
    prepared = [e for e in events if e[0] == "prepare"]
    assert [e[1:3] for e in prepared] == [(i, 5 - i) for i in range(5)]
    assert all(done >= i - workers for _, i, _, done in prepared)  # never more than `workers` in flight


def test_tasks_past_the_timeout_are_cancelled_and_said_so():
    with Executor(workers=1) as ex:
        out = ex.run(tasks.slow_square, range(4), names=[f"t{i}" for i in range(4)], timeout=1.5)
    assert out[0] == 0  # one second each on one worker: the first is back within the timeout
    late = [r for r in out if isinstance(r, TaskFailed)]
    assert late and all("1.5 s" in r.message and "cancelled" in r.message for r in late)
    assert all(isinstance(r, TaskFailed) or r == i * i for i, r in enumerate(out))
