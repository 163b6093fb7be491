"""The losses: the facts about each one that the layers below the formulations need (the
spec, sizes, magnitudes, model selection, the estimator).

:data:`LOSS` maps a name of the ``.ann`` language (``loss hinge 0.5``) to its
:class:`Loss`; its keys are the spec's losses and the keys of the formulation registry
(:data:`annc.formulations.LOSSES`, which holds the mathematics of the MIP: a test checks
the two agree).  Every reader looks a loss up by name (``LOSS[spec.loss]``), so a loss
the formulations know and this table does not fails with a ``KeyError``, and never
behaves like another one.  The losses are ``nll`` (margins to the best score),
``errors`` (the misclassified samples, exactly) and ``hinge`` (Crammer-Singer, with its
margin); the mathematics of each is in its module's docstring (:mod:`annc.formulations.nll`, ...).

**Argument.**  A loss may take one number after its name (:class:`Argument`: hinge's
margin).  It is a field of :class:`annc.io.spec.NetworkSpec` of the same name (``margin``),
whose default is the table's; the spec checker reads it with the
:class:`annc.io.spec.values.ValueChecker` method ``check`` names.  Two losses that take an
argument of the same name share that field, and must agree on its default.

**Size.**  ``size(U, J, pairs_present)`` is the loss's own block (columns, rows,
non-zeros) on ``U`` data rows, ``J`` classes and ``pairs_present`` (row, class) pairs
with a sample, as :func:`annc.core.limits.model_size` counts it: ``nll`` has ``w`` per row
and ``r`` per row and class pair (rows ``om``, ``lf``, ``da``, ``db``);
``errors`` and ``hinge`` one column per present pair and one row per rival class
(:func:`per_pair`).

**Magnitudes.**  ``output_big_m``: the loss's rows on the output scores carry a big-M of
at most ``2 R + eps`` (``R`` the bound of the scores; ``nll``'s diversifying rows,
``errors``' winning rows), so a spec's ``M`` applies to the output layer
(:mod:`annc.io.magnitudes`).  ``floor_of_eps``: the largest loss floor the data can give,
``(eps, classes, samples) -> number`` (``nll``: ``eps (J - 1) N``), which must stay a
number solvers take; ``floor_why`` says how it is made.

**Counts errors.**  ``counts_errors``: the loss is the number of misclassified samples,
one unit per sample (``errors``), so two rows no network can tell apart cost at least the
smaller of their counts: the conflict bound (:mod:`annc.training.bounds.conflict`) holds for it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Argument:
    """The number a loss takes after its name."""

    name: str  # the spec's field (NetworkSpec.<name>) and the word messages use: "margin"
    default: float  # what the spec holds when the statement leaves it out
    what: str  # how a message names it: "the hinge margin"
    check: str = "positive"  # the ValueChecker method that reads it ("positive": a finite number > 0)


@dataclass(frozen=True)
class Loss:
    """One loss (see the module docstring for each field)."""

    name: str
    size: Callable[[int, int, int], tuple[int, int, int]]  # (U, J, pairs present) -> columns, rows, nnz
    argument: Argument | None = None
    output_big_m: bool = False  # its rows on the outputs have a big-M up to 2 R + eps
    floor_of_eps: Callable[[float, int, int], float] | None = None  # (eps, classes, samples) -> largest floor
    floor_why: str = ""
    counts_errors: bool = False  # the loss is the number of misclassified samples (annc.training.bounds.conflict)


def per_pair(U: int, J: int, pairs_present: int) -> tuple[int, int, int]:
    """One column per present (row, class), one row of 3 entries per rival class."""
    return pairs_present, pairs_present * (J - 1), 3 * pairs_present * (J - 1)


def _nll_size(U: int, J: int, pairs_present: int) -> tuple[int, int, int]:
    """``w`` per row, ``r`` per row and class pair; rows om, lf, da, db."""
    pairs = J * (J - 1) // 2
    return U + U * pairs, U * J + U + 2 * U * pairs, 2 * U * J + U * (J + 1) + 6 * U * pairs


MARGIN = Argument("margin", 1.0, "the hinge margin")

LOSS: dict[str, Loss] = {loss.name: loss for loss in (
    Loss("nll", _nll_size, output_big_m=True, floor_of_eps=lambda eps, J, N: eps * (J - 1) * N,
         floor_why="eps x (classes - 1) x samples"),
    Loss("errors", per_pair, output_big_m=True, counts_errors=True),
    Loss("hinge", per_pair, argument=MARGIN),
)}


def with_argument(name: str | None = None) -> list[str]:
    """The losses that take an argument (named ``name``, if given), in table order."""
    return [k for k, loss in LOSS.items()
            if loss.argument is not None and (name is None or loss.argument.name == name)]


def takes(loss: str, argument: str) -> bool:
    """Whether ``loss`` takes the argument ``argument`` (a loss missing from the table: KeyError)."""
    got = LOSS[loss].argument
    return got is not None and got.name == argument


def argument_default(name: str) -> float:
    """The default of the losses' argument ``name`` (they must agree: one spec field holds it)."""
    defaults = {LOSS[k].argument.default for k in with_argument(name)}
    if len(defaults) != 1:
        raise ValueError(f"the losses taking {name!r} disagree on its default ({sorted(defaults)}) or none takes it")
    return defaults.pop()


__all__ = ["Argument", "LOSS", "Loss", "MARGIN", "argument_default", "per_pair", "takes", "with_argument"]
