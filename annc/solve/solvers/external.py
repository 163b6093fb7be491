"""What the drivers that run a solver as a program on a model file share: CBC
(:mod:`.cbc`), GLPK's glpsol (:mod:`.glpk`) and any command the user gives
(:mod:`.command`, ``--solver-cmd``) are each a :class:`ProgramDriver`.

The model is written to the work folder (or an MPS file already written for it is
reused), the program's solution file is read with annc's readers and aligned by
column name (or index) with :mod:`annc.io.solutions.align`, exactly as ``annc decode``
does.  Progress lines are parsed from the program's output by the driver's parser
(lines it does not know are ignored).  The program runs in its own process group; the
first Ctrl-C is forwarded to that whole group (a wrapper script and the solver it
starts) so that the solver can stop and write its incumbent (CBC does; glpsol cannot
and is stopped without one); a second Ctrl-C kills the group.

A stopped CBC 2.10 run can write a point that is not a solution (it sometimes loses
its incumbent while undoing its preprocessing, and writes a fractional or infeasible
point under the header ``Stopped on time``).  The point is checked against the model
before it is called feasible; if it is not a solution the status says so.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from ...core.errors import AnncError
from ...core.model import Model
from ...io.solutions import Status, read_solution
from ...io.solutions.align import check_finite, solution_vector
from ...io.writers import write_model
from .base import Clock, Progress, SolveOptions, SolveResult, interrupt_of, verdict
from .driver import Driver

NUMBER = r"([-+]?(?:\d[\d.]*|\.\d+)(?:[eE][-+]?\d+)?)"  # a number in a log line, as one group
_PLACEHOLDER = re.compile(r"\{model\}|\{sol\}")  # replaced in one pass: a path may hold "{sol}"


def _signal_group(proc: subprocess.Popen, sig) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, sig)  # the program leads its own group (start_new_session)
        else:  # pragma: no cover - Windows
            proc.send_signal(sig)
    except (ProcessLookupError, PermissionError):
        pass


def _run(cmd: list[str], clock: Clock, opts: SolveOptions, parse) -> tuple[int, bool, str]:
    """Run ``cmd``; feed its output lines to ``parse``; forward the first Ctrl-C."""
    intr = interrupt_of(opts)
    tail: list[str] = []
    if intr.requested:  # Ctrl-C before the solve started: do not start it
        return 130, True, "interrupted before the solver started"
    # Solvers printing through C stdio block-buffer their output into a pipe, so the
    # progress lines would only arrive at the end: stdbuf (GNU coreutils, inherited by a
    # wrapper script's children) makes their stdout line-buffered.
    stdbuf = shutil.which("stdbuf")
    full = [stdbuf, "-oL", "-eL"] + cmd if stdbuf and shutil.which(cmd[0]) else cmd
    try:
        proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                errors="replace", start_new_session=True, cwd=opts.workdir)
    except FileNotFoundError:
        raise AnncError(f"solver program not found: {cmd[0]}") from None
    except PermissionError:
        raise AnncError(f"solver program is not executable: {cmd[0]}") from None
    intr.on_interrupt = lambda: _signal_group(proc, signal.SIGINT)
    last = None
    try:
        with intr.armed():
            for line in proc.stdout:
                tail = (tail + [line.rstrip()])[-20:]
                found = parse(line)
                key = found and tuple(None if v is None else float(f"{v:.6g}") for v in found)
                if found and key != last and opts.progress:
                    last = key
                    opts.progress(Progress(clock(), *found))
            rc = proc.wait()
    except BaseException:  # a second Ctrl-C (or an error in a progress callback)
        _signal_group(proc, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        intr.on_interrupt = None
        proc.stdout.close()
    return rc, intr.requested, "\n".join(tail)


def _finish(name: str, model: Model, sol_path: Path, rc: int, interrupted: bool, tail: str,
            clock: Clock, bound) -> SolveResult:
    extra = {"solution_file": str(sol_path), "exit_code": rc}
    if not sol_path.exists() or sol_path.stat().st_size == 0:
        why = "interrupted" if interrupted else f"exit code {rc}"
        return SolveResult(name, Status.NO_SOLUTION, f"the program wrote no solution file ({why})"
                           + (f"; last output:\n{tail}" if tail and not interrupted else ""),
                           seconds=clock(), interrupted=interrupted, extra=extra)
    sol = read_solution(sol_path)
    if not sol.has_values or sol.status in (Status.INFEASIBLE, Status.UNBOUNDED, Status.NO_SOLUTION):
        st = sol.status if sol.status != Status.UNKNOWN else Status.NO_SOLUTION
        return SolveResult(name, st, sol.status_text, seconds=clock(), interrupted=interrupted, extra=extra)
    names = model.col_names()
    x = solution_vector(sol, names, sol_path)
    check_finite(x, names, sol_path)  # a NaN or inf value: VerificationError (exit 4), nothing decoded
    obj = model.objective(x)
    bad = model.check(x).violations  # the one feasibility rule (annc.core.feasibility)
    if bad:  # e.g. CBC 2.10 after losing its incumbent at a limit: never call it feasible
        return SolveResult(name, Status.UNKNOWN, f"{sol.status_text}; but the point in {sol_path.name} is "
                           f"not a solution of the model ({bad[0].describe()})", obj, bound, x, clock(),
                           interrupted, extra)
    if sol.status == Status.UNKNOWN:
        return SolveResult(name, Status.UNKNOWN, f"{sol.format} solution file carries no status",
                           obj, bound, x, clock(), interrupted, extra)
    proved = sol.status == Status.OPTIMAL and not interrupted
    bound = bound if bound is not None else sol.usable_bound()  # the log's, else the file's
    if bound is not None and bound > obj:  # a bound parsed from the log beyond the point:
        bound = obj if bound - obj <= 1e-9 * max(1.0, abs(obj)) else None  # rounding, or not this point's
    st, text = verdict(proved, True, obj, obj if proved else bound,
                       "interrupted" if interrupted else sol.status_text)
    return SolveResult(name, st, text, obj, obj if proved else bound, x, clock(), interrupted, extra)


@contextmanager
def _workdir(opts: SolveOptions):
    """``opts.workdir``, or a temporary folder removed afterwards."""
    if opts.workdir:
        Path(opts.workdir).mkdir(parents=True, exist_ok=True)
        yield Path(opts.workdir)
    else:
        with tempfile.TemporaryDirectory(prefix="annc-") as tmp:
            yield Path(tmp)


def _model_file(model: Model, opts: SolveOptions, work: Path) -> Path:
    """The MPS file of ``model``: the one already written (``opts.model_file``) or a new one."""
    if opts.model_file and Path(opts.model_file).exists():
        return Path(opts.model_file)
    return write_model(model, work / f"{model.name}.mps", "mps")


class ProgramDriver(Driver):
    """A solver run as a program: a subclass gives the program's words
    (:meth:`command`, with ``{model}`` and ``{sol}`` where the file paths go), the parser
    of its progress lines and the suffix of its solution file."""

    in_memory = False
    solution_suffix = "sol"

    def command(self, opts: SolveOptions) -> list[str]:
        """The program and its arguments, checked before anything is written."""
        raise NotImplementedError

    def progress_parser(self, state: list) -> Callable[[str], tuple | None]:
        """A function of one output line that updates ``state = [incumbent, bound]`` and
        returns it when the line had news (None otherwise)."""
        raise NotImplementedError

    def check_exit(self, cmd: list[str], rc: int, interrupted: bool, sol: Path, tail: str) -> None:
        """Raise if the program's exit is an error to report as such (by default a
        missing solution file is reported as no solution, with the program's last lines)."""

    def solve(self, model: Model, opts: SolveOptions) -> SolveResult:
        words = self.command(opts)
        clock, state = Clock(), [None, None]
        with _workdir(opts) as work:
            mps, sol = _model_file(model, opts, work), work / f"{model.name}.{self.solution_suffix}"
            sol.unlink(missing_ok=True)
            paths = {"{model}": str(mps.resolve()), "{sol}": str(sol.resolve())}
            cmd = [_PLACEHOLDER.sub(lambda m: paths[m.group()], w) for w in words]
            rc, intr, tail = _run(cmd, clock, opts, self.progress_parser(state))
            self.check_exit(cmd, rc, intr, sol, tail)
            return _finish(self.name, model, sol, rc, intr, tail, clock, state[1])

