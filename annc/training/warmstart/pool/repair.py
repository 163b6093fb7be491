"""Moving a network into the weight box and off the eps gap (steps 1-2 of
:mod:`annc.training.warmstart.pool.candidates`).

A step unit (binary, sign: ``step`` in :mod:`annc.core.activations`) is unchanged when its
``(alpha_k, beta_k)`` is scaled by a positive factor: :func:`fit_box` scales it into 90%
of its box (leaving the bias room to move).  A ReLU unit is positively ``homogeneous``, ``max(c pre, 0) = c max(pre, 0)``
for ``c > 0``: it is scaled into its box the same way, its output is then ``c_k`` times
the original, and the next layer's weights from it are divided by ``c_k`` (carried
forward layer by layer; the output layer is re-solved exactly anyway), so the network's
function is unchanged up to a positive scale of its scores.  The MIP's units need ``pre >= eps`` or
``pre <= 0``: :func:`threshold` moves each unit's bias so that no row's pre-activation
lies in ``(0, eps)``, flipping as few activations as it can; where that flips any, a step
unit's weights and bias are also refitted by an LP to keep its activations clear of the
gap (:func:`refit_unit`: the bias alone cannot widen a margin, the weights can), and the
fewer flips win.  A layer with a grid
(``weights [lo, hi] grid K``, :mod:`annc.formulations.grid`) gets its weights moved to the
nearest grid value after the scaling (:func:`~annc.formulations.grid.project`), and with a
bias grid the bias is chosen among the grid's values (:func:`threshold`'s ``values``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ....core.activations import HIDDEN
from ....formulations import ACTIVATIONS
from ....formulations.grid import project
from ....io.problem import TrainingProblem
from ....solve.lp import solve_lp

REFIT_SECONDS = 0.5  # an LP refit of one unit that takes longer is given up (the bias alone then moves it)
BOX_ROOM = 0.9  # scale into 90% of the box, leaving the bias room to move off the eps gap
SCALED = tuple(n for n, a in HIDDEN.items() if a.step)  # f(c pre) = f(pre): scaling keeps the function
HOMOGENEOUS = tuple(n for n, a in HIDDEN.items() if a.homogeneous)  # f(c pre) = c f(pre): scale carried on


def _largest_factor(x: np.ndarray, lo, hi) -> float:
    """The largest ``f >= 0`` with ``lo <= f x <= hi`` entrywise (``lo``, ``hi`` scalars or
    arrays like ``x``); ``inf`` when ``x`` is 0 (any factor keeps it)."""
    x = np.asarray(x, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(x > 0, hi / x, np.where(x < 0, lo / x, np.inf))
    return max(float(np.min(ratio, initial=np.inf)), 0.0)


def box_factor(w: np.ndarray, wb, bb) -> float:
    """The factor :func:`fit_box` scales ``w = (alpha_k, beta_k)`` by (90% of the largest
    positive factor keeping it in its boxes; 1 for a zero vector)."""
    lo = np.r_[np.full(len(w) - 1, wb[0]), bb[0]]
    hi = np.r_[np.full(len(w) - 1, wb[1]), bb[1]]
    s = _largest_factor(w, lo, hi)
    return 1.0 if np.isinf(s) else s * BOX_ROOM


def fit_box(w: np.ndarray, wb, bb) -> np.ndarray:
    """``w = (alpha_k, beta_k)`` scaled by :func:`box_factor` (kept in its boxes)."""
    lo = np.r_[np.full(len(w) - 1, wb[0]), bb[0]]
    hi = np.r_[np.full(len(w) - 1, wb[1]), bb[1]]
    return np.clip(w * box_factor(w, wb, bb), lo, hi)


def threshold(pre: np.ndarray, bias: float, eps: float, bl: float, bu: float,
              values: np.ndarray | None = None, fires_at: float | None = None) -> float | None:
    """A bias near ``bias`` that leaves no value of ``pre`` (computed with ``bias``) in ``(0, eps)``.

    The threshold goes mid-way into a gap wider than eps (so that rounding cannot put
    a value back into the forbidden interval), the one flipping fewest of ``pre >= 0``.
    With ``fires_at`` the unit is read as the MIP's (on iff ``pre >= eps``, off iff ``pre <= 0``),
    whose exported unit fires iff ``pre >= fires_at`` (the activation's ``-export_bias_shift(eps)``:
    ``eps/2`` for step units), and the bias moves as little as it can instead: in each gap the new
    zero ``c`` may lie anywhere in ``[v_i + slack, v_{i+1} - eps - slack]`` (``v`` the sorted
    values), the candidates are the points of those intervals nearest 0, and of those flipping
    fewest of ``pre >= fires_at`` the nearest 0 wins; a unit already clear of the gap keeps its
    bias.  That keeps a fitted model's own boundary (a logistic regression's, its bias raised by
    ``eps/2``) where the rows allow: mid-way into the gap around 0 could change a test row's
    class (docs/decisions.md, "The MIP start").
    With ``values`` (a bias grid) the bias is the grid value that leaves no ``pre`` in
    ``(slack, eps)`` and flips fewest, the nearest to ``bias`` among those.

    Every candidate zero ``c`` lies at least ``slack`` from each value's threshold ``c + eps``, so
    on the sorted values the move turns on those from ``cut = searchsorted(c + eps)``, and with
    ``neg`` values below 0 it flips ``|cut - neg|`` of them: ``O(n log n)`` in all (a loop over
    the candidates was ``O(n^2)`` with a tiny eps, which makes nearly every gap a candidate).
    Ties go to the earlier candidate, as listed.
    """
    if values is not None:
        return _grid_threshold(pre, bias, eps, np.asarray(values, float))
    pre = np.asarray(pre, float)
    v = np.unique(pre)
    slack = 1e-6 * max(eps, 1.0)
    gaps = np.nonzero(np.diff(v) > eps + 2 * slack)[0]
    # c is the new zero: values <= c - slack go off, values >= c + eps + slack go on
    if fires_at is not None:  # each gap's (and both ends') feasible zeros, clipped towards 0
        lo = np.r_[-np.inf, v[-1] + slack, v[gaps] + slack]
        hi = np.r_[v[0] - eps - slack, np.inf, v[gaps + 1] - eps - slack]
        cands = np.clip(0.0, lo, hi)
    else:
        cands = np.r_[v[0] - eps - slack, v[-1] + slack, (v[gaps] + v[gaps + 1] - eps) / 2]
        if not np.any((v > -slack) & (v < eps + slack)):
            cands = np.r_[cands, 0.0]  # already clear of the gap (a refit's bias may sit at its bound)
    nb = bias - cands
    ok = np.flatnonzero((bl <= nb) & (nb <= bu))
    if not len(ok):
        return None
    s = np.sort(pre)
    cut = np.searchsorted(s, cands[ok] + eps, side="left")  # values from here are on after the move
    zero = 0.0 if fires_at is None else fires_at  # where the unit fires before the move
    flips = np.abs(cut - np.searchsorted(s, zero, side="left"))  # on turned off, or off turned on
    if fires_at is None:
        return float(nb[ok[int(np.argmin(flips))]])
    return float(nb[ok[int(np.lexsort((np.abs(cands[ok]), flips))[0])]])  # fewest flips, then nearest 0


def _grid_threshold(pre: np.ndarray, bias: float, eps: float, values: np.ndarray) -> float | None:
    """:func:`threshold` over the bias grid ``values``: a value at most ``slack`` above 0 is
    off (rounding of an exact 0), one in ``(slack, eps)`` is in the gap."""
    slack = 1e-9 * max(eps, 1.0)
    orig = pre >= 0
    best, key = None, None
    for nb in values:
        moved = pre - bias + nb
        if np.any((moved > slack) & (moved < eps)):
            continue
        k = (int(np.sum((moved >= eps) != orig)), abs(nb - bias))
        if key is None or k < key:
            best, key = float(nb), k
    return best


def flips(on: np.ndarray, pre: np.ndarray, bias: float, new_bias: float | None, eps: float,
          rows: np.ndarray) -> float:
    """The training samples (``rows`` per distinct input) whose activation ``on`` differs
    from the MIP's once the bias ``bias`` of ``pre`` becomes ``new_bias`` (``inf`` for None)."""
    if new_bias is None:
        return np.inf
    return float(rows[(pre - bias + new_bias >= eps) != on].sum())


