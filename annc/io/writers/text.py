"""The text toolkit shared by the MPS and LP writers: byte tables, numbers, records.

A model file is millions of short lines built from a few kinds of field: names, numbers
and fixed keywords.  Nothing here makes a Python object per line or per non-zero:

* **Byte tables.**  A field's possible texts are the rows of a 2-D ``uint8`` array,
  NUL-padded (:func:`table`; names come the same way from
  :func:`annc.core.names.name_table`).  A line's field is then one row index.
* **Numbers** are Python's shortest round-trip ``repr`` (:func:`fmt_num`: lossless,
  ``-0.0`` -> ``0``, ``2.0`` -> ``2``).  :class:`NumberFormatter` looks integral values up
  to ``2**15`` in magnitude up in a table of their strings by arithmetic and formats
  other values once per chunk (``np.unique``).
* **Records.**  :func:`assemble` gathers table rows into the fields of one fixed-width
  record per line and drops the NUL padding, so the per-line work is a few
  ``memcpy``-like numpy passes (about 0.2 us per line); :func:`emit` writes the bytes.
* **Chunks.**  A writer works :data:`CHUNK` entries at a time (:func:`segments` cuts a
  compressed sparse matrix into runs of about that many entries), so nothing of the
  size of the matrix is allocated.
"""
from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

CHUNK = 100_000  # non-zeros (or rows / bound lines) per write


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
    """The model name as written in a file's header: ``[A-Za-z0-9_]`` only (``annc`` if empty)."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", str(name or ""))
    return s or "annc"


def objective_name(row_names) -> str:
    """``obj``, unless a row already has that name (``obj_`` is never an annc name).

    ``row_names`` is a list of names or a model (then only a scalar row block can be
    called ``obj``: element names of other blocks contain ``_``).
    """
    blocks = getattr(row_names, "row_blocks", None)
    if blocks is not None:
        taken = any(b.name == "obj" and b.shape == () for b in blocks)
    else:
        taken = "obj" in set(row_names)
    return "obj_" if taken else "obj"


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


SMALL_INT = 1 << 15  # integral values in [-SMALL_INT, SMALL_INT] are formatted by table lookup


@lru_cache(maxsize=4)
def _int_table(suffix: str = "") -> np.ndarray:
    return table([str(i) + suffix for i in range(-SMALL_INT, SMALL_INT + 1)])


KNOWN_MAX = 1 << 12  # other values a NumberFormatter keeps formatted across chunks (about 100 kB)


class NumberFormatter:
    """Numbers of a stream of chunks as byte fields (:func:`fmt_num` text + ``suffix``).

    Small integers (the bulk of a training model's coefficients: data values, 1, -1,
    many big-M values) cost one index computation.  Other values are most often few and
    come back chunk after chunk (scaled data: 387 distinct ones among the 1.6 M such
    coefficients of the digits-size benchmark), so each is formatted once, kept in a sorted
    table of the values seen so far, and found again by binary search.  Once a chunk would
    take that table past ``known_max`` values (:data:`KNOWN_MAX` by default) (data with many distinct values), the
    table stops growing and each chunk's new values are formatted for that chunk
    (``np.unique``), as every chunk's were before the table.
    """

    def __init__(self, suffix: str = "", *, known_max: int = KNOWN_MAX):
        self.suffix = suffix
        self.known_max = known_max  # the table's size, at most
        self.ints = _int_table(suffix)
        self.known = np.zeros(0)  # the other values formatted so far, sorted
        self.known_tab = np.zeros((0, 1), dtype=np.uint8)  # row i: the text of known[i]
        self.known_len = np.zeros(0, dtype=np.intp)  # the length of each text
        self.full = False  # the table has stopped growing

    def _texts(self, values: np.ndarray) -> np.ndarray:
        """The text table of ``values``."""
        strs = format_numbers(values)
        return table([s + self.suffix for s in strs] if self.suffix else strs)

    def _other(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(tab, idx)``: the text of ``v[i]`` (values that are not small integers) is row
        ``idx[i]`` of ``tab``."""
        if self.full or np.isnan(v).any():  # NaN equals no value of the table
            uniq, inv = np.unique(v, return_inverse=True)
            return self._texts(uniq), inv.ravel()
        if self.known.size:
            pos = np.searchsorted(self.known, v)
            np.minimum(pos, self.known.size - 1, out=pos)  # a value above them all: compared with the last
            seen = self.known[pos] == v
            if seen.all():  # as wide as this chunk's longest text, as a table of its own would be
                return self.known_tab[:, :int(self.known_len[pos].max())], pos
            new = np.unique(v[~seen])
            del pos, seen
        else:
            new = np.unique(v)
        if self.known.size + new.size > self.known_max:
            self.full = True
            del new
            return self._other(v)
        values = np.concatenate([self.known, new])
        tab = self._texts(new)
        texts = np.zeros((values.size, max(self.known_tab.shape[1], tab.shape[1])), dtype=np.uint8)
        texts[:self.known.size, :self.known_tab.shape[1]] = self.known_tab
        texts[self.known.size:, :tab.shape[1]] = tab
        order = np.argsort(values, kind="stable")
        self.known, self.known_tab = values[order], texts[order]
        self.known_len = (self.known_tab != 0).sum(axis=1)
        return self._other(v)

    def __call__(self, values: np.ndarray) -> np.ndarray:
        """A ``len(values) x width`` uint8 array: the text of each value, NUL-padded."""
        v = np.asarray(values, dtype=float)
        small = (np.abs(v) <= SMALL_INT) & (v == np.trunc(v))
        if small.all():
            return take(self.ints, (v + SMALL_INT).astype(np.intp))
        tab, idx = self._other(v[~small])
        width = max(tab.shape[1], self.ints.shape[1] if small.any() else 0)
        out = np.zeros((len(v), width), dtype=np.uint8)
        out[~small, :tab.shape[1]] = take(tab, idx)
        if small.any():
            out[small, :self.ints.shape[1]] = self.ints[(v[small] + SMALL_INT).astype(np.intp)]
        return out


