"""GLPK raw solution files (``glpsol -w FILE``; HiGHS style 2).

::

    c Problem:    demo_model                 <- comments
    s mip 7 10 o 41                         <- s mip <rows> <cols> <status> <objective>
    i 1 7                                   <- rows: skipped
    j 1 5                                   <- j <column> <value>, 1-based
    e o f

The status is ``o`` optimal, ``f`` feasible, ``n`` no feasible solution, ``u`` undefined.
A simplex solution is ``s bas <rows> <cols> <primal> <dual> <objective>`` (statuses
``f`` feasible, ``i`` infeasible, ``n`` no feasible, ``u`` undefined) with lines ``j <col>
<b|l|u|f|s> <value> <dual>``; an interior-point one is ``s ipt <rows> <cols> <o|i|n|u>
<objective>`` with lines ``j <col> <value> <dual>``.  Columns have no names: values go
to ``index_values`` (0-based) in the column order of the file that was solved.
HiGHS writes only the comments and the ``s`` line when it has no solution.
"""
from __future__ import annotations

from .common import RawSolution, Source, Status

FORMAT = "glpk-raw"
OPENINGS = ("c ", "s mip ", "s bas ", "s ipt ")
_NAME = "GLPK raw"
_WORDS = {"o": "optimal", "f": "feasible", "i": "infeasible (intermediate)",
          "n": "no feasible solution", "u": "undefined"}
# s-line layout: kind -> (number of status letters, position of the value in a j line,
# number of fields in a j line)
_KINDS = {"mip": (1, 2, 3), "bas": (2, 3, 5), "ipt": (1, 2, 4)}


def sniff(first: str, second: str) -> bool:
    return first == "c" or first.startswith(OPENINGS)


def _status(kind: str, letters: list[str]) -> tuple[Status, str]:
    if kind == "bas":
        primal, dual = letters
        text = f"bas {primal} {dual}: primal {_WORDS[primal]}, dual {_WORDS[dual]}"
        if primal == "f":
            status = {"f": Status.OPTIMAL, "n": Status.UNBOUNDED}.get(dual, Status.FEASIBLE)
        else:
            status = Status.INFEASIBLE if primal == "n" else Status.NO_SOLUTION
        return status, text
    (letter,) = letters
    status = {"o": Status.OPTIMAL, "f": Status.FEASIBLE, "n": Status.INFEASIBLE}.get(
        letter, Status.NO_SOLUTION)
    return status, f"{kind} {letter}: {_WORDS[letter]}"


def read(src: Source) -> RawSolution:
    lines = src.lines
    start = next((i for i, line in enumerate(lines) if not _comment(line)), len(lines))
    kind, status, text, columns, objective = _solution_line(src, start + 1)
    if start + 1 == len(lines) and status not in (Status.OPTIMAL, Status.FEASIBLE):
        # HiGHS (style 2) stops after the s line when it has no solution
        return RawSolution(format=FORMAT, status=status, status_text=text,
                           objective=objective, num_columns=columns)
    _, at, width = _KINDS[kind]
    values: dict[int, float] = {}
    lineno = start + 1
    try:
        for lineno, line in enumerate(lines[start + 1:], start + 2):
            if line.startswith("j "):
                parts = line.split()
                if len(parts) != width:
                    raise ValueError
                index = int(parts[1]) - 1
                if not 0 <= index < columns or index in values:
                    raise src.error(lineno, f"column {index + 1} is out of range 1..{columns} "
                                            "or appears twice")
                values[index] = float(parts[at])
            elif line.strip() == "e o f":
                break
            elif not (line.startswith("i ") or _comment(line)):
                raise ValueError
        else:
            raise src.expected(len(lines) + 1, "'e o f' (the file is truncated)", _NAME)
    except ValueError:
        raise src.expected(lineno, f"'j <column> <value>' for an '{kind}' solution",
                           _NAME) from None
    if len(values) != columns:
        raise src.error(lineno, f"expected {columns} column lines ('j ...'), "
                                f"found {len(values)}")
    return RawSolution(format=FORMAT, status=status, status_text=text, objective=objective,
                       index_values=values, num_columns=columns)


def _comment(line: str) -> bool:
    return line == "c" or line.startswith("c ")


def _solution_line(src: Source, lineno: int) -> tuple[str, Status, str, int, float]:
    """``s <kind> <rows> <cols> <status...> <objective>`` at ``lineno``."""
    parts = src.lines[lineno - 1].split() if lineno <= len(src.lines) else []
    shape = "'s mip|bas|ipt <rows> <columns> <status> <objective>'"
    if len(parts) < 2 or parts[0] != "s" or parts[1] not in _KINDS:
        raise src.expected(lineno, shape, _NAME)
    kind = parts[1]
    letters = parts[4:-1]
    if len(parts) != 5 + _KINDS[kind][0] or not all(letter in _WORDS for letter in letters):
        raise src.expected(lineno, shape, _NAME)
    columns = src.count(parts[3], lineno, shape, _NAME)
    if columns < 0:
        raise src.expected(lineno, shape, _NAME)
    status, text = _status(kind, letters)
    return kind, status, text, columns, src.number(parts[-1], lineno, shape, _NAME)
