"""GLPK printable solution reports (``glpsol -o FILE``; HiGHS style 3).

::

    Problem:    demo_model
    Rows:       7
    Columns:    10 (6 integer, 2 binary)
    Status:     INTEGER OPTIMAL
    Objective:  profit = 41 (MAXimum)
    ...
       No. Column name       Activity     Lower bound   Upper bound
    ------ ------------    ------------- ------------- -------------
         1 a_very_long_variable_name_alpha
                        *              5            -5             5
         2 b            *              1             0             1

A name longer than 12 characters pushes the numbers to the next line.  The dashes
under the header give the field widths (simplex reports add a ``St`` column).  Numbers
are ``%g`` with 6 significant digits.  Header lines are ``<key>: <value>`` up to the
first line without a colon; keys other than ``Columns``, ``Status`` and ``Objective``
are skipped.

A report with tables has a row table, a column table of ``Columns:`` entries, the
optimality conditions and ``End of output``: a file short of any of them is truncated.
HiGHS (style 3) writes the header alone when it has no solution.
"""
from __future__ import annotations

from .common import RawSolution, Source, Status

FORMAT = "glpk-out"
OPENINGS = ("Problem:",)
_NAME = "GLPK -o"
_STATUSES = {
    "INTEGER OPTIMAL": Status.OPTIMAL, "OPTIMAL": Status.OPTIMAL,
    "INTEGER NON-OPTIMAL": Status.FEASIBLE, "FEASIBLE": Status.FEASIBLE,
    "INTEGER EMPTY": Status.INFEASIBLE, "INFEASIBLE (FINAL)": Status.INFEASIBLE,
    "UNBOUNDED": Status.UNBOUNDED,
    "INTEGER UNDEFINED": Status.NO_SOLUTION, "UNDEFINED": Status.NO_SOLUTION,
    "INFEASIBLE (INTERMEDIATE)": Status.NO_SOLUTION,
}
_TABLE, _ROWS, _END = "No. Column name", "No.   Row name", "End of output"


def sniff(first: str, second: str) -> bool:
    return first.startswith(OPENINGS)


def read(src: Source) -> RawSolution:
    lines = src.lines
    fields = {}
    for lineno, line in enumerate(lines, 1):
        key, colon, rest = line.partition(":")
        if not colon:
            break
        fields[key] = (lineno, rest.strip())
    for key in ("Columns", "Status", "Objective"):
        if key not in fields:
            raise src.expected(len(fields) + 1, f"'{key}: ...' in the header", _NAME)
    text = fields["Status"][1]
    lineno, columns = fields["Columns"]
    num_columns = src.count((columns.split() or [""])[0], lineno, "'Columns: <count>'", _NAME)
    lineno, objective = fields["Objective"]
    # "profit = 41 (MAXimum)", or "41 (MINimum)" when the objective has no name
    objective = objective.rpartition(" = ")[2].split(" (")[0]
    objective = src.number(objective, lineno, "'Objective: <name> = <value>'", _NAME)
    values = _columns(src)
    if any(line.strip().startswith(_ROWS) for line in lines):  # a whole report: check its end
        if len(values) < num_columns:
            raise src.expected(len(lines) + 1, f"{num_columns} columns in the column table", _NAME)
        if lines[-1].strip() != _END:
            raise src.expected(len(lines) + 1, repr(_END), _NAME)
    return RawSolution(format=FORMAT, status=_STATUSES.get(text, Status.UNKNOWN),
                       status_text=text, objective=objective, values=values,
                       num_columns=num_columns)


def _columns(src: Source) -> dict[str, float]:
    lines = src.lines
    top = next((i for i, line in enumerate(lines) if line.strip().startswith(_TABLE)), None)
    if top is None:   # no table: GLPK (or HiGHS) had no solution to print
        return {}
    header, dashes = lines[top], lines[top + 1] if top + 1 < len(lines) else ""
    start = header.find("Activity")
    left = dashes.rfind(" ", 0, start) + 1
    right = dashes.find(" ", left)
    if not 0 < left < right:
        raise src.expected(top + 2, "a line of dashes under the column header", _NAME)
    values: dict[str, float] = {}
    i = top + 2
    while i < len(lines) and lines[i].strip():
        parts = lines[i].split()
        name = parts[1] if len(parts) > 1 and parts[0].isdigit() else ""
        if not name:
            raise src.expected(i + 1, "'<No.> <column name> ...'", _NAME)
        if len(name) > 12:   # the numbers are on the next line
            i += 1
        if i >= len(lines):
            raise src.expected(i + 1, f"the numbers of column {name!r}", _NAME)
        if name in values:
            raise src.duplicate(i + 1, name)
        values[name] = src.number(lines[i][left:right], i + 1, "a number under 'Activity'",
                                  _NAME)
        i += 1
    return values
