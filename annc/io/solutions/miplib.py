"""MIPLIB solution files (the format of the MIPLIB 2017 solution checker).

::

    =obj= 41
    a_very_long_variable_name_alpha 5

``=infeas=`` instead of ``=obj=`` says the problem is infeasible and ``=unkn=`` that no
solution is known.  Variables not listed are zero.
"""
from __future__ import annotations

from .common import RawSolution, Source, Status

FORMAT = "miplib"
_NAME = "MIPLIB"
_MARKERS = {"=infeas=": (Status.INFEASIBLE, "infeasible (=infeas=)"),
            "=unkn=": (Status.NO_SOLUTION, "no solution known (=unkn=)")}
OPENINGS = ("=obj=", *_MARKERS)


def sniff(first: str, second: str) -> bool:
    return first.startswith(OPENINGS)


def read(src: Source) -> RawSolution:
    status, text, objective = Status.UNKNOWN, "no status (a MIPLIB solution has none)", None
    values: dict[str, float] = {}
    lineno = 1
    try:
        for lineno, line in enumerate(src.lines, 1):
            if not line.strip():
                continue
            name, _, value = line.strip().partition(" ")
            if name == "=obj=":
                objective = float(value)
            elif name in _MARKERS and not value.strip():
                status, text = _MARKERS[name]
            elif name in values:
                raise src.duplicate(lineno, name)
            else:
                values[name] = float(value)
    except ValueError:
        raise src.expected(lineno, "'=obj= <value>' or '<name> <value>'", _NAME) from None
    return RawSolution(format=FORMAT, status=status, status_text=text, objective=objective,
                       values=values, omits_zeros=True)