def refit_unit(A: np.ndarray, on: np.ndarray, w: np.ndarray, eps: float, wb, bb, rows: np.ndarray):
    """A step unit's weights (on the support of ``w`` only) and bias, refitted so that its
    activations ``on`` on the inputs ``A`` hold clear of the eps gap for as many samples as an
    LP can keep: with clearance ``m = eps/10``,

        min  sum_n rows_n xi_n
        s.t. A_n w + b >= eps + m - xi_n   (on rows)
             A_n w + b <= -m + xi_n        (off rows),   w, b in their boxes, xi >= 0.

    A step unit is unchanged by a positive scale, so the pattern SGD found is realisable
    (``xi = 0``) whenever some hyperplane through the box separates it by ``eps + 2m``: the
    bias alone (:func:`threshold`) cannot widen a margin, the LP can.  ``(w, b)``, or None
    when the LP ends without an optimum within :data:`REFIT_SECONDS` (about 10 ms for 400
    rows and 20 inputs; 1 to 2 s for 10,000 noisy rows, which are then left to the bias).
    The LP goes to HiGHS in memory (:func:`annc.solve.lp.solve_lp`), its matrix built column by
    column: ``[-s A_S | -s | -I]`` with ``s`` the rows' signs."""
    S = np.flatnonzero(np.asarray(w) != 0)
    n, m, k = len(on), eps / 10, len(S) + 1
    sign = np.where(on, 1.0, -1.0)[:, None]
    dense = -sign * np.column_stack([np.asarray(A, float)[:, S], np.ones(n)])  # the weights' and the bias's columns
    lhs = sp.csc_matrix((np.r_[dense.ravel(order="F"), -np.ones(n)],
                         np.r_[np.tile(np.arange(n), k), np.arange(n)],
                         np.r_[np.arange(k + 1) * n, k * n + 1 + np.arange(n)]), shape=(n, k + n))
    rhs = np.where(on, -(eps + m), -m)
    cost = np.r_[np.zeros(k), np.asarray(rows, float)]
    lower = np.r_[np.full(len(S), wb[0]), bb[0], np.zeros(n)]
    upper = np.r_[np.full(len(S), wb[1]), bb[1], np.full(n, np.inf)]
    x = solve_lp(cost, lhs, rhs, lower, upper, time_limit=REFIT_SECONDS)
    if x is None:
        return None
    out = np.zeros(len(w))
    out[S] = x[:len(S)]
    return out, float(x[len(S)])


