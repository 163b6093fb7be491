"""Free-MPS writer: one file that CBC, HiGHS, SCIP, Gurobi, CPLEX, Xpress and GLPK
(``glpsol --freemps``) all read as the same problem.

The file is always a minimisation (no ``OBJSENSE`` section: minimisation is every
reader's default, and PuLP's ``OBJSENSE`` before ``NAME`` is rejected by CBC, SCIP,
CPLEX and GLPK).  Layout::

    NAME <model name, sanitised to [A-Za-z0-9_]>
    ROWS
     N  obj                      (``obj_`` if a row is itself called ``obj``)
     L  <row> ...                rows in model order
    COLUMNS                      column by column in model order (CSC order)
        MARKER 'MARKER' 'INTORG' around every run of integer columns
        <col> <row> <value>      one entry a line
    RHS                          only non-zero right-hand sides
    BOUNDS
    ENDATA

Contract details:

* **Column order = model order.**  Every column is written in ``COLUMNS``, also one
  that appears in no row and has a zero objective (it gets an explicit ``<col> obj 0``
  entry), so every solver creates every column in the same order and index-based
  solution formats (GLPK ``-w``, HiGHS style 4, CBC indices) line up with the map.
* **Bounds are never left to a reader's defaults**: an integer column always gets both
  sides (``LO``/``MI`` then ``UP``/``PL``; binaries too, never ``BV`` - several readers
  turn an integer column without ``UP`` into a binary).  Continuous columns:
  ``lb=0, ub=+inf``: nothing; ``-inf..+inf``: ``FR``; ``-inf..u``: ``MI`` then ``UP``;
  ``lb == ub``: ``FX``; finite ``lb != 0``: ``LO``; finite ``ub``: ``UP``.  A bare
  negative ``UP`` is never written (readers disagree whether it also sets ``lb=-inf``):
  ``ub < 0`` implies ``lb < 0`` (``LO``) or ``lb = -inf`` (``MI``), because a model with
  ``lb > ub`` is refused (ValueError: Xpress and CBC refuse to read ``LO 0`` + ``UP -1``
  - "Bound conflict", "Bad image" - while HiGHS, SCIP, Gurobi and CPLEX accept it).
* The objective constant (``model.obj_const``) is **not** written: readers disagree on
  the sign of an objective ``RHS`` entry; annc keeps the constant in its own map.
* Numbers are Python's shortest round-trip ``repr`` (``0.3333333333333333``,
  ``1e-07``, ``123456789.123456``), with ``.0`` dropped from integral values: lossless.

Layout is "fixed-compatible free MPS" (as PuLP writes it): a name field starts at
column 5 or 15 and is padded to at least 8 characters, followed by two blanks.  This is
not cosmetic: CBC's reader (CoinMpsIO) parses a file in fixed format until it meets a
name longer than 8 characters, so ``    a obj 1`` is read as a column called
``aobj1`` ("Bad image") while ``    a         obj       1`` is read correctly.  Every
other reader splits on blanks.  (``NAME x FREE`` would switch CoinMpsIO to free format,
but is not standard for the other readers.)

Speed and memory: no Python object is built per non-zero, and nothing of the size
of the matrix is allocated: the writer streams ``COLUMNS`` straight from the arrays of
the CSC matrix ``model.A``, ``CHUNK`` entries at a time, with the byte-table toolkit of
:mod:`annc.io.writers.text` (names rendered from block indices by
:meth:`annc.core.model.Model.col_name_table`, numbers by table lookup, one fixed-width record
per line gathered by :func:`~annc.io.writers.text.assemble`).
"""
from __future__ import annotations

from typing import TextIO

import numpy as np

from .checks import check_model, check_names
from .text import CHUNK, NumberFormatter, assemble, emit, objective_name, sanitize_model_name, segments, table, take

_MARK_ORG = "    MARKER    'MARKER'                 'INTORG'\n"
_MARK_END = "    MARKER    'MARKER'                 'INTEND'\n"
PAD = 8  # name fields are padded to 8 characters (see the module docstring)


