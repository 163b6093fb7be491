"""Small linear programmes solved in memory by HiGHS: the search's LP steps.

    min  c x   s.t.  A x <= b,   lo <= x <= hi

is the form of scipy's ``linprog``, which the unit refits of :mod:`annc.training.pool.repair`,
the sparse separators of :mod:`annc.training.pool.linear` and the conflict bound's cover LP
called before.  ``linprog`` checks each option and converts the matrix in Python on every
call: about 8 ms a call for one unit's refit on 265 rows, most of it outside the solver;
cross-validation on a 398-row breast_cancer split makes 1,566 such calls, 12.6 s of its 17.7 s.
Here the arrays go straight to ``Highs.passModel`` (as
:func:`annc.solve.solvers.highs.to_highs_lp` passes a MIP), on the HiGHS that annc's solver
layer uses, through its thread-scheduler lease (:mod:`annc.solve.solvers.highs_scheduler`).
"""
from __future__ import annotations

import highspy
import numpy as np
import scipy.sparse as sp

from .solvers.highs_scheduler import new_highs, run


def solve_lp(cost, A, b, lower, upper, *, time_limit: float | None = None) -> np.ndarray | None:
    """The optimal ``x`` of ``min cost x`` s.t. ``A x <= b`` and ``lower <= x <= upper`` (arrays
    of the columns; ``-inf``/``inf`` for no bound), or None when HiGHS ends without an optimum
    (infeasible, unbounded, or stopped by ``time_limit`` seconds).  ``A`` is a scipy sparse
    matrix or a dense array."""
    inf = highspy.kHighsInf
    A = sp.csc_matrix(A)
    if not A.has_sorted_indices:
        A.sort_indices()
    n_col, n_row = A.shape[1], A.shape[0]
    f64 = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    i32 = lambda a: np.ascontiguousarray(a, dtype=np.int32)  # noqa: E731 - HighsInt
    lo = np.broadcast_to(np.asarray(lower, float), (n_col,))
    hi = np.broadcast_to(np.asarray(upper, float), (n_col,))
    h = new_highs()
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    status = h.passModel(
        int(n_col), int(n_row), int(A.nnz), int(highspy.MatrixFormat.kColwise), int(highspy.ObjSense.kMinimize),
        0.0, f64(cost), f64(np.where(np.isinf(lo), -inf, lo)), f64(np.where(np.isinf(hi), inf, hi)),
        f64(np.full(n_row, -inf)), f64(b), i32(A.indptr), i32(A.indices), f64(A.data),
        i32(np.full(n_col, int(highspy.HighsVarType.kContinuous))))
    if status == highspy.HighsStatus.kError:
        raise ValueError("HiGHS refused the LP's arrays")
    run(h)
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return np.asarray(h.getSolution().col_value, float)
