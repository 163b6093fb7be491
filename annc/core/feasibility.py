"""Whether a point satisfies a model: annc's one feasibility rule (:meth:`annc.core.model.Model.check`).

For a model ``min c'x  s.t.  A x (<=, >=, =) rhs,  lb <= x <= ub,  x_j integer (j in I)``
and a point ``x``, four kinds of violation are measured, entry by entry:

* ``non-finite``: ``x_j`` is NaN or infinite.  Always a violation, whatever the
  tolerance: NaN makes every comparison false and would otherwise pass any check.
* ``integrality``: ``|x_j - round(x_j)|`` for ``j in I`` (finite ``x_j``);
* ``bound``: ``max(lb_j - x_j, x_j - ub_j, 0)`` (finite ``x_j``);
* ``row``: ``max(a_i x - rhs_i, 0)`` for ``<=``, ``max(rhs_i - a_i x, 0)`` for ``>=``,
  ``|a_i x - rhs_i|`` for ``=``.  An activity that overflows to NaN or infinity is a
  violation too.

**The tolerance policy** (the only one; every caller passes just ``tol``): an integrality
or bound deviation is a violation when it exceeds ``tol`` (absolute); a row deviation
when it exceeds ``tol * max(1, max_i |rhs_i|)``.  Rows are scaled by the model's largest
right-hand side, not row by row, because a solver's residuals grow with the magnitudes
of the whole model: a big-M row ``pre - M h <= 0`` has right-hand side 0 but
coefficients of size M.  Every test is written ``not (deviation <= limit)``, so a NaN
is a violation, never a pass.

Two tolerances are used:

* :data:`SOLUTION_TOL` (1e-5) for a point a solver returned (verification, the external
  drivers): solvers work to feasibility and integrality tolerances of 1e-9 to 1e-5;
* :data:`START_TOL` (1e-7) for a point annc makes itself and hands to a solver as a
  start (:mod:`annc.training.warmstart.pool`): it must pass the solver's own, stricter, check.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .names import element_name

SOLUTION_TOL = 1e-5
START_TOL = 1e-7

#: The kinds of violation, in the order they are reported.
KINDS = ("non-finite", "integrality", "bound", "row")


@dataclass(frozen=True)
class Violation:
    """The largest deviation of one kind: ``where`` names the column (the row, for
    ``row``); ``amount`` is the deviation (for ``non-finite``: the value itself, the
    first such column's)."""

    kind: str
    where: str
    amount: float

    def describe(self) -> str:
        if self.kind == "non-finite":
            return f"column {self.where} has the value {self.amount}"
        if self.kind == "integrality":
            return f"{self.where} is {self.amount:.3g} away from an integer"
        if self.kind == "bound":
            return f"bound violated by {self.amount:.3g} at {self.where}"
        return f"row {self.where} violated by {self.amount:.3g}"


@dataclass(frozen=True)
class Check:
    """The outcome of :func:`check`: the largest deviation of each kind and how many
    entries of each kind lie beyond the tolerance."""

    tol: float
    row_scale: float  # max(1, max |rhs|): a row's limit is tol * row_scale
    largest: dict  # kind -> Violation (or None: no deviation at all)
    counts: dict  # kind -> number of entries beyond the limit

    @property
    def violations(self) -> tuple[Violation, ...]:
        """The largest violation of each kind that is beyond the tolerance, in :data:`KINDS` order."""
        return tuple(self.largest[k] for k in KINDS if self.counts[k])

    @property
    def ok(self) -> bool:
        return not any(self.counts.values())

    def worst(self, kind: str) -> Violation | None:
        """The largest deviation of ``kind`` (beyond the tolerance or not); None if there is none."""
        return self.largest[kind]

    def count(self, kind: str) -> int:
        """How many entries deviate by more than the tolerance allows."""
        return self.counts[kind]

    def maxima(self) -> dict:
        """``{kind: {"max": deviation, "where": name or None}}`` for integrality, bound and
        row: the summary the verification report prints."""
        out = {}
        for k in ("row", "bound", "integrality"):
            v = self.largest[k]
            out[k] = {"max": v.amount, "where": v.where} if v else {"max": 0.0, "where": None}
        return out


def check(model, x: np.ndarray, tol: float = SOLUTION_TOL) -> Check:
    """Measure the point ``x`` against ``model`` under the tolerance policy (module docstring)."""
    x = np.asarray(x, dtype=float)
    finite = np.isfinite(x)
    xf = np.where(finite, x, 0.0)
    act = model.A @ x
    rhs, sense = model.rhs, model.sense
    row = np.zeros(len(rhs))
    L, G, E = sense == "L", sense == "G", sense == "E"
    row[L] = np.maximum(act[L] - rhs[L], 0)
    row[G] = np.maximum(rhs[G] - act[G], 0)
    row[E] = np.abs(act[E] - rhs[E])
    row[~np.isfinite(act)] = np.nan  # an overflow (or a non-finite x) voids the row
    bound = np.maximum(np.maximum(model.lb - xf, xf - model.ub), 0)  # xf finite: no inf - inf
    frac = np.where(model.integer, np.abs(xf - np.round(xf)), 0.0)
    scale = max(1.0, float(np.abs(rhs).max(initial=0.0)))

    largest, counts = {}, {}
    bad = np.flatnonzero(~finite)
    largest["non-finite"] = (Violation("non-finite", _name(model.var_blocks, int(bad[0])), float(x[bad[0]]))
                             if bad.size else None)
    counts["non-finite"] = int(bad.size)
    for kind, dev, blocks, limit in (("integrality", frac, model.var_blocks, tol),
                                     ("bound", bound, model.var_blocks, tol),
                                     ("row", row, model.row_blocks, tol * scale)):
        largest[kind] = _largest(kind, dev, blocks)
        counts[kind] = int(np.count_nonzero(~(dev <= limit)))
    return Check(tol, scale, largest, counts)


def _largest(kind: str, dev: np.ndarray, blocks) -> Violation | None:
    """The largest entry of ``dev`` (the first NaN if there is one), or None if all are 0."""
    if dev.size == 0:
        return None
    i = int(np.argmax(dev))  # argmax returns the first NaN
    if not dev[i] != 0:  # 0, and not NaN
        return None
    return Violation(kind, _name(blocks, i), float(dev[i]))


def _name(blocks, i: int) -> str:
    """The name of element ``i`` (a column or row index) of the model's ``blocks``."""
    b = next(b for b in blocks if b.start <= i < b.stop)
    return element_name(b.name, np.unravel_index(i - b.start, b.shape) if b.shape else ())
