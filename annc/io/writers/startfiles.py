"""MIP start files: one feasible point of a model, in the formats the solvers read.

``annc compile`` writes the start beside the model as ``<stem>.start.<suffix>``
(:data:`START_FILES`); every file lists **every column** of the model, by annc's name,
in the model's column order, and nothing else.  Values are Python's shortest
round-trip ``repr`` (:func:`annc.io.writers.text.format_numbers`: ``1``, ``0``,
``-0.4205900235417653``), so each solver reads back exactly the doubles annc checked
(a value written with 6 digits could leave a big-M row by more than its tolerance).
The exponent never has a ``+`` (``1e16``, not ``1e+16``): CBC's reader takes digits,
``.``, ``-`` and ``e`` only.  Names are annc's own (``[a-z0-9_]``), so nothing is
quoted or escaped.  The formats, each as its solver writes it:

``.start.mst``: CPLEX MST XML (``Cplex.MIP_starts.read``; interactive ``read x.mst``)::

    <?xml version = "1.0" encoding="UTF-8" standalone="yes"?>
    <CPLEXSolutions version="1.2">
     <CPLEXSolution version="1.2">
      <header
        problemName="xor"
        solutionName="annc"
        objectiveValue="0.94"
        MIPStartEffortLevel="1"
        writeLevel="1"/>
      <variables>
       <variable name="a0_0_0" index="0" value="-0.42"/>
      ...

  Effort level 1 is CPLEX's ``CheckFeas``: the start is complete, so CPLEX only checks
  it; write level 1 means every variable (CPLEX's own ``.mst`` holds the discrete ones).
  Gurobi's ``.mst`` is a different, plain-text format: Gurobi reads ``.start.sol``.

``.start.sol``: ``name value`` lines after ``#`` comments, as Gurobi writes a ``.sol``
(Gurobi ``Model.read``)::

    # annc MIP start of model xor: every column
    # Objective value = 0.94
    a0_0_0 -0.42

``.start.scip.sol``: SCIP's own solution format (``readSolFile`` / ``readSol``, ``read`` in
its shell, which picks its reader by the ``.sol`` ending), as ``writeSol`` writes it: SCIP
reads ``.start.sol``'s ``#`` comments as a variable ``#`` and warns ``unknown variable <#>``,
while Gurobi refuses SCIP's ``objective value:`` line, so each has its own file::

    objective value: 0.94
    a0_0_0 -0.42

``.start.highs``: HiGHS's raw solution file (style 0, as ``writeSolution(f, 0)``
writes it), the column section only (``Highs.readSolution(f, 0)``; ``highs
--read_solution_file f``; HiGHS computes the row values itself)::

    Model status
    Unknown

    # Primal solution values
    Feasible
    Objective 0.94
    # Columns 650
    a0_0_0 -0.42

``.start.slx``: Xpress's ASCII solution (``readslxsol``, as ``writeslxsol`` writes it)::

    NAME          xor
      C a0_0_0 -0.42
    ENDATA

``.start.cbc``: CBC's ``-mipstart`` / ``-mips`` file.  CBC (``CbcMipStartIO``) takes every
line that starts with a digit and has at least three fields as ``index name value``,
matched by name, and ignores the rest; the file is shaped as CBC's own ``-solu``
output (first line a status and the objective, then ``index name value reduced-cost``),
so ``annc decode`` reads it as a CBC solution::

    MIP start - objective value 0.94
          0 a0_0_0 -0.42 0

GLPK's ``glpsol`` takes no MIP start on its command line (only through its C API), so
there is no GLPK file.

Each solver driver says which of these files its solver reads (``start_format`` of
:class:`annc.solve.solvers.driver.Driver`, a ``format`` here); :func:`start_readers` names the
readers of a file from the drivers.

:func:`point_digest` is the fingerprint the map records: SHA-256 of the point as
little-endian float64 in column order (``-0.0`` as ``0.0``), so the point any of the
files gives back has the recorded digest.
"""
from __future__ import annotations

import hashlib
from typing import Callable, NamedTuple

import numpy as np

from .text import format_numbers, sanitize_model_name


class StartFormat(NamedTuple):
    suffix: str  # the file is <stem>.start.<suffix>
    format: str  # the name the map records, and a solver driver's start_format
    write: Callable[[str, list, list, float], str]


