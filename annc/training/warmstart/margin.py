"""The default recipe's eps: a wide margin where the training data admit one.

A step unit of the MIP fires when ``pre >= eps`` and is off when ``pre <= 0``: no training
row's pre-activation lies in the gap ``(0, eps)``.  With weights and biases in ``[-1, 1]``
and features scaled into ``[0, 1]``, eps is the unit's margin in the units of the box, the
quantity a support vector machine maximises to generalise.  A wide eps is also a
restriction: where the classes overlap near a unit's hyperplane (noisy, low-dimensional
data) no hyperplane leaves a gap that wide, and the MIP must flip activations to clear it.

:func:`default_eps` takes the wide margin :data:`WIDE` when the data admit it, else the
narrow :data:`NARROW` (a numerical clearance).  As a nu-SVM bounds the share of its margin
errors by nu, the test bounds them by :data:`NU`: it trains one SGD network of the spec
(seed 0, as the MIP start's first seed) and refits each hidden unit by the LP of
:func:`~annc.training.warmstart.pool.repair.refit_unit` to keep SGD's activations clear of the gap
``(0, WIDE)``, within the unit's boxes; the data admit the margin if every unit keeps all
but at most :data:`NU` of the training samples clear.  Where the data admit it the wide
margin generalised better; where they do not, a start's units flip a third to half of their
activations and the MIP ends near chance, and eps 0.01 or 0.03 did no better than
:data:`NARROW` (docs/decisions.md, "The default recipe"; split by split:
``python bench/run.py margin_errors``).

**One step.**  :func:`resolve` turns a spec and its data into the concrete spec the
compiler builds, once, at the entry point (``annc compile``, :func:`annc.compile`, and
:func:`annc.training.trainer.train` for each training problem: a greedy layer, a
one-vs-one pair or a batch chooses on its own data): eps chosen here when the spec is of
the default recipe and names none, with the :class:`~annc.io.recipe.Recipe` that says so.
:func:`annc.solve.compiler.build` refuses a spec whose eps is still to be chosen.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from ...formulations import ACTIVATIONS
from ...io.data import Dataset
from ...io.problem import TrainingProblem
from ...io.recipe import Recipe, recipe_of
from ...io.spec import NetworkSpec
from ...solve.compiler import Prepared, prepare
from .pool.repair import SCALED, fit_box, flips, refit_unit, threshold
from .pool.seeding import sgd_net, sgd_trains

WIDE = 0.1  # the margin taken when the data admit it
NARROW = 0.001  # else: a clearance, as on data whose classes overlap near every hyperplane
NU = 0.02  # the largest share of training samples a unit may leave in the wide gap
FINER = (1e-4, 1e-5)  # dense data: the narrow gap holds rows near every hyperplane (module docstring)
FLIP_SHARE = 0.005  # the largest share of samples a unit may flip to clear the gap (moving its bias alone)


def gap_flips(problem: TrainingProblem, net, eps: float) -> float:
    """The largest share of ``problem``'s training samples that a hidden unit of ``net`` flips when
    its bias alone moves it clear of the gap ``(0, eps)`` (each unit scaled into its box first, as the
    start's repair does: :func:`~annc.training.warmstart.pool.repair.fit_box` and
    :func:`~annc.training.warmstart.pool.repair.threshold`); 1.0 when some unit cannot be cleared."""
    act, rows, worst = problem.X, problem.row_samples, 0.0
    for ls, L in zip(problem.spec.hidden, net.layers[:-1]):
        pre = act @ L.weight + L.bias
        for k in range(pre.shape[1]):
            wb = fit_box(np.r_[L.weight[:, k], L.bias[k]], ls.weight_bounds, ls.bias_bounds)
            p = act @ wb[:-1] + wb[-1]
            nb = threshold(p, wb[-1], eps, *ls.bias_bounds)
            worst = max(worst, flips(p >= 0, p, wb[-1], nb, eps, rows) / rows.sum())
        act = ACTIVATIONS[ls.activation].lift_units(pre, 0.0)[1]
    return min(worst, 1.0)


def margin_errors(problem: TrainingProblem, net, eps: float) -> list[float]:
    """For each hidden unit of SGD's step network ``net``, the share of ``problem``'s training
    samples that :func:`~annc.training.warmstart.pool.repair.refit_unit` (on the support of SGD's unit)
    cannot keep clear of the gap ``(0, eps)`` on SGD's side (on iff SGD's ``pre >= 0``): its
    margin errors; 1.0 for a unit whose LP ends without an optimum.  A later layer's
    inputs are SGD's own outputs of the layers before."""
    errors, act, rows = [], problem.X, problem.row_samples
    for ls, L in zip(problem.spec.hidden, net.layers[:-1]):
        pre = act @ L.weight + L.bias
        for k in range(pre.shape[1]):
            on = pre[:, k] >= 0
            fit = refit_unit(act, on, L.weight[:, k], eps, ls.weight_bounds, ls.bias_bounds, rows)
            if fit is None:
                errors.append(1.0)
                continue
            refit = act @ fit[0] + fit[1]
            bad = np.where(on, refit < eps * (1 - 1e-9), refit > eps * 1e-9)
            errors.append(float(rows[bad].sum() / rows.sum()))
        act = ACTIVATIONS[ls.activation].lift_units(pre, 0.0)[1]
    return errors


