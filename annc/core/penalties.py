"""The penalties on the weights: the facts about each one that the layers below the
formulations need (the spec, sizes, the ``auto`` weight, MIP starts, model selection).

:data:`PENALTY` maps a name of the ``.ann`` language (``penalty l0 0.5``) to its
:class:`Penalty`; its keys are the spec's penalties and the keys of the formulation
registry (:data:`annc.formulations.PENALTIES`, which holds the mathematics of the MIP: a
test checks the two agree).  Every reader looks a penalty up by name, so one the
formulations know and this table does not fails with a ``KeyError``.

* ``none``: no columns, weight 0;
* ``l1``: ``lambda sum |w|``, one column ``t >= |w|`` per weight (two rows);
* ``l0``: ``lambda #{w != 0}``, one binary ``n >= 1[w != 0]`` per weight (two rows).

**Weighted.**  A penalty that penalises the weights takes a weight ``lambda`` (or
``auto``); :func:`penalty_weight` is it, or 0 for ``none``.  **Per weight**
``per_weight(lo, hi)`` is the largest value the unweighted penalty takes on one weight
in the box ``[lo, hi]`` (``l0``: 1; ``l1``: ``max(|lo|, |hi|)``), which the ``auto``
weight ``1 / (1 + P_max)`` sums (:func:`annc.io.spec.checks.lexicographic_weight`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Penalty:
    """One penalty (see the module docstring for each field)."""

    name: str
    weighted: bool  # penalises the weights, with a weight lambda; adds one column and two rows per weight
    per_weight: Callable[[float, float], float] | None = None  # (lo, hi) -> its largest unweighted value


PENALTY: dict[str, Penalty] = {p.name: p for p in (
    Penalty("none", weighted=False),
    Penalty("l1", weighted=True, per_weight=lambda lo, hi: max(abs(lo), abs(hi))),
    Penalty("l0", weighted=True, per_weight=lambda lo, hi: 1.0),
)}


def penalty_weight(spec) -> float:
    """``spec``'s penalty weight if its penalty penalises the weights, else 0."""
    return spec.penalty_weight if PENALTY[spec.penalty].weighted else 0.0


__all__ = ["PENALTY", "Penalty", "penalty_weight"]