def _numbers(x: np.ndarray) -> list[str]:
    """The shortest round-trip text of every value, with no ``+`` in an exponent."""
    return [s.replace("e+", "e") for s in format_numbers(np.asarray(x, dtype=float))]


def _num(v: float) -> str:
    return _numbers(np.array([v]))[0]


def _mst(model_name: str, names: list, values: list, objective: float) -> str:
    head = ['<?xml version = "1.0" encoding="UTF-8" standalone="yes"?>', '<CPLEXSolutions version="1.2">',
            ' <CPLEXSolution version="1.2">', "  <header", f'    problemName="{model_name}"',
            '    solutionName="annc"', f'    objectiveValue="{_num(objective)}"',
            '    MIPStartEffortLevel="1"', '    writeLevel="1"/>', "  <variables>"]
    body = [f'   <variable name="{n}" index="{i}" value="{v}"/>' for i, (n, v) in enumerate(zip(names, values))]
    return "\n".join(head + body + ["  </variables>", " </CPLEXSolution>", "</CPLEXSolutions>", ""])


def _sol(model_name: str, names: list, values: list, objective: float) -> str:
    head = [f"# annc MIP start of model {model_name}: every column",
            f"# Objective value = {_num(objective)}"]
    return "\n".join(head + [f"{n} {v}" for n, v in zip(names, values)] + [""])


def _scip(model_name: str, names: list, values: list, objective: float) -> str:
    head = [f"objective value: {_num(objective)}"]
    return "\n".join(head + [f"{n} {v}" for n, v in zip(names, values)] + [""])


def _highs(model_name: str, names: list, values: list, objective: float) -> str:
    head = ["Model status", "Unknown", "", "# Primal solution values", "Feasible",
            f"Objective {_num(objective)}", f"# Columns {len(names)}"]
    return "\n".join(head + [f"{n} {v}" for n, v in zip(names, values)] + [""])


def _slx(model_name: str, names: list, values: list, objective: float) -> str:
    return "\n".join([f"NAME          {model_name}"] + [f"  C {n} {v}" for n, v in zip(names, values)]
                     + ["ENDATA", ""])


def _cbc(model_name: str, names: list, values: list, objective: float) -> str:
    head = [f"MIP start - objective value {_num(objective)}"]
    return "\n".join(head + [f"{i:>7} {n} {v} 0" for i, (n, v) in enumerate(zip(names, values))] + [""])


#: The start files, in the order they are written.
START_FILES = (
    StartFormat("mst", "cplex-mst", _mst),
    StartFormat("sol", "sol", _sol),
    StartFormat("scip.sol", "scip-sol", _scip),
    StartFormat("highs", "highs", _highs),
    StartFormat("slx", "xpress-slx", _slx),
    StartFormat("cbc", "cbc-mipstart", _cbc),
)
START_FORMATS = {f.format: f for f in START_FILES}  # by the name a driver's start_format gives
GLPK_NOTE = "no start file for GLPK: glpsol takes no MIP start on its command line"


def start_readers(fmt: StartFormat, drivers) -> str:
    """Who reads ``fmt``, for messages: the titles of the ``drivers`` (the values of
    :data:`annc.solve.solvers.SOLVERS`, which this layer does not import) whose ``start_format``
    is its name, in their order ("SCIP, Gurobi")."""
    return ", ".join(d.title for d in drivers if d.start_format == fmt.format)


def start_file_name(stem: str, fmt: StartFormat) -> str:
    return f"{stem}.start.{fmt.suffix}"


def start_bytes(fmt: StartFormat, model, x: np.ndarray, objective: float) -> bytes:
    """The file of format ``fmt`` holding the point ``x`` of ``model`` (every column)."""
    x = np.asarray(x, dtype=float)
    names = model.col_names()
    if x.shape != (len(names),):
        raise ValueError(f"a start of {x.size} values for a model of {len(names)} columns")
    return fmt.write(sanitize_model_name(model.name), names, _numbers(x), float(objective)).encode("ascii")


def point_digest(x: np.ndarray) -> str:
    """SHA-256 (hex) of the point ``x`` as little-endian float64, in column order, with
    ``-0.0`` as ``0.0`` (the files write both as ``0``)."""
    return hashlib.sha256((np.asarray(x, dtype="<f8") + 0.0).tobytes()).hexdigest()
