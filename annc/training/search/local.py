"""Fix-and-optimise local search (step 5 of :mod:`annc.training.warmstart.pool.candidates`).

With every layer's ``(alpha, beta)`` but one fixed at the incumbent, the products
``alpha h`` have fixed coefficients and the MIP over that one layer (and all
activations) is small and easy; it is solved by the run's sub-MIP solver
(:meth:`annc.training.context.RunContext.solve`) from the incumbent, layer after layer,
until a sweep over all layers gains nothing, the incumbent reaches a known lower bound,
or the run context's deadline passes.  Each step's result is a point of the
full model, so the incumbent never gets worse.

Under an ``l0`` penalty of weight ``lambda`` each sweep begins with :func:`drop_weights`:
a weight is worth keeping only if removing it costs more than ``lambda`` in loss, and
trying each removal costs one lift of the network (:func:`annc.training.warmstart.pool.point.complete`), not a
solve; where the removal alone costs loss, a small LP refits the unit's other weights to
keep its activations (another input may carry the same split), one more lift.  A sub-MIP
with a whole layer free could find the same drops, but on real data it rarely ends within
its step limit.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...core.model import Model
from ...core.network import unit_relative
from ...formulations import ACTIVATIONS
from ...io.problem import TrainingProblem
from ...solve.solvers.base import Interrupt
from ..context import RunContext
from ..warmstart.pool.point import complete, feasible, hidden_network
from ..warmstart.pool.repair import layer_inputs, off_gap, refit_unit, refits


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


STEP_NODES = 200  # branch-and-bound nodes per fix-and-optimise step (a work limit)


def improve(model: Model, problem: TrainingProblem, x: np.ndarray | None, *, ctx: RunContext | None = None,
            node_limit: int = STEP_NODES, floor: float = -np.inf, hidden: bool = True) -> np.ndarray | None:
    """Fix-and-optimise from the feasible point ``x``; returns the best point found.

    ``hidden=False`` frees only the output layer (the neighbourhood search of
    :mod:`.lns` then moves the hidden layers, in bands of rows that a node limit can finish).

    Stops after a sweep over the layers that improves nothing, when the objective is
    within 1e-6 of ``floor`` (a lower bound on the optimum), or on a Ctrl-C (``ctx``'s
    interrupt).  Each step is a sub-MIP of at most ``node_limit`` nodes (a work limit, so
    the result does not depend on the machine's load); the run context ``ctx``'s deadline
    only caps the whole search.  Every step's point is checked against the
    model and kept only if it is better, so the result is never worse than ``x``.

    ``x`` may be None ("no start", e.g. :func:`~annc.training.warmstart.pool.seeding.sgd_start` found none): there is
    nothing to improve from, so the result is None and the interrupt is left as it was.
    """
    if x is None:
        return None
    ctx = ctx or RunContext()
    if ctx.interrupt is None:
        ctx = ctx.with_options(interrupt=Interrupt())
    intr = ctx.interrupt
    intr.has_solution = True  # x is feasible: from now on a Ctrl-C keeps it
    layers = len(problem.spec.layers)
    best = model.objective(x)
    improved = True
    drops = problem.spec.penalty == "l0" and problem.spec.penalty_weight > 0
    with intr.armed():
        while improved:
            improved = False
            if drops:  # one lift per weight: cheap next to a sub-MIP, so first
                y = drop_weights(model, problem, x, ctx=ctx)
                x, best = y, model.objective(y)
            for free in range(layers) if hidden else [layers - 1]:
                if best <= floor + 1e-6 or ctx.stopped():
                    return x
                r = ctx.solve(fix_layers(model, x, free, layers), node_limit=node_limit, start=x, gap=None)
                y = None if r.x is None else rounded(model, r.x)
                obj = np.inf if y is None else model.objective(y)
                if obj < best - 1e-9:
                    x, best, improved = y, obj, True
    return x


def drop_weights(model: Model, problem: TrainingProblem, x: np.ndarray, *,
                 ctx: RunContext | None = None, refit_gap: bool = True, keep_activations: bool = True) -> np.ndarray:
    """Greedy weight dropping from the feasible point ``x``: each non-zero weight in turn
    (the smallest first, compared within its unit after dividing by the unit's largest
    ``|w|``: a step unit's weights scale freely) is set to 0; the hidden units' biases move
    off the eps gap if they must (:func:`~annc.training.warmstart.pool.repair.off_gap`, no scaling; with
    ``refit_gap=False`` by the biases alone, :func:`_lifted`) and the network's lift replaces ``x``
    when its objective is lower.  When that drop costs
    loss and the weight is a step unit's, the unit's other weights and bias are also
    refitted by an LP to keep its activations on every row (:func:`_kept_pattern`), and
    the better of the two is taken: a weight that another direction can replace then goes.
    ``keep_activations=False`` leaves that LP out (and with ``refit_gap=False`` the pass solves
    no LP at all): the two-way plan of cross-validation on thousands of rows drops so
    (:mod:`annc.training.modelselect.cvselect`), where those LPs were half its folds' time (fair: 10.3 s of 21).

    Under an l0 penalty of weight ``lambda`` a weight pays for itself only if dropping it
    costs more than ``lambda`` in loss; a solver's branching rarely tries the drops one
    at a time, and each drop here costs one lift, not one solve.  Passes repeat until one
    drops nothing; stops early when the run context ``ctx`` is stopped (its deadline or Ctrl-C);
    the result is never worse than ``x``."""
    ctx = ctx or RunContext()
    W, b = hidden_network(model, x)
    best, dropped = model.objective(x), True
    lam = problem.spec.penalty_weight
    while dropped:  # another pass while the last one dropped a weight
        dropped = False
        for li, i, j in _smallest_first(W):
            if ctx.stopped():
                return x
            tw = [w.copy() for w in W]
            tw[li][i, j] = 0.0
            y, cw, cb = _lifted(model, problem, (tw, b), refit_gap)
            obj = np.inf if y is None else model.objective(y)
            # the drop cost loss: refit the unit to keep its activations
            if keep_activations and obj > best - lam + 1e-9:
                y2, cw2, cb2 = _lifted(model, problem, _kept_pattern(problem, W, b, li, i, j), refit_gap)
                obj2 = np.inf if y2 is None else model.objective(y2)
                if obj2 < obj:
                    y, cw, cb, obj = y2, cw2, cb2, obj2
            if obj < best - 1e-9:
                x, best, W, b, dropped = y, obj, cw, cb, True  # the lift may reorder units: keep ours
    return x


def _kept_pattern(problem: TrainingProblem, weights: list, biases: list, layer: int, i: int, unit: int):
    """Weight ``i`` of hidden unit ``unit`` of ``layer`` dropped, and the unit's other
    weights and bias refitted to keep its activations as they are at ``(weights, biases)``
    (:func:`~annc.training.warmstart.pool.repair.refit_unit`): ``(weights, biases)``, or None (an output
    weight, a layer that is not refitted, or no fit).  The drop then costs no loss when the
    refit keeps every activation, and the objective falls by the penalty's weight."""
    spec = problem.spec
    if layer >= len(spec.hidden) or not refits(spec.hidden[layer]):
        return None
    A = layer_inputs(problem, weights, biases, layer)
    w = np.asarray(weights[layer][:, unit], float)
    on = A @ w + float(biases[layer][unit]) >= spec.eps / 2  # as the point has them: clear of the gap
    w = w.copy()
    w[i] = 0.0
    ls = spec.hidden[layer]
    fit = refit_unit(A, on, w, spec.eps, ls.weight_bounds, ls.bias_bounds, problem.row_samples)
    if fit is None:
        return None
    tw, tb = list(weights), list(biases)
    tw[layer], tb[layer] = np.array(weights[layer], float), np.array(biases[layer], float)
    tw[layer][:, unit], tb[layer][unit] = fit
    return tw, tb


def _lifted(model: Model, problem: TrainingProblem, cand, refit: bool = True):
    """``(point, weights, biases)`` of the candidate network ``cand = (weights, biases)``:
    its lift, or, when the lift is not feasible, the lift after moving the hidden biases
    off the eps gap (:func:`~annc.training.warmstart.pool.repair.off_gap`, no scaling); ``(None, ...)`` if
    neither is feasible (or ``cand`` is None).  ``refit=False``: by the biases alone, the rows a
    drop puts into the gap going to the side that flips fewest, where the repair's LP would keep
    them clear; the cheap search of cross-validation's folds
    (:mod:`annc.training.modelselect.cvpath`) drops so, as those LPs cost as much as the kept pattern's
    (:func:`_kept_pattern`), which :func:`drop_weights` tries anyway when the drop costs loss.
    The full search keeps the LP, which scored better on the test rows (docs/decisions.md,
    "Search and bounds")."""
    if cand is None:
        return None, None, None
    tw, tb = cand
    y = complete(model, problem, tw, tb)
    if y is None:
        moved = off_gap(problem, tw[:-1], tb[:-1], scale=False, refit=refit)
        if moved is None:
            return None, None, None
        tw, tb = moved[0] + [tw[-1]], moved[1] + [tb[-1]]
        y = complete(model, problem, tw, tb)
    return y, tw, tb


def _smallest_first(weights: list) -> list[tuple[int, int, int]]:
    """``(layer, i, j)`` of every non-zero weight, the smallest ``|w|`` relative to its unit's
    (column's) largest first."""
    cands = []
    for li, Wl in enumerate(weights):
        score = unit_relative(Wl)
        cands += [(score[i, j], li, i, j) for i, j in zip(*np.nonzero(np.abs(Wl) > 1e-9))]
    return [c[1:] for c in sorted(cands)]


def rounded(model: Model, x: np.ndarray) -> np.ndarray | None:
    """The solver's point ``x`` with integer columns rounded, or None if that violates the model."""
    y = np.where(model.integer, np.round(x), x)
    return y if feasible(model, y) else None
