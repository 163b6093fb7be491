"""Solvers run as programs on a model file: CBC (the binary inside PuLP), GLPK's
glpsol, and any command the user gives (``--solver-cmd``).

The model is written to the work folder, the program's solution file is read with
annc's readers and aligned by column name (or index), exactly as ``annc decode``
does.  Progress lines are parsed from the program's output.  The program runs in its
own process group; Ctrl-C is forwarded to it once so that it can stop and write its
incumbent (CBC does; glpsol cannot and is stopped without one).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from ..decode import solution_vector
from ..errors import AnncError
from ..model import Model
from ..solutions import Status, read_solution
from ..writers import write_model
from .base import Clock, Interrupt, Progress, SolveOptions, SolveResult, verdict

_NUM = r"([-+]?\d[\d.eE+-]*)"
CBC_PATTERNS = [  # (regex, group of incumbent, group of bound)
    (re.compile(r"Cbc0010I After \d+ nodes, \d+ on tree, " + _NUM + r" best solution, best possible " + _NUM), 1, 2),
    (re.compile(r"Cbc0012I Integer solution of " + _NUM), 1, None),
    (re.compile(r"Cbc0010I After \d+ nodes, \d+ on tree, 1e\+50 best solution, best possible " + _NUM), None, 1),
]
GLPK_PATTERN = re.compile(r"^[+*]\s*\d+: (?:mip|>>>>>) =\s+" + _NUM + r"\s+[<>]=\s+" + _NUM)


def cbc_path() -> str:
    import pulp
    return pulp.apis.PULP_CBC_CMD().path


def _run(cmd: list[str], clock: Clock, opts: SolveOptions, parse) -> tuple[int, bool, str]:
    """Run ``cmd``; feed stdout lines to ``parse``; forward the first Ctrl-C."""
    intr = Interrupt()
    tail: list[str] = []
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True, cwd=opts.workdir)
    except FileNotFoundError:
        raise AnncError(f"solver program not found: {cmd[0]}") from None
    intr.on_interrupt = lambda: proc.send_signal(signal.SIGINT)
    with intr.armed():
        for line in proc.stdout:
            tail = (tail + [line.rstrip()])[-20:]
            found = parse(line)
            if found and opts.progress:
                opts.progress(Progress(clock(), *found))
        rc = proc.wait()
    return rc, intr.requested, "\n".join(tail)


def _cbc_line(state):
    def parse(line):
        for rx, gi, gb in CBC_PATTERNS:
            m = rx.search(line)
            if m:
                if gi:
                    state[0] = float(m.group(gi))
                if gb:
                    state[1] = float(m.group(gb))
                return state[0], state[1]
        return None
    return parse


def _glpk_line(state):
    def parse(line):
        m = GLPK_PATTERN.search(line)
        if m:
            state[:] = [float(m.group(1)), float(m.group(2))]
            return tuple(state)
        return None
    return parse


def _finish(name: str, model: Model, sol_path: Path, rc: int, interrupted: bool, tail: str,
            clock: Clock, bound) -> SolveResult:
    if not sol_path.exists() or sol_path.stat().st_size == 0:
        why = "interrupted" if interrupted else f"exit code {rc}"
        return SolveResult(name, Status.NO_SOLUTION, f"no solution file ({why})\n{tail}",
                           seconds=clock(), interrupted=interrupted)
    sol = read_solution(sol_path)
    if not sol.has_values or sol.status in (Status.INFEASIBLE, Status.UNBOUNDED, Status.NO_SOLUTION):
        st = sol.status if sol.status != Status.UNKNOWN else Status.NO_SOLUTION
        return SolveResult(name, st, sol.status_text, seconds=clock(), interrupted=interrupted)
    x = solution_vector(sol, model.col_names(), sol_path)
    obj = float(model.obj @ x + model.obj_const)
    if sol.status == Status.UNKNOWN:
        return SolveResult(name, Status.UNKNOWN, f"{sol.format} solution file carries no status",
                           obj, bound, x, clock(), interrupted, {"solution_file": str(sol_path)})
    proved = sol.status == Status.OPTIMAL and not interrupted
    st, text = verdict(proved, True, obj, obj if proved else bound,
                       "interrupted" if interrupted else sol.status_text)
    return SolveResult(name, st, text, obj, obj if proved else bound, x, clock(), interrupted,
                       {"solution_file": str(sol_path)})


def _workdir(opts: SolveOptions) -> Path:
    return Path(opts.workdir or tempfile.mkdtemp(prefix="annc-"))


def solve_cbc(model: Model, opts: SolveOptions) -> SolveResult:
    work, clock, state = _workdir(opts), Clock(), [None, None]
    mps, sol = work / f"{model.name}.mps", work / f"{model.name}.cbc.sol"
    write_model(model, mps, "mps")
    sol.unlink(missing_ok=True)
    cmd = [cbc_path(), str(mps)]
    if opts.time_limit is not None:
        cmd += ["-sec", str(opts.time_limit)]
    if opts.gap is not None:
        cmd += ["-ratio", str(opts.gap)]
    if opts.threads is not None:
        cmd += ["-threads", str(opts.threads)]
    cmd += ["-solve", "-solu", str(sol)]
    rc, intr, tail = _run(cmd, clock, opts, _cbc_line(state))
    return _finish("cbc", model, sol, rc, intr, tail, clock, state[1])


def solve_glpk(model: Model, opts: SolveOptions) -> SolveResult:
    exe = shutil.which("glpsol")
    if not exe:
        raise AnncError("glpsol is not on PATH (Debian/Ubuntu: apt-get install glpk-utils)")
    work, clock, state = _workdir(opts), Clock(), [None, None]
    mps, sol = work / f"{model.name}.mps", work / f"{model.name}.glpk.raw"
    write_model(model, mps, "mps")
    sol.unlink(missing_ok=True)
    cmd = [exe, "--freemps", str(mps), "-w", str(sol)]
    if opts.time_limit is not None:
        cmd += ["--tmlim", str(max(1, int(round(opts.time_limit))))]
    if opts.gap is not None:
        cmd += ["--mipgap", str(opts.gap)]
    rc, intr, tail = _run(cmd, clock, opts, _glpk_line(state))
    return _finish("glpk", model, sol, rc, intr, tail, clock, state[1])


def solve_command(model: Model, opts: SolveOptions) -> SolveResult:
    """Run ``opts.command`` with ``{model}`` and ``{sol}`` replaced by file paths."""
    template = opts.command or ""
    if "{model}" not in template or "{sol}" not in template:
        raise AnncError("--solver-cmd needs both {model} and {sol} in its template, e.g. "
                        "'gurobi_cl ResultFile={sol} {model}'")
    work, clock = _workdir(opts), Clock()
    mps, sol = work / f"{model.name}.mps", work / f"{model.name}.sol"
    write_model(model, mps, "mps")
    sol.unlink(missing_ok=True)
    cmd = shlex.split(template.replace("{model}", shlex.quote(str(mps))).replace("{sol}", shlex.quote(str(sol))))
    state = [None, None]
    rc, intr, tail = _run(cmd, clock, opts, _cbc_line(state))
    if rc != 0 and not sol.exists():
        raise AnncError(f"solver command failed with exit code {rc}: {' '.join(cmd)}\n{tail}")
    return _finish("cmd", model, sol, rc, intr, tail, clock, state[1])
