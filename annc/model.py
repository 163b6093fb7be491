"""A mixed-integer linear model held as arrays: the lowering target of every formulation.

Formulations add *blocks*: a variable block is an n-dimensional array of columns with
shared meaning (``a0`` = weights of layer 0, ``h1`` = binary activations of layer 1, ...);
a row block is an array of rows built from broadcast coefficient terms.  No Python
object is made per coefficient: a row block is stored row by row (CSR pieces: entries
per row, column indices, values) and the model as one sparse matrix ``A``, so the
writers, highspy and PuLP all read the same arrays.

The model is always ``min c'x + c0  s.t.  A x (<=, >=, =) rhs,  lb <= x <= ub,
x_j integer for j in I``.

Sizes.  A digits- or MNIST-size training problem has millions of non-zeros, so the
builder keeps memory near the size of the final matrix: indices are ``int32`` (while
they fit), a term's entries are gathered straight from broadcast *views* (the
broadcast arrays are never materialised), zero coefficients are dropped on the
un-broadcast coefficient array, and :meth:`ModelBuilder.build` turns the CSR pieces
into ``A`` in compressed-sparse-column form (what the MPS writer and highspy read)
with one counting sort, without COO triplets.  Names are never built one Python string
per column for writing: :func:`name_table` renders a block's names from its index
digits straight into a byte table (the same names as :func:`annc.names.element_names`).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp

from .names import check_block_name, element_names

SENSES = ("L", "G", "E")  # <=, >=, =
INT32_MAX = np.iinfo(np.int32).max


@dataclass(frozen=True)
class Block:
    """A named array of columns (or rows) occupying ``[start, start + size)``."""

    name: str
    role: str
    layer: int | None
    shape: tuple[int, ...]
    start: int

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1

    @property
    def stop(self) -> int:
        return self.start + self.size

    def index(self) -> np.ndarray:
        """Column (row) indices of the block's elements, shaped like the block."""
        return np.arange(self.start, self.stop).reshape(self.shape)

    def names(self) -> list[str]:
        return element_names(self.name, self.shape)


# ----------------------------------------------------------------------------- name tables

