"""The same model as a PuLP ``LpProblem`` (``--writer pulp``) and PuLP's own file writers.

What a user of the PuLP path must know (checked against PuLP 3.3 in
``tests/io/test_writers.py``):

* **Names** are kept: annc names use ``[a-z0-9_]`` only, which PuLP never rewrites.
  PuLP calls the objective ``OBJ`` (MPS and LP), never a clash with annc's lower-case
  row names.
* **Column order is PuLP's, not annc's.**  ``LpProblem.variables()`` - the order of
  ``writeMPS`` and of the objective in ``writeLP`` - is *sorted by name* (Python string
  order: ``v_10`` before ``v_2``).  A solution format that identifies columns by index
  (GLPK ``-w``, HiGHS style 4, CBC's index column) therefore follows
  :func:`pulp_column_order`, not the map's order: decode such files by name, or
  permute with that function.
* **Row order**: ``writeMPS`` keeps annc's row order; ``writeLP`` sorts rows by name.
* **Every column is kept**: PuLP writes only variables that occur in the objective or a
  row, so :func:`to_pulp` puts every column in the objective, with coefficient 0 where
  annc has none (``writeMPS`` then writes ``x OBJ 0``, ``writeLP`` ``+ 0 x``).
* **Numbers are rounded**: ``writeMPS`` keeps 13 significant digits (``%.12e``:
  ``123456789.123456`` becomes ``1.234567891235e+08``), ``writeLP`` 12 (``%.12g``:
  ``123456789.123``, ``1/3`` becomes ``0.333333333333``).  annc's own writers are exact.
* **Bounds - GLPK misreads PuLP's MPS.**  ``writeMPS`` writes binaries as ``BV`` and
  an integer column without finite upper bound with ``LO`` only (no ``PL``).  HiGHS,
  SCIP, Gurobi, CPLEX, Xpress and CBC read that as intended, but ``glpsol --freemps``
  gives every integer column without ``UP`` the upper bound 1: an integer in
  ``[-3, +inf)`` is solved as ``[-3, 1]``, silently (checked with GLPK 5.0).  annc's own
  MPS writer always writes ``UP``/``PL``.
* **GLPK misreads PuLP's LP** when a scalar column is named like an abbreviated section
  keyword (``g``, ``i``, ``in``, ``bi``, ``b``...): ``writeLP`` puts the names of the
  ``Generals``/``Binaries`` sections at the start of the line, where ``glpsol --lp``
  takes ``i`` for ``integer`` (the column silently stays continuous) or ``b`` for an
  unknown keyword (read error).  annc's LP writer indents those lines.
* **Empty rows** (no terms) in ``writeLP`` get an extra column ``__dummy`` (fixed to 0
  by an extra row ``_dummy: __dummy = 0``); ``writeMPS`` writes them without it.
* The objective constant ``model.obj_const`` is left out of the ``LpProblem`` too (as
  from every file; PuLP's writers would drop it anyway): ``pulp.value(prob.objective)``
  plus ``model.obj_const`` is annc's objective.  The sense is always minimise.

Speed: PuLP builds a Python dict per row and objects per term, tens of times slower than
annc's own MPS writer and with about 14 times the memory on the digits-size benchmark
(docs/decisions.md, "Solvers and files"); use this path to add constraints in PuLP, not for
large models.
"""
from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import numpy as np

from ..outputs import temp_path
from . import MODEL_FORMATS, _atomic_write, resolve_format
from .checks import check_model
from .text import sanitize_model_name


def _new_variable(prob, name, lb, ub, cat):
    import pulp

    add = getattr(prob, "add_variable", None)  # PuLP >= 3.3; avoids the v4 deprecation warning
    if add is not None:
        return add(name, lb, ub, cat)
    return pulp.LpVariable(name, lb, ub, cat)


def to_pulp(model):
    """The model as a ``pulp.LpProblem`` (minimise; names = annc names; see module docstring).

    Every column is in the objective (coefficient 0 where annc has none) so that PuLP
    keeps it.  Rows are added in model order under their annc names.
    """
    import pulp

    check_model(model)
    prob = pulp.LpProblem(sanitize_model_name(model.name), pulp.LpMinimize)
    names = model.col_names()
    lb = [None if not math.isfinite(v) else v for v in np.asarray(model.lb, float).tolist()]
    ub = [None if not math.isfinite(v) else v for v in np.asarray(model.ub, float).tolist()]
    cats = np.where(model.integer, pulp.LpInteger, pulp.LpContinuous).tolist()
    xs = [_new_variable(prob, n, lo, up, c) for n, lo, up, c in zip(names, lb, ub, cats)]
    prob.setObjective(pulp.LpAffineExpression(dict(zip(xs, np.asarray(model.obj, float).tolist()))))
    A = model.A.tocsr()
    A.sort_indices()
    indptr, indices, data = A.indptr.tolist(), A.indices.tolist(), A.data.tolist()
    senses = {"L": pulp.LpConstraintLE, "G": pulp.LpConstraintGE, "E": pulp.LpConstraintEQ}
    sense = np.asarray(model.sense).tolist()
    rhs = np.asarray(model.rhs, float).tolist()
    for i, rname in enumerate(model.row_names()):
        a, b = indptr[i], indptr[i + 1]
        expr = pulp.LpAffineExpression(dict(zip([xs[j] for j in indices[a:b]], data[a:b])))
        prob.addConstraint(pulp.LpConstraint(expr, senses[sense[i]], rname, rhs[i]))
    return prob


def pulp_column_order(model) -> np.ndarray:
    """annc column indices in the order PuLP writes them (sorted by name)."""
    names = model.col_names()
    return np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)


def pulp_row_order(model, fmt: str) -> np.ndarray:
    """annc row indices in the order PuLP's ``fmt`` writer writes them (LP: sorted by name)."""
    names = model.row_names()
    if MODEL_FORMATS[fmt].pulp_sorts_rows:
        return np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)
    return np.arange(len(names), dtype=np.int64)


def write_with_pulp(model, path, fmt: str | None = None) -> Path:
    """Write ``model`` with PuLP's own ``writeMPS`` / ``writeLP`` (the ``--writer pulp`` path).

    Same file contract as :func:`annc.io.writers.write_model` (atomic, ``.gz`` compresses),
    with PuLP's differences listed in the module docstring.
    """
    path = Path(path)
    fmt, gz = resolve_format(path, fmt)
    method = MODEL_FORMATS[fmt].pulp_method
    if method is None:
        raise ValueError(f"PuLP does not write the {fmt} format: use annc's writer")
    prob = to_pulp(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    # PuLP writes to a file name: let it write a plain temporary file, then copy it
    # (compressing if asked) through the atomic writer.
    plain = temp_path(path.with_name(f"{path.name}.pulp.{fmt}"))  # annc's temporary name: see annc.io.outputs
    try:
        getattr(prob, method)(str(plain))  # writeMPS, writeLP

        def copy(fh):
            with open(plain, "r", encoding="ascii") as src:
                shutil.copyfileobj(src, fh, 1 << 20)

        return _atomic_write(path, gz, copy)
    finally:
        try:
            os.unlink(plain)
        except FileNotFoundError:
            pass


__all__ = ["to_pulp", "write_with_pulp", "pulp_column_order", "pulp_row_order"]
