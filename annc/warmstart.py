"""MIP starts: hidden layers from a short SGD run, the output layer from an exact MIP.

The MIP's bound on XOR reaches the optimum early (the majority vote over the distinct
inputs); what a solver struggles with is *finding* weights that realise it.  SGD finds
hidden layers that do in a fraction of a second, but its weights are not a MIP point:
they leave the weight box and ignore the eps gap.  :func:`sgd_start` repairs them:

1. each binary unit's ``(alpha_k, beta_k)`` is scaled by a positive factor that puts
   its largest entry at 90% of its box (the step ``1[pre >= 0]`` is unchanged); ReLU layers are
   clipped to their boxes;
2. each unit's bias moves so that no row's pre-activation lies in the forbidden gap
   ``(0, eps)``: the threshold goes to the gap of width ``>= eps`` between consecutive
   pre-activations that flips the fewest activations;
3. the output layer is the optimum of the exact output-layer-only MIP on the last
   hidden layer's activations (as in the paper's Algorithm 2), solved by HiGHS;
4. every other column (``h, q, z, lambda, o, omega, r``) follows from the weights by
   the forward pass, and the point is checked against every row and bound of the
   model; a point that fails is dropped (no start is better than a wrong one);
5. :func:`improve` then runs a fix-and-optimise local search on the full MIP: with
   every layer's ``(alpha, beta)`` but one fixed at the incumbent, the products
   ``alpha h`` have fixed coefficients and the MIP over that one layer (and all
   activations) is small and easy; it is solved exactly by HiGHS from the incumbent,
   layer after layer, until a sweep over all layers gains nothing, the incumbent
   reaches a known lower bound, or the budget is spent.  Each step's result is a point
   of the full model, so the incumbent never gets worse.

:func:`mip_start` repeats 1-5 from other SGD seeds while the budget lasts and the point
is above the ``nll`` loss floor (:func:`~annc.formulations.loss.nll_floor`).  On the
paper's XOR instance (1000 samples, 5-5-2) the first SGD point is 2-40% above the
optimum; freeing the hidden layer under the fixed output layer closes that gap in one
step of about a second (``bench/formulation_bench.py``).
"""
from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from .feasibility import START_TOL
from .model import Model
from .problem import TrainingProblem, make_problem
from .sgd import train_sgd

BOX_ROOM = 0.9  # scale into 90% of the box, leaving the bias room to move off the eps gap
SGD_FLOPS = 2e9  # budget for the SGD run: epochs = SGD_FLOPS / (samples * weights), capped


def _fit_box(w: np.ndarray, wb, bb) -> np.ndarray:
    """``w = (alpha_k, beta_k)`` scaled by the largest positive factor keeping it in its boxes."""
    lo = np.r_[np.full(len(w) - 1, wb[0]), bb[0]]
    hi = np.r_[np.full(len(w) - 1, wb[1]), bb[1]]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(w > 0, hi / w, np.where(w < 0, lo / w, np.inf))
    s = np.min(ratio) if np.isfinite(ratio).any() else 1.0
    return np.clip(w * max(s, 0.0) * BOX_ROOM, lo, hi)


def _threshold(pre: np.ndarray, bias: float, eps: float, bl: float, bu: float) -> float | None:
    """A bias near ``bias`` that leaves no value of ``pre`` (computed with ``bias``) in ``(0, eps)``.

    The threshold goes mid-way into a gap wider than eps (so that rounding cannot put
    a value back into the forbidden interval), the one flipping fewest of ``pre >= 0``.
    """
    v = np.unique(pre)
    slack = 1e-6 * max(eps, 1.0)
    gaps = np.nonzero(np.diff(v) > eps + 2 * slack)[0]
    # c is the new zero: values <= c - slack go off, values >= c + eps + slack go on
    cands = [v[0] - eps - slack, v[-1] + slack] + list((v[gaps] + v[gaps + 1] - eps) / 2)
    orig = pre >= 0
    best, best_flips = None, None
    for c in cands:
        nb = bias - c
        if bl <= nb <= bu:
            flips = int(np.sum((pre - c >= eps) != orig))
            if best_flips is None or flips < best_flips:
                best, best_flips = float(nb), flips
    return best


def repair_hidden(problem: TrainingProblem, weights: list, biases: list):
    """Steps 1-2: hidden weights in their boxes and clear of the eps gap, or None.

    Returns the repaired ``(weights, biases)`` of the hidden layers and the activations
    of the last hidden layer on the problem's rows.
    """
    spec, eps, act = problem.spec, problem.spec.eps, problem.X
    W_out, b_out = [], []
    for layer, ls in enumerate(spec.hidden):
        W, b = np.asarray(weights[layer], float).copy(), np.asarray(biases[layer], float).copy()
        for k in range(W.shape[1]):
            if ls.activation == "binary":
                wb = _fit_box(np.r_[W[:, k], b[k]], ls.weight_bounds, ls.bias_bounds)
                W[:, k], b[k] = wb[:-1], wb[-1]
        W, b = np.clip(W, *ls.weight_bounds), np.clip(b, *ls.bias_bounds)
        pre = act @ W + b
        for k in range(W.shape[1]):
            nb = _threshold(pre[:, k], b[k], eps, *ls.bias_bounds)
            if nb is None:
                return None
            pre[:, k] += nb - b[k]
            b[k] = nb
        h = (pre >= eps).astype(float)
        act = h if ls.activation == "binary" else np.maximum(pre, 0.0) * h
        W_out.append(W)
        b_out.append(b)
    return W_out, b_out, act


