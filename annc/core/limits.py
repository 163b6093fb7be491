"""What annc refuses before it allocates a model: sizes, and numbers a solver cannot use.

**Numbers.**  Two limits, both checked from the spec and the data alone (no model built;
:mod:`annc.io.magnitudes` checks them and explains a refusal at the spec line):

* Every number of the model (coefficient, bound, right-hand side, big-M, objective) stays
  below :data:`LARGEST` ``= 1e15`` in magnitude.  HiGHS refuses matrix values of 1e15 or
  more (its ``large_matrix_value``); HiGHS, CPLEX and Xpress read bounds and costs of
  1e20 as infinite.  A literal in the spec or a cell of the data that is this large is
  refused where it is written (:mod:`annc.io.spec`, :mod:`annc.io.data`).
* The largest big-M is at most :data:`MAX_M_OVER_EPS` ``= 1e12`` times eps (see
  :mod:`annc.io.magnitudes` for why).

**Sizes.**  :func:`model_size` counts the model's columns, rows and non-zeros in closed
form from the spec, the number ``U`` of distinct data rows and their non-zero features
(the formulas of the formulation docstrings; the count of non-zeros is an upper bound,
exact unless some big-M or count is zero).  :func:`check_size` refuses a model over
``max_nonzeros`` (default :data:`MAX_NONZEROS`, ``--max-nonzeros``) before any of it is
allocated.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .activations import EXACT, HIDDEN, MCCORMICK
from .errors import SizeError, UsageError
from .losses import LOSS
from .penalties import PENALTY

LARGEST = 1e15  # every number of the model stays below this (HiGHS's large_matrix_value)
MAX_M_OVER_EPS = 1e12  # the largest big-M over eps: past it eps is rounding noise
MAX_NONZEROS = 50_000_000  # ~2 GiB to build; the MNIST-size benchmark has 13.8 M
MAX_UNITS = 1_000_000  # units of a layer (input features, hidden units, classes)
MAX_PIECES = 1000  # P, McCormick pieces per weight
MAX_GRID = 1025  # K of 'weights [lo, hi] grid K': 2^10 + 1 values (10-bit weights with 0)
MAX_LAYERS = 100  # hidden layers (the paper's networks have up to 3)
BYTES_PER_NONZERO = 36  # peak memory of a compile per non-zero (bench: 519 MB for 13.8 M)
BYTES_PER_LINE = 64  # per row and per column (bounds, senses, names, map)


# ----------------------------------------------------------------------------- sizes

@dataclass(frozen=True)
class Size:
    """Columns, rows and (an upper bound on the) non-zeros of a model."""

    columns: int
    rows: int
    nonzeros: int

    @property
    def memory(self) -> int:
        """Estimated peak bytes to build and write the model with annc's writer."""
        return BYTES_PER_NONZERO * self.nonzeros + BYTES_PER_LINE * (self.rows + self.columns)

    def describe(self) -> str:
        return (f"{self.columns:,} columns, {self.rows:,} rows and {self.nonzeros:,} non-zeros "
                f"(about {_bytes(self.memory)} of memory to build)")


def _bytes(n: int) -> str:
    for unit, size in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n / 2 ** 10:.1f} KiB"


