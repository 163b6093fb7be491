"""A mixed-integer linear model held as arrays: the lowering target of every formulation.

Formulations add *blocks*: a variable block is an n-dimensional array of columns with
shared meaning (``a0`` = weights of layer 0, ``h1`` = binary activations of layer 1, ...);
a row block is an array of rows built from broadcast coefficient terms.  No Python
object is made per coefficient: a row block is stored as COO triplets and the model
as a sparse matrix ``A``, so writers, highspy and PuLP all read the same arrays.

The model is always ``min c'x + c0  s.t.  A x (<=, >=, =) rhs,  lb <= x <= ub,
x_j integer for j in I``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .names import check_block_name, element_names

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


@dataclass
class Model:
    """The assembled model (see module docstring)."""

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
    A: sp.csr_matrix
    big_m: dict = field(default_factory=dict)  # row block name -> (min M, max M)
    warnings: list = field(default_factory=list)

    @property
    def num_cols(self) -> int:
        return len(self.lb)

    @property
    def num_rows(self) -> int:
        return len(self.rhs)

    def col_names(self) -> list[str]:
        return [n for b in self.var_blocks for n in b.names()]

    def row_names(self) -> list[str]:
        return [n for b in self.row_blocks for n in b.names()]

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
        names_r, names_c = None, None

        def worst(v, kind):
            if v.size == 0 or v.max() <= 0:
                return {"max": 0.0, "where": None}
            i = int(np.argmax(v))
            nonlocal names_r, names_c
            if kind == "row":
                names_r = names_r or self.row_names()
                where = names_r[i]
            else:
                names_c = names_c or self.col_names()
                where = names_c[i]
            return {"max": float(v[i]), "where": where}

        return {"row": worst(viol, "row"), "bound": worst(bound, "col"), "integrality": worst(frac, "col")}

    def stats(self) -> dict:
        """Sizes and numerical ranges, as printed at compile time and stored in the map."""
        A = self.A
        vals = np.abs(A.data[A.data != 0]) if A.nnz else np.array([0.0])
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
            "coef_range": [float(vals.min()), float(vals.max())],
            "rhs_range": _range(self.rhs),
            "bound_range": _range(np.concatenate([self.lb, self.ub])),
            "big_m_range": [min(m[0] for m in ms), max(m[1] for m in ms)] if ms else None,
        }


def _range(v: np.ndarray) -> list[float] | None:
    v = np.abs(v[np.isfinite(v) & (v != 0)])
    return [float(v.min()), float(v.max())] if v.size else None


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
        self._coo: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
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
        or to ``shape + (t,)`` (a sum over a trailing axis).  ``big_m`` (array or
        scalar) is only recorded for the model statistics.
        """
        check_block_name(name)
        if any(b.name == name for b in self._rows):
            raise ValueError(f"duplicate row block {name}")
        if sense not in SENSES:
            raise ValueError(sense)
        shape = tuple(int(s) for s in shape)
        b = Block(name, role, layer, shape, self.nrows)
        self._rows.append(b)
        rowidx = b.index()
        for cols, coefs in terms:
            cols, coefs = np.asarray(cols), np.asarray(coefs, dtype=float)
            nd = max(cols.ndim, coefs.ndim)
            target = shape if nd <= len(shape) else shape + (np.broadcast_shapes(cols.shape, coefs.shape)[-1],)
            c = np.broadcast_to(cols, target)
            v = np.broadcast_to(coefs, target)
            r = np.broadcast_to(rowidx.reshape(shape + (1,) * (len(target) - len(shape))), target)
            keep = v != 0
            self._coo.append((r[keep].astype(np.int64), c[keep].astype(np.int64), v[keep].astype(float)))
        self._sense.append(np.full(b.size, sense, dtype="<U1"))
        self._rhs.append(np.broadcast_to(np.asarray(rhs, float), shape).ravel().copy())
        if big_m is not None:
            m = np.asarray(big_m, dtype=float)
            if m.size:
                self.big_m[name] = (float(m.min()), float(m.max()))
        self.nrows = b.stop

    # -- objective -------------------------------------------------------------
    def minimize(self, cols, coefs) -> None:
        """Add ``sum coefs * x[cols]`` to the (minimised) objective."""
        cols, coefs = np.broadcast_arrays(np.asarray(cols), np.asarray(coefs, float))
        self._obj.append((cols.ravel(), coefs.ravel()))

    def build(self) -> Model:
        n, m = self.ncols, self.nrows
        if self._coo:
            r = np.concatenate([t[0] for t in self._coo])
            c = np.concatenate([t[1] for t in self._coo])
            v = np.concatenate([t[2] for t in self._coo])
        else:
            r = c = np.zeros(0, np.int64)
            v = np.zeros(0)
        A = sp.coo_matrix((v, (r, c)), shape=(m, n)).tocsr()
        A.sum_duplicates()
        A.eliminate_zeros()
        obj = np.zeros(n)
        for cols, coefs in self._obj:
            np.add.at(obj, cols, coefs)
        cat = lambda xs, dt=float: np.concatenate(xs) if xs else np.zeros(0, dt)  # noqa: E731
        return Model(
            name=self.name, var_blocks=list(self._vars), row_blocks=list(self._rows),
            lb=cat(self._lb), ub=cat(self._ub), integer=cat(self._int, bool), obj=obj,
            obj_const=float(self.obj_const), sense=cat(self._sense, "<U1"), rhs=cat(self._rhs),
            A=A, big_m=dict(self.big_m),
        )