def output_layer(problem: TrainingProblem, H: np.ndarray, time_limit: float = 10.0):
    """Step 3: the optimal output layer for hidden activations ``H`` (rows of the problem)."""
    from .formulations import formulate
    from .solvers import SolveOptions, solve
    sub = replace(problem.spec, inputs=H.shape[1], hidden=(), training="full")
    pb = make_problem(sub, H[problem.sample_row], problem.y, problem.classes)
    m = formulate(pb, name="start")
    r = solve(m, "highs", SolveOptions(time_limit=time_limit))
    if r.x is None:
        return None
    return m.values(r.x, "a0"), m.values(r.x, "b0")


def _set(x: np.ndarray, model: Model, name: str, values) -> None:
    b = model.var_block(name)
    x[b.start:b.stop] = np.broadcast_to(np.asarray(values, float), b.shape).ravel()


def ordered(problem: TrainingProblem, weights: list, biases: list) -> tuple[list, list]:
    """The same network with each hidden layer's units in the spec's ``symmetry`` order."""
    from .formulations.symmetry import order
    spec, eps = problem.spec, problem.spec.eps
    W, b = [np.array(w, float) for w in weights], [np.array(v, float) for v in biases]
    n, act = problem.counts.sum(1).astype(float), problem.X
    for layer, ls in enumerate(spec.hidden):
        pre = act @ W[layer] + b[layer]
        h = (pre >= eps).astype(float)
        p = order(spec.symmetry, b[layer], h, n)
        W[layer], b[layer], W[layer + 1] = W[layer][:, p], b[layer][p], W[layer + 1][p, :]
        act = h[:, p] if ls.activation == "binary" else (np.maximum(pre, 0.0) * h)[:, p]
    return W, b


def complete(model: Model, problem: TrainingProblem, weights: list, biases: list, *,
             tol: float | None = None) -> np.ndarray | None:
    """Step 4: the full MIP point of the given weights (units put in the spec's symmetry
    order), or None if it violates the model by more than ``tol`` (default
    :data:`annc.feasibility.START_TOL`; ``np.inf`` returns the point unchecked)."""
    from .formulations.relu import pieces
    spec, eps = problem.spec, problem.spec.eps
    weights, biases = ordered(problem, weights, biases)
    x = np.zeros(model.num_cols)
    act, prev = problem.X, "data"
    for layer, ls in enumerate(spec.layers):
        W, b = weights[layer], biases[layer]
        _set(x, model, f"a{layer}", W)
        _set(x, model, f"b{layer}", b)
        if layer > 0:
            _set(x, model, f"z{layer}", act[:, :, None] * W[None, :, :])
            if prev == "relu":
                hi = pieces(*ls.weight_bounds, spec.partitions)[1]
                piece = np.minimum(np.searchsorted(hi, W), spec.partitions - 1)
                _set(x, model, f"s{layer}", np.eye(spec.partitions)[piece])
        pre = act @ W + b
        if layer == len(spec.hidden):
            _set(x, model, "o", pre)
            _set_loss(x, model, problem, pre)
        else:
            h = (pre >= eps).astype(float)
            _set(x, model, f"h{layer}", h)
            act = h
            if ls.activation == "relu":
                act = np.maximum(pre, 0.0) * h
                _set(x, model, f"q{layer}", act)
            prev = ls.activation
    for layer, W in enumerate(weights):
        if spec.penalty == "l1":
            _set(x, model, f"t{layer}", np.abs(W))
        elif spec.penalty == "l0":
            _set(x, model, f"n{layer}", (W != 0).astype(float))
    return x if _feasible(model, x, tol) else None


def _set_loss(x: np.ndarray, model: Model, problem: TrainingProblem, o: np.ndarray) -> None:
    """The loss's columns at outputs ``o``: omega and r (nll), e (errors) or xi (hinge)."""
    from .formulations.loss import class_pairs
    spec = problem.spec
    if spec.loss == "nll":
        _set(x, model, "w", o.max(1))
        j, jp = np.triu_indices(o.shape[1], 1)
        _set(x, model, "r", (o[:, jp] > o[:, j]).astype(float))
        return
    u, j, jp = class_pairs(problem.counts)
    lead = o[u, j][:, None] - o[u[:, None], jp]  # how far class j is ahead of each rival
    if spec.loss == "errors":
        _set(x, model, "mis", (lead.min(1) < spec.eps).astype(float))
    else:
        _set(x, model, "xi", np.maximum(spec.margin - lead, 0.0).max(1))