def csc_arrays(model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(indptr, indices, data)`` of ``model.A`` in CSC form with sorted rows, no copy
    when ``A`` already is (an :class:`annc.core.model.Model` built by the builder is)."""
    A = model.A
    if A.format != "csc":
        A = A.tocsc()
    if not A.has_sorted_indices:
        A = A.copy()
        A.sort_indices()
    return A.indptr, A.indices, A.data


def column_lines(indptr, indices, data, obj, m, j0, j1):
    """The ``COLUMNS`` entries of columns ``j0..j1-1``: ``(col, row, value)`` arrays and
    the first line of each column.

    A column's objective entry (pseudo-row ``m``) comes first; it is written when the
    objective coefficient is non-zero or the column has no matrix entry at all (value 0),
    so that every column appears.
    """
    p0, p1 = int(indptr[j0]), int(indptr[j1])
    counts = np.diff(indptr[j0:j1 + 1])
    oc = obj[j0:j1]
    extra = (oc != 0) | (counts == 0)
    lines = counts + extra
    starts = np.cumsum(lines) - lines
    cols = np.repeat(np.arange(j0, j1, dtype=indices.dtype), lines)
    if not extra.any():
        return cols, indices[p0:p1], data[p0:p1], starts
    at = starts[extra]
    mat = np.ones(len(cols), dtype=bool)
    mat[at] = False
    rows = np.empty(len(cols), dtype=indices.dtype)
    vals = np.empty(len(cols), dtype=float)
    rows[mat], vals[mat] = indices[p0:p1], data[p0:p1]
    rows[at], vals[at] = m, oc[extra]
    return cols, rows, vals, starts


def with_markers(col_tab: np.ndarray, cols: np.ndarray, starts: np.ndarray, j0: int, j1: int,
                 change: np.ndarray, integer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The column field ``(table, index)`` of a chunk whose columns ``change`` start or
    end a run of integer columns: their first line gets the ``INTORG`` / ``INTEND``
    marker line in front (a chunk-local table, so other chunks keep the narrow one)."""
    mark = table([_MARK_ORG, _MARK_END])
    local = np.zeros((j1 - j0 + len(change), mark.shape[1] + col_tab.shape[1]), dtype=np.uint8)
    local[:j1 - j0, :col_tab.shape[1]] = col_tab[j0:j1]
    local[j1 - j0:, :mark.shape[1]] = mark[np.where(integer[change], 0, 1)]
    local[j1 - j0:, mark.shape[1]:] = col_tab[change]
    idx = cols - j0
    idx[starts[change - j0]] = j1 - j0 + np.arange(len(change))
    return local, idx


def bound_entries(model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bound records ``(col, kind, value)`` in writing order (by column, then MI/LO before UP).

    ``kind`` is one of ``LO UP MI PL FR FX`` (see the module docstring for the rules);
    ``value`` is NaN for ``MI``, ``PL`` and ``FR``.
    """
    lb = np.asarray(model.lb, dtype=float)
    ub = np.asarray(model.ub, dtype=float)
    integer = np.asarray(model.integer, dtype=bool)
    cont = ~integer
    flb, fub = np.isfinite(lb), np.isfinite(ub)
    fixed = cont & flb & fub & (lb == ub)
    nan = np.nan
    recs = [
        # (mask, order, kind, values)
        (integer & flb, 0, "LO", lb),
        (integer & ~flb, 0, "MI", None),
        (integer & fub, 1, "UP", ub),
        (integer & ~fub, 1, "PL", None),
        (fixed, 0, "FX", lb),
        (cont & ~flb & ~fub, 0, "FR", None),
        (cont & ~flb & fub, 0, "MI", None),
        (cont & ~flb & fub, 1, "UP", ub),
        (cont & flb & ~fixed & ((lb != 0) | (ub < 0)), 0, "LO", lb),
        (cont & flb & fub & ~fixed, 1, "UP", ub),
    ]
    cols, order, kinds, vals = [], [], [], []
    for mask, o, kind, v in recs:
        idx = np.flatnonzero(mask)
        cols.append(idx)
        order.append(np.full(idx.size, o, dtype=np.int8))
        kinds.append(np.full(idx.size, kind, dtype="<U2"))
        vals.append(v[idx] if v is not None else np.full(idx.size, nan))
    cols, order = np.concatenate(cols), np.concatenate(order)
    kinds, vals = np.concatenate(kinds), np.concatenate(vals)
    perm = np.lexsort((order, cols))
    return cols[perm], kinds[perm], vals[perm]


def write_mps(model, fh: TextIO, *, chunk: int = CHUNK) -> None:
    """Write ``model`` as free MPS to the text file handle ``fh`` (see module docstring), ``chunk``
    entries at a time (:data:`~annc.io.writers.text.CHUNK` by default; the bytes do not depend on it)."""
    check_model(model)
    n, m = model.num_cols, model.num_rows
    objname = objective_name(model)
    fh.write(f"NAME {sanitize_model_name(model.name)}\nROWS\n N  {objname}\n")
    check_names(model)
    row_tab = model.row_name_table(suffix=b"\n")
    sense = np.asarray(model.sense, dtype="<U1")
    code = np.where(sense == "L", 0, np.where(sense == "G", 1, 2))
    sense_tab = table([" L  ", " G  ", " E  "])
    for s in range(0, m, chunk):
        e = min(s + chunk, m)
        emit(fh, assemble([(sense_tab, code[s:e]), row_tab[s:e]], e - s))
    del row_tab

    # COLUMNS: "    <col padded>  <row padded>  <value>"; integer runs between markers.
    # Row m of the row table is the objective.
    fh.write("COLUMNS\n")
    row_tab = _with_row(model.row_name_table(PAD, suffix=b"  "), objname.ljust(PAD) + "  ")
    col_tab = model.col_name_table(PAD, prefix=b"    ", suffix=b"  ")
    indptr, indices, data = csc_arrays(model)
    obj = np.asarray(model.obj, dtype=float)
    integer = np.asarray(model.integer, dtype=bool)
    numbers = NumberFormatter("\n")
    # columns whose integrality differs from the previous column's start or end a run
    changes = np.flatnonzero(integer != np.concatenate([[False], integer[:-1]]))
    for j0, j1 in segments(indptr, chunk):
        cols, rows, vals, starts = column_lines(indptr, indices, data, obj, m, j0, j1)
        change = changes[np.searchsorted(changes, j0):np.searchsorted(changes, j1)]
        col_field = (col_tab, cols)
        if change.size:
            col_field = with_markers(col_tab, cols, starts, j0, j1, change, integer)
        emit(fh, assemble([col_field, (row_tab, rows), numbers(vals)], len(cols)))
    if n and integer[-1]:
        fh.write(_MARK_END)
    del col_tab

    # RHS
    fh.write("RHS\n")
    rhs = np.asarray(model.rhs, dtype=float)
    nz = np.flatnonzero(rhs != 0)
    for s in range(0, nz.size, chunk):
        e = min(s + chunk, nz.size)
        emit(fh, assemble([b"    RHS       ", (row_tab, nz[s:e]), numbers(rhs[nz[s:e]])], e - s))
    del row_tab

    # BOUNDS: "<kind> BND       <col padded>  <value>", or "<kind> BND       <col>" (MI, PL, FR)
    bcols, kinds, bvals = bound_entries(model)
    if bcols.size:
        fh.write("BOUNDS\n")
        has_val = ~np.isnan(bvals)
        kcode, kinv = np.unique(kinds, return_inverse=True)
        kind_tab = table([f" {k} BND       " for k in kcode.tolist()])
        kinv = kinv.ravel()
        padded = model.col_name_table(PAD, suffix=b"  ")
        bare = model.col_name_table(suffix=b"\n")
        for s in range(0, bcols.size, chunk):
            e = min(s + chunk, bcols.size)
            hv, bc = has_val[s:e], bcols[s:e]
            names = take(padded, bc)
            text = numbers(np.where(hv, bvals[s:e], 0.0))
            if not hv.all():
                bare_names = take(bare, bc[~hv])
                names = np.pad(names, ((0, 0), (0, max(0, bare_names.shape[1] - names.shape[1]))))
                names[~hv] = 0
                names[~hv, :bare_names.shape[1]] = bare_names
                text[~hv] = 0
            emit(fh, assemble([(kind_tab, kinv[s:e]), names, text], e - s))
    fh.write("ENDATA\n")


def _with_row(tab: np.ndarray, text: str) -> np.ndarray:
    """``tab`` with one more row holding ``text``."""
    extra = table([text])
    out = np.zeros((len(tab) + 1, max(tab.shape[1], extra.shape[1])), dtype=np.uint8)
    out[:-1, :tab.shape[1]] = tab
    out[-1, :extra.shape[1]] = extra[0]
    return out
