"""CBC run as a program: the binary of the ``cbcbox`` package (PuLP's ``pulp[cbc]``), else the one
bundled with PuLP while it exists, else ``cbc`` on PATH (see :mod:`.external` for what the
program drivers share).

Progress is parsed from CBC's log lines.  The first Ctrl-C is forwarded to CBC, which
stops and writes its incumbent.  ``-timeMode elapsed`` makes the limit wall-clock
seconds, as for every other solver (CBC counts CPU seconds by default).
"""
from __future__ import annotations

import os
import re
import shutil

from ...core.errors import EnvironmentLimitError
from .base import SolveOptions
from .external import NUMBER, ProgramDriver

CBC_PATTERNS = [  # (regex, group of incumbent, group of bound); 1e+50 means "none"
    (re.compile(r"Cbc0010I After \d+ nodes, \d+ on tree, " + NUMBER + r" best solution, best possible "
                + NUMBER), 1, 2),
    (re.compile(r"Cbc00(?:04|12)I Integer solution of " + NUMBER), 1, None),
    (re.compile(r"Cbc0005I Partial search - best objective " + NUMBER + r" \(best possible " + NUMBER), 1, 2),
    (re.compile(r"Cbc0001I Search completed - best objective " + NUMBER), 1, None),
    (re.compile(r"Cbc0013I At root node, .* objective from \S+ to " + NUMBER), None, 1),
    (re.compile(r"^Continuous objective value is " + NUMBER), None, 1),
    # CBC devel (cbcbox): a table row of the branch and bound (Nodes OnTree Depth BestSol
    # [Method] BestBound Gap% Time), a starred line of a heuristic's new solution, the
    # root LP, the summary line
    (re.compile(r"^\s*(?:\u2605\s*)?\d+\s+\d+\s+\d+\s+" + NUMBER + r"\s+(?:[A-Za-z][\w&-]*\s+)?" + NUMBER
                + r"\s+[\d.]+%"), 1, 2),
    (re.compile(r"^\s*\u2605.*\bsolution\s+" + NUMBER), 1, None),
    (re.compile(r"\u2714 LP Optimal\b.*\bObj: " + NUMBER), None, 1),
    (re.compile(r"BestSol: " + NUMBER + r"\s+Bound: " + NUMBER), 1, 2),
]
NO_VALUE = 1e49  # CBC prints 1e+50 for "no incumbent"


def cbc_path() -> str:
    """The CBC binary of the ``cbcbox`` package (``pip install "pulp[cbc]"`` or
    ``annc[solvers]``), else the one bundled with PuLP while PuLP still ships it
    (deprecated since PuLP 3.3, gone in 4.0; read off the class, since instantiating
    ``PULP_CBC_CMD`` warns), else ``cbc`` on PATH."""
    for found in (_cbcbox_path, _pulp_bundled_path, lambda: shutil.which("cbc")):
        path = found()
        if path and os.access(path, os.X_OK):
            return os.path.realpath(path)
    raise EnvironmentLimitError('CBC not found: pip install "pulp[cbc]" (the cbcbox package), or put cbc on '
                                'PATH, or use --solver highs (bundled)')


def _cbcbox_path() -> str | None:
    try:
        import cbcbox
        return cbcbox.cbc_bin_path()
    except Exception:  # noqa: BLE001 - not installed, or no build for this platform
        return None


def _pulp_bundled_path() -> str | None:
    try:
        from pulp.apis.coin_api import PULP_CBC_CMD
        return PULP_CBC_CMD.pulp_cbc_path
    except Exception:  # noqa: BLE001 - no PuLP, or a PuLP without its bundled CBC
        return None


def cbc_line(state):
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


class CbcDriver(ProgramDriver):
    name = "cbc"
    title = "CBC"
    start_format = 'cbc-mipstart'  # the start file it reads (annc.io.writers.startfiles)
    progress = interrupt = True
    parameters = {"time_limit": "-sec", "gap": "-ratio", "threads": "-threads", "node_limit": "-maxNodes"}
    native_prefix = "-"  # --solver-option NAME=VALUE -> -NAME VALUE
    solution_suffix = "cbc.sol"

    def command(self, opts: SolveOptions) -> list[str]:
        options = [str(word) for setting in self.settings(opts) for word in setting]
        return [cbc_path(), "{model}", "-timeMode", "elapsed", *options, "-solve", "-solu", "{sol}"]

    def progress_parser(self, state: list):
        return cbc_line(state)
