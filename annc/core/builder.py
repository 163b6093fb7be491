"""The model builder: formulations add blocks of columns and rows, :meth:`ModelBuilder.build`
assembles the :class:`~annc.core.model.Model`.

A variable block is an n-dimensional array of columns (:meth:`ModelBuilder.var`); a row
block is an array of rows ``sum_t coef_t * x[col_t] (sense) rhs`` built from broadcast
coefficient terms (:meth:`ModelBuilder.rows`).  No Python object is made per
coefficient: a row block is stored row by row (CSR pieces: entries per row, column
indices, values).

Sizes.  A digits- or MNIST-size training problem has millions of non-zeros, so the
builder keeps memory near the size of the final matrix: indices are ``int32`` (while
they fit), a term's entries are gathered straight from broadcast *views* (the
broadcast arrays are never materialised), zero coefficients are dropped on the
un-broadcast coefficient array, and :meth:`ModelBuilder.build` turns the CSR pieces
into ``A`` in compressed-sparse-column form (what the MPS writer and highspy read)
with one counting sort, without COO triplets.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .model import SENSES, Block, Model
from .names import check_block_name

INT32_MAX = np.iinfo(np.int32).max


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