def _digit_runs(n: int) -> list[tuple[int, int, np.ndarray]]:
    """``0..n-1`` split by number of decimal digits: ``(lo, hi, digits)`` with the ASCII
    digits of ``lo..hi-1`` as a ``(hi - lo) x d`` uint8 array."""
    runs, d = [], 1
    while 10 ** (d - 1) < n or d == 1:
        lo, hi = (0 if d == 1 else 10 ** (d - 1)), min(10 ** d, n)
        if lo < hi:
            i = np.arange(lo, hi)[:, None]
            runs.append((lo, hi, (i // 10 ** np.arange(d - 1, -1, -1) % 10 + ord("0")).astype(np.uint8)))
        d += 1
    return runs


def _fill_names(v: np.ndarray, block: Block, pad: int, prefix: bytes, suffix: bytes) -> None:
    """Write ``prefix + name + blanks up to pad + suffix`` of every element of ``block``
    into ``v`` (zeroed uint8, shaped ``block.shape + (width,)``).

    The elements whose indices have the same number of digits on every axis form a
    rectangular sub-block with the same layout, so each is filled by broadcasting.
    """
    shape = block.shape
    head = np.frombuffer(prefix + block.name.encode("ascii"), dtype=np.uint8)
    tail = np.frombuffer(suffix, dtype=np.uint8)
    for runs in itertools.product(*[_digit_runs(s) for s in shape]):
        g = v[tuple(slice(lo, hi) for lo, hi, _ in runs)]
        g[..., :len(head)] = head
        at = len(head)
        for k, (_, _, dig) in enumerate(runs):
            g[..., at] = ord("_")
            axis = (1,) * k + (len(dig),) + (1,) * (len(shape) - k - 1)
            g[..., at + 1:at + 1 + dig.shape[1]] = dig.reshape(axis + dig.shape[1:])
            at += 1 + dig.shape[1]
        text_end = max(at, len(prefix) + pad)
        g[..., at:text_end] = ord(" ")
        g[..., text_end:text_end + len(tail)] = tail


def name_table(blocks: list[Block], pad: int = 0, prefix: bytes = b"", suffix: bytes = b"") -> np.ndarray:
    """Names of every element of ``blocks`` (in order) as a 2-D ``uint8`` table.

    Row ``i`` holds the ASCII of ``prefix + name + blanks + suffix`` for the ``i``-th
    name (exactly :func:`annc.names.element_names`), the name padded with blanks to
    ``pad`` characters, then NUL bytes up to the table's width.  Rendered from the
    index digits with numpy, no Python string per element.
    """
    def width(b):
        longest = len(b.name) + sum(1 + len(str(max(s - 1, 0))) for s in b.shape)
        return len(prefix) + max(longest, pad) + len(suffix)

    total = sum(b.size for b in blocks)
    out = np.zeros((total, max([width(b) for b in blocks if b.size] or [1])), dtype=np.uint8)
    at = 0
    for b in blocks:
        if b.size:
            _fill_names(out[at:at + b.size].reshape(b.shape + (out.shape[1],)), b, pad, prefix, suffix)
        at += b.size
    return out


def table_strings(tab: np.ndarray) -> list[str]:
    """The strings of a NUL-padded byte table (:func:`name_table`) as a list."""
    if len(tab) == 0:
        return []
    buf = np.empty((tab.shape[0], tab.shape[1] + 1), dtype=np.uint8)
    buf[:, :-1] = tab
    buf[:, -1] = ord("\n")
    flat = buf.reshape(-1)
    return flat[flat != 0].tobytes().decode("ascii").split("\n")[:-1]


# ----------------------------------------------------------------------------- the model

@dataclass
class Model:
    """The assembled model (see module docstring).  ``A`` is a ``scipy.sparse.csc_matrix``
    with sorted row indices and no duplicate or explicit zero entries."""

    name: str
    var_blocks: list[Block]
    row_blocks: list[Block]
    lb: np.ndarray
    ub: np.ndarray
    integer: np.ndarray  # bool
    obj: np.ndarray
    obj_const: float
    sense: np.ndarray  # 'L' / 'G' / 'E'
    rhs: np.ndarray
    A: sp.csc_matrix
    big_m: dict = field(default_factory=dict)  # row block name -> (min M, max M)
    warnings: list = field(default_factory=list)

    @property
    def num_cols(self) -> int:
        return len(self.lb)

    @property
    def num_rows(self) -> int:
        return len(self.rhs)

    def col_name_table(self, pad: int = 0, prefix: bytes = b"", suffix: bytes = b"") -> np.ndarray:
        """Column names as a byte table (:func:`name_table`)."""
        return name_table(self.var_blocks, pad, prefix, suffix)

    def row_name_table(self, pad: int = 0, prefix: bytes = b"", suffix: bytes = b"") -> np.ndarray:
        """Row names as a byte table (:func:`name_table`)."""
        return name_table(self.row_blocks, pad, prefix, suffix)

    def col_names(self) -> list[str]:
        return table_strings(self.col_name_table())

    def row_names(self) -> list[str]:
        return table_strings(self.row_name_table())

    def var_block(self, name: str) -> Block:
        for b in self.var_blocks:
            if b.name == name:
                return b
        raise KeyError(name)

    def row_block(self, name: str) -> Block:
        for b in self.row_blocks:
            if b.name == name:
                return b
        raise KeyError(name)

    def has_var(self, name: str) -> bool:
        return any(b.name == name for b in self.var_blocks)

    def values(self, x: np.ndarray, name: str) -> np.ndarray:
        """The slice of a full solution vector ``x`` belonging to block ``name``, shaped."""
        b = self.var_block(name)
        return np.asarray(x[b.start:b.stop], dtype=float).reshape(b.shape)

    def activity(self, x: np.ndarray) -> np.ndarray:
        return self.A @ x

    def objective(self, x: np.ndarray) -> float:
        """``c'x + c0`` at the point ``x``."""
        return float(self.obj @ x + self.obj_const)

    def without_rows(self, name: str) -> "Model":
        """This model without the row block ``name`` (e.g. to measure what a block of
        valid inequalities is worth)."""
        b = self.row_block(name)
        keep = np.r_[0:b.start, b.stop:self.num_rows]
        blocks = [r if r.start < b.start else replace(r, start=r.start - b.size)
                  for r in self.row_blocks if r.name != name]
        return replace(self, A=self.A[keep].tocsc(), sense=self.sense[keep], rhs=self.rhs[keep],
                       row_blocks=blocks, big_m={k: v for k, v in self.big_m.items() if k != name})

    def violations(self, x: np.ndarray) -> dict:
        """Largest bound, row and integrality violations of the point ``x``."""
        x = np.asarray(x, dtype=float)
        act = self.activity(x)
        viol = np.zeros(self.num_rows)
        L, G, E = self.sense == "L", self.sense == "G", self.sense == "E"
        viol[L] = np.maximum(act[L] - self.rhs[L], 0)
        viol[G] = np.maximum(self.rhs[G] - act[G], 0)
        viol[E] = np.abs(act[E] - self.rhs[E])
        bound = np.maximum(np.maximum(self.lb - x, x - self.ub), 0)
        frac = np.abs(x - np.round(x)) * self.integer

        def worst(v, blocks):
            if v.size == 0 or v.max() <= 0:
                return {"max": 0.0, "where": None}
            i = int(np.argmax(v))
            b = next(b for b in blocks if b.start <= i < b.stop)
            idx = np.unravel_index(i - b.start, b.shape) if b.shape else ()
            return {"max": float(v[i]), "where": "_".join([b.name] + [str(int(k)) for k in idx])}

        return {"row": worst(viol, self.row_blocks), "bound": worst(bound, self.var_blocks),
                "integrality": worst(frac, self.var_blocks)}

    def stats(self) -> dict:
        """Sizes and numerical ranges, as printed at compile time and stored in the map."""
        A = self.A
        n_bin = int(np.sum(self.integer & (self.lb >= 0) & (self.ub <= 1)))
        n_int = int(np.sum(self.integer)) - n_bin
        ms = [v for v in self.big_m.values()]
        return {
            "columns": self.num_cols,
            "binary": n_bin,
            "integer": n_int,
            "continuous": int(self.num_cols - n_bin - n_int),
            "rows": self.num_rows,
            "nonzeros": int(A.nnz),
            "coef_range": _range(A.data) or [0.0, 0.0],
            "rhs_range": _range(self.rhs),
            "bound_range": _range(np.concatenate([self.lb, self.ub])),
            "big_m_range": [min(m[0] for m in ms), max(m[1] for m in ms)] if ms else None,
        }


def _range(v: np.ndarray, chunk: int = 1 << 20) -> list[float] | None:
    """``[min, max]`` of the finite non-zero ``|v|`` (None if there is none), in chunks."""
    lo, hi = np.inf, -np.inf
    for s in range(0, len(v), chunk):
        a = np.abs(v[s:s + chunk])
        a = a[np.isfinite(a) & (a != 0)]
        if a.size:
            lo, hi = min(lo, float(a.min())), max(hi, float(a.max()))
    return [lo, hi] if hi >= lo else None


# ----------------------------------------------------------------------------- the builder

class ModelBuilder:
    """Collects variable blocks, row blocks and objective terms; :meth:`build` assembles."""

    def __init__(self, name: str):
        self.name = name
        self._vars: list[Block] = []
        self._rows: list[Block] = []
        self._lb: list[np.ndarray] = []
        self._ub: list[np.ndarray] = []
        self._int: list[np.ndarray] = []
        self._sense: list[np.ndarray] = []
        self._rhs: list[np.ndarray] = []
        # one CSR piece per row block: (entries per row, column indices, values)
        self._csr: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._obj: list[tuple[np.ndarray, np.ndarray]] = []
        self.obj_const = 0.0
        self.big_m: dict = {}
        self.ncols = 0
        self.nrows = 0

    # -- variables -------------------------------------------------------------
    def var(self, name, shape, lb, ub, *, integer=False, role="", layer=None) -> np.ndarray:
        """Add a block of columns with (broadcast) bounds; return its index array."""
        check_block_name(name)
        if any(b.name == name for b in self._vars):
            raise ValueError(f"duplicate variable block {name}")
        shape = tuple(int(s) for s in shape)
        b = Block(name, role, layer, shape, self.ncols)
        self._vars.append(b)
        self._lb.append(np.broadcast_to(np.asarray(lb, float), shape).ravel().copy())
        self._ub.append(np.broadcast_to(np.asarray(ub, float), shape).ravel().copy())
        self._int.append(np.full(b.size, bool(integer)))
        self.ncols = b.stop
        return b.index()

    def var_bounds(self, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds of the columns ``cols`` (any shape)."""
        lb, ub = np.concatenate(self._lb), np.concatenate(self._ub)
        return lb[cols], ub[cols]

    def binary(self, name, shape, *, role="", layer=None) -> np.ndarray:
        return self.var(name, shape, 0.0, 1.0, integer=True, role=role, layer=layer)

    # -- rows ------------------------------------------------------------------
    def rows(self, name, shape, sense, rhs, terms, *, role="", layer=None, big_m=None) -> None:
        """Add rows ``sum_t coef_t * x[col_t] (sense) rhs`` for every index of ``shape``.

        Each term is ``(cols, coefs)``; both broadcast to ``shape`` (one entry per row)
        or to ``shape + (t,)`` (a sum over a trailing axis).  Zero coefficients are
        dropped.  ``big_m`` (array or scalar) is only recorded for the model statistics.
        """
        check_block_name(name)
        if any(b.name == name for b in self._rows):
            raise ValueError(f"duplicate row block {name}")
        if sense not in SENSES:
            raise ValueError(sense)
        shape = tuple(int(s) for s in shape)
        b = Block(name, role, layer, shape, self.nrows)
        self._rows.append(b)
        pieces = [self._term(shape, cols, coefs) for cols, coefs in terms]
        self._csr.append(_merge_rows(pieces, b.size))
        self._sense.append(np.full(b.size, sense, dtype="<U1"))
        self._rhs.append(np.broadcast_to(np.asarray(rhs, float), shape).ravel().copy())
        if big_m is not None:
            m = np.asarray(big_m, dtype=float)
            if m.size:
                self.big_m[name] = (float(m.min()), float(m.max()))
        self.nrows = b.stop

    def _term(self, shape, cols, coefs):
        """One term's entries in row order: ``(count per row, cols, values)``.

        The count is an int (the same for every row) or an array with one count per row.
        Entries are gathered from broadcast views: only the kept entries are stored.
        """
        cols, coefs = np.asarray(cols), np.asarray(coefs, dtype=float)
        nd = max(cols.ndim, coefs.ndim)
        target = shape if nd <= len(shape) else shape + (np.broadcast_shapes(cols.shape, coefs.shape)[-1],)
        per_row = int(np.prod(target[len(shape):]))  # 1, or the trailing axis
        if cols.size and (cols.min() < 0 or cols.max() >= self.ncols):
            raise IndexError(f"column index out of range 0..{self.ncols - 1}")
        cols = cols.astype(np.int32 if self.ncols <= INT32_MAX else np.int64, copy=False)
        nonzero = coefs != 0  # on the coefficients as given, before broadcasting
        if nonzero.all():
            c = np.broadcast_to(cols, target).reshape(-1)
            v = np.broadcast_to(coefs, target).reshape(-1)
            count = per_row
        else:
            keep = np.broadcast_to(nonzero, target)
            c = np.broadcast_to(cols, target)[keep]
            v = np.broadcast_to(coefs, target)[keep]
            count = keep.sum(-1).reshape(-1) if per_row > 1 else keep.reshape(-1)
        return count, c, v

    # -- objective -------------------------------------------------------------
    def minimize(self, cols, coefs) -> None:
        """Add ``sum coefs * x[cols]`` to the (minimised) objective."""
        cols, coefs = np.broadcast_arrays(np.asarray(cols), np.asarray(coefs, float))
        self._obj.append((cols.ravel(), coefs.ravel()))

    def build(self) -> Model:
        n, m = self.ncols, self.nrows
        A = _assemble_csc(self._csr, m, n)
        self._csr = []  # the builder is spent: do not keep a second copy alive
        obj = np.zeros(n)
        for cols, coefs in self._obj:
            if cols.size:
                obj += np.bincount(cols.astype(np.intp), weights=coefs, minlength=n)
        cat = lambda xs, dt=float: np.concatenate(xs) if xs else np.zeros(0, dt)  # noqa: E731
        return Model(
            name=self.name, var_blocks=list(self._vars), row_blocks=list(self._rows),
            lb=cat(self._lb), ub=cat(self._ub), integer=cat(self._int, bool), obj=obj,
            obj_const=float(self.obj_const), sense=cat(self._sense, "<U1"), rhs=cat(self._rhs),
            A=A, big_m=dict(self.big_m),
        )


def _merge_rows(pieces: list, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interleave the terms of a row block into row order: ``(count per row, cols, vals)``.

    Row ``i`` lists the entries of term 0, then term 1, ...  A term whose count per row
    is an int ``t`` has its entries of row ``i`` at ``i*t .. i*t+t-1``.
    """
    if not pieces:
        return np.zeros(rows, dtype=np.int64), np.zeros(0, np.int32), np.zeros(0)
    counts = [np.broadcast_to(np.asarray(cnt, dtype=np.int64), (rows,)) for cnt, _, _ in pieces]
    if len(pieces) == 1:
        return counts[0].copy(), pieces[0][1], pieces[0][2]
    total = np.sum(counts, axis=0)
    ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(total, out=ptr[1:])
    dtype = np.result_type(*[c.dtype for _, c, _ in pieces])
    cols = np.empty(int(ptr[-1]), dtype=dtype)
    vals = np.empty(int(ptr[-1]), dtype=float)
    at = ptr[:-1].copy()  # where the next term's entries of each row go
    for (cnt, c, v), count in zip(pieces, counts):
        if isinstance(cnt, int):
            dest = (at[:, None] + np.arange(cnt)).reshape(-1)
        else:
            start = np.cumsum(count) - count  # where each row's entries start within the term
            dest = np.arange(len(c), dtype=np.int64) + np.repeat(at - start, count)
        cols[dest] = c
        vals[dest] = v
        at += count
    return total, cols, vals


def _assemble_csc(pieces: list, m: int, n: int) -> sp.csc_matrix:
    """The row blocks' CSR pieces as one ``m x n`` CSC matrix (sorted, no duplicates).

    The pieces are copied into one CSR triplet (each piece freed once copied), which
    one counting sort (``tocsc``) turns into CSC with rows sorted within each column.
    A column listed twice in one row (a formulation may add ``x`` in two terms) is
    summed; entries that sum to zero are removed.
    """
    nnz = sum(len(v) for _, _, v in pieces)
    idx = np.int32 if max(n, m, nnz) <= INT32_MAX else np.int64
    indptr = np.zeros(m + 1, dtype=idx)
    indices = np.empty(nnz, dtype=idx)
    data = np.empty(nnz, dtype=float)
    row = at = 0
    while pieces:
        cnt, c, v = pieces.pop(0)
        np.cumsum(cnt, out=indptr[row + 1:row + 1 + len(cnt)])
        indptr[row + 1:row + 1 + len(cnt)] += at
        indices[at:at + len(c)] = c
        data[at:at + len(v)] = v
        row += len(cnt)
        at += len(v)
        del cnt, c, v
    csr = sp.csr_matrix((data, indices, indptr), shape=(m, n), copy=False)
    del data, indices, indptr
    A = csr.tocsc()
    del csr
    # rows come out sorted within each column; a repeated row is a duplicate entry
    if A.nnz:
        first = np.zeros(A.nnz, dtype=bool)
        starts = A.indptr[:-1][np.diff(A.indptr) > 0]
        first[starts] = True
        dup = ~first[1:] & (A.indices[1:] == A.indices[:-1])
        if dup.any():
            A.has_canonical_format = False
            A.sum_duplicates()
            A.eliminate_zeros()
            return A
    A.has_sorted_indices = True
    A.has_canonical_format = True
    return A
