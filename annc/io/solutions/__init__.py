"""Read the solution file a solver wrote for an annc model.

:func:`read_solution` returns a :class:`RawSolution`: the status, the objective and the
column values exactly as the file gives them, by name or (for GLPK's raw format) by
0-based column index.  Matching them to the model, integrality and feasibility checks
are the decoder's job.  The format is recognised from the file's content
(:func:`sniff_format`); one module per format documents its syntax.

A truncated file raises :class:`~annc.core.errors.TruncatedSolutionError` (exit 4), wherever
it was cut, whenever the cut shows:

* in the middle of a line, in a line-based format: the last line lacks its newline
  (every solver ends its lines with one), even when what is left still parses;
* within or just after the first line, when what is left begins like a known format but
  is too short to tell which (``Model st``, or ``NAME m`` alone);
* in a self-delimiting format (Gurobi JSON, CPLEX XML): the document is unfinished;
* at a line boundary, before a count of lines the file announces (HiGHS ``# Columns``
  and ``# Rows``, GLPK's ``Columns:``), an end marker (GLPK ``e o f``, Xpress
  ``ENDATA``) or a section its format always writes (HiGHS's dual and basis sections,
  GLPK's ``End of output``).

Formats with none of these (CBC, SCIP, Gurobi .sol, MIPLIB) cut exactly at a line
boundary are indistinguishable from a complete file with fewer values: they are read,
and the decoder judges the point (missing values are zeros, or absent columns: a failed
verification, exit 4, or a solution refused as another model's, exit 2; a CBC file
printed with ``-printingOptions all`` cut within its rows gives rows for columns, refused
as names this model does not have, exit 2).  An empty
file is no solution file at all (exit 2), not a truncated one.
"""
from __future__ import annotations

import itertools
import os

from ...core.errors import SolutionError, TruncatedSolutionError
from . import cbc, cplex, glpk_out, glpk_raw, gurobi_json, gurobi_sol, highs, miplib, scip, xpress
from .common import RawSolution, Source, Status

_READERS = {module.FORMAT: module for module in
            (cbc, highs, scip, gurobi_sol, gurobi_json, glpk_raw, glpk_out, cplex, xpress,
             miplib)}
FORMATS = tuple(_READERS)

__all__ = ["FORMATS", "RawSolution", "Status", "read_solution", "sniff_format"]


def _load(path: str | os.PathLike) -> Source:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise SolutionError(f"cannot read solution file {os.fspath(path)}: "
                            f"{err.strerror}") from None
    src = Source(os.fspath(path), data.decode("utf-8", errors="replace"))
    if not src.text.strip():
        raise SolutionError(f"{src.path}: the solution file is empty")
    return src


def _sniff(src: Source) -> str:
    head = list(itertools.islice(filter(None, map(str.strip, src.lines)), 2)) + ["", ""]
    for fmt, reader in _READERS.items():
        if reader.sniff(head[0], head[1]):
            return fmt
    if _cut_in_first_line(src, head[0]):
        raise TruncatedSolutionError(f"{src.path}: the file ends after {head[0][:60]!r}, within "
                                     "the first line of a solution: it is truncated")
    raise SolutionError(f"{src.path}: cannot tell which solver wrote this file (it starts "
                        f"{head[0][:60]!r}); known formats: {', '.join(FORMATS)}")


def _cut_in_first_line(src: Source, first: str) -> bool:
    """A file that ends mid-line or after one line, which that line does not identify
    but which is, or starts with, the beginning of a known format's first line (HiGHS's
    ``Columns`` table or Xpress's ``NAME`` need the second line)."""
    one_line = len([line for line in src.lines if line.strip()]) <= 1
    return (src.ends_mid_line or one_line) and any(
        opening.startswith(first) or first.startswith(opening.strip())
        for reader in _READERS.values() for opening in reader.OPENINGS)


def sniff_format(path: str | os.PathLike) -> str:
    """The format of the solution file at ``path``, one of :data:`FORMATS`."""
    return _sniff(_load(path))


def read_solution(path: str | os.PathLike, fmt: str | None = None) -> RawSolution:
    """Read the solution file at ``path``, in format ``fmt`` (sniffed when None)."""
    if fmt is not None and fmt not in _READERS:
        raise SolutionError(f"unknown solution format {fmt!r}; known formats: "
                            f"{', '.join(FORMATS)}")
    src = _load(path)
    reader = _READERS[fmt or _sniff(src)]
    try:
        sol = reader.read(src)
    except TruncatedSolutionError:
        raise
    except SolutionError as err:
        if _cut_mid_line(reader, src) and getattr(err, "lineno", len(src.lines)) >= len(src.lines):
            raise TruncatedSolutionError(f"{err}; the last line has no newline: the file is "
                                         "truncated") from None
        raise
    if _cut_mid_line(reader, src):
        raise src.error(len(src.lines), "the last line has no newline: the file is truncated",
                        TruncatedSolutionError)
    return sol


def _cut_mid_line(reader, src: Source) -> bool:
    """A line-based file that ends mid-line (JSON and XML say for themselves)."""
    return not getattr(reader, "SELF_DELIMITING", False) and src.ends_mid_line
