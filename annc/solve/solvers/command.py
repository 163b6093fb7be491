"""Any solver program the user names (``--solver-cmd``, solver "cmd"; see
:mod:`.external` for what the program drivers share).

The template's ``{model}`` and ``{sol}`` are replaced by the paths of the MPS file and
of the solution file, which may be in any format annc reads (sniffed).  annc passes no
options (time limit, gap, threads): the template says what the program is to do.  The
program's output is scanned for CBC-style progress lines; whether it keeps its
incumbent on Ctrl-C is up to the program.
"""
from __future__ import annotations

import shlex
from pathlib import Path

from ...core.errors import AnncError
from .base import SolveOptions
from .cbc import cbc_line
from .external import ProgramDriver


class CommandDriver(ProgramDriver):
    name = "cmd"
    title = "a solver command"
    start_format = None  # a command is handed no start file (annc.io.writers.startfiles)
    progress = True
    solution_suffix = "sol"

    def command(self, opts: SolveOptions) -> list[str]:
        template = opts.command or ""
        if "{model}" not in template or "{sol}" not in template:
            raise AnncError("--solver-cmd needs both {model} and {sol} in its template, e.g. "
                            "'gurobi_cl ResultFile={sol} {model}'")
        try:
            return shlex.split(template)
        except ValueError as e:
            raise AnncError(f"--solver-cmd: cannot split {template!r} into words: {e}") from None

    def progress_parser(self, state: list):
        return cbc_line(state)

    def check_exit(self, cmd: list[str], rc: int, interrupted: bool, sol: Path, tail: str) -> None:
        if rc != 0 and not interrupted and not sol.exists():
            raise AnncError(f"solver command failed with exit code {rc}: {shlex.join(cmd)}"
                            + (f"\n{tail}" if tail else ""))