@dataclass(frozen=True, eq=False)  # arrays: compared by identity
class _Repairing:
    """A hidden layer being repaired: its inputs ``act``, pre-activations ``pre``, weights ``W`` and
    biases ``b`` (the arrays are changed in place), its spec ``ls``, the margin ``eps`` and the
    samples of each row ``rows``."""

    act: np.ndarray
    pre: np.ndarray
    W: np.ndarray
    b: np.ndarray
    ls: object
    eps: float
    rows: np.ndarray


def _fewer_flips(layer: _Repairing, k: int, nb: float) -> float | None:
    """Unit ``k``'s new bias: ``nb`` (:func:`threshold`'s), unless :func:`refit_unit` then
    :func:`threshold` flips fewer samples; then ``W[:, k]``, ``b[k]`` and ``pre[:, k]`` take
    the refit (in place) and its bias is returned."""
    act, pre, W, b, ls, eps, rows = layer.act, layer.pre, layer.W, layer.b, layer.ls, layer.eps, layer.rows
    on = pre[:, k] >= 0
    now = flips(on, pre[:, k], b[k], nb, eps, rows)
    if now == 0:
        return nb
    fit = refit_unit(act, on, W[:, k], eps, ls.weight_bounds, ls.bias_bounds, rows)
    if fit is None:
        return nb
    w2, b2 = fit
    pre2 = act @ w2 + b2
    nb2 = threshold(pre2, b2, eps, *ls.bias_bounds)
    if flips(on, pre2, b2, nb2, eps, rows) >= now:
        return nb
    W[:, k], b[k], pre[:, k] = w2, b2, pre2
    return nb2


def refits(spec_layer) -> bool:
    """Whether :func:`refit_unit` applies to the units of a hidden layer: step units (their
    function is their sign pattern) with continuous weights and biases (no grid)."""
    return spec_layer.activation in SCALED and spec_layer.weight_grid is None and spec_layer.bias_grid is None


def layer_inputs(problem: TrainingProblem, weights: list, biases: list, layer: int) -> np.ndarray:
    """The inputs of hidden layer ``layer`` on the problem's rows, as the MIP's units
    compute them (the lift's outputs) from the given hidden weights and biases."""
    act = problem.X
    for ls, W, b in zip(problem.spec.hidden[:layer], weights, biases):
        act = ACTIVATIONS[ls.activation].lift_units(act @ W + b, problem.spec.eps)[1]
    return act


def off_gap(problem: TrainingProblem, weights: list, biases: list, *, scale: bool = True, refit: bool = True):
    """Steps 1-2: the hidden layers' ``(weights, biases)`` in their boxes (scaled into 90% of
    them when ``scale``) and clear of the eps gap, and the last hidden layer's outputs on the
    problem's rows (the MIP's semantics); or None when some unit's bias cannot move off the gap.
    ``refit=False`` moves the biases alone (:func:`threshold`, no LP of :func:`refit_unit`), each as
    little as it can (:func:`threshold`'s ``fires_at``)."""
    done = _off_gap(problem, weights, biases, scale, refit)
    return None if done is None else done[:3]


