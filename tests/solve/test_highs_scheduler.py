"""HiGHS's process-wide scheduler (annc.solve.solvers.highs_scheduler): solves with different
thread counts work in one process, in any order, whatever ran before them."""
import subprocess
import sys
import threading

import highspy
import numpy as np
import pytest

import annc
from annc.solve.solvers import SolveOptions, solve
from annc.solve.solvers.highs_scheduler import new_highs, run as run_highs


def _tiny_mip():
    h = new_highs()
    inf = highspy.kHighsInf
    h.addVar(0, 10)
    h.addVar(0, 10)
    h.changeColIntegrality(0, highspy.HighsVarType.kInteger)
    h.changeColCost(0, -1)
    h.changeColCost(1, -1)
    h.addRow(-inf, 3.5, 2, np.array([0, 1], dtype=np.int32), np.array([1.0, 1.0]))
    return h


@pytest.mark.parametrize("order", [(2, 1, None, 2, 1), (1, 2, 1, None, 1), (None, 1, 2, 2, None)])
def test_any_sequence_of_thread_counts_runs(order):
    for threads in order:
        h = _tiny_mip()
        assert run_highs(h, threads=threads) == highspy.HighsStatus.kOk, threads
        assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
        assert h.getInfo().objective_function_value == pytest.approx(-3.5)


def test_different_counts_from_threads_of_one_process():
    """Runs asking for 1 and 2 threads at once, each thread with its own scheduler, are not refused."""
    failures = []

    def work(threads):
        for _ in range(5):
            h = _tiny_mip()
            if run_highs(h, threads=threads) != highspy.HighsStatus.kOk:
                failures.append(threads)

    ts = [threading.Thread(target=work, args=(n,)) for n in (1, 2, 1, 2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert not any(t.is_alive() for t in ts)
    assert failures == []


@pytest.mark.parametrize("first,second", [(2, 1), (1, 2)])
def test_train_with_two_thread_counts_in_one_process(first, second):
    """``annc.train(threads=2)`` then ``annc.train(threads=1)``, and the other order, in a
    fresh process (so no earlier test has chosen the scheduler's count).  The full MIP alone
    (no start), on 12 rows that one threshold separates: HiGHS proves it in about a second
    (the paper's XOR took it about 10 s a run)."""
    code = (
        "import annc, numpy as np\n"
        "X = np.array([[i / 10, (i * 7 % 11) / 10] for i in range(12)])\n"
        f"for t in ({first}, {second}):\n"
        "    r = annc.train('input 2\\nhidden 2 binary\\noutput 2\\n', (X, (X[:, 0] > 0.55).astype(int)), threads=t, "
        "time_limit=30, warm_start=False, select=False)\n"
        "    assert r.verified, t\n"
        "    print(t, r.status.value)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split() == [str(first), "optimal", str(second), "optimal"]


def test_driver_solves_after_a_direct_run_with_another_count():
    """The driver's lease resets a scheduler that a direct run started with another count."""
    h = _tiny_mip()
    assert run_highs(h, threads=2) == highspy.HighsStatus.kOk
    X = np.array([[i / 10, (i * 7 % 11) / 10] for i in range(12)])  # one threshold: proven in under a second
    c = annc.compile("input 2\nhidden 2 binary\noutput 2\n", (X, (X[:, 0] > 0.55).astype(int)), start=False)
    r = solve(c.model, "highs", SolveOptions(threads=1, time_limit=30))
    assert r.x is not None and r.status.value == "optimal"
    # the driver solved in a thread of its own: this thread's scheduler still runs 2, and
    # the next explicit count here resets it (HiGHS's scheduler belongs to the calling thread)
    for threads in (1, 2, 1):
        h = _tiny_mip()
        assert run_highs(h, threads=threads) == highspy.HighsStatus.kOk, threads
        assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal


def test_no_banner_on_stdout():
    """highspy 1.16 prints a banner when a process makes its first Highs: new_highs hides it."""
    code = ("from annc.solve.solvers.highs_scheduler import new_highs\n"
            "h = new_highs(); h2 = new_highs(); print('done')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "done\n"
