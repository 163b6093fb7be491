"""Xpress ``.slx`` solution files (``writeslxsol``, ``WRITESLXSOL``).

::

    NAME          demo_model
      C a_very_long_variable_name_alpha                     5
      D cap_1                                               0     <- other records: skipped
    ENDATA

``C`` records are column values; ``D`` (duals) and other one-letter records are
skipped.  There is no status and no objective; Xpress writes a bare ``ENDATA`` when
it has no solution.
"""
from __future__ import annotations

from .common import RawSolution, Source, Status

FORMAT = "xpress-slx"
OPENINGS = ("NAME", "ENDATA")
_NAME = "Xpress .slx"


def sniff(first: str, second: str) -> bool:
    return first == "ENDATA" or (first.startswith("NAME") and second[:2] in ("C ", "EN"))


def read(src: Source) -> RawSolution:
    values: dict[str, float] = {}
    lineno = 1
    try:
        for lineno, line in enumerate(src.lines, 1):
            kind, _, rest = line.strip().partition(" ")
            if kind == "C":
                name, value = rest.rsplit(None, 1)
                if name in values:
                    raise src.duplicate(lineno, name)
                values[name] = float(value)
            elif kind == "ENDATA":
                break
            elif kind == "NAME" and lineno == 1 or not kind:
                continue
            elif len(kind) != 1 or not rest.strip():
                raise ValueError
        else:
            raise src.expected(len(src.lines) + 1, "'ENDATA' (the file is truncated)", _NAME)
    except ValueError:
        raise src.expected(lineno, "'C <name> <value>'", _NAME) from None
    if not values:
        return RawSolution(format=FORMAT, status=Status.NO_SOLUTION,
                           status_text="no values: Xpress writes an empty .slx when it has "
                                       "no solution (infeasible, unbounded or stopped)",
                           objective=None)
    return RawSolution(format=FORMAT, status=Status.UNKNOWN,
                       status_text="no status (an Xpress .slx file has none)",
                       objective=None, values=values)
