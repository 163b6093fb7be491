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
  :data:`LP_KEYWORDS`): HiGHS, SCIP, Gurobi and Xpress take them for section headers
  even in the middle of a line.

annc names are ``block`` or ``block_i_j``; only the block name matters, so a
formulation that avoids those block names can always be written as LP.

Speed: as in the MPS writer, coefficient values, column names and row names are
formatted once each into byte tables, and every chunk of terms is assembled by numpy
fancy indexing (:func:`annc.writers.mps.assemble`).
"""
from __future__ import annotations

import re
from typing import TextIO

import numpy as np

from .mps import (CHUNK, assemble, check_model, emit, format_numbers, objective_name,
                  sanitize_model_name, table, unique_inverse)

LINE_LIMIT = 250  # characters; the LP format's hard limit is 255 (CPLEX, GLPK)

#: Names (compared case-insensitively) that at least one LP reader takes for a keyword.
LP_KEYWORDS = frozenset("""
    min max minimize maximize minimise maximise minimum maximum
    st subject such to that s.t. st.
    bound bounds bin binary binaries gen general generals integer integers int
    semi semis semicontinuous semi-continuous sos sos1 sos2 pwl
    end free inf infinity nan
    lazy user constraints cuts
""".split())

_SIGN_TAB = np.frombuffer(b" + " b" - ", dtype=np.uint8).reshape(2, 3)

_UNSAFE_PREFIX = re.compile(r"^(e|inf|nan)", re.IGNORECASE)


def lp_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be written to an LP file, or None if it can."""
    if name.lower() in LP_KEYWORDS:
        return "is an LP keyword"
    m = _UNSAFE_PREFIX.match(name)
    if m:
        return f"starts with {m.group(1)!r} (read as part of a number)"
    return None


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


def _coef_table(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(table of |value| per distinct value, inverse, is_negative)`` for the terms."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return table([]), np.zeros(0, np.int64), np.zeros(0, bool)
    uniq, inv = unique_inverse(values)
    return table(format_numbers(np.abs(uniq))), inv, (uniq < 0)[inv]


def _write_terms(fh: TextIO, ptr: np.ndarray, cols: np.ndarray, coef: tuple, name_tab: np.ndarray,
                 heads: list[str], tails: list[str], per_line: int) -> None:
    """Write rows ``heads[i] + terms of row i + tails[i]``; every row has >= 1 term.

    Term ``t`` is ``" + " or " - ", |coefficient|, " ", name`` (``coef`` is what
    :func:`_coef_table` returns); a line break goes before every ``per_line``-th term.
    """
    coef_tab, inv, neg = coef
    total = len(cols)
    if total == 0:
        return
    counts = np.diff(ptr)
    row_of = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    pos = np.arange(total, dtype=np.int64) - ptr[:-1][row_of]
    # pre: 0 nothing, 1 line break, 2 + i head of row i;  post: 0 nothing, 1 + i tail of row i
    pre = np.where((pos % per_line == 0) & (pos > 0), 1, 0)
    pre[pos == 0] = 2 + row_of[pos == 0]
    last = pos == counts[row_of] - 1
    post = np.zeros(total, dtype=np.int64)
    post[last] = 1 + row_of[last]
    pre_tab = table(["", "\n"] + heads)
    post_tab = table([""] + tails)
    for s in range(0, total, CHUNK):
        e = min(s + CHUNK, total)
        emit(fh, assemble([(pre_tab, pre[s:e]), (_SIGN_TAB, neg[s:e].view(np.int8)),
                           (coef_tab, inv[s:e]), b" ", (name_tab, cols[s:e]),
                           (post_tab, post[s:e])], e - s))


def _row_entries(model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR entries ``(ptr, cols, vals)`` with one ``0 * column 0`` term in every empty row."""
    A = model.A.tocsr()
    A.sort_indices()
    m = A.shape[0]
    counts = np.diff(A.indptr).astype(np.int64)
    empty = counts == 0
    if not empty.any():
        return A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(float)
    ptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counts + empty, out=ptr[1:])
    cols = np.zeros(int(ptr[-1]), dtype=np.int64)
    vals = np.zeros(int(ptr[-1]), dtype=float)
    at = np.arange(A.nnz, dtype=np.int64) + np.repeat(ptr[:-1] - A.indptr[:-1].astype(np.int64), counts)
    cols[at] = A.indices
    vals[at] = A.data
    return ptr, cols, vals


def write_lp(model, fh: TextIO) -> None:
    """Write ``model`` in CPLEX LP format to the text file handle ``fh`` (see module docstring)."""
    check_model(model)
    n, m = model.num_cols, model.num_rows
    check_lp_names(model)
    col_names, row_names = model.col_names(), model.row_names()
    if len(col_names) != n or len(row_names) != m:
        raise ValueError("name blocks do not match the model size")
    if n == 0 and m:
        raise ValueError("cannot write rows without any column as LP")
    objname = objective_name(row_names)

    if m:
        ptr, cols, vals = _row_entries(model)
    else:
        ptr, cols, vals = np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0)
    # objective coefficients are often all distinct, matrix ones repeat: format apart
    obj_coef = _coef_table(np.asarray(model.obj, dtype=float))
    row_coef = _coef_table(vals)
    ops = {"L": " <= ", "G": " >= ", "E": " = "}
    uniq, rinv = unique_inverse(model.rhs)
    rhs_strs = format_numbers(uniq)
    tails = [ops[sn] + rhs_strs[k] + "\n" for sn, k in zip(np.asarray(model.sense).tolist(), rinv.tolist())]
    heads = [" " + r + ":" for r in row_names]
    name_tab = table(col_names)
    max_head = max(len(objname), max((len(r) for r in row_names), default=0)) + 2
    max_tail = max((len(t) for t in tails), default=1)
    max_coef = max(obj_coef[0].shape[1], row_coef[0].shape[1]) + 4
    per_line = max(1, (LINE_LIMIT - max_head - max_tail) // (max_coef + name_tab.shape[1]))

    fh.write(f"\\Problem name: {sanitize_model_name(model.name)}\nMinimize\n")
    if n:
        _write_terms(fh, np.array([0, n], dtype=np.int64), np.arange(n, dtype=np.int64),
                     obj_coef, name_tab, [f" {objname}:"], ["\n"], per_line)
    else:
        fh.write(f" {objname}:\n")
    fh.write("Subject To\n")
    _write_terms(fh, ptr, cols, row_coef, name_tab, heads, tails, per_line)
    _write_bounds(fh, model, col_names, name_tab)
    integer = np.flatnonzero(np.asarray(model.integer, dtype=bool))
    if integer.size:
        fh.write("General\n")
        per = max(1, LINE_LIMIT // (name_tab.shape[1] + 1))
        sep_tab = table(["", "\n"])
        sep = ((np.arange(integer.size) + 1) % per == 0).astype(np.int64)
        sep[-1] = 1
        for s in range(0, integer.size, CHUNK):
            e = min(s + CHUNK, integer.size)
            emit(fh, assemble([b" ", (name_tab, integer[s:e]), (sep_tab, sep[s:e])], e - s))
    fh.write("End\n")


def _write_bounds(fh: TextIO, model, col_names: list[str], name_tab: np.ndarray) -> None:
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
    for s in range(0, idx.size, CHUNK):
        e = min(s + CHUNK, idx.size)
        emit(fh, assemble([(a_tab, a[s:e]), (name_tab, idx[s:e]), (b_tab, b[s:e])], e - s))
