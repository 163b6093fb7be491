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

Speed: no Python object is built per non-zero.  Each distinct coefficient value is
formatted once (``np.unique``), each column and row name once, into NUL-padded byte
tables; a chunk of ``CHUNK`` lines is assembled by fancy-indexing those tables into one
``uint8`` array (one fixed-width slot per field) and dropping the NUL padding
(:func:`assemble`), so the per-non-zero work is a few ``memcpy``-like numpy passes.
"""
from __future__ import annotations

import re
from typing import TextIO

import numpy as np

CHUNK = 100_000  # non-zeros (or rows / bound lines) per write

_MARK_ORG = "    MARKER    'MARKER'                 'INTORG'\n"
_MARK_END = "    MARKER    'MARKER'                 'INTEND'\n"


def _pad(names) -> list[str]:
    """Names padded to 8 characters (see the module docstring: CoinMpsIO's fixed fields)."""
    return [s.ljust(8) for s in names]


# ----------------------------------------------------------------------------- helpers
# (shared with the LP writer)

def fmt_num(v: float) -> str:
    """Shortest string that reads back as exactly ``v`` (``-0.0`` -> ``0``, ``2.0`` -> ``2``)."""
    s = repr(float(v) + 0.0)
    return s[:-2] if s.endswith(".0") else s


def format_numbers(values: np.ndarray) -> list[str]:
    """:func:`fmt_num` of every value (vectorised where it can be)."""
    v = np.asarray(values, dtype=float).ravel() + 0.0  # -0.0 -> 0.0
    out = list(map(repr, v.tolist()))
    # repr writes integral values below 1e16 as "123.0": drop the ".0"
    for i in np.flatnonzero((v == np.trunc(v)) & (np.abs(v) < 1e16)).tolist():
        out[i] = out[i][:-2]
    return out


def sanitize_model_name(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_]", "_", str(name or ""))
    return s or "annc"


def objective_name(row_names: list[str]) -> str:
    """``obj``, unless a row already has that name (``obj_`` is never an annc name)."""
    return "obj_" if "obj" in set(row_names) else "obj"


def unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)``, faster when few values are distinct."""
    values = np.asarray(values, dtype=float).ravel()
    uniq = np.unique(values)
    if uniq.size <= 1 << 16:  # binary search in a cache-resident table beats argsort
        return uniq, np.searchsorted(uniq, values)
    return uniq, np.unique(values, return_inverse=True)[1].ravel()


def table(strings) -> np.ndarray:
    """2-D ``uint8`` array whose row ``i`` is the ASCII of ``strings[i]``, NUL-padded."""
    a = np.array(list(strings) if not isinstance(strings, np.ndarray) else strings, dtype="S")
    if a.size == 0:
        return np.zeros((0, 1), dtype=np.uint8)
    return a.view(np.uint8).reshape(a.size, a.itemsize)


def value_table(values, prefix: str = "", suffix: str = "") -> tuple[np.ndarray, np.ndarray]:
    """``(table of prefix + number + suffix per distinct value, inverse)``."""
    uniq, inv = unique_inverse(values)
    strs = format_numbers(uniq)
    if prefix or suffix:
        strs = [prefix + v + suffix for v in strs]
    return table(strs), inv


def assemble(parts: list, count: int) -> bytes:
    """``count`` records; record ``r`` is the concatenation over ``parts`` of
    ``tab[idx[r]]`` for a ``(tab, idx)`` part or of the part itself for ``bytes``,
    with the NUL padding of the tables removed."""
    if count == 0:
        return b""
    widths = [len(p) if isinstance(p, bytes) else p[0].shape[1] for p in parts]
    buf = np.empty((count, sum(widths)), dtype=np.uint8)
    at = 0
    for p, w in zip(parts, widths):
        if isinstance(p, bytes):
            buf[:, at:at + w] = np.frombuffer(p, dtype=np.uint8)
        else:
            tab, idx = p
            buf[:, at:at + w] = tab[idx]
        at += w
    flat = buf.reshape(-1)
    return flat[flat != 0].tobytes()


def emit(fh, data: bytes) -> None:
    """Write ASCII bytes to a text handle (or straight through ``fh.write_bytes``)."""
    wb = getattr(fh, "write_bytes", None)
    if wb is not None:
        wb(data)
    else:
        fh.write(data.decode("ascii"))


def check_model(model) -> None:
    """Reject what no file format can express (NaN / infinite data, impossible bounds)."""
    n, m = model.num_cols, model.num_rows
    if model.A.shape != (m, n):
        raise ValueError(f"matrix shape {model.A.shape} != (rows {m}, columns {n})")
    for what, arr, size in (("lb", model.lb, n), ("ub", model.ub, n), ("integer", model.integer, n),
                            ("obj", model.obj, n), ("sense", model.sense, m), ("rhs", model.rhs, m)):
        if len(arr) != size:
            raise ValueError(f"model.{what} has length {len(arr)}, expected {size}")
    if not np.all(np.isfinite(model.A.data)):
        raise ValueError("matrix has a NaN or infinite coefficient")
    if not np.all(np.isfinite(model.obj)):
        raise ValueError("objective has a NaN or infinite coefficient")
    if not np.all(np.isfinite(model.rhs)):
        raise ValueError("a right-hand side is NaN or infinite")
    if np.any(np.isnan(model.lb)) or np.any(np.isnan(model.ub)):
        raise ValueError("a bound is NaN")
    if np.any(model.lb == np.inf) or np.any(model.ub == -np.inf):
        raise ValueError("a lower bound is +inf or an upper bound is -inf")
    crossed = np.flatnonzero(np.asarray(model.lb) > np.asarray(model.ub))
    if crossed.size:
        j = int(crossed[0])
        raise ValueError(
            f"column {model.col_names()[j]} has lower bound {float(model.lb[j])!r} > upper bound "
            f"{float(model.ub[j])!r} ({crossed.size} such columns): no file can carry that to every "
            "solver (Xpress and CBC refuse to read it)")
    bad = ~np.isin(np.asarray(model.sense), ("L", "G", "E"))
    if np.any(bad):
        raise ValueError(f"row sense {model.sense[np.argmax(bad)]!r} is not L, G or E")


def augmented_csc(model) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The column-wise entries with the objective as pseudo-row ``num_rows``.

    Column ``j`` gets an objective entry when ``obj[j] != 0`` or when it has no matrix
    entry at all (then with value 0), so that every column has at least one entry.
    Returns ``(ptr, rows, vals, is_obj)``: column ``j``'s entries are
    ``ptr[j]:ptr[j+1]``, its objective entry (if any) first.
    """
    n, m = model.num_cols, model.num_rows
    A = model.A.tocsc()
    A.sort_indices()
    counts = np.diff(A.indptr).astype(np.int64)
    obj = np.asarray(model.obj, dtype=float)
    extra = (obj != 0) | (counts == 0)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts + extra, out=ptr[1:])
    total = int(ptr[-1])
    rows = np.empty(total, dtype=np.int64)
    vals = np.empty(total, dtype=float)
    is_obj = np.zeros(total, dtype=bool)
    at = ptr[:-1][extra]
    rows[at] = m
    vals[at] = obj[extra]
    is_obj[at] = True
    shift = np.repeat(ptr[:-1] - A.indptr[:-1].astype(np.int64) + extra, counts)
    pos = np.arange(A.nnz, dtype=np.int64) + shift
    rows[pos] = A.indices
    vals[pos] = A.data
    return ptr, rows, vals, is_obj


