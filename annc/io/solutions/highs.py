"""HiGHS solution files (``highs --solution_file F``; ``Highs.writeSolution(F, style)``).

Style 0 (raw, the default) and style 4 (sparse), as HiGHS 1.7 to 1.16 write them::

    Model status
    Optimal

    # Primal solution values
    Feasible                        <- or Infeasible; None: no values, the dual section follows
    Objective 41                    <- header: '<keyword> <value>' lines up to '# Columns'
    Objective_bound 41              <- 1.16: the dual bound (read), then MIP_rel_gap (read);
    MIP_rel_gap 0                      keywords annc does not know are skipped
    # Columns 10                    <- style 4: '# Columns -9' (1.16: '# Columns -9 sparse'),
    a_very_long_variable_name_alpha 5      then '<name> <value> <index>' for the non-zero
    ...                                    columns only, and the file ends there
    # Rows 7                        <- style 0: 7 lines '<name> <value>' (not read)
    ...

    # Dual solution values
    None                            <- or Feasible/Infeasible and dual values (not read)

    # Basis
    HiGHS v1                        <- 1.16: HiGHS_basis_file v2
    None                            <- or Valid and a basis (not read)

Truncation: a block shorter than its ``# Columns``/``# Rows`` count, a header without
``# Columns``, a section title without the lines after it (the primal and dual
statuses, the basis's version and status).  The dual and basis sections are optional
(style 4 stops after the columns; annc reads neither), so a file cut exactly before
one of them, after the rows block of style 0, cannot be told from a whole one: it has
lost nothing annc reads.  Likewise a style-0 file that ends, with its newline, right
after the columns block is read as the columns-only file ``Highs.readSolution`` takes (and
annc's ``.start.highs`` is).

Style 1 (pretty) is a ``Columns`` table (``Index Status Lower Upper Primal Dual [Type]
Name``, numbers in ``%12g``, i.e. 6 digits), a ``Rows`` table, then ``Model status:
...`` and ``Objective value: ...``; 1.16 adds ``Objective bound: ...`` (read) and ``MIP
rel gap: ...%``.  ``Objective value`` is required, and ``MIP rel gap`` after a bound: a
file cut before them is truncated.  Styles 2 and 3 are GLPK's formats (glpk_raw, glpk_out).
"""
from __future__ import annotations

from .common import RawSolution, Source, Status

FORMAT = "highs"
OPENINGS = ("Model status", "Columns")
_NAME = "HiGHS"
_STATUSES = {"Optimal": Status.OPTIMAL, "Infeasible": Status.INFEASIBLE,
             "Unbounded": Status.UNBOUNDED}
_LIMITS = {"Time limit reached", "Iteration limit reached", "Solution limit reached",
           "Memory limit reached", "Interrupted by user", "Interrupted by HiGHS",
           "Bound on objective reached", "Target for objective reached"}
_PRIMAL, _DUAL, _BASIS = "# Primal solution values", "# Dual solution values", "# Basis"
_SOLUTION_STATUSES = ("None", "Feasible", "Infeasible")
_COLUMNS = "'# Columns <count>'"


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


def _line(src: Source, lineno: int) -> str | None:
    """Line ``lineno`` (1-based), stripped; None past the end."""
    return src.lines[lineno - 1].strip() if lineno <= len(src.lines) else None


def _find(src: Source, start: int, title: str) -> int:
    """The number of the first line from ``start`` on that is ``title``."""
    lineno = next((n for n in range(start, len(src.lines) + 1) if _line(src, n) == title),
                  len(src.lines) + 1)
    if lineno > len(src.lines):
        raise src.expected(lineno, repr(title), _NAME)
    return lineno


def _section_status(src: Source, start: int, title: str) -> tuple[int, str]:
    """``title`` (searched from line ``start``) and the solution status on the line after
    it: (the status's line number, the status)."""
    lineno = _find(src, start, title) + 1
    status = _line(src, lineno)
    if status not in _SOLUTION_STATUSES:
        raise src.expected(lineno, "'None', 'Feasible' or 'Infeasible'", _NAME)
    return lineno, status


