"""HiGHS solution files (``highs --solution_file F``; ``Highs.writeSolution(F, style)``).

Style 0 (raw, the default) and style 4 (sparse)::

    Model status
    Optimal

    # Primal solution values
    Feasible                        <- or Infeasible; None when no values follow
    Objective 41
    # Columns 10                    <- style 4: "# Columns -9", then "<name> <value> <index>"
    a_very_long_variable_name_alpha 5      for the non-zero columns only
    ...
    # Rows 7

Style 1 (pretty) is a ``Columns`` table (``Index Status Lower Upper Primal Dual [Type]
Name``, numbers in ``%12g``, i.e. 6 digits), a ``Rows`` table, then ``Model status:
...`` and ``Objective value: ...``.  Styles 2 and 3 are GLPK's formats (glpk_raw, glpk_out).
"""
from __future__ import annotations

from .common import RawSolution, Source, Status

FORMAT = "highs"
_NAME = "HiGHS"
_STATUSES = {"Optimal": Status.OPTIMAL, "Infeasible": Status.INFEASIBLE,
             "Unbounded": Status.UNBOUNDED}
_LIMITS = {"Time limit reached", "Iteration limit reached", "Solution limit reached",
           "Memory limit reached", "Interrupted by user", "Interrupted by HiGHS",
           "Bound on objective reached", "Target for objective reached"}
_PRIMAL = "# Primal solution values"


def sniff(first: str, second: str) -> bool:
    return first == "Model status" or (first == "Columns" and second.startswith("Index"))


def read(src: Source) -> RawSolution:
    first = src.lines[0].strip()
    if first == "Model status":
        return _read_raw(src)
    if first == "Columns" and len(src.lines) > 1:
        return _read_pretty(src)
    raise src.expected(1, "'Model status' or a 'Columns' table", _NAME)


def _status(text: str, feasible: bool) -> Status:
    if text in _LIMITS:
        return Status.FEASIBLE if feasible else Status.NO_SOLUTION
    return _STATUSES.get(text, Status.UNKNOWN)


def _read_raw(src: Source) -> RawSolution:
    lines = src.lines
    if len(lines) < 2:
        raise src.expected(2, "the model status", _NAME)
    text = lines[1].strip()
    start = next((i for i, line in enumerate(lines) if line.strip() == _PRIMAL), None)
    if start is None:
        raise src.expected(len(lines) + 1, repr(_PRIMAL), _NAME)
    if start + 1 >= len(lines) or lines[start + 1].strip() == "None":
        return RawSolution(format=FORMAT, status=_status(text, False), status_text=text,
                           objective=None)
    feasible = lines[start + 1].strip() == "Feasible"
    objective = _keyword_number(src, start + 3, "Objective")
    count = src.count(_keyword(src, start + 4, "# Columns"), start + 4, "'# Columns <count>'", _NAME)
    values, positions = _raw_columns(src, start + 5, count)
    return RawSolution(format=FORMAT, status=_status(text, feasible), status_text=text,
                       objective=objective, values=values, positions=positions,
                       num_columns=count if count >= 0 else None, omits_zeros=count < 0)


def _keyword(src: Source, lineno: int, keyword: str) -> str:
    """The text after ``keyword`` on line ``lineno``."""
    line = src.lines[lineno - 1] if lineno <= len(src.lines) else ""
    head, _, value = line.strip().rpartition(" ")
    if head != keyword:
        raise src.expected(lineno, f"'{keyword} <number>'", _NAME)
    return value


def _keyword_number(src: Source, lineno: int, keyword: str) -> float:
    return src.number(_keyword(src, lineno, keyword), lineno, f"'{keyword} <number>'", _NAME)


def _raw_columns(src: Source, first: int, count: int) -> tuple[dict[str, float], dict[str, int]]:
    """``count`` lines ``name value`` from line ``first``; ``-count`` lines
    ``name value index`` for the sparse style (the 0-based column index of the solved
    model, kept as the column's position)."""
    sparse = count < 0
    shape = "'<name> <value> <index>'" if sparse else "'<name> <value>'"
    block = src.lines[first - 1:first - 1 + abs(count)]
    if len(block) < abs(count):
        raise src.expected(first + len(block), shape, _NAME)
    values: dict[str, float] = {}
    positions: dict[str, int] = {}
    lineno = first
    try:
        for lineno, line in enumerate(block, first):
            if sparse:
                name, value, index = line.rsplit(None, 2)
                positions[name] = src.count(index, lineno, shape, _NAME)
            else:
                name, value = line.rsplit(None, 1)
            if name in values:
                raise src.duplicate(lineno, name)
            values[name] = float(value)
    except ValueError:
        raise src.expected(lineno, shape, _NAME) from None
    return values, positions


def _read_pretty(src: Source) -> RawSolution:
    lines = src.lines
    header = lines[1]
    # the Primal column: right-aligned, ending under the end of the word "Primal"
    left, right = header.find("Upper") + len("Upper"), header.find("Primal") + len("Primal")
    values: dict[str, float] = {}
    lineno = 3
    for lineno, line in enumerate(lines[2:], 3):
        if line.strip() == "Rows":
            break
        parts = line.split()
        if len(parts) < 4 or not parts[0].isdigit():
            raise src.expected(lineno, "a row of the Columns table", _NAME)
        primal = line[left:right].strip()
        if primal:
            if parts[-1] in values:
                raise src.duplicate(lineno, parts[-1])
            values[parts[-1]] = src.number(primal, lineno, "a number in the Primal column",
                                           _NAME)
    else:
        raise src.expected(len(lines) + 1, "'Rows' after the Columns table", _NAME)
    num_columns = lineno - 3
    text = objective = None
    for lineno, line in enumerate(lines[lineno:], lineno + 1):
        key, _, rest = line.partition(":")
        if key == "Model status":
            text = rest.strip()
        elif key == "Objective value":
            objective = src.number(rest, lineno, "'Objective value: <number>'", _NAME)
    if text is None:
        raise src.expected(len(lines) + 1, "'Model status: <status>'", _NAME)
    return RawSolution(format=FORMAT, status=_status(text, bool(values)), status_text=text,
                       objective=objective, values=values, num_columns=num_columns)