def _off_gap(problem: TrainingProblem, weights: list, biases: list, scale: bool, refit: bool = True):
    """:func:`off_gap` and the scale ``carry`` of the last hidden layer's outputs (a ReLU
    unit scaled by ``c`` outputs ``c`` times its original value)."""
    spec, eps, act = problem.spec, problem.spec.eps, problem.X
    rows = problem.row_samples
    carry = np.ones(spec.inputs)
    W_out, b_out = [], []  # carry: the scale of this layer's inputs (ReLU outputs scaled before)
    for layer, ls in enumerate(spec.hidden):
        W, b = np.asarray(weights[layer], float) / carry[:, None], np.asarray(biases[layer], float).copy()
        carry = np.ones(W.shape[1])
        if scale and (ls.activation in SCALED or ls.activation in HOMOGENEOUS):
            for k in range(W.shape[1]):
                wb = np.r_[W[:, k], b[k]]
                f = box_factor(wb, ls.weight_bounds, ls.bias_bounds)
                wb = fit_box(wb, ls.weight_bounds, ls.bias_bounds)
                W[:, k], b[k] = wb[:-1], wb[-1]
                if ls.activation in HOMOGENEOUS and f > 0:
                    carry[k] = f
        W, b = np.clip(W, *ls.weight_bounds), np.clip(b, *ls.bias_bounds)
        W, b = project(W, ls.weight_bounds, ls.weight_grid), project(b, ls.bias_bounds, ls.bias_grid)
        pre = act @ W + b
        bias_grid = None if ls.bias_values is None else np.asarray(ls.bias_values)
        fires_at = None if refit else -ACTIVATIONS[ls.activation].export_bias_shift(eps)  # the least move
        for k in range(W.shape[1]):
            nb = threshold(pre[:, k], b[k], eps, *ls.bias_bounds, values=bias_grid, fires_at=fires_at)
            if refit and refits(ls):
                nb = _fewer_flips(_Repairing(act, pre, W, b, ls, eps, rows), k, nb)
            if nb is None:
                return None
            pre[:, k] += nb - b[k]
            b[k] = nb
        act = ACTIVATIONS[ls.activation].lift_units(pre, eps)[1]
        W_out.append(W)
        b_out.append(b)
    return W_out, b_out, act, carry


def repair_hidden(problem: TrainingProblem, weights: list, biases: list):
    """Steps 1-2 (:func:`off_gap` with scaling): the repaired ``(weights, biases)`` of the
    hidden layers and the last hidden layer's outputs on the problem's rows, or None."""
    return off_gap(problem, weights, biases)


def box_output(problem: TrainingProblem, weight, bias):
    """An output layer ``(weight, bias)`` scaled by the largest positive factor that keeps
    it in its boxes (one factor for the layer: every argmax is kept, every lead between
    classes is as wide as the box allows), then moved onto its grid if it has one."""
    ls = problem.spec.layers[-1]
    Wo, bo = np.asarray(weight, float), np.asarray(bias, float)
    parts = (_largest_factor(Wo, *ls.weight_bounds), _largest_factor(bo, *ls.bias_bounds))
    f = min(1.0 if np.isinf(p) else p for p in parts)  # an all-zero part allows factor 1
    Wo = project(np.clip(Wo * f, *ls.weight_bounds), ls.weight_bounds, ls.weight_grid)
    bo = project(np.clip(bo * f, *ls.bias_bounds), ls.bias_bounds, ls.bias_grid)
    return Wo, bo


def repair_network(problem: TrainingProblem, weights: list, biases: list, *, scale: bool = True, refit: bool = True):
    """:func:`repair_hidden`, and the network's own output layer moved into its box:
    ``(hidden weights, hidden biases, H, W_out, b_out)``, or None.

    The output layer is linear and the class is the argmax of its scores, so one positive
    factor for the whole layer keeps every prediction: its weights are divided by the
    hidden layers' scale ``carry`` (ReLU units scaled into their boxes) and the layer is
    then scaled by the largest factor that keeps it in its boxes, which makes every lead
    between classes as wide as the box allows (the losses' margins are absolute).  On a
    grid the weights then move to the nearest grid value.  This is the output layer of a
    start that costs no MIP solve (:func:`annc.training.warmstart.pool.seeding.sgd_start` compares such
    starts, and hands the best to the exact output-layer MIP as its start).  ``scale=False``
    keeps the hidden units' scale (a unit an LP fitted in its box with its margin: scaling
    it to 90% of the box would shrink the margin into the gap).  ``refit=False`` moves the hidden
    biases alone off the gap, each as little as it can (:func:`off_gap`'s), keeping every unit's
    hyperplane."""
    done = _off_gap(problem, weights[:-1], biases[:-1], scale, refit)
    if done is None:
        return None
    W, b, H, carry = done
    Wo, bo = box_output(problem, np.asarray(weights[-1], float) / carry[:, None], biases[-1])
    return W, b, H, Wo, bo
