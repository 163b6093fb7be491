"""CPLEX-LP writer, read identically by HiGHS, SCIP, Gurobi, CPLEX, Xpress and GLPK (``--lp``).

Layout::

    \\Problem name: <model name>
    Minimize
     obj: + 0 a_0 - 2.5 a_1 + ...          every column, in model order (zeros too)
    Subject To
     r_0: + 1 a_0 - 1 h_0_0 <= 3           rows in model order
    Bounds
     ...
    General
     h_0_0 h_0_1 ...                        every integer column (binaries too)
    End

Contract details (same contract as the MPS writer):

* Always ``Minimize``; the objective constant is **not** written (annc keeps it in its
  map).
* **Column order = model order**: LP readers number columns in order of first
  appearance, so the objective lists every column in model order, with a ``0``
  coefficient where the objective has none.  This also keeps columns that appear in no
  row and have a zero objective (otherwise they would vanish from the file).
* **A row with no terms** is written as ``name: 0 <first column> <= rhs`` (a zero
  coefficient on the model's first column) so that it keeps its place: skipping it would
  shift every later row index (GLPK's ``-w`` output numbers rows).  A model with rows
  but no columns cannot be written as LP (ValueError).
* Bounds, same semantics as MPS: ``lb=0, ub=+inf``: nothing; ``x free``;
  ``-inf <= x <= u``; ``x = v`` for a fixed column; ``x >= l``; ``x <= u`` (only when
  ``lb=0`` and ``u>0``); otherwise ``l <= x <= u``.  Integer columns (binaries too)
  always get both sides, ``l <= x <= u`` with ``-inf``/``+inf`` where infinite, and are
  listed under ``General`` (no ``Binaries`` section is used).
* Numbers are the shortest round-trip ``repr`` (lossless); lines stay below 255
  characters (terms are wrapped; continuation lines start with the sign).

**Names.**  LP is a free-text format and the readers disagree on what is a name.  The
writer refuses (ValueError, listing them; write MPS instead) names that some reader
misreads - checked with every reader installed here:

* starting with ``e``/``E``: CPLEX reads ``2 e1`` as the number ``2e1``, and *silently*
  reads ``+ 1 e1_0`` as ``10 _0`` (a new column ``_0``) and ``1 e1x`` as ``10 x``;
  ``e``, ``e0``, ``ee`` are rejected outright (CPLEX's manual reserves ``e``-names).
* starting with ``inf`` or ``nan`` (HiGHS, SCIP and Xpress parse them as numbers:
  ``inff``, ``nanx`` fail in HiGHS);
* a section keyword such as ``end``, ``free``, ``st``, ``bin``, ``general``,
  ``integer``, ``bound``, ``semis``, ``min``, ``maximum``, ``subject``, ``pwl``... (see
  :data:`annc.core.names.LP_KEYWORDS`): HiGHS, SCIP, Gurobi and Xpress take them for section headers
  even in the middle of a line.

annc names are ``block`` or ``block_i_j``; only the block name matters, so a
formulation that avoids those block names can always be written as LP.

Speed and memory: as in the MPS writer, names are byte tables, numbers are formatted
once each, and the rows are written ``CHUNK`` terms at a time, each chunk assembled by
numpy fancy indexing (:func:`annc.io.writers.text.assemble`).  The number of terms per line
is fixed from the longest possible number (23 characters), so lines stay below the
limit without formatting every coefficient first.
"""
from __future__ import annotations

from typing import TextIO

import numpy as np

from ...core.names import lp_name_problem
from .checks import check_model, check_names
from .text import (CHUNK, NumberFormatter, assemble, emit, format_numbers, objective_name, sanitize_model_name,
                   segments, table, unique_inverse)

LINE_LIMIT = 250  # characters; the LP format's hard limit is 255 (CPLEX, GLPK)

_SIGN_TAB = np.frombuffer(b" + " b" - ", dtype=np.uint8).reshape(2, 3)


def check_lp_names(model) -> None:
    """Raise ValueError naming every block whose names an LP reader would misread.

    annc names are ``block`` (scalar block) or ``block_i_j``: a prefix problem is the
    block's, and only a scalar block's name can be a keyword.
    """
    bad = []
    for kind, blocks in (("column", model.var_blocks), ("row", model.row_blocks)):
        for blk in blocks:
            if blk.size == 0:
                continue
            name = blk.name if blk.shape == () else f"{blk.name}_0"
            why = lp_name_problem(name)
            if why:
                bad.append(f"{kind} {'' if blk.shape == () else 'block '}{blk.name!r} {why}")
    if bad:
        raise ValueError("cannot write an LP file: " + "; ".join(bad)
                         + " - write MPS instead, or rename the block")


