"""The search's small LPs on HiGHS in memory (:mod:`annc.solve.lp`), against scipy's ``linprog``
(the same HiGHS algorithms behind another interface) on random instances."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from annc.solve.lp import solve_lp


@pytest.mark.parametrize("seed", range(20))
def test_the_optimum_is_linprogs(seed):
    rng = np.random.default_rng(seed)
    n_row, n_col = rng.integers(1, 30), rng.integers(1, 20)
    A = rng.normal(size=(n_row, n_col)) * (rng.uniform(size=(n_row, n_col)) < 0.5)
    x0 = rng.uniform(-1, 1, n_col)
    b = A @ x0 + rng.uniform(0, 1, n_row)  # x0 is feasible
    cost = rng.normal(size=n_col)
    lo = np.where(rng.uniform(size=n_col) < 0.2, -np.inf, -2.0)
    hi = np.full(n_col, 2.0)
    ref = linprog(cost, A_ub=A, b_ub=b, bounds=list(zip(lo, hi)), method="highs")
    x = solve_lp(cost, sp.csr_matrix(A) if seed % 2 else A, b, lo, hi)
    assert ref.status in (0, 3)
    if ref.status == 3:  # unbounded: no optimum
        assert x is None
        return
    assert x is not None and np.all(A @ x <= b + 1e-7) and np.all(x >= lo - 1e-9) and np.all(x <= hi + 1e-9)
    assert cost @ x == pytest.approx(ref.fun, abs=1e-7 * max(1.0, abs(ref.fun)))


def test_an_infeasible_lp_has_no_optimum():
    A = np.array([[1.0], [-1.0]])  # x <= -1 and x >= 1
    assert solve_lp(np.ones(1), A, np.array([-1.0, -1.0]), -5.0, 5.0) is None


def test_scalar_bounds_apply_to_every_column():
    x = solve_lp(-np.ones(3), np.zeros((0, 3)), np.zeros(0), 0.0, 1.5)
    assert np.allclose(x, 1.5)
