"""Read the solution file a solver wrote for an annc model.

:func:`read_solution` returns a :class:`RawSolution`: the status, the objective and the
column values exactly as the file gives them, by name or (for GLPK's raw format) by
0-based column index.  Matching them to the model, integrality and feasibility checks
are the decoder's job.  The format is recognised from the file's content
(:func:`sniff_format`); one module per format documents its syntax.
"""
from __future__ import annotations

import itertools
import os

from ..errors import SolutionError
from . import (cbc, cplex, glpk_out, glpk_raw, gurobi_json, gurobi_sol, highs, miplib, scip,
               xpress)
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
    raise SolutionError(f"{src.path}: cannot tell which solver wrote this file (it starts "
                        f"{head[0][:60]!r}); known formats: {', '.join(FORMATS)}")


def sniff_format(path: str | os.PathLike) -> str:
    """The format of the solution file at ``path``, one of :data:`FORMATS`."""
    return _sniff(_load(path))


def read_solution(path: str | os.PathLike, fmt: str | None = None) -> RawSolution:
    """Read the solution file at ``path``, in format ``fmt`` (sniffed when None)."""
    if fmt is not None and fmt not in _READERS:
        raise SolutionError(f"unknown solution format {fmt!r}; known formats: "
                            f"{', '.join(FORMATS)}")
    src = _load(path)
    return _READERS[fmt or _sniff(src)].read(src)
