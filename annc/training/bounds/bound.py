"""A named lower bound, the best of several, and the values an objective can take.

A :class:`Bound` is a number that no network of the problem's class can beat, with the
name of the argument that proves it (``source``) and what it took (``detail``).

**Attainable values.**  With the ``errors`` loss and whole sample counts, every network's
loss is a whole number; with penalty ``none`` or ``l0`` (factor ``lambda``) its objective
is ``e + lambda n`` with whole ``e, n >= 0`` (errors, non-zero weights).  So a bound ``v``
on such a problem may be raised to the smallest such value ``>= v`` (:func:`attainable`):
no objective lies in between.  A solver's dual bound carries its tolerances, so ``v`` is
first lowered by :data:`TOL` (a bound of ``1.0000004`` stays ``1``, it does not become 1.5).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

MAX_STEPS = 100_000  # weight counts tried by attainable (beyond: the value as it is)
TOL = 1e-6  # a solver's bound may exceed the optimum by its tolerances; never round that up


@dataclass(frozen=True)
class Bound:
    """``value``: a valid lower bound on the optimum; ``source``: the argument (e.g.
    ``"subset"``); ``detail``: what it took, in words."""

    value: float
    source: str
    detail: str = ""

    def line(self) -> str:
        return f"{self.value:.6g} ({self.source}: {self.detail})" if self.detail else \
            f"{self.value:.6g} ({self.source})"


def best(bounds) -> Bound | None:
    """The largest bound (the first of equal ones); None for none."""
    top = None
    for b in bounds:
        if top is None or b.value > top.value:
            top = b
    return top


def attainable(problem, value: float) -> float:
    """The smallest objective value ``>= value - TOL`` that a network can have (see the
    module docstring), or ``value`` itself where the objective's values are not a lattice
    (another loss or penalty, or fractional counts) or too fine a one to walk."""
    spec = problem.spec
    if spec.loss != "errors" or spec.penalty not in ("none", "l0") or not problem.whole:
        return value
    v = value - TOL
    if v <= 0:
        return 0.0  # no objective is negative
    lam = spec.penalty_weight if spec.penalty == "l0" else 0.0
    if lam <= 0:
        return float(math.ceil(v))
    if v / lam > MAX_STEPS:
        return value
    options = (math.ceil(max(v - lam * n, 0.0)) + lam * n for n in range(int(math.ceil(v / lam)) + 1))
    return float(min(options))
