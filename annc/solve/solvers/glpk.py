"""GLPK's ``glpsol`` run as a program (see :mod:`.external` for what the program
drivers share).

Progress is parsed from glpsol's branch-and-bound lines.  glpsol cannot stop with its
incumbent: a Ctrl-C stops it without a solution.  It takes its time limit in whole
seconds and has no thread count.
"""
from __future__ import annotations

import re
import shutil

from ...core.errors import EnvironmentLimitError
from .base import SolveOptions
from .external import NUMBER, ProgramDriver

# "+  2739: >>>>>  4.2e-01 >=   0.0e+00 224.0% (227; 21)" (a new incumbent) and
# "+   208: mip =  4.2e-01 >=  1.0e-01  76.2% (1; 0)"; the bound may be "-inf" or "tree is empty"
GLPK_PATTERN = re.compile(r"^[+*]\s*\d+:\s+(?:mip\s+=|>>>>>)\s+" + NUMBER + r"\s+[<>]=\s+(" + NUMBER[1:-1]
                          + r"|-inf|tree is empty)")


def glpk_line(state):
    """Parse glpsol's lines into ``state = [incumbent, bound]``; return it when a line had news."""
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


class GlpkDriver(ProgramDriver):
    name = "glpk"
    title = "GLPK"
    start_format = None  # glpsol takes no MIP start on its command line (annc.io.writers.startfiles)
    progress = True
    parameters = {"time_limit": "--tmlim", "gap": "--mipgap"}
    conversions = {"time_limit": lambda seconds: max(1, int(round(seconds)))}
    native_prefix = "--"  # --solver-option NAME=VALUE -> --NAME VALUE
    solution_suffix = "glpk.raw"

    def command(self, opts: SolveOptions) -> list[str]:
        exe = shutil.which("glpsol")
        if not exe:
            raise EnvironmentLimitError("glpsol is not on PATH (Debian/Ubuntu: apt-get install glpk-utils), "
                                        "or use --solver highs (bundled)")
        options = [str(word) for setting in self.settings(opts) for word in setting]
        return [exe, "--freemps", "{model}", "-w", "{sol}", *options]

    def progress_parser(self, state: list):
        return glpk_line(state)
