"""What annc refuses before it allocates a model: sizes, and numbers a solver cannot use.

**Numbers.**  Two limits, both checked from the spec and the data alone (no model built;
:mod:`annc.magnitudes` checks them and explains a refusal at the spec line):

* Every number of the model (coefficient, bound, right-hand side, big-M, objective) stays
  below :data:`LARGEST` ``= 1e15`` in magnitude.  HiGHS refuses matrix values of 1e15 or
  more (its ``large_matrix_value``); HiGHS, CPLEX and Xpress read bounds and costs of
  1e20 as infinite.  A literal in the spec or a cell of the data that is this large is
  refused where it is written (:mod:`annc.spec`, :mod:`annc.data`).
* The largest big-M is at most :data:`MAX_M_OVER_EPS` ``= 1e12`` times eps (see
  :mod:`annc.magnitudes` for why).

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

from .errors import SizeError, UsageError

LARGEST = 1e15  # every number of the model stays below this (HiGHS's large_matrix_value)
MAX_M_OVER_EPS = 1e12  # the largest big-M over eps: past it eps is rounding noise
MAX_NONZEROS = 50_000_000  # ~2 GiB to build; the MNIST-size benchmark has 13.8 M
MAX_UNITS = 1_000_000  # units of a layer (input features, hidden units, classes)
MAX_PIECES = 1000  # P, McCormick pieces per weight
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
    number of (row, class) pairs with at least one sample (the ``errors`` and ``hinge``
    losses have one column per pair; U J is a bound).  Per layer with ``i`` inputs and
    ``o`` units: ``i o + o`` parameters; fed by binary units ``U i o`` products with 4
    rows (10 non-zeros) each; fed by ReLU units also ``i o P`` selectors, ``3 i o`` rows
    and ``4 U i o P`` McCormick rows (14 non-zeros per (u, i, o, p)); a binary unit 1 column
    and 2 rows per (u, k), a ReLU unit 2 columns and 5 rows; the output ``U J`` columns
    and rows; then the blocks of the loss and penalty modules of :mod:`annc.formulations`.
    """
    U = rows
    widths = [spec.inputs] + [h.units for h in spec.hidden] + [spec.classes]
    acts = ["data"] + [h.activation for h in spec.hidden]
    L, J, P = len(spec.hidden), spec.classes, spec.partitions
    cols = nrows = nnz = 0
    for l in range(L + 1):
        i, o = widths[l], widths[l + 1]
        cols += i * o + o
        pre = row_nonzeros + U if l == 0 else U * ((2 if acts[l] == "sign" else 1) * i + 1)  # one unit's pre, all rows
        if acts[l] in ("binary", "sign"):  # products z = a h' (rows zu, zl, za, zb); sign: pre = sum 2z - a + b
            cols += U * i * o
            nrows += 4 * U * i * o
            nnz += 10 * U * i * o
        elif acts[l] == "relu":  # products z ~ a q', selectors, McCormick rows
            cols += U * i * o + i * o * P
            nrows += 4 * U * i * o * P + 3 * i * o
            nnz += 14 * U * i * o * P + i * o * (3 * P + 2)
        if l == L:  # the output o = pre
            cols += U * o
            nrows += U * o
            nnz += o * pre + U * o
            continue
        if spec.hidden[l].activation in ("binary", "sign"):  # h, rows on/off
            cols += U * o
            nrows += 2 * U * o
            nnz += 2 * o * pre + 2 * U * o
        else:  # h and q, rows on/off/ra/rb/rc
            cols += 2 * U * o
            nrows += 5 * U * o
            nnz += 4 * o * pre + 8 * U * o
        if spec.symmetry != "none" and o > 1:
            nrows += o - 1
            nnz += (o - 1) * (2 if spec.symmetry == "bias" else 2 * U)
    if spec.loss == "nll":  # w, r; rows om, lf, da, db
        pairs = J * (J - 1) // 2
        cols += U + U * pairs
        nrows += U * J + U + 2 * U * pairs
        nnz += 2 * U * J + U * (J + 1) + 6 * U * pairs
    else:  # one column per present (row, class), one row per rival class
        cols += pairs_present
        nrows += pairs_present * (J - 1)
        nnz += 3 * pairs_present * (J - 1)
    if spec.penalty != "none":  # t or n per weight, two rows each
        weights = sum(widths[l] * widths[l + 1] for l in range(L + 1))
        cols += weights
        nrows += 2 * weights
        nnz += 4 * weights
    return Size(cols, nrows, nnz)


def data_size(spec, X: np.ndarray, merge: bool = True) -> Size:
    """:func:`model_size` of ``spec`` on samples ``X`` (N x d).

    With ``merge`` the rows are the distinct rows of ``X`` (as :func:`annc.problem.make_problem`
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