def _read_raw(src: Source) -> RawSolution:
    text = _line(src, 2)
    if text is None:
        raise src.expected(2, "the model status", _NAME)
    lineno, primal = _section_status(src, 3, _PRIMAL)
    if primal == "None":
        _tail(src, lineno + 1)
        return RawSolution(format=FORMAT, status=_status(text, False), status_text=text,
                           objective=None)
    header, lineno = _header(src, lineno + 1)
    count = _column_count(src, lineno)
    values, positions = _raw_columns(src, lineno + 1, count)
    if count >= 0:  # style 0: the rows, the dual section and the basis follow
        rows = lineno + 1 + count
        if _line(src, rows) is None and src.text.endswith("\n"):
            pass  # a columns-only file (what Highs.readSolution takes, and annc's .start.highs)
        elif _line(src, rows) is None or not _line(src, rows).startswith("# Rows"):
            raise src.expected(rows, "'# Rows <count>'", _NAME)
        else:
            end = rows + src.count(_line(src, rows)[len("# Rows"):], rows, "'# Rows <count>'", _NAME)
            if end > len(src.lines):
                raise src.expected(len(src.lines) + 1, "'<name> <value>' (a row)", _NAME)
            _tail(src, end + 1)
    return RawSolution(format=FORMAT, status=_status(text, primal == "Feasible"), status_text=text,
                       objective=header["Objective"], values=values, positions=positions,
                       num_columns=count if count >= 0 else None, omits_zeros=count < 0,
                       bound=header.get("Objective_bound"), gap=header.get("MIP_rel_gap"))


def _header(src: Source, first: int) -> tuple[dict[str, float], int]:
    """The ``<keyword> <value>`` lines from ``first`` up to ``# Columns``: the numbers of
    the keywords annc reads (``Objective`` is required), and the line of ``# Columns``."""
    header: dict[str, float] = {}
    lineno = first
    while (line := _line(src, lineno)) is not None and not line.startswith("# Columns"):
        keyword, _, value = line.partition(" ")
        if keyword in ("Objective", "Objective_bound", "MIP_rel_gap"):
            header[keyword] = src.number(value, lineno, f"'{keyword} <number>'", _NAME)
        lineno += 1
    if "Objective" not in header:
        raise src.expected(first, "'Objective <number>'", _NAME)
    if line is None:
        raise src.expected(lineno, _COLUMNS, _NAME)
    return header, lineno


def _column_count(src: Source, lineno: int) -> int:
    """``# Columns <count>``, or ``# Columns -<count> sparse`` (HiGHS 1.16's style 4)."""
    parts = _line(src, lineno).split()
    if parts[:2] != ["#", "Columns"] or len(parts) not in (3, 4) or parts[3:] not in ([], ["sparse"]):
        raise src.expected(lineno, _COLUMNS, _NAME)
    return src.count(parts[2], lineno, _COLUMNS, _NAME)


def _tail(src: Source, start: int) -> None:
    """The dual and basis sections from line ``start`` on: optional, but whole when
    present: the dual title and a solution status, the basis title, a version line
    (``HiGHS v1``, ``HiGHS_basis_file v2``) and ``None``/``Valid``."""
    rest = [line.strip() for line in src.lines[start - 1:]]
    if _DUAL in rest:
        _section_status(src, start + rest.index(_DUAL), _DUAL)
    if _BASIS in rest and start + rest.index(_BASIS) + 2 > len(src.lines):
        raise src.expected(len(src.lines) + 1, "the basis's version and status", _NAME)


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


_PRETTY_KEYS = {"Model status": None, "Objective value": "'Objective value: <number>'",
                "Objective bound": "'Objective bound: <number>'", "MIP rel gap": None}


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
    found: dict[str, str | float] = {}
    for lineno, line in enumerate(lines[lineno:], lineno + 1):
        key, _, rest = line.partition(":")
        if key in _PRETTY_KEYS:
            what = _PRETTY_KEYS[key]
            found[key] = rest.strip() if what is None else src.number(rest, lineno, what, _NAME)
    for key in ("Model status", "Objective value", *(["MIP rel gap"] if "Objective bound" in found else [])):
        if key not in found:
            raise src.expected(len(lines) + 1, f"'{key}: ...'", _NAME)
    text = found["Model status"]
    return RawSolution(format=FORMAT, status=_status(text, bool(values)), status_text=text,
                       objective=found["Objective value"], values=values, num_columns=num_columns,
                       bound=found.get("Objective bound"))
