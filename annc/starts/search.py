"""Fix-and-optimise local search (step 5 of :mod:`annc.starts`).

With every layer's ``(alpha, beta)`` but one fixed at the incumbent, the products
``alpha h`` have fixed coefficients and the MIP over that one layer (and all
activations) is small and easy; it is solved exactly by HiGHS from the incumbent,
layer after layer, until a sweep over all layers gains nothing, the incumbent reaches
a known lower bound, or the budget is spent.  Each step's result is a point of the
full model, so the incumbent never gets worse.
"""
from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ..formulations import ACTIVATIONS
from ..model import Model
from ..problem import TrainingProblem
from .point import feasible


def fix_layers(model: Model, x: np.ndarray, free: int, layers: int) -> Model:
    """``model`` with the weights and biases of every layer but ``free`` fixed at ``x``.

    Relaxed products (McCormick, after ReLU layers) become exact: a fixed layer's get
    ``z = a* q'`` and the free layer's, whose inputs the fixed layers before it determine,
    ``z = q'* a`` (the activation module's ``exact_rows``).  Every point of the sub-MIP is
    then a network, and its objective is that network's loss.
    """
    lb, ub = model.lb.copy(), model.ub.copy()
    layout = model.layout
    for layer, L in enumerate(layout.layers[:layers]):
        if layer != free:
            for cols in (L.weight, L.bias):
                lb[cols] = ub[cols] = x[cols]
    fixed = replace(model, lb=lb, ub=ub)
    for prev, L in zip(layout.layers, layout.layers[1:]):
        if L.relaxed:
            rows = ACTIVATIONS[L.fed_by].exact_rows(x, L, prev.units, model.num_cols,
                                                    weights_fixed=L.index != free)
            fixed = fixed.with_rows(f"exact{L.index}", rows, "E", 0.0, role="exact", layer=L.index)
    return fixed


def improve(model: Model, problem: TrainingProblem, x: np.ndarray | None, *, budget: float = 20.0,
            step_limit: float = 5.0, floor: float = -np.inf, interrupt=None) -> np.ndarray | None:
    """Fix-and-optimise from the feasible point ``x``; returns the best point found.

    Stops after a sweep over the layers that improves nothing, when the objective is
    within 1e-6 of ``floor`` (a lower bound on the optimum), on a Ctrl-C (``interrupt``
    requested), or after ``budget`` seconds.  Every step's point is checked against the
    model and kept only if it is better, so the result is never worse than ``x``.

    ``x`` may be None ("no start", e.g. :func:`~annc.starts.sgd_start` found none): there is
    nothing to improve from, so the result is None and ``interrupt`` is left as it was.
    """
    from ..solvers import SolveOptions, solve
    from ..solvers.base import Interrupt
    if x is None:
        return None
    intr = interrupt or Interrupt()
    intr.has_solution = True  # x is feasible: from now on a Ctrl-C keeps it
    layers = len(problem.spec.layers)
    best = model.objective(x)
    t0 = time.perf_counter()
    improved = True
    with intr.armed():
        while improved:
            improved = False
            for free in range(layers):
                left = budget - (time.perf_counter() - t0)
                if best <= floor + 1e-6 or left <= 0 or intr.requested:
                    return x
                r = solve(fix_layers(model, x, free, layers), "highs",
                          SolveOptions(time_limit=min(step_limit, left), start=x, interrupt=intr))
                y = None if r.x is None else rounded(model, r.x)
                obj = np.inf if y is None else model.objective(y)
                if obj < best - 1e-9:
                    x, best, improved = y, obj, True
    return x


def rounded(model: Model, x: np.ndarray) -> np.ndarray | None:
    """The solver's point ``x`` with integer columns rounded, or None if that violates the model."""
    y = np.where(model.integer, np.round(x), x)
    return y if feasible(model, y) else None