def fix_layers(model: Model, x: np.ndarray, free: int, layers: int) -> Model:
    """``model`` with the weights and biases of every layer but ``free`` fixed at ``x``."""
    lb, ub = model.lb.copy(), model.ub.copy()
    for layer in range(layers):
        if layer != free:
            for name in (f"a{layer}", f"b{layer}"):
                b = model.var_block(name)
                lb[b.start:b.stop] = ub[b.start:b.stop] = x[b.start:b.stop]
    return replace(model, lb=lb, ub=ub)


def improve(model: Model, problem: TrainingProblem, x: np.ndarray | None, *, budget: float = 20.0,
            step_limit: float = 5.0, floor: float = -np.inf, interrupt=None) -> np.ndarray | None:
    """Step 5: fix-and-optimise from the feasible point ``x``; returns the best point found.

    Stops after a sweep over the layers that improves nothing, when the objective is
    within 1e-6 of ``floor`` (a lower bound on the optimum), on a Ctrl-C (``interrupt``
    requested), or after ``budget`` seconds.  Every step's point is checked against the
    model and kept only if it is better, so the result is never worse than ``x``.

    ``x`` may be None ("no start", e.g. :func:`sgd_start` found none): there is nothing to
    improve from, so the result is None and ``interrupt`` is left as it was.
    """
    from .solvers import SolveOptions, solve
    from .solvers.base import Interrupt
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
                y = None if r.x is None else _rounded(model, r.x)
                obj = np.inf if y is None else model.objective(y)
                if obj < best - 1e-9:
                    x, best, improved = y, obj, True
    return x


def _rounded(model: Model, x: np.ndarray) -> np.ndarray | None:
    """The solver's point ``x`` with integer columns rounded, or None if that violates the model."""
    y = np.where(model.integer, np.round(x), x)
    return y if _feasible(model, y) else None


def _feasible(model: Model, x: np.ndarray, tol: float | None = None) -> bool:
    """Whether ``x`` is a start ``model`` accepts: :meth:`~annc.model.Model.check` to
    ``tol`` (default :data:`annc.feasibility.START_TOL`); ``np.inf`` accepts any point."""
    tol = START_TOL if tol is None else tol
    return tol == np.inf or model.check(x, tol).ok


def sgd_start(model: Model, problem: TrainingProblem, *, seed: int = 0) -> np.ndarray | None:
    """A feasible start for ``model`` (steps 1-4 of the module docstring), or None."""
    spec = problem.spec
    acts = {ls.activation for ls in spec.hidden}
    if len(acts) != 1:
        return None
    sizes = [spec.inputs] + [ls.units for ls in spec.layers]
    n_weights = sum(a * b for a, b in zip(sizes, sizes[1:]))
    epochs = int(np.clip(SGD_FLOPS / (problem.num_samples * n_weights), 100, 10000))
    net = train_sgd(problem.X_samples, problem.y, [ls.units for ls in spec.hidden], acts.pop(),
                    classes=list(range(len(problem.classes))), epochs=epochs, seed=seed)
    hidden = repair_hidden(problem, [L.weight for L in net.layers], [L.bias for L in net.layers])
    if hidden is None:
        return None
    W, b, H = hidden
    out = output_layer(problem, H)
    if out is None:
        return None
    return complete(model, problem, W + [out[0]], b + [out[1]])


def mip_start(model: Model, problem: TrainingProblem, *, budget: float = 20.0,
              interrupt=None, restarts: int = 8) -> np.ndarray | None:
    """The best point of steps 1-5 over SGD restarts (seeds 0, 1, ...), or None.

    Each restart's local search gets a quarter of the budget (or what is left); restarts
    stop when the point reaches a lower bound of the optimum (the ``nll`` loss floor, or
    0 for the other losses: it is then optimal), when the budget is spent, after
    ``restarts`` runs, or on Ctrl-C.
    """
    from .formulations.loss import nll_floor
    spec = problem.spec
    # a lower bound on the optimum: the nll loss floor; the other losses are >= 0
    floor = float(nll_floor(problem.counts, spec.eps).sum()) if spec.loss == "nll" else 0.0
    t0 = time.perf_counter()
    best, best_obj = None, np.inf
    for seed in range(restarts):
        left = budget - (time.perf_counter() - t0)
        if left <= 0 or best_obj <= floor + 1e-6 or (interrupt is not None and interrupt.requested):
            break
        x = sgd_start(model, problem, seed=seed)
        if x is None:
            continue
        x = improve(model, problem, x, budget=min(left, budget / 4), floor=floor, interrupt=interrupt)
        obj = model.objective(x)
        if obj < best_obj:
            best, best_obj = x, obj
    return best
