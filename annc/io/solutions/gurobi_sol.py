"""Gurobi ``.sol`` and ``.mst`` files (``model.write("x.sol")``, ``gurobi_cl ResultFile=``).

::

    # Solution for model demo_model
    # Objective value = 41
    a_very_long_variable_name_alpha 5

Every variable is listed and there is no status.  A ``.mst`` MIP start begins with
``# MIP start`` and lists the integer variables only.  annc's own start files
(``<stem>.start.sol``, :mod:`annc.io.writers.startfiles`) begin with ``# annc MIP start``
and list every column.
"""
from __future__ import annotations

from .common import RawSolution, Source, Status

FORMAT = "gurobi-sol"
OPENINGS = ("#",)
_NAME = "Gurobi .sol"
_OBJECTIVE = "# Objective value ="
_MIP_START = "# MIP start"
_ANNC_START = "# annc MIP start"


def sniff(first: str, second: str) -> bool:
    return first.startswith("#")


def read(src: Source) -> RawSolution:
    objective = None
    values: dict[str, float] = {}
    lineno = 1
    try:
        for lineno, line in enumerate(src.lines, 1):
            if line.startswith(_OBJECTIVE):
                objective = src.number(line[len(_OBJECTIVE):], lineno,
                                       f"'{_OBJECTIVE} <number>'", _NAME)
            elif line.strip() and not line.startswith("#"):
                name, value = line.rsplit(None, 1)
                if name in values:
                    raise src.duplicate(lineno, name)
                values[name] = float(value)
    except ValueError:
        raise src.expected(lineno, "'<name> <value>'", _NAME) from None
    if src.lines[0].startswith(_ANNC_START):
        text = "annc MIP start: every column, no status"
    elif src.lines[0].startswith(_MIP_START):
        text = "Gurobi MIP start: values of the integer variables only, no status"
    else:
        text = "no status (a Gurobi .sol file has none)"
    return RawSolution(format=FORMAT, status=Status.UNKNOWN, status_text=text,
                       objective=objective, values=values)