@dataclass(frozen=True)
class EpsChoice:
    """The eps :func:`choose_eps` takes, and why (one clause for the command line's
    "eps 0.1 chosen on the data: <reason>"); ``worst`` is the largest share of training
    samples a unit of SGD's network leaves in the wide gap (None: not measured)."""

    eps: float
    reason: str
    worst: float | None = None

    def __float__(self) -> float:
        return self.eps


def choose_eps(problem: TrainingProblem) -> EpsChoice:
    """:data:`WIDE` if ``problem``'s hidden layers are step units that SGD trains and no unit
    of SGD's network (seed 0) has more than :data:`NU` margin errors at eps :data:`WIDE`
    (:func:`margin_errors`); else :data:`NARROW`; with the reason.  About a second (the SGD
    run of the MIP start's first seed, then one LP a unit)."""
    spec = problem.spec
    if not sgd_trains(spec) or not all(ls.activation in SCALED for ls in spec.hidden):
        return EpsChoice(NARROW, f"the wide margin {WIDE:g} is tested only on hidden layers of step units "
                                 "that SGD trains")
    net = sgd_net(problem, seed=0)
    worst = max(margin_errors(problem, net, WIDE))
    if worst <= NU:
        return EpsChoice(WIDE, f"SGD's units keep all but {worst:.1%} of the samples clear of the gap "
                               f"(at most {NU:.0%})", worst)
    flipped = gap_flips(problem, net, NARROW)
    if flipped > FLIP_SHARE:  # dense rows: no gap of eps NARROW near a hyperplane
        for eps in FINER:
            if gap_flips(problem, net, eps) <= FLIP_SHARE or eps == FINER[-1]:
                return EpsChoice(eps, f"the rows are dense: clearing the gap of eps {NARROW:g} flips "
                                      f"{flipped:.1%} of the samples at a unit of SGD's network (more than "
                                      f"{FLIP_SHARE:.1%}), eps {eps:g} flips at most that", worst)
    return EpsChoice(NARROW, f"a unit of SGD's network leaves {worst:.1%} of the samples in the gap of "
                             f"eps {WIDE:g} (more than {NU:.0%})", worst)


def default_eps(problem: TrainingProblem) -> float:
    """The eps of :func:`choose_eps`, without its reason."""
    return choose_eps(problem).eps


class Resolved(NamedTuple):
    """A spec made concrete on its data (:func:`resolve`): the spec, its recipe, and the data
    prepared for it (checked, scaled, merged: :func:`annc.solve.compiler.prepare`), or None
    when nothing had to be chosen.  :func:`annc.solve.compiler.build` takes the three, so
    the data are prepared once."""

    spec: NetworkSpec
    recipe: Recipe
    prepared: Prepared | None


def resolve(spec: NetworkSpec, data: Dataset, *, merge: bool = True, max_nonzeros: int | None = None) -> Resolved:
    """The concrete spec of ``spec`` on ``data`` and its recipe: a spec of the default recipe
    that names no eps (``eps_auto``) gets the eps :func:`choose_eps` takes on the training
    problem of the scaled data (checked first, as the compiler checks it:
    :func:`annc.solve.compiler.prepare`); any other spec is returned as it is."""
    if not spec.eps_auto:
        return Resolved(spec, recipe_of(spec), None)
    prepared = prepare(spec, data, merge=merge, max_nonzeros=max_nonzeros)
    chosen = choose_eps(prepared.problem)
    concrete = replace(spec, eps=float(chosen), eps_auto=False)
    return Resolved(concrete, recipe_of(spec, chosen), prepared.for_spec(concrete))
