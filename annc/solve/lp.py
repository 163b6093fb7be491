"""Small linear programmes solved in memory by HiGHS: the search's LP steps.

    min  c x   s.t.  A x <= b,   lo <= x <= hi

is the form of scipy's ``linprog``, which the unit refits of :mod:`annc.training.warmstart.pool.repair`,
the sparse separators of :mod:`annc.training.warmstart.pool.linear` and the conflict bound's cover LP
called before.  ``linprog`` checks each option and converts the matrix in Python on every
call, most of it outside the solver, and cross-validation makes thousands of such calls
(docs/decisions.md, "Solvers and files").
Here the arrays go straight to ``Highs.passModel``
(:func:`annc.solve.solvers.highs.pass_arrays`, as a MIP goes), on the HiGHS that annc's solver
layer uses, through its thread-scheduler lease (:mod:`annc.solve.solvers.highs_scheduler`).
"""
from __future__ import annotations

import highspy
import numpy as np

from .solvers.highs import pass_arrays
from .solvers.highs_scheduler import new_highs, run


def solve_lp(cost, A, b, lower, upper, *, time_limit: float | None = None) -> np.ndarray | None:
    """The optimal ``x`` of ``min cost x`` s.t. ``A x <= b`` and ``lower <= x <= upper`` (arrays
    of the columns; ``-inf``/``inf`` for no bound), or None when HiGHS ends without an optimum
    (infeasible, unbounded, or stopped by ``time_limit`` seconds).  ``A`` is a scipy sparse
    matrix or a dense array."""
    h = new_highs()
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    pass_arrays(h, A, cost, lower, upper, -np.inf, b)
    run(h)
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return np.asarray(h.getSolution().col_value, float)
