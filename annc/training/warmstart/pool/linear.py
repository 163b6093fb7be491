"""Sparse linear separators as networks of the spec's class: the classic models in the start pool.

A network whose first hidden layer has step units (``binary`` or ``sign``) contains every
linear classifier: one unit computes ``h = 1[w.x + b >= eps]`` and the exact output layer
turns ``h`` into the class.  So if a sparse linear model is as good as it gets on the
data, annc's MIP start must contain it, and the constant network may win only when no
such separator beats it.

:func:`separators` fits, on the problem's (scaled) rows with their sample counts as
weights, L1-regularised logistic regression over the path ``C`` in :data:`L1_PATH` and an
L1 linear SVM (squared hinge) for ``C`` in :data:`SVM_PATH` (scikit-learn's liblinear,
``random_state=0``: deterministic); for ``k > 2`` classes one-vs-rest, one separator per
class, the most frequent classes first.  :func:`separator_networks` places them in the
hidden units of the spec:

* unit ``k`` of the first hidden layer carries separator ``k`` (its ``(w, b)`` scaled by a
  positive factor into the box: a step unit does not change); units left over are off
  (zero weights, the bias at its lower bound, which is ``<= 0``);
* each later hidden layer passes the first ``K`` units on (weight 1 from unit ``k`` of the
  layer before, bias ``-1/2``: on iff its input is on), or is off;
* the output layer is left to the caller's exact output-layer MIP
  (:func:`annc.training.warmstart.pool.seeding.output_layer`), from an output layer that votes for the
  separator's class.

Each separator is moved into the box by the start's LP (:func:`in_box`): refitted to the
labels on its support (a linear SVM with the MIP's box and margin); and the same LP on
every input gives one more (the box-margin LP separator:
dense, left to the start's weight dropping to thin out).  On dense data with a wide eps a
sparse support often leaves rows inside the gap ``(0, eps)``, which the repair can only
clear by switching the unit off on every row; the dense LP has the room to keep a margin.  Only step units carry a separator unchanged, so only a spec whose first
hidden layer has step units gets these candidates.  Each candidate is then repaired off
the eps gap (:func:`~annc.training.warmstart.pool.repair.repair_network`) before it is lifted: the caller
compares the candidates by the MIP objective of their lifts.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
from sklearn.svm import LinearSVC

from ....core.penalties import PENALTY
from ....formulations import ACTIVATIONS
from ....io.problem import TrainingProblem
from ....solve.lp import solve_lp
from .readings import differences, fewer_units, pairs, separator_width, votes
from .regression import logistic, one_vs_rest

L1_PATH = (0.01, 0.1, 1.0, 10.0)  # C of L1 logistic regression (smaller: sparser)
LP_L1 = (0.25, 1.0, 4.0)  # margin_lp's weight price, in units of the spec's l0 weight (or of 0.5)
LP_SECONDS = 5.0  # a cap on one margin LP (about 20 ms on 400 rows and 30 inputs)
SVM_PATH = (0.1, 1.0)  # C of the L1 linear SVM
CODE_PATH = (0.1, 1.0)  # C of the start pool's regression read in fewer units than classes
STEP = ("binary", "sign")  # first-layer units that carry a linear separator unchanged
PASS_WEIGHT, PASS_BIAS = 1.0, -0.5  # a later layer's unit that copies a binary input


def separators(problem: TrainingProblem) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """``(name, W, b)`` per model of the path (:func:`one_vs_rest`), each fitted when it is asked
    for (the start pool stops asking at its deadline)."""
    models = [(f"L1 logistic regression C={C:g}", lambda C=C: logistic(C)) for C in L1_PATH]
    models += [(f"L1 linear SVM C={C:g}",
                lambda C=C: LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=C, max_iter=5000,
                                      random_state=0)) for C in SVM_PATH]
    for name, make in models:
        fitted = one_vs_rest(problem, make)
        if fitted is None:
            return
        yield (name, *fitted)


def in_box(problem: TrainingProblem, W: np.ndarray, b: np.ndarray, labels: list[np.ndarray]):
    """Each separator ``(W[:, i], b[i])`` as a unit of the first hidden layer: refitted by the
    start's LP (:func:`~annc.training.warmstart.pool.repair.refit_unit`: weights on the separator's support
    and the bias, in their boxes, with the activations clear of the eps gap on as many
    samples as it can) to ``labels[i]`` (a boolean per row): a box-and-margin linear SVM on
    that support.  A unit
    the LP cannot fit keeps the separator scaled into 90% of its box."""
    from .repair import fit_box, refit_unit
    ls, eps = problem.spec.hidden[0], problem.spec.eps
    W2, b2 = np.zeros_like(W, dtype=float), np.zeros_like(b, dtype=float)
    for i in range(W.shape[1]):
        on = labels[i]
        support = W[:, i] if np.any(W[:, i]) else np.ones(W.shape[0])
        fit = refit_unit(problem.X, on, support, eps, ls.weight_bounds, ls.bias_bounds, problem.row_samples)
        if fit is None:
            wb = fit_box(np.r_[W[:, i], b[i]], ls.weight_bounds, ls.bias_bounds)
            fit = wb[:-1], wb[-1]
        W2[:, i], b2[i] = fit
    return W2, b2


def margin_lp(problem: TrainingProblem, on: np.ndarray, l1: float):
    """A first-layer unit fitted to the boolean pattern ``on`` (per row) by an LP that keeps
    its activations clear of the eps gap and pays for its weights: with ``m = eps/10``,

        min  sum_n c_n xi_n + l1 * sum_i (w+_i + w-_i)
        s.t. X_n (w+ - w-) + b >= eps + m - xi_n   (on rows)
             X_n (w+ - w-) + b <= -m + xi_n        (off rows),   w+, w- >= 0 in the box,

    ``c_n`` the samples on row n.  The L1 term is the LP's stand-in for the l0 penalty
    (a weight in ``[-1, 1]`` that the data need costs about ``l1``): it keeps the unit
    sparse *and* wide-margined, where a sparse support chosen first (by logistic
    regression) often leaves rows inside the gap.  ``(w, b)``, or None without an optimum."""
    import scipy.sparse as sp
    ls, eps = problem.spec.hidden[0], problem.spec.eps
    X, rows = problem.X, problem.row_samples
    n, d, m = X.shape[0], X.shape[1], eps / 10
    sign = np.where(on, 1.0, -1.0)[:, None]
    A = sp.csr_matrix(-sign * X)
    lhs = sp.hstack([A, -A, sp.csr_matrix(-sign), -sp.identity(n)], format="csr")
    rhs = np.where(on, -(eps + m), -m)
    cost = np.r_[np.full(2 * d, l1), 0.0, rows]
    (wl, wu), bb = ls.weight_bounds, ls.bias_bounds
    lower = np.r_[np.zeros(2 * d), bb[0], np.zeros(n)]
    upper = np.r_[np.full(d, max(wu, 0.0)), np.full(d, max(-wl, 0.0)), bb[1], np.full(n, np.inf)]
    x = solve_lp(cost, lhs, rhs, lower, upper, time_limit=LP_SECONDS)
    if x is None:
        return None
    w = x[:d] - x[d:2 * d]
    w[np.abs(w) < 1e-9] = 0.0
    return w, float(x[2 * d])


def placed(problem: TrainingProblem, W: np.ndarray, b: np.ndarray, targets_first: list[int], output=None):
    """The separators ``(W, b)`` in the spec's hidden layers and an output layer voting for
    their classes: ``(weights, biases)`` of every layer (see the module docstring); the
    separators beyond the first layer's width are left out.  ``output``: ``(Wo, bo)``, the
    output layer's rows for the separators' units and its biases, in place of the vote (one
    hidden layer; the caller's :func:`~annc.training.warmstart.pool.repair.repair_network` scales the
    layer into its box by one factor, which keeps every argmax)."""
    spec = problem.spec
    units = [ls.units for ls in spec.hidden]
    m = min(W.shape[1], units[0])
    weights, biases = [], []
    n_in = spec.inputs
    for layer, ls in enumerate(spec.hidden):
        Wl, bl = np.zeros((n_in, ls.units)), np.full(ls.units, min(ls.bias_bounds[0], 0.0))
        if layer == 0:
            Wl[:, :m], bl[:m] = W[:, :m], b[:m]
        else:
            k = min(m, ls.units, n_in)
            Wl[np.arange(k), np.arange(k)], bl[:k] = PASS_WEIGHT, PASS_BIAS
        weights.append(Wl)
        biases.append(bl)
        n_in = ls.units
    J = len(problem.classes)
    Wo, bo = np.zeros((n_in, J)), np.zeros(J)
    if output is not None:
        Wo[:len(output[0])], bo[:] = output
        weights.append(Wo)
        biases.append(bo)
        return weights, biases
    for i, c in enumerate(targets_first[:min(m, n_in)]):
        Wo[i, c] = 1.0
    if W.shape[1] == 1 and len(targets_first) > 1:  # two classes: off votes for the majority
        bo[targets_first[1]] = 0.5
    weights.append(Wo)
    biases.append(bo)
    return weights, biases


def _targets(problem: TrainingProblem) -> tuple[list, list] | None:
    """``(targets, labels)``: the classes the separators' units vote for, in :func:`placed`'s
    order, and each unit's target pattern (a boolean per row); None when the spec's first layer
    has no step units or the data have one class."""
    if not problem.spec.hidden:
        return None
    counts = problem.counts.sum(0)
    present = np.flatnonzero(counts > 0)
    order = list(present[np.argsort(-counts[present], kind="stable")])
    if problem.spec.hidden[0].activation not in STEP or len(present) < 2:
        return None
    major = problem.counts.argmax(1)  # each row's most frequent class
    # one column per target class (separators): "not the majority class" alone for two classes
    if len(problem.classes) == 2 and len(present) == 2:  # unit on -> the other class
        return ([order[1], order[0]] if len(order) > 1 else order), [major != order[0]]
    return order, [major == c for c in order]


def logistic_network(problem: TrainingProblem, C: float) -> tuple[list, list] | None:
    """L1 logistic regression at ``C`` (:func:`logistic`, one-vs-rest) as a network of the spec:
    its hyperplanes scaled by a positive factor into the first layer's box (a step unit does not
    change: ``1[s (w.x + b) >= 0] = 1[w.x + b >= 0]``), each bias less the export's shift (the
    MIP's unit is on iff ``pre >= eps`` and off iff ``pre <= 0``, and the exported one fires iff
    ``pre >= eps/2``: ``b + eps/2`` puts the regression's boundary in the middle of the gap, where
    the exported unit reads it), placed by :func:`placed`; the caller repairs the rows inside the
    eps gap (moving the biases the least) and gives it its exact output layer.  Not refitted to the
    labels: this is the logistic model's own separator, the one model selection scores against
    the exact search's networks (:mod:`annc.training.modelselect.cvpath`).  None where :func:`_targets` is.

    For ``m > 2`` classes the regression (one-vs-rest, as scikit-learn fits liblinear's) predicts
    ``argmax_c s_c(x)``, ``s_c = w_c.x + b_c``, which ``m`` step units reading the signs of the
    ``s_c`` do not compute.  Its units are therefore the pairwise comparisons ``s_i - s_j``
    (:func:`differences`), ``m (m - 1) / 2`` of them in one hidden layer, and the output layer counts
    each class's wins (:func:`votes`): the class of the largest score wins all its comparisons, so
    the network predicts what the regression predicts (up to the rows the eps gap's repair moves).
    Where the first layer holds fewer than the pairs but at least ``m - 1`` units, the same
    one-vs-rest hyperplanes are read as a decision list instead
    (:mod:`~annc.training.warmstart.pool.decisionlist`: the first of ``m - 1`` scores in a fitted
    priority order that is ``>= 0`` names the class, else the most frequent class): another
    classifier than the argmax, and the one such a layer holds exactly.  A layer of at least
    ``ceil(log2 m)`` units also holds output codes (:mod:`~annc.training.warmstart.pool.outputcode`,
    :func:`code_separators`): one regression per bit of each class's word, decoded to the nearest word.
    Below the pairs, the reading that fits the training rows best is used (:func:`fewer_units`).
    None where the spec's first layer is narrower or it has more hidden layers.  Each unit reads the
    features of both its classes, so the network has more weights than the regression has
    coefficients.  One-vs-one regression, a pair's unit fitted on its two classes' rows, has fewer
    but is another classifier, and it scored lower (docs/decisions.md, "The MIP start")."""
    from .repair import fit_box
    got = _targets(problem)
    if got is None:
        return None
    ls, many = problem.spec.hidden[0], len(problem.classes) > 2
    m = len(got[0])
    width = separator_width(m, ls.units) if many else 1
    if many and (len(problem.spec.hidden) != 1 or width is None):
        return None
    if many and width != pairs(m):  # fewer units than the pairs: the reading that fits the rows best
        W, b, output = fewer_units(problem, got[0], ls.units, C)
    else:
        fitted = one_vs_rest(problem, lambda: logistic(C))
        if fitted is None:
            return None
        (W, b), output = (fitted, None) if not many else (differences(*fitted), votes(got[0], len(problem.classes)))
    wb = [fit_box(np.r_[W[:, i], b[i]], ls.weight_bounds, ls.bias_bounds) for i in range(W.shape[1])]
    shift = ACTIVATIONS[ls.activation].export_bias_shift(problem.spec.eps)
    return placed(problem, np.column_stack([v[:-1] for v in wb]), np.array([v[-1] - shift for v in wb]), got[0],
                  output=output)


def separator_networks(problem: TrainingProblem) -> Iterator[tuple[str, list, list]]:
    """``(name, weights, biases)`` of every separator network (the margin LPs, then those of
    :func:`separators`), in the spec's layers (:func:`placed`), each computed when it is asked
    for; none when the spec has no hidden layer or the data have one class.  Where the first layer
    holds fewer units than the ``m`` classes (so one-vs-rest units leave classes out), L1 logistic
    regression read as the layer holds it goes first (:func:`logistic_network` at each ``C`` of
    :data:`CODE_PATH`: a decision list or an output code, :func:`fewer_units`)."""
    got = _targets(problem)
    if got is None:
        return
    targets, labels = got
    m = len(labels)
    if m > problem.spec.hidden[0].units:  # the one-vs-rest units do not all fit: the layer's own reading
        for C in CODE_PATH:
            net = logistic_network(problem, C)
            if net is not None:
                yield (f"L1 logistic regression C={C:g} in {problem.spec.hidden[0].units} units", *net)
    price = problem.spec.penalty_weight if PENALTY[problem.spec.penalty].weighted else 0.5
    for f in LP_L1:
        fits = [margin_lp(problem, lab, f * price) for lab in labels]
        if all(fit is not None for fit in fits):
            Wm = np.column_stack([fit[0] for fit in fits])
            bm = np.array([fit[1] for fit in fits])
            yield (f"sparse margin LP (weight price {f * price:g})", *placed(problem, Wm, bm, targets))
    # the LP on every input last: a box-and-margin linear SVM, the support the LP's own
    everything = [("box-margin LP separator on all inputs", np.ones((problem.X.shape[1], m)), np.zeros(m))]
    for name, W, b in itertools.chain(((f"{n}, refitted to the labels", W, b) for n, W, b in separators(problem)),
                                      everything):
        Wb, bb = in_box(problem, W, b, labels)
        yield (name, *placed(problem, Wb, bb, targets))
