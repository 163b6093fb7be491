"""Solvers run as programs on a model file: CBC (the binary inside PuLP), GLPK's
glpsol, and any command the user gives (``--solver-cmd``).

The model is written to the work folder (or an MPS file already written for it is
reused), the program's solution file is read with annc's readers and aligned by
column name (or index), exactly as ``annc decode`` does.  Progress lines are parsed
from the program's output (CBC's log format; other programs' lines are ignored).  The
program runs in its own process group; the first Ctrl-C is forwarded to that whole
group (a wrapper script and the solver it starts) so that the solver can stop and
write its incumbent (CBC does; glpsol cannot and is stopped without one); a second
Ctrl-C kills the group.

A stopped CBC 2.10 run can write a point that is not a solution (it sometimes loses
its incumbent while undoing its preprocessing, and writes a fractional or infeasible
point under the header ``Stopped on time``).  The point is checked against the model
before it is called feasible; if it is not a solution the status says so.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

from ..decode import check_finite, solution_vector
from ..errors import AnncError
from ..model import Model
from ..solutions import Status, read_solution
from ..writers import write_model
from .base import Clock, Progress, SolveOptions, SolveResult, interrupt_of, verdict

_NUM = r"([-+]?(?:\d[\d.]*|\.\d+)(?:[eE][-+]?\d+)?)"
CBC_PATTERNS = [  # (regex, group of incumbent, group of bound); 1e+50 means "none"
    (re.compile(r"Cbc0010I After \d+ nodes, \d+ on tree, " + _NUM + r" best solution, best possible " + _NUM), 1, 2),
    (re.compile(r"Cbc00(?:04|12)I Integer solution of " + _NUM), 1, None),
    (re.compile(r"Cbc0005I Partial search - best objective " + _NUM + r" \(best possible " + _NUM), 1, 2),
    (re.compile(r"Cbc0001I Search completed - best objective " + _NUM), 1, None),
    (re.compile(r"Cbc0013I At root node, .* objective from \S+ to " + _NUM), None, 1),
    (re.compile(r"^Continuous objective value is " + _NUM), None, 1),
]
NO_VALUE = 1e49  # CBC prints 1e+50 for "no incumbent"
# glpsol: "+  2739: >>>>>  4.2e-01 >=   0.0e+00 224.0% (227; 21)" (a new incumbent) and
# "+   208: mip =  4.2e-01 >=  1.0e-01  76.2% (1; 0)"; the bound may be "-inf" or "tree is empty"
GLPK_PATTERN = re.compile(r"^[+*]\s*\d+:\s+(?:mip\s+=|>>>>>)\s+" + _NUM + r"\s+[<>]=\s+(" + _NUM[1:-1]
                          + r"|-inf|tree is empty)")


def cbc_path() -> str:
    """The CBC binary bundled with PuLP (read off the class: instantiating PULP_CBC_CMD
    warns that it is deprecated), else ``cbc`` on PATH."""
    try:
        from pulp.apis.coin_api import PULP_CBC_CMD
        path = PULP_CBC_CMD.pulp_cbc_path
        if path and os.access(path, os.X_OK):
            return os.path.realpath(path)
    except Exception:  # noqa: BLE001 - no PuLP, or a PuLP without its bundled CBC
        pass
    exe = shutil.which("cbc")
    if exe:
        return exe
    raise AnncError("CBC not found: pip install pulp (it bundles CBC), or put cbc on PATH")


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


def _cbc_line(state):
    """Parse CBC log lines into ``state = [incumbent, bound]``; return it when a line had news."""
    def value(text):
        v = float(text)
        return None if abs(v) >= NO_VALUE else v

    def parse(line):
        for rx, gi, gb in CBC_PATTERNS:
            m = rx.search(line)
            if m:
                if gi:
                    inc = value(m.group(gi))
                    state[0] = inc if inc is not None else state[0]
                if gb:
                    bnd = value(m.group(gb))
                    state[1] = bnd if bnd is not None else state[1]
                return state[0], state[1]
        return None
    return parse


def _glpk_line(state):
    def parse(line):
        m = GLPK_PATTERN.search(line)
        if not m:
            return None
        inc, bnd = float(m.group(1)), m.group(2)
        state[0] = inc
        if bnd == "tree is empty":
            state[1] = inc
        elif bnd != "-inf":
            state[1] = float(bnd)
        return tuple(state)
    return parse


FEAS_TOL = 1e-5  # as annc.verify: a point further off than this is not a solution


def _not_a_solution(model: Model, x) -> str | None:
    """Why ``x`` is not a solution of ``model`` (None if it is one, within tolerances)."""
    v = model.violations(x)
    scale = max(1.0, float(abs(model.rhs).max(initial=0.0)))
    # "not (v <= tol)": a NaN (an overflow in the row activities) is a violation too
    if not v["integrality"]["max"] <= FEAS_TOL:
        return f"{v['integrality']['where']} is {v['integrality']['max']:.3g} away from an integer"
    if not v["bound"]["max"] <= FEAS_TOL:
        return f"bound violated by {v['bound']['max']:.3g} at {v['bound']['where']}"
    if not v["row"]["max"] <= FEAS_TOL * scale:
        return f"row {v['row']['where']} violated by {v['row']['max']:.3g}"
    return None


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
    bad = _not_a_solution(model, x)
    if bad:  # e.g. CBC 2.10 after losing its incumbent at a limit: never call it feasible
        return SolveResult(name, Status.UNKNOWN, f"{sol.status_text}; but the point in {sol_path.name} is "
                           f"not a solution of the model ({bad})", obj, bound, x, clock(), interrupted, extra)
    if sol.status == Status.UNKNOWN:
        return SolveResult(name, Status.UNKNOWN, f"{sol.format} solution file carries no status",
                           obj, bound, x, clock(), interrupted, extra)
    proved = sol.status == Status.OPTIMAL and not interrupted
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


def solve_cbc(model: Model, opts: SolveOptions) -> SolveResult:
    clock, state = Clock(), [None, None]
    with _workdir(opts) as work:
        mps, sol = _model_file(model, opts, work), work / f"{model.name}.cbc.sol"
        sol.unlink(missing_ok=True)
        # -timeMode elapsed: the limit is wall-clock seconds, as for every other solver
        # (CBC counts CPU seconds by default).
        cmd = [cbc_path(), str(mps.resolve()), "-timeMode", "elapsed"]
        if opts.time_limit is not None:
            cmd += ["-sec", repr(float(opts.time_limit))]
        if opts.gap is not None:
            cmd += ["-ratio", repr(float(opts.gap))]
        if opts.threads is not None:
            cmd += ["-threads", str(int(opts.threads))]
        cmd += ["-solve", "-solu", str(sol.resolve())]
        rc, intr, tail = _run(cmd, clock, opts, _cbc_line(state))
        return _finish("cbc", model, sol, rc, intr, tail, clock, state[1])


def solve_glpk(model: Model, opts: SolveOptions) -> SolveResult:
    exe = shutil.which("glpsol")
    if not exe:
        raise AnncError("glpsol is not on PATH (Debian/Ubuntu: apt-get install glpk-utils)")
    clock, state = Clock(), [None, None]
    with _workdir(opts) as work:
        mps, sol = _model_file(model, opts, work), work / f"{model.name}.glpk.raw"
        sol.unlink(missing_ok=True)
        cmd = [exe, "--freemps", str(mps.resolve()), "-w", str(sol.resolve())]
        if opts.time_limit is not None:
            cmd += ["--tmlim", str(max(1, int(round(opts.time_limit))))]
        if opts.gap is not None:
            cmd += ["--mipgap", str(opts.gap)]
        rc, intr, tail = _run(cmd, clock, opts, _glpk_line(state))
        return _finish("glpk", model, sol, rc, intr, tail, clock, state[1])


def solve_command(model: Model, opts: SolveOptions) -> SolveResult:
    """Run ``opts.command`` with ``{model}`` and ``{sol}`` replaced by file paths.

    The solution file may be in any format annc reads (sniffed); the program's output
    is scanned for CBC-style progress lines.
    """
    template = opts.command or ""
    if "{model}" not in template or "{sol}" not in template:
        raise AnncError("--solver-cmd needs both {model} and {sol} in its template, e.g. "
                        "'gurobi_cl ResultFile={sol} {model}'")
    clock, state = Clock(), [None, None]
    with _workdir(opts) as work:
        mps, sol = _model_file(model, opts, work), work / f"{model.name}.sol"
        sol.unlink(missing_ok=True)
        try:
            words = shlex.split(template)
        except ValueError as e:
            raise AnncError(f"--solver-cmd: cannot split {template!r} into words: {e}") from None
        paths = {"{model}": str(mps.resolve()), "{sol}": str(sol.resolve())}
        cmd = [_fill(w, paths) for w in words]
        rc, intr, tail = _run(cmd, clock, opts, _cbc_line(state))
        if rc != 0 and not intr and not sol.exists():
            raise AnncError(f"solver command failed with exit code {rc}: {shlex.join(cmd)}"
                            + (f"\n{tail}" if tail else ""))
        return _finish("cmd", model, sol, rc, intr, tail, clock, state[1])


def _fill(word: str, paths: dict) -> str:
    for key, path in paths.items():
        word = word.replace(key, path)
    return word