NUMBER_WIDTH = 23  # longest |x| from fmt_num: "1.7976931348623157e+308", "2.2250738585072014e-308"


def _terms(fh: TextIO, cols: np.ndarray, vals: np.ndarray, pos: np.ndarray, head: np.ndarray,
           tail: np.ndarray, name_tab: np.ndarray, numbers: NumberFormatter, per_line: int) -> None:
    """Write terms ``" + " or " - ", |value|, " ", name``; ``pos`` is each term's position
    in its row.  ``head`` / ``tail`` (uint8 rows, one per term) go before / after the
    term (a row's name on its first term, its sense and rhs on its last; NUL rows
    elsewhere); a line break goes before every ``per_line``-th term of a row."""
    brk = (pos % per_line == 0) & (pos > 0)
    if brk.any():
        head = head.copy()
        head[brk, 0] = ord("\n")
    emit(fh, assemble([head, (_SIGN_TAB, (vals < 0).view(np.int8)), numbers(np.abs(vals)), b" ",
                       (name_tab, cols), tail], len(cols)))


def write_lp(model, fh: TextIO, *, chunk: int = CHUNK) -> None:
    """Write ``model`` in CPLEX LP format to the text file handle ``fh`` (see module docstring), ``chunk``
    terms at a time (:data:`~annc.io.writers.text.CHUNK` by default; the bytes do not depend on it)."""
    check_model(model)
    n, m = model.num_cols, model.num_rows
    check_lp_names(model)
    check_names(model)
    if n == 0 and m:
        raise ValueError("cannot write rows without any column as LP")
    objname = objective_name(model)
    name_tab = model.col_name_table()
    heads = model.row_name_table(prefix=b" ", suffix=b":")
    numbers = NumberFormatter()
    ops = table([" <= ", " >= ", " = "])
    sense = np.asarray(model.sense, dtype="<U1")
    op = np.where(sense == "L", 0, np.where(sense == "G", 1, 2))
    rhs = np.asarray(model.rhs, dtype=float)
    rhs_text = NumberFormatter("\n")
    # terms per line from the widest head, term (" - " |x| " " name) and tail (" <= " rhs "\n")
    max_head = max(len(objname) + 2, heads.shape[1])
    per_line = max(1, (LINE_LIMIT - max_head - (4 + 1 + NUMBER_WIDTH + 1))
                   // (3 + NUMBER_WIDTH + 1 + name_tab.shape[1]))

    fh.write(f"\\Problem name: {sanitize_model_name(model.name)}\nMinimize\n")
    obj = np.asarray(model.obj, dtype=float)
    if n:
        obj_head, obj_tail = table([f" {objname}:"]), table(["\n"])
        for s in range(0, n, chunk):
            e = min(s + chunk, n)
            pos = np.arange(s, e)
            head = np.zeros((e - s, obj_head.shape[1]), dtype=np.uint8)
            head[pos == 0] = obj_head[0]
            tail = np.zeros((e - s, 1), dtype=np.uint8)
            tail[pos == n - 1] = obj_tail[0]
            _terms(fh, pos, obj[s:e], pos, head, tail, name_tab, numbers, per_line)
    else:
        fh.write(f" {objname}:\n")

    fh.write("Subject To\n")
    A = model.A.tocsr()
    A.sort_indices()
    for r0, r1 in segments(A.indptr, chunk):
        # a row without terms is written "name: + 0 <first column> <= rhs" to keep its place
        counts = np.diff(A.indptr[r0:r1 + 1])
        lines = np.maximum(counts, 1)
        row = np.repeat(np.arange(r0, r1), lines)
        start = np.cumsum(lines) - lines
        pos = np.arange(len(row)) - np.repeat(start, lines)
        p0, p1 = int(A.indptr[r0]), int(A.indptr[r1])
        if (counts == 0).any():
            cols = np.zeros(len(row), dtype=A.indices.dtype)
            vals = np.zeros(len(row))
            real = np.repeat(counts > 0, lines)
            cols[real], vals[real] = A.indices[p0:p1], A.data[p0:p1]
        else:
            cols, vals = A.indices[p0:p1], A.data[p0:p1]
        first, last = pos == 0, pos == np.repeat(lines, lines) - 1
        head = np.zeros((len(row), heads.shape[1]), dtype=np.uint8)
        head[first] = heads[row[first]]
        text = rhs_text(rhs[r0:r1])  # NULs inside a record are dropped by assemble
        tail = np.zeros((len(row), ops.shape[1] + text.shape[1]), dtype=np.uint8)
        tail[last, :ops.shape[1]] = ops[op[row[last]]]
        tail[last, ops.shape[1]:] = text[row[last] - r0]
        _terms(fh, cols, vals, pos, head, tail, name_tab, numbers, per_line)
    del A

    _write_bounds(fh, model, name_tab, chunk)
    integer = np.flatnonzero(np.asarray(model.integer, dtype=bool))
    if integer.size:
        fh.write("General\n")
        per = max(1, LINE_LIMIT // (name_tab.shape[1] + 1))
        sep_tab = table(["", "\n"])
        sep = ((np.arange(integer.size) + 1) % per == 0).astype(np.int64)
        sep[-1] = 1
        for s in range(0, integer.size, chunk):
            e = min(s + chunk, integer.size)
            emit(fh, assemble([b" ", (name_tab, integer[s:e]), (sep_tab, sep[s:e])], e - s))
    fh.write("End\n")


def _write_bounds(fh: TextIO, model, name_tab: np.ndarray, chunk: int) -> None:
    lb = np.asarray(model.lb, dtype=float)
    ub = np.asarray(model.ub, dtype=float)
    integer = np.asarray(model.integer, dtype=bool)
    flb, fub = np.isfinite(lb), np.isfinite(ub)
    cont = ~integer
    fixed = cont & flb & fub & (lb == ub)
    # kind: 0 nothing, 1 "x free", 2 "-inf <= x <= u", 3 "x = l", 4 "x >= l",
    #       5 "x <= u", 6 "l <= x <= u" (integers: always 6, with -inf / +inf)
    kind = np.zeros(len(lb), dtype=np.int64)
    kind[cont & ~flb & ~fub] = 1
    kind[cont & ~flb & fub] = 2
    kind[fixed] = 3
    kind[cont & flb & ~fub & (lb != 0)] = 4
    both = cont & flb & fub & ~fixed
    kind[both & (lb == 0) & (ub > 0)] = 5
    kind[both & ~((lb == 0) & (ub > 0))] = 6
    kind[integer] = 6
    idx = np.flatnonzero(kind)
    if idx.size == 0:
        return
    fh.write("Bounds\n")
    k = kind[idx]
    lu, li = unique_inverse(np.where(flb[idx], lb[idx], 0.0))
    uu, ui = unique_inverse(np.where(fub[idx], ub[idx], 0.0))
    ls = format_numbers(lu)
    us = format_numbers(uu)
    nl, nu = len(ls), len(us)
    li = np.where(flb[idx], li, nl)  # index nl = "-inf"
    ui = np.where(fub[idx], ui, nu)  # index nu = "+inf"
    ls.append("-inf")
    us.append("+inf")
    # before the name: 0 " ", 1 + i " <l_i> <= "
    a_tab = table([" "] + [" " + v + " <= " for v in ls])
    a = np.where((k == 2) | (k == 6), 1 + li, 0)
    # after the name: 0 " free"; 1+i " <= u_i"; 1+(nu+1)+i " = l_i"; 1+(nu+1)+(nl+1)+i " >= l_i"
    b_tab = table([" free\n"] + [" <= " + v + "\n" for v in us] + [" = " + v + "\n" for v in ls]
                  + [" >= " + v + "\n" for v in ls])
    b = np.zeros(idx.size, dtype=np.int64)
    sel = (k == 2) | (k == 5) | (k == 6)
    b[sel] = 1 + ui[sel]
    sel = k == 3
    b[sel] = 1 + (nu + 1) + li[sel]
    sel = k == 4
    b[sel] = 1 + (nu + 1) + (nl + 1) + li[sel]
    for s in range(0, idx.size, chunk):
        e = min(s + chunk, idx.size)
        emit(fh, assemble([(a_tab, a[s:e]), (name_tab, idx[s:e]), (b_tab, b[s:e])], e - s))
