"""The support bound: under an ``l0`` penalty, few features mean many conflicts.

Let ``F`` be the features a network reads (rows of the first layer's weights with a
non-zero entry) and ``L`` the number of weight layers (hidden layers and the output).

* If ``F`` is empty or some layer has no non-zero weight, that layer's outputs are its
  biases, the same on every row, and so are the network's outputs: at most one class
  can be right, and ``errors >= T0 = N - max_j N_j`` (``N_j`` samples of class j).
* Else the network has at least ``|F|`` non-zero weights in its first layer and one in
  each other layer: ``penalty >= lambda (|F| + L - 1)``.  It sees the rows only through
  their projections ``x_F``, so rows whose projections are indistinguishable
  (:mod:`.conflict`: closer than ``eps/W`` in L1 for step units, equal otherwise) give
  conflicts: ``errors >= C(F)``, the conflict bound on the projected rows.

Hence every objective is at least

    min( T0,  min over non-empty F of  C(F) + lambda (|F| + L - 1) ).

``C`` only falls as ``F`` grows (distances only grow), so ``C(F) >= C(all features)``; the
sets of up to ``depth`` features are enumerated (``m_s``: the least ``C(F)`` with
``|F| = s``), the larger ones are bounded by ``C(all) + lambda (depth + L)``::

    bound = min( T0,  min_{s <= depth} m_s + lambda (s + L - 1),  C(all) + lambda (depth + L) )

(the last term only while ``depth < d``).  With no conflicts at all this is still
``min(T0, lambda L)``: a network that classifies two classes pays for a path of weights.

Under a weight budget ``K`` (the spec's ``max_weights``) a network reading ``F`` has
``|F| + L - 1 <= K`` weights, so the terms of larger ``F`` are left out (a set of them is empty).
"""
from __future__ import annotations

import itertools
import math


from .bound import Bound, attainable
from .conflict import applies, errors_bound, radius

DEPTH = 2  # feature sets of up to this size are enumerated
MAX_SETS = 2000  # ... but no more sets than this in all (a size that would pass it is left out)


def support_bound(problem, *, depth: int = DEPTH, max_sets: int = MAX_SETS,
                  full: float | None = None, stop=None) -> Bound | None:
    """The bound of the module docstring, or None where it does not apply (another loss,
    or no ``l0`` penalty).  ``full``: ``C(all features)`` if already known (the conflict
    bound's value).  ``stop``: a test asked between feature sets (the run's deadline); once it
    is true the sets of the size under way are dropped (a minimum over some of them bounds
    nothing) and the bound is the sizes enumerated whole and ``C(all features)``."""
    spec = problem.spec
    lam = spec.penalty_weight
    if not applies(spec) or spec.penalty != "l0" or lam <= 0:
        return None
    X, c = problem.X, problem.counts
    d, L, r = X.shape[1], len(spec.layers), radius(spec)
    totals = c.sum(0)
    t0 = float(totals.sum() - totals.max())
    if full is None:
        full = errors_bound(X, c, r)[0]
    terms, used, sets = [], 0, 0
    for s in range(1, d + 1):
        n = math.comb(d, s)
        if s > depth or sets + n > max_sets:
            break
        if spec.max_weights is not None and s + L - 1 > spec.max_weights:
            break  # no network within the budget reads s features
        m_s = _least_errors(X, c, r, itertools.combinations(range(d), s), stop)
        if m_s is None:
            break
        terms.append((m_s + lam * (s + L - 1), f"{m_s:g} errors on the best {s} feature(s)"))
        used, sets = s, sets + n
        if m_s <= full:  # no larger set does better than all features do
            break
    if used < d and (spec.max_weights is None or used + L <= spec.max_weights):
        terms.append((full + lam * (used + L), f"{full:g} errors on all features, {used + 1}+ read"))
    value, why = min(terms, key=lambda t: t[0], default=(math.inf, ""))
    if t0 <= value:
        value, why = t0, "constant outputs"
    return Bound(attainable(problem, value), "support",
                 f"min over the features read: {why} ({sets} feature sets enumerated, T0 = {t0:g})")


def _least_errors(X, c, r, feature_sets, stop) -> float | None:
    """``min_F C(F)`` over ``feature_sets``, or None when ``stop`` turned true before the last."""
    least = math.inf
    for F in feature_sets:
        if stop is not None and stop():
            return None
        least = min(least, errors_bound(X[:, list(F)], c, r)[0])
    return least
