"""Neighbourhoods of an incumbent network, one class per kind, in a registry.

A *neighbourhood* of the incumbent network ``x`` is a set of networks that agree with it
outside a few parameter blocks (or, for a band, outside a few rows' activations).  Fixing
everything else at ``x`` (``lb = ub = x``) leaves a sub-MIP of the full model whose feasible
points are exactly the networks of the neighbourhood (every activation, product and loss
column is tied to the weights by the model's rows), so its optimum is the best network there,
and a sub-MIP proven not to improve on ``x`` is a **certificate**: no network of that
neighbourhood has a lower training objective.

A kind of neighbourhood is a subclass of :class:`Neighbourhood` with

* ``key``, ``level`` (the order of the unit descent in :mod:`.lns`: smaller first) and
  ``band`` (True for the kind the band descent grows);
* :meth:`Neighbourhood.around` ``(model, problem, x, rows)``: the neighbourhoods of that kind
  around ``x``, each an instance with a ``name`` and :meth:`Neighbourhood.free`, which returns
  the restricted model;
* :meth:`Neighbourhood.claim`: the sentence its certificate proves (the verdict, the weights
  file and the report print it as it is: nothing downstream knows the kinds).

:data:`NEIGHBOURHOODS` is the registry; :func:`register` adds a kind (a new neighbourhood is
one class and one ``register`` line).  The kinds here:

* ``output``: the output layer (the paper's Algorithm 2 step, exact);
* ``unit``: one hidden unit (its weights, its bias, and its activations on every row)
  together with the output layer;
* ``pair``: two hidden units together with the output layer;
* ``band``: across every hidden unit at once, the band of ``B`` rows: the output layer is
  fixed at ``x``'s, every hidden weight and bias is free, and each hidden unit's activation
  is free on the band's rows and fixed at ``x``'s on every other row.  The band holds the
  rows ``x`` gets wrong that lie nearest a hidden unit's threshold, then the rows nearest a
  threshold (:func:`band_rows`).  With the other rows' activations fixed, each unit's
  weights only have to keep those rows on their side (``a.x_u + b >= eps`` or ``<= 0``:
  linear rows) and their loss is fixed, so a band sub-MIP has binaries for ``B`` rows'
  activations, not all of them.

The spec's symmetry-breaking rows (``symmetry bias|count``) are dropped from every sub-MIP:
a network of the neighbourhood may need its units reordered to satisfy them, and the
certificate speaks of networks, not of orderings.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations
from typing import ClassVar

import numpy as np

from ...core.model import Model
from ...formulations.common import leads
from ...io.problem import TrainingProblem
from ..warmstart.pool.point import hidden_network
from ..warmstart.pool.repair import layer_inputs


@dataclass
class Certificate:
    """No network of the neighbourhoods of kind ``key`` around the exported network has a
    lower objective: proven by ``sub_mips`` sub-MIPs solved to optimality (``rows``: a band's)."""

    key: str
    sub_mips: int
    rows: int = 0

    @property
    def kind(self) -> type["Neighbourhood"]:
        return NEIGHBOURHOODS[self.key]

    @property
    def describe(self) -> str:
        return self.kind.describe(self.rows)

    @property
    def text(self) -> str:
        proof = f"proven by {self.sub_mips} sub-MIP{'s' if self.sub_mips != 1 else ''}"
        return f"{self.kind.claim(self.rows)}: {proof}"

    def to_dict(self) -> dict:
        d = {"size": self.describe, "key": self.key, "sub_mips": self.sub_mips, "text": self.text}
        if self.rows:
            d["rows"] = self.rows
        return d


class Neighbourhood:
    """One neighbourhood of an incumbent: its ``name`` and the columns (or rows) it frees."""

    key: ClassVar[str] = ""
    level: ClassVar[int] = 0  # the unit descent's order (smaller first)
    band: ClassVar[bool] = False  # grown by the band descent rather than walked by the unit descent
    what: ClassVar[str] = ""  # the parameters it frees, in words

    def __init__(self, name: str, cols: list[np.ndarray] | None = None, rows: np.ndarray | None = None):
        self.name, self.cols, self.rows = name, cols, rows

    @classmethod
    def around(cls, model: Model, problem: TrainingProblem, x: np.ndarray, rows: int = 0) -> list["Neighbourhood"]:
        """The neighbourhoods of this kind around ``x`` (``rows``: a band's size)."""
        raise NotImplementedError

    def free(self, model: Model, x: np.ndarray) -> Model:
        """The sub-MIP: ``model`` with every weight and bias fixed at ``x`` but the freed ones."""
        return restricted(model, x, self.cols)

    @classmethod
    def describe(cls, rows: int = 0) -> str:
        return cls.what

    @classmethod
    def claim(cls, rows: int = 0) -> str:
        """What a certificate of this kind proves, as a sentence."""
        return f"no network that differs from this one only in {cls.describe(rows)} has a lower objective"


NEIGHBOURHOODS: dict[str, type[Neighbourhood]] = {}


def register(kind: type[Neighbourhood]) -> type[Neighbourhood]:
    """Add ``kind`` to :data:`NEIGHBOURHOODS` (usable as a class decorator)."""
    if not kind.key or kind.key in NEIGHBOURHOODS and NEIGHBOURHOODS[kind.key] is not kind:
        raise ValueError(f"a neighbourhood kind needs a new key, not {kind.key!r}")
    NEIGHBOURHOODS[kind.key] = kind
    return kind


def unregister(key: str) -> None:
    NEIGHBOURHOODS.pop(key, None)


def levels() -> list[type[Neighbourhood]]:
    """The unit descent's kinds, smallest first."""
    return sorted((k for k in NEIGHBOURHOODS.values() if not k.band), key=lambda k: k.level)


def band_kind() -> type[Neighbourhood] | None:
    return next((k for k in NEIGHBOURHOODS.values() if k.band), None)


# -- the columns of a network ------------------------------------------------------------
def output_cols(model: Model) -> list[np.ndarray]:
    out = model.layout.layers[-1]
    return [np.ravel(out.weight), np.ravel(out.bias)]


def units_of(model: Model, x: np.ndarray | None = None) -> list[tuple[int, int]]:
    """``(layer, unit)`` of every hidden unit; with ``x``, the units with a non-zero weight there
    first (where a sub-MIP most often improves: an unused unit must build a feature from nothing)."""
    layers = model.layout.layers
    units = [(li, k) for li, L in enumerate(layers[:-1]) for k in range(np.shape(L.bias)[0])]
    if x is not None:
        active = {(li, k): bool(np.any(np.abs(x[np.asarray(layers[li].weight)[:, k]]) > 1e-9)) for li, k in units}
        units.sort(key=lambda u: -int(active[u]))  # stable
    return units


def unit_cols(model: Model, li: int, k: int) -> list[np.ndarray]:
    L = model.layout.layers[li]
    return [np.ravel(np.asarray(L.weight)[:, k]), np.ravel(np.asarray(L.bias)[k])]


def unit_label(model: Model, li: int, k: int) -> str:
    return f"unit {k + 1}" if len(model.layout.layers) == 2 else f"layer {li + 1} unit {k + 1}"


def fixed_at(model: Model, x: np.ndarray, cols: np.ndarray) -> Model:
    """``model`` with the columns ``cols`` fixed at their values in ``x`` (``lb = ub = x``)."""
    lb, ub = model.lb.copy(), model.ub.copy()
    lb[cols] = ub[cols] = x[cols]
    return replace(model, lb=lb, ub=ub)


def without_symmetry(model: Model) -> Model:
    for block in [b.name for b in model.row_blocks if b.role == "symmetry"]:
        model = model.without_rows(block)
    return model


def restricted(model: Model, x: np.ndarray, free: list[np.ndarray]) -> Model:
    """``model`` with every weight and bias column fixed at ``x`` except ``free``, and
    without symmetry-breaking rows."""
    fixed = np.concatenate([np.ravel(c) for L in model.layout.layers for c in (L.weight, L.bias)])
    keep = np.zeros(model.num_cols, dtype=bool)
    keep[np.concatenate(free)] = True
    return without_symmetry(fixed_at(model, x, fixed[~keep[fixed]]))


# -- the kinds -----------------------------------------------------------------------------
@register
class OutputLayer(Neighbourhood):
    key, level, what = "output", 0, "the output layer"

    @classmethod
    def around(cls, model, problem, x, rows=0):
        return [cls("output layer", output_cols(model))]


@register
class OneUnit(Neighbourhood):
    key, level, what = "unit", 1, "one hidden unit and the output layer"

    @classmethod
    def around(cls, model, problem, x, rows=0):
        return [cls(f"{unit_label(model, *u)} + output layer", unit_cols(model, *u) + output_cols(model))
                for u in units_of(model, x)]


@register
class UnitPair(Neighbourhood):
    key, level, what = "pair", 2, "two hidden units and the output layer"

    @classmethod
    def around(cls, model, problem, x, rows=0):
        return [cls(f"{unit_label(model, *u)}, {unit_label(model, *v)} + output layer",
                    unit_cols(model, *u) + unit_cols(model, *v) + output_cols(model))
                for u, v in combinations(units_of(model, x), 2)]


@register
class Band(Neighbourhood):
    key, band = "band", True

    @classmethod
    def around(cls, model, problem, x, rows=0):
        rows = min(rows, problem.num_rows)
        name = f"band of {rows} rows" if rows < problem.num_rows else "all rows (hidden layers)"
        return [cls(name, rows=band_rows(model, problem, x, rows))]

    def free(self, model: Model, x: np.ndarray) -> Model:
        """``model`` with the output layer and every hidden unit's integer activation columns
        (``h``, one row per problem row) on the rows outside the band fixed at ``x``; the
        hidden weights and biases stay free."""
        fix = output_cols(model)
        for L in model.layout.layers[:-1]:
            for cols in map(np.asarray, L.units.values()):
                if cols.ndim == 2 and model.integer[cols].all():
                    fix.append(np.ravel(np.delete(cols, self.rows, axis=0)))
        return without_symmetry(fixed_at(model, x, np.concatenate(fix)))

    @classmethod
    def describe(cls, rows: int = 0) -> str:
        return f"the hidden layers' activations on the {rows} rows nearest their thresholds"

    @classmethod
    def claim(cls, rows: int = 0) -> str:
        return (f"no network with this output layer whose hidden units agree with this one's on every row "
                f"but the {rows} nearest their thresholds has a lower objective")


def band_rows(model: Model, problem: TrainingProblem, x: np.ndarray, size: int) -> np.ndarray:
    """The ``size`` rows of the band around the network at ``x`` (sorted indices).

    A row's *distance* is the least ``|pre - eps/2|`` over the hidden units that read
    something (a unit with no non-zero weight is constant on every row): how far its
    pre-activation is from the middle of the forbidden gap ``(0, eps)``.  The band takes
    the rows the network gets wrong (a class of the row ahead of its rivals by less than
    eps), nearest first, up to half of ``size``, then the nearest of the others."""
    W, b = hidden_network(model, x)
    spec, eps = problem.spec, problem.spec.eps
    dist = np.full(problem.num_rows, np.inf)
    for li in range(len(spec.hidden)):
        pre = layer_inputs(problem, W, b, li) @ W[li] + b[li]
        live = np.any(np.abs(W[li]) > 1e-9, axis=0)
        if live.any():
            dist = np.minimum(dist, np.abs(pre[:, live] - eps / 2).min(axis=1))
    scores = layer_inputs(problem, W, b, len(spec.hidden)) @ W[-1] + b[-1]
    wrong = np.any((problem.counts > 0) & (leads(scores) < eps - 1e-9), axis=1)
    order = np.argsort(dist, kind="stable")
    first = [u for u in order if wrong[u]][: size // 2]
    taken = np.zeros(problem.num_rows, dtype=bool)
    taken[first] = True
    rest = [u for u in order if not taken[u]][: size - len(first)]
    return np.sort(np.array(first + rest, dtype=int))
