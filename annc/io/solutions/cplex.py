"""CPLEX XML solution files (``.sol``, ``write x.sol``) and MIP starts (``.mst``).

::

    <CPLEXSolution version="1.2">
     <header objectiveValue="41" solutionStatusValue="101"
             solutionStatusString="integer optimal solution" primalFeasible="1" .../>
     <variables>
      <variable name="b" index="1" value="1"/>

A ``.mst`` file wraps one or more ``<CPLEXSolution>`` in ``<CPLEXSolutions>``, has no
status and lists the integer variables only; the first one is read.  annc's start files
(``<stem>.start.mst``, :mod:`annc.io.writers.startfiles`) list every variable
(``writeLevel="1"``) and put the start's objective in the header (``objectiveValue``),
which is then read.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from xml.parsers import expat
from xml.parsers.expat import ErrorString

from ...core.errors import SolutionError, TruncatedSolutionError
from .common import RawSolution, Source, Status

FORMAT = "cplex"
OPENINGS = ("<?xml", "<CPLEXSolution")
SELF_DELIMITING = True  # an unfinished document is a truncated file
_STATUSES = {1: Status.OPTIMAL, 101: Status.OPTIMAL, 102: Status.OPTIMAL,
             129: Status.OPTIMAL, 130: Status.OPTIMAL,
             3: Status.INFEASIBLE, 103: Status.INFEASIBLE,
             2: Status.UNBOUNDED, 118: Status.UNBOUNDED}
# stopped by a limit, an abort or trouble: FEASIBLE when the header says primalFeasible
_STOPPED = {5, 6, 10, 11, 12, 13, 21, 22, 25, *range(104, 118), 127, 128, 131, 132}


def sniff(first: str, second: str) -> bool:
    return first.startswith(OPENINGS)


def read(src: Source) -> RawSolution:
    try:
        root = ET.fromstring(src.text)
    except ET.ParseError as err:
        line, column = err.position
        cut = _unfinished(src.text)
        raise src.error(line, f"expected a CPLEX XML solution: {ErrorString(err.code)} "
                              f"(column {column + 1})" + (": the file is truncated" if cut else ""),
                        TruncatedSolutionError if cut else SolutionError) from None
    solutions = [root] if root.tag == "CPLEXSolution" else root.findall("CPLEXSolution")
    header = solutions[0].find("header") if solutions else None
    if header is None:
        raise SolutionError(f"{src.path}: expected <CPLEXSolution><header .../> in a CPLEX "
                            f"solution, got <{root.tag}>")
    values, positions = _variables(src, solutions[0])
    code = header.get("solutionStatusValue")
    if code is None:
        name = header.get("solutionName", "")
        which = "every variable" if header.get("writeLevel") == "1" else "values of the integer variables only"
        try:
            objective = header.get("objectiveValue")
            objective = float(objective) if objective is not None else None
        except ValueError:
            raise src.error(_line_of(src, "objectiveValue"), "expected a number in objectiveValue "
                                                             "of the CPLEX header") from None
        return RawSolution(format=FORMAT, status=Status.UNKNOWN,
                           status_text=f"CPLEX MIP start {name!r} (1 of {len(solutions)}): {which}, no status",
                           objective=objective, values=values, positions=positions)
    try:
        code_number = int(code)
        objective = header.get("objectiveValue")
        objective = float(objective) if objective is not None else None
    except ValueError:
        raise src.error(_line_of(src, "<header"), "expected numbers in solutionStatusValue "
                                                  "and objectiveValue of the CPLEX header")
    status = _STATUSES.get(code_number, Status.UNKNOWN)
    if code_number in _STOPPED:
        status = Status.FEASIBLE if header.get("primalFeasible") == "1" else Status.NO_SOLUTION
    text = f"{header.get('solutionStatusString', '')} (CPLEX status {code})"
    return RawSolution(format=FORMAT, status=status, status_text=text, objective=objective,
                       values=values, positions=positions)


def _variables(src: Source, solution: ET.Element) -> tuple[dict[str, float], dict[str, int]]:
    values: dict[str, float] = {}
    positions: dict[str, int] = {}
    for var in solution.iterfind("variables/variable"):
        name, value = var.get("name"), var.get("value")
        try:
            if name is None or name in values:
                raise ValueError
            values[name] = float(value)
            if var.get("index") is not None:
                positions[name] = int(var.get("index"))
        except (TypeError, ValueError):
            attributes = " ".join(f'{k}="{v}"' for k, v in var.attrib.items())
            raise src.error(_line_of(src, attributes.split(" value=")[0]),
                            "expected <variable name=\"<unique name>\" ... value=\"<number>\"/> "
                            f"in a CPLEX solution, got <variable {attributes}/>") from None
    return values, positions


def _unfinished(text: str) -> bool:
    """``text`` is well-formed as far as it goes: the start of an XML document, cut."""
    parser = expat.ParserCreate()
    try:
        parser.Parse(text, False)  # not final: an unclosed element is no error yet
    except expat.ExpatError:
        return False
    return True


def _line_of(src: Source, needle: str) -> int:
    """The line where ``needle`` first appears (ElementTree keeps no positions)."""
    return src.text.count("\n", 0, max(src.text.find(needle), 0)) + 1
