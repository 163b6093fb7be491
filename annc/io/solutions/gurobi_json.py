"""Gurobi JSON solution files (``model.write("x.json")``).

::

    { "SolutionInfo": { "Status": 2, "ObjVal": 41, "SolCount": 2, ...},
      "Vars": [ { "VarName": "b", "X": 1}, ...]}

``Status`` is Gurobi's optimisation status code; ``Vars`` lists the non-zero
variables only and is absent when there is no solution (``SolCount`` 0).  ``ObjBound``
is the dual bound (read; Gurobi's infinity, 1e100, means none).  Other keys are skipped.

Gurobi writes no final newline: a file is truncated when its JSON is unfinished (the
parser stops at its end, inside a string, or inside a number or literal).
"""
from __future__ import annotations

import json
import re
from numbers import Real

from ...core.errors import SolutionError, TruncatedSolutionError
from .common import RawSolution, Source, Status

FORMAT = "gurobi-json"
OPENINGS = ("{",)
SELF_DELIMITING = True  # an unfinished document is a truncated file
_NO_BOUND = 1e100  # GRB.INFINITY
_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")
_CODES = {1: "loaded", 2: "optimal", 3: "infeasible", 4: "infeasible or unbounded",
          5: "unbounded", 6: "cutoff", 7: "iteration limit", 8: "node limit",
          9: "time limit", 10: "solution limit", 11: "interrupted", 12: "numeric trouble",
          13: "suboptimal", 14: "in progress", 15: "user objective limit",
          16: "work limit", 17: "memory limit"}
_STATUSES = {2: Status.OPTIMAL, 3: Status.INFEASIBLE, 5: Status.UNBOUNDED}
_STOPPED = {6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17}   # FEASIBLE if a solution was kept


def sniff(first: str, second: str) -> bool:
    return first.startswith("{")


def read(src: Source) -> RawSolution:
    try:
        data = json.loads(src.text, parse_int=_integer)
    except json.JSONDecodeError as err:
        cut = _unfinished(src.text, err)
        raise src.error(err.lineno, f"expected a Gurobi JSON solution: {err.msg} (column {err.colno})"
                                    + (": the file is truncated" if cut else ""),
                        TruncatedSolutionError if cut else SolutionError) from None
    except RecursionError:
        raise SolutionError(f"{src.path}: expected a Gurobi JSON solution, got JSON nested too "
                            "deeply to read") from None
    info = data.get("SolutionInfo") if isinstance(data, dict) else None
    variables = data.get("Vars", []) if isinstance(data, dict) else None
    if not (isinstance(info, dict) and isinstance(info.get("Status"), int)
            and isinstance(variables, list)):
        raise SolutionError(f'{src.path}: expected a Gurobi JSON solution, with '
                            f'"SolutionInfo": {{"Status": <code>, ...}} and "Vars": [...]')
    code, count = info["Status"], info.get("SolCount", 0)
    status = _STATUSES.get(code, Status.UNKNOWN)
    if code in _STOPPED:
        status = Status.FEASIBLE if count else Status.NO_SOLUTION
    values: dict[str, float] = {}
    for i, var in enumerate(variables):
        if not (isinstance(var, dict) and isinstance(var.get("VarName"), str)
                and _is_number(var.get("X"))):
            raise SolutionError(f'{src.path}: expected {{"VarName": <name>, "X": <number>}} '
                                f"as Vars[{i}] of a Gurobi JSON solution, "
                                f"got {json.dumps(var)[:80] if len(repr(var)) < 10_000 else '...'}")
        if var["VarName"] in values:
            raise SolutionError(f"{src.path}: column {var['VarName']!r} appears twice "
                                f"(Vars[{i}])")
        values[var["VarName"]] = float(var["X"])  # NaN and overflow stay: verification names them
    objective, bound = info.get("ObjVal"), info.get("ObjBound")
    return RawSolution(format=FORMAT, status=status,
                       status_text=f"{_CODES.get(code, 'unknown')} (Gurobi status {code})",
                       objective=float(objective) if _is_number(objective) else None,
                       values=values, omits_zeros=True,
                       bound=float(bound) if _is_number(bound) and not abs(bound) >= _NO_BOUND else None)


def _unfinished(text: str, err: json.JSONDecodeError) -> bool:
    """The JSON parser stopped because ``text`` ends: at its end, in a string that runs to
    the end, or in a number or literal cut short (``1e``, ``1.``, ``tru``, ``-Inf``)."""
    tail = text[err.pos:].strip()
    return (not tail or err.msg.startswith(("Unterminated string", "Invalid \\uXXXX escape"))
            and "\n" not in text[err.pos:]
            or any(literal.startswith(tail) for literal in _LITERALS)
            or re.fullmatch(r"\.|[eE][-+]?", tail) is not None)


def _integer(text: str) -> int | float:
    """A JSON integer: as ``int``, but one too long for a float (or for Python's
    4,300-digit limit on ``int``) becomes an infinite float, for verification to refuse."""
    return int(text) if len(text) < 300 else float(text)


def _is_number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)