def model_size(spec, rows: int, row_nonzeros: int, pairs_present: int) -> Size:
    """Closed-form size of the training MIP of ``spec`` (Python ints: no overflow).

    ``rows`` is U, the number of (distinct) data rows; ``row_nonzeros`` the number of
    non-zero features over those rows (layer 0's coefficients); ``pairs_present`` the
    number of (row, class) pairs with at least one sample (the losses of
    :func:`annc.core.losses.per_pair` have one column per pair; U J is a bound).  Per layer with ``i`` inputs and
    ``o`` units: ``i o + o`` parameters; products by the ``products`` of the activation
    feeding it (:mod:`annc.core.activations`): exact ``U i o`` products with 4 rows (10
    non-zeros) each (binary, sign); McCormick also ``i o P`` selectors, ``3 i o`` rows and
    ``4 U i o P`` McCormick rows (14 non-zeros per (u, i, o, p)) (ReLU); a unit's pre-activation
    has ``pre_entries`` entries per input; a hidden unit its ``unit`` block per (u, k)
    (binary, sign: 1 column and 2 rows; ReLU: 2 columns and 5 rows); the output ``U J``
    columns and rows; then the loss's block (its ``size`` in :data:`annc.core.losses.LOSS`) and the
    penalty's, as the modules of :mod:`annc.formulations` lower them.
    A layer with a grid adds its selectors, and after McCormick-fed units its exact grid
    products replace the McCormick ones (:func:`_grid_size`).
    """
    U = rows
    widths = [spec.inputs] + [h.units for h in spec.hidden] + [spec.classes]
    acts = [None] + [HIDDEN[h.activation] for h in spec.hidden]  # what feeds layer l (None: the data)
    L, J, P = len(spec.hidden), spec.classes, spec.partitions
    cols = nrows = nnz = 0
    for l in range(L + 1):
        i, o = widths[l], widths[l + 1]
        cols += i * o + o
        fed = acts[l]
        pre = row_nonzeros + U if l == 0 else U * (fed.pre_entries * i + 1)  # one unit's pre, all rows
        grid = _grid_size(spec.layers[l], U, i, o, l > 0 and fed.products == MCCORMICK)  # exact grid products
        cols, nrows, nnz = cols + grid.columns, nrows + grid.rows, nnz + grid.nonzeros
        pre = pre if grid.pre is None else grid.pre
        if l > 0 and fed.products == EXACT:  # products z = a h' (rows zu, zl, za, zb); sign: pre = sum 2z - a + b
            cols += U * i * o
            nrows += 4 * U * i * o
            nnz += 10 * U * i * o
        elif l > 0 and fed.products == MCCORMICK and grid.pre is None:  # z ~ a q', selectors, McCormick rows
            cols += U * i * o + i * o * P
            nrows += 4 * U * i * o * P + 3 * i * o
            nnz += 14 * U * i * o * P + i * o * (3 * P + 2)
        if l == L:  # the output o = pre
            cols += U * o
            nrows += U * o
            nnz += o * pre + U * o
            continue
        unit = acts[l + 1].unit  # binary, sign: h, rows on/off; ReLU: h and q, rows on/off/ra/rb/rc
        cols += unit.columns * U * o
        nrows += unit.rows * U * o
        nnz += unit.pre_rows * o * pre + unit.entries * U * o
        if spec.symmetry != "none" and o > 1:
            nrows += o - 1
            nnz += (o - 1) * (2 if spec.symmetry == "bias" else 2 * U)
    loss = LOSS[spec.loss].size(U, J, pairs_present)  # annc.core.losses: nll w, r; errors, hinge per pair
    cols, nrows, nnz = cols + loss[0], nrows + loss[1], nnz + loss[2]
    if PENALTY[spec.penalty].weighted:  # t or n per weight, two rows each (annc.core.penalties)
        weights = sum(widths[l] * widths[l + 1] for l in range(L + 1))
        cols += weights
        nrows += 2 * weights
        nnz += 4 * weights
    return Size(cols, nrows, nnz)


@dataclass(frozen=True)
class _Grid:
    """The blocks of a layer's grids (:mod:`annc.formulations.grid`) and, when its products
    with ReLU inputs are the grid's, one unit's pre-activation non-zeros over all rows."""

    columns: int = 0
    rows: int = 0
    nonzeros: int = 0
    pre: int | None = None


def _grid_size(ls, U: int, i: int, o: int, relu_fed: bool) -> _Grid:
    """Per grid of G values (nz of them non-zero) over n parameters: ``n G`` selectors, rows
    gn (G entries) and ga (1 + nz); after ReLU units, ``U i o G`` products y with rows yu
    (2 entries) and ys (``U i o`` rows, G + 1 entries), the pre of a unit ``i nz + 1`` per row."""
    cols = rows = nnz = 0
    for v, n in ((ls.weight_values, i * o), (ls.bias_values, o)):
        if v is not None:
            G, nz = len(v), sum(1 for t in v if t != 0)
            cols, rows, nnz = cols + n * G, rows + 2 * n, nnz + n * (G + 1 + nz)
    v = ls.weight_values
    if v is None or not relu_fed:
        return _Grid(cols, rows, nnz)
    G, nz, prods = len(v), sum(1 for t in v if t != 0), U * i * o
    return _Grid(cols + prods * G, rows + prods * (G + 1), nnz + prods * (3 * G + 1), U * (i * nz + 1))


def data_size(spec, X: np.ndarray, merge: bool = True) -> Size:
    """:func:`model_size` of ``spec`` on samples ``X`` (N x d).

    With ``merge`` the rows are the distinct rows of ``X`` (as :func:`annc.io.problem.make_problem`
    merges them); ``pairs_present`` is bounded by ``min(N, U J)``.
    """
    X = np.asarray(X, dtype=float)
    rows = np.unique(X, axis=0) if merge and len(X) else X
    U = len(rows)
    return model_size(spec, U, int(np.count_nonzero(rows)), min(len(X), U * spec.classes))


def check_size(size: Size, max_nonzeros: int | None = None, what: str = "the model") -> None:
    """Refuse (:class:`SizeError`) a model with more than ``max_nonzeros`` non-zeros
    (None: :data:`MAX_NONZEROS`; ``math.inf``: no limit); ``what`` names the model."""
    limit = MAX_NONZEROS if max_nonzeros is None else max_nonzeros
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit >= 1:
        raise UsageError(f"max_nonzeros must be a number >= 1 (or None for the default "
                         f"{MAX_NONZEROS:,}), got {limit!r}")
    if size.nonzeros > limit:
        raise SizeError(f"{what} would have {size.describe()}, over the limit of "
                        f"{limit:,} non-zeros; use a smaller network or fewer distinct data rows, "
                        f"or raise the limit with --max-nonzeros {size.nonzeros}")
