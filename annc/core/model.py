"""A mixed-integer linear model held as arrays: the lowering target of every formulation.

The model is always ``min c'x + c0  s.t.  A x (<=, >=, =) rhs,  lb <= x <= ub,
x_j integer for j in I``.

Its columns and rows come in *blocks*: a variable block is an n-dimensional array of
columns with shared meaning (``a0`` = weights of layer 0, ``h1`` = binary activations
of layer 1, ...), a row block an array of rows.  ``A`` is one sparse matrix, so the
writers, highspy and PuLP all read the same arrays.  Formulations make a model with
:class:`annc.core.builder.ModelBuilder`; names come from :mod:`annc.core.names` (as byte tables
for writing: :func:`annc.core.names.name_table`); whether a point satisfies the model is
:meth:`Model.check` (:mod:`annc.core.feasibility`, the one feasibility rule).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp

from .feasibility import SOLUTION_TOL, Check, check
from .names import element_names, name_table, table_strings

SENSES = ("L", "G", "E")  # <=, >=, =


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
    layout: object = None  # handles to the blocks, from the formulation (annc.formulations.Layout)

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

    def with_rows(self, name: str, A: sp.spmatrix, sense: str, rhs, *, role: str = "", layer=None) -> "Model":
        """This model with a row block ``name`` appended: ``A x (sense) rhs`` (``A`` has one
        row per new row and a column per model column)."""
        A = sp.csr_matrix(A)
        if A.shape[1] != self.num_cols:
            raise ValueError(f"rows over {A.shape[1]} columns for a model of {self.num_cols}")
        A.eliminate_zeros()
        A.sum_duplicates()
        m = A.shape[0]
        block = Block(name, role, layer, (m,), self.num_rows)
        stacked = sp.vstack([self.A, A], format="csc")
        stacked.sort_indices()
        return replace(self, A=stacked, row_blocks=self.row_blocks + [block],
                       sense=np.concatenate([self.sense, np.full(m, sense, dtype=self.sense.dtype)]),
                       rhs=np.concatenate([self.rhs, np.broadcast_to(np.asarray(rhs, float), (m,))]))

    def check(self, x: np.ndarray, tol: float = SOLUTION_TOL) -> Check:
        """The violations of the point ``x`` under annc's one tolerance policy
        (:mod:`annc.core.feasibility`): bounds and integrality to ``tol``, rows to
        ``tol * max(1, max |rhs|)``, a non-finite value always."""
        return check(self, x, tol)

    def violations(self, x: np.ndarray) -> dict:
        """Largest row, bound and integrality deviations of the point ``x``, whatever the
        tolerance (:meth:`annc.core.feasibility.Check.maxima`)."""
        return self.check(x).maxima()

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
