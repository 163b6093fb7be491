"""Ctrl-C outside a solver: the first SIGINT is a request at any point of a run (the start
pool, the searches, a sub-MIP), so the run keeps the best network found so far, or says
that none exists yet; only a second one aborts (exit 130)."""
import os
import signal
import subprocess
import sys
import threading

import pytest

from annc.io.datasets import write_csv, xor_data
from annc.solve.solvers.base import Interrupt

from conftest import ROOT


def test_first_ctrl_c_without_a_solution_is_a_request():
    log = []
    intr = Interrupt(log=log.append)
    with intr.armed():  # no solver running, nothing found yet
        os.kill(os.getpid(), signal.SIGINT)
        assert intr.requested and log == [Interrupt.NOTHING_YET]
        with pytest.raises(KeyboardInterrupt):  # the second aborts
            os.kill(os.getpid(), signal.SIGINT)


def test_a_sub_mip_passes_ctrl_c_on_to_the_run():
    run, sub = Interrupt(), Interrupt()
    with run.armed():
        with sub.armed():  # a sub-MIP with its own Interrupt (the start pool's output layers)
            os.kill(os.getpid(), signal.SIGINT)
        assert run.requested and not sub.requested  # the run has nothing yet: the sub-MIP goes on
    run2, sub2 = Interrupt(), Interrupt()
    run2.has_solution = True
    with run2.armed(), sub2.armed():
        os.kill(os.getpid(), signal.SIGINT)
    assert run2.requested and sub2.requested  # the run has a network: the sub-MIP stops too


def test_ctrl_c_in_the_start_pool_keeps_a_network(tmp_path):
    """SIGINT as soon as the progress output says the start pool has begun (before its
    first candidate): exit 0 with a verified network, not 130 "aborted"."""
    X, y = xor_data(2000, noise=0.1, seed=0)
    csv = write_csv(tmp_path / "x.csv", X, y)
    spec = tmp_path / "net.ann"
    spec.write_text("input 5\nhidden 8 binary\noutput 2\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # a time limit far above what the run takes: the start pool's cap (a share of it) must not end
    # the pool before its first candidate on a busy machine (then nothing exists to keep, and the
    # run rightly ends with exit 3); after the Ctrl-C the run takes seconds, not the limit
    proc = subprocess.Popen([sys.executable, "-m", "annc.app.cli", "train", str(spec), str(csv), "--no-merge",
                             "--time-limit", "300", "-o", str(tmp_path / "out")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    watchdog = threading.Timer(240, proc.kill)
    watchdog.start()
    try:
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if "start pool: 0 candidates tried" in line:
                break
        else:
            pytest.fail("no progress line of the start pool:\n" + "".join(seen))
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=200)
    finally:
        watchdog.cancel()
    out = "".join(seen) + rest
    assert proc.returncode == 0, out + err
    assert "aborted" not in err and "Traceback" not in err
    assert "interrupt: stopping" in err
    assert "by Ctrl-C: the best solution found was kept" in out
    assert "verification          passed" in out
    assert (tmp_path / "out" / "net.weights.json").is_file()


def test_selection_stops_after_a_candidate_interrupted_before_any_network():
    """A first Ctrl-C no longer aborts a run with nothing found yet: the run ends with no
    solution, and --select (one candidate after another) trains no further candidate."""
    from annc.core.errors import NoSolutionError
    from annc.training.context import RunContext
    from annc.training.modelselect.selection import Row, _train_sequentially

    def train(cand, fit, val, time_limit):
        err = NoSolutionError("[x] highs: interrupted before the solver found any solution")
        err.interrupted = True
        raise err

    rows = [Row(f"c{i}", "") for i in range(3)]
    _train_sequentially([(f"c{i}", None) for i in range(3)], None, None, train, rows, log=lambda line: None,
                        ctx=RunContext())
    assert "interrupted" in rows[0].error
    assert rows[1].error == rows[2].error and "not trained" in rows[1].error and "interrupted" in rows[1].error