def split_value_table(vals: np.ndarray, group: np.ndarray, suffix: str = "") -> tuple[np.ndarray, np.ndarray]:
    """:func:`value_table` computed separately for ``vals[group]`` and ``vals[~group]``.

    Objective coefficients are often all distinct while matrix coefficients repeat a
    few values; two smaller ``np.unique`` calls are much cheaper than one mixed one.
    """
    t1, i1 = value_table(vals[~group], suffix=suffix)
    t2, i2 = value_table(vals[group], suffix=suffix)
    w = max(t1.shape[1], t2.shape[1])
    tab = np.zeros((len(t1) + len(t2), w), dtype=np.uint8)
    tab[:len(t1), :t1.shape[1]] = t1
    tab[len(t1):, :t2.shape[1]] = t2
    inv = np.empty(len(vals), dtype=np.int64)
    inv[~group] = i1
    inv[group] = i2 + len(t1)
    return tab, inv


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


# ----------------------------------------------------------------------------- writer

def write_mps(model, fh: TextIO) -> None:
    """Write ``model`` as free MPS to the text file handle ``fh`` (see module docstring)."""
    check_model(model)
    n, m = model.num_cols, model.num_rows
    col_names = model.col_names()
    row_names = model.row_names()
    if len(col_names) != n or len(row_names) != m:
        raise ValueError("name blocks do not match the model size")
    objname = objective_name(row_names)

    fh.write(f"NAME {sanitize_model_name(model.name)}\nROWS\n N  {objname}\n")
    sense = np.asarray(model.sense, dtype="<U1")
    code = np.where(sense == "L", 0, np.where(sense == "G", 1, 2))
    sense_tab = table([" L  ", " G  ", " E  "])
    row_tab = table(row_names)
    for s in range(0, m, CHUNK):
        e = min(s + CHUNK, m)
        emit(fh, assemble([(sense_tab, code[s:e]), (row_tab, np.arange(s, e)), b"\n"], e - s))

    # COLUMNS: "    <col padded>  <row padded>  <value>"; integer runs between markers
    fh.write("COLUMNS\n")
    ptr, rows, vals, is_obj = augmented_csc(model)
    total = len(rows)
    rowpad_tab = table([r + "  " for r in _pad(row_names + [objname])])
    colpad = ["    " + c + "  " for c in _pad(col_names)]
    val_tab, inv = split_value_table(vals, is_obj)
    cols = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    integer = np.asarray(model.integer, dtype=bool)
    prev = np.concatenate([[False], integer[:-1]])
    change = np.flatnonzero(integer != prev)
    # the first entry of a column where integrality changes carries the marker line:
    # those entries index rows n, n+1, ... of the wide column table
    marker_at = ptr[change]
    col_tab = table(colpad)
    wide_tab = table(colpad + [(_MARK_ORG if integer[j] else _MARK_END) + colpad[j]
                               for j in change.tolist()])
    for s in range(0, total, CHUNK):
        e = min(s + CHUNK, total)
        lo, hi = np.searchsorted(marker_at, [s, e])
        cidx = cols[s:e]
        tab = col_tab
        if hi > lo:
            cidx = cidx.copy()
            cidx[marker_at[lo:hi] - s] = n + np.arange(lo, hi)
            tab = wide_tab
        emit(fh, assemble([(tab, cidx), (rowpad_tab, rows[s:e]), (val_tab, inv[s:e]), b"\n"], e - s))
    if n and integer[-1]:
        fh.write(_MARK_END)

    # RHS
    fh.write("RHS\n")
    rhs = np.asarray(model.rhs, dtype=float)
    nz = np.flatnonzero(rhs != 0)
    if nz.size:
        rtab, rinv = value_table(rhs[nz])
        for s in range(0, nz.size, CHUNK):
            e = min(s + CHUNK, nz.size)
            emit(fh, assemble([b"    RHS       ", (rowpad_tab, nz[s:e]), (rtab, rinv[s:e]), b"\n"], e - s))

    # BOUNDS
    bcols, kinds, bvals = bound_entries(model)
    if bcols.size:
        fh.write("BOUNDS\n")
        has_val = ~np.isnan(bvals)
        # value-less lines (MI, PL, FR) end right after the (unpadded) name
        uniq, vinv = unique_inverse(np.where(has_val, bvals, 0.0))
        vstrs = ["  " + v + "\n" for v in format_numbers(uniq)] + ["\n"]
        vtab = table(vstrs)
        vinv = np.where(has_val, vinv, len(vstrs) - 1)
        kcode, kinv = np.unique(kinds, return_inverse=True)
        kind_tab = table([f" {k} BND       " for k in kcode.tolist()])
        name_tab = table(_pad(col_names) + col_names)
        nidx = np.where(has_val, bcols, bcols + n)
        kinv = kinv.ravel()
        for s in range(0, bcols.size, CHUNK):
            e = min(s + CHUNK, bcols.size)
            emit(fh, assemble([(kind_tab, kinv[s:e]), (name_tab, nidx[s:e]), (vtab, vinv[s:e])], e - s))
    fh.write("ENDATA\n")
