"""SCIP solution files (``write solution`` in the shell; ``writeBestSol``, ``writeSol``).

::

    solution status: optimal solution found      <- only from the interactive shell
    objective value:                                   41
    b                                                   1 	(obj:2)

Only non-zero variables are listed.  ``no solution available`` replaces the body when
there is none.  ``writeBestTransSol`` writes the transformed problem: its names start
with ``t_`` and its objective is the transformed one.
"""
from __future__ import annotations

from .common import RawSolution, Source, Status

FORMAT = "scip"
_NAME = "SCIP"
_STATUS, _OBJECTIVE, _NONE = "solution status:", "objective value:", "no solution available"
OPENINGS = (_STATUS, _OBJECTIVE, _NONE)
_STATUSES = {"optimal solution found": Status.OPTIMAL, "infeasible": Status.INFEASIBLE,
             "unbounded": Status.UNBOUNDED}
_LIMITS = {"user interrupt", "node limit reached", "total node limit reached",
           "stall node limit reached", "time limit reached", "memory limit reached",
           "gap limit reached", "primal limit reached", "dual limit reached",
           "solution limit reached", "solution improvement limit reached",
           "restart limit reached", "termination signal received"}


def sniff(first: str, second: str) -> bool:
    return first.startswith(OPENINGS)


def read(src: Source) -> RawSolution:
    text = objective = None
    values: dict[str, float] = {}
    lineno = 1
    try:
        for lineno, line in enumerate(src.lines, 1):
            if line.startswith(_STATUS):
                text = line[len(_STATUS):].strip()
            elif line.startswith(_OBJECTIVE):
                objective = src.number(line[len(_OBJECTIVE):], lineno,
                                       "'objective value: <number>'", _NAME)
            elif line.strip() and line.strip() != _NONE:
                name, value = line.partition("(obj:")[0].rsplit(None, 1)
                if name in values:
                    raise src.duplicate(lineno, name)
                values[name] = float(value)
    except ValueError:
        raise src.expected(lineno, "'<name> <value> (obj:<cost>)'", _NAME) from None
    if text is not None:
        status = _STATUSES.get(text, Status.UNKNOWN)
        if text in _LIMITS:
            status = Status.FEASIBLE if objective is not None else Status.NO_SOLUTION
    elif objective is None and not values:
        status, text = Status.NO_SOLUTION, _NONE
    else:
        status, text = Status.UNKNOWN, "no status (SCIP writes one only from its shell)"
    if values and all(name.startswith("t_") for name in values):
        text += "; transformed problem (names start with 't_', transformed objective)"
    return RawSolution(format=FORMAT, status=status, status_text=text, objective=objective,
                       values=values, omits_zeros=True)
