"""CBC solution files (``cbc model.mps -solve -solu FILE``).

Normal mode::

    Optimal - objective value 41.00000000
          0 a_very_long_variable_name_alpha               5                       3
    **    4 e_neg_ub                                      0                       1

The first line is ``<status> - objective value <v>``; then ``<index> <name> <value>
<reduced cost>`` for every non-zero column (``**`` marks a value outside its bounds).
With ``-printingOptions all`` (as PuLP runs it) the rows come first in the same shape
and the columns follow with the index restarting at 0: the second block is the columns.
``-printingOptions csv`` (CBC devel) writes ``name,solution`` then ``<name>,<value>``
lines and no status.

CBC devel (the ``cbcbox`` package) may qualify the status, as in ``Optimal (within gap
tolerance) - objective value 0``; the words before the parenthesis are the status.

``Stopped on ...`` means a limit was hit: with ``(no integer solution - continuous
used)`` the values are the LP relaxation, not a solution.
"""
from __future__ import annotations

from .common import RawSolution, Source, Status

FORMAT = "cbc"
_NAME = "CBC"
_OBJECTIVE = " - objective value"
_STATUSES = {
    "Optimal": Status.OPTIMAL,
    "Infeasible": Status.INFEASIBLE,
    "Integer infeasible": Status.INFEASIBLE,
    "Unbounded": Status.UNBOUNDED,
    "Integer unbounded": Status.UNBOUNDED,
}
_CSV_HEADER = "name,"
OPENINGS = (*(status + _OBJECTIVE for status in _STATUSES), "Stopped on", _CSV_HEADER)


def sniff(first: str, second: str) -> bool:
    return (_OBJECTIVE in first or first in _STATUSES or first.startswith("Stopped on")
            or first.startswith(_CSV_HEADER))


def read(src: Source) -> RawSolution:
    if src.lines[0].startswith(_CSV_HEADER):
        return _read_csv(src)
    text, _, objective = src.lines[0].strip().partition(_OBJECTIVE)
    values, positions = _columns(src)
    return RawSolution(
        format=FORMAT,
        status=_status(text),
        status_text=text,
        objective=src.number(objective, 1, "a number after 'objective value'", _NAME)
        if objective.strip() else None,
        values=values,
        positions=positions,
        omits_zeros=True,
    )


def _status(text: str) -> Status:
    if text.startswith("Stopped"):
        return Status.NO_SOLUTION if "no integer solution" in text else Status.FEASIBLE
    # CBC devel (cbcbox) qualifies its status: "Optimal (within gap tolerance)"
    return _STATUSES.get(text.split(" (")[0].strip(), Status.UNKNOWN)


def _columns(src: Source) -> tuple[dict[str, float], dict[str, int]]:
    """The last block of ``index name value reduced-cost`` lines (rows come first):
    values and 0-based column positions by name."""
    values: dict[str, float] = {}
    positions: dict[str, int] = {}
    blocks, previous, lineno = 1, -1, 1
    try:
        for lineno, line in enumerate(src.lines[1:], 2):
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "**":
                del parts[0]
            index, name, value, _ = parts
            index = int(index)
            if index <= previous:
                blocks += 1
                if blocks > 2:
                    raise src.error(lineno, "index restarts a third time: expected at most a "
                                            "block of rows followed by a block of columns")
                values, positions = {}, {}
            previous = index
            if name in values:
                raise src.duplicate(lineno, name)
            values[name] = float(value)
            positions[name] = index
    except ValueError:
        raise src.expected(lineno, "'<index> <name> <value> <reduced cost>'", _NAME) from None
    return values, positions


def _read_csv(src: Source) -> RawSolution:
    fields = src.lines[0].count(",")
    values: dict[str, float] = {}
    lineno = 1
    try:
        for lineno, line in enumerate(src.lines[1:], 2):
            if not line.strip():
                continue
            name, value = line.rsplit(",", fields)[:2]
            if name in values:
                raise src.duplicate(lineno, name)
            values[name] = float(value)
    except ValueError:
        raise src.expected(lineno, "'<name>,<value>'", "CBC csv") from None
    return RawSolution(format=FORMAT, status=Status.UNKNOWN,
                       status_text="no status (CBC csv printing mode)",
                       objective=None, values=values, omits_zeros=True)