def _void(tab: np.ndarray) -> np.ndarray:
    """The rows of a 2-D uint8 table as a 1-D array of ``void`` items (one memcpy each)."""
    tab = np.ascontiguousarray(tab)
    return tab.view(np.dtype((np.void, tab.shape[1]))).reshape(-1)


def take(tab: np.ndarray, idx) -> np.ndarray:
    """``tab[idx]`` for a 2-D uint8 table (rows copied as whole items)."""
    return _void(tab)[idx].view(np.uint8).reshape(-1, tab.shape[1])


def assemble(parts: list, count: int) -> bytes:
    """``count`` records; record ``r`` is the concatenation over ``parts`` of
    ``tab[idx[r]]`` for a ``(tab, idx)`` part, of ``arr[r]`` for a 2-D uint8 array part
    with ``count`` rows, or of the part itself for ``bytes``; NUL bytes are dropped."""
    if count == 0:
        return b""
    fields = []
    for p in parts:
        if isinstance(p, bytes):
            fields.append(len(p))
        elif isinstance(p, np.ndarray):
            fields.append(p.shape[1])
        else:
            fields.append(p[0].shape[1])
    rec = np.dtype({"names": [f"f{i}" for i in range(len(parts))],
                    "formats": [np.dtype((np.void, w)) for w in fields]})
    buf = np.empty(count, dtype=rec)
    for i, p in enumerate(parts):
        dest = buf[f"f{i}"]
        if isinstance(p, bytes):
            dest[...] = np.frombuffer(p, dtype=np.dtype((np.void, len(p))))[0]
        elif isinstance(p, np.ndarray):
            dest[...] = _void(p)
        else:
            tab, idx = p
            np.take(_void(tab), idx, out=dest, mode="clip")
    flat = buf.view(np.uint8)
    return flat[flat != 0].tobytes()


def emit(fh, data: bytes) -> None:
    """Write ASCII bytes to a text handle (or straight through ``fh.write_bytes``)."""
    wb = getattr(fh, "write_bytes", None)
    if wb is not None:
        wb(data)
    else:
        fh.write(data.decode("ascii"))


def segments(indptr: np.ndarray, chunk: int) -> list[tuple[int, int]]:
    """Runs ``[a, b)`` of the columns of a CSC matrix (the rows of a CSR matrix) with
    ``indptr`` that hold about ``chunk`` entries (and at most ``chunk`` columns)."""
    n, nnz = len(indptr) - 1, int(indptr[-1])
    cuts = {0, n}
    if nnz > chunk:
        cuts.update(np.searchsorted(indptr, np.arange(chunk, nnz, chunk), side="right") - 1)
    cuts.update(range(chunk, n, chunk))  # an empty column (row) gets a line too
    cuts = sorted(c for c in cuts if 0 <= c <= n)
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
