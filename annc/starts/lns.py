"""Exact neighbourhood search: sub-MIPs solved to proven optimality, and the certificate they give.

A *neighbourhood* of the incumbent network ``x`` is the set of networks that agree with
it outside a few parameter blocks.  Fixing every other weight and bias at ``x``
(``lb = ub = x``) leaves a sub-MIP of the full model whose feasible points are exactly
the networks of the neighbourhood (every activation, product and loss column is tied to
the weights by the model's rows), so its optimum is the best network there.  In
increasing size (:data:`SIZES`):

* ``output``: the output layer (the paper's Algorithm 2 step, exact);
* ``unit``: one hidden unit (its weights, its bias, and its activations on every row)
  together with the output layer;
* ``pair``: two hidden units together with the output layer.

Each neighbourhood contains the smaller ones around it (the output layer is free in all),
so a pass of size ``s`` in which every sub-MIP is **proven optimal** (relative gap 0,
absolute gap :data:`ABS_GAP`) and none improves on ``x`` certifies:

    no network that differs from ``x`` only in <s> has a lower training objective.

The search is variable-neighbourhood descent: an improving sub-MIP replaces the incumbent
(its point rounded and checked against the full model, and kept only if strictly better)
and the pass of that size goes on until a whole round of its neighbourhoods improves
nothing; if that size is not the smallest, the search then starts over from the smallest
(the new incumbent's smaller neighbourhoods are not proven yet); a round without
improvement in which every sub-MIP was proven earns the certificate of that size and
moves on to the next; a round with an unproven sub-MIP ends the search (the certificate
stays at the last size proven for the final incumbent).

**Work limits.**  Each sub-MIP has a node limit (:data:`NODE_LIMIT`) and the search a
limit on sub-MIPs solved (:data:`MAX_SUBMIPS`): every decision depends on these and on
the data, not on the machine's speed, so the same inputs give the same network.  A
wall-clock ``cap`` only stops the search early, and the result then says so (``capped``).

The spec's symmetry-breaking rows (``symmetry bias|count``) are dropped from the
sub-MIPs: a network of the neighbourhood may need its units reordered to satisfy them,
and the certificate speaks of networks, not of orderings.  A model with relaxed products
(McCormick, after ReLU layers) has no exact sub-MIPs with units free; the search does
not run there (:func:`applies`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np

from ..model import Model
from ..problem import TrainingProblem
from .search import rounded

NODE_LIMIT = 200  # branch-and-bound nodes per sub-MIP (on 400 real rows a unit sub-MIP takes 5-10 s for 100)
MAX_SUBMIPS = 24  # sub-MIPs per search (a 4-unit layer: 1 + 4 + 6 neighbourhoods a round)
ABS_GAP = 1e-6  # a sub-MIP is proven when its bound is within this of its optimum (relative gap 0)
SIZES = ("output", "unit", "pair")
DESCRIBE = {
    "output": "the output layer",
    "unit": "one hidden unit and the output layer",
    "pair": "two hidden units and the output layer",
}


@dataclass
class Certificate:
    """No network that differs from the exported one only in ``size`` (one of :data:`SIZES`)
    has a lower objective: proven by ``sub_mips`` sub-MIPs solved to optimality."""

    size: str
    sub_mips: int

    @property
    def text(self) -> str:
        return (f"no network that differs from this one only in {DESCRIBE[self.size]} has a lower "
                f"objective: proven by {self.sub_mips} sub-MIP{'s' if self.sub_mips != 1 else ''}")

    def to_dict(self) -> dict:
        return {"size": DESCRIBE[self.size], "key": self.size, "sub_mips": self.sub_mips, "text": self.text}


@dataclass
class SearchResult:
    x: np.ndarray
    objective: float
    certificate: Certificate | None
    sub_mips: int  # solved in all
    improvements: list = field(default_factory=list)  # (neighbourhood name, objective) per accepted step
    capped: bool = False  # the wall-clock cap stopped the search before its work limits


def applies(model: Model, problem: TrainingProblem) -> bool:
    """Whether the sub-MIPs are exact: no relaxed products and at least one hidden layer."""
    return bool(problem.spec.hidden) and not model.layout.relaxed


def neighbourhoods(model: Model, size: str, x: np.ndarray | None = None) -> list[tuple[str, list[np.ndarray]]]:
    """``(name, free weight and bias columns)`` of every neighbourhood of ``size``; with the
    point ``x``, the units with a non-zero weight there come first (where a sub-MIP most
    often improves: an unused unit's sub-MIP must build a new feature from nothing)."""
    layers = model.layout.layers
    out_cols = [np.ravel(layers[-1].weight), np.ravel(layers[-1].bias)]
    units = [(li, k) for li, L in enumerate(layers[:-1]) for k in range(np.shape(L.bias)[0])]
    active = {(li, k): x is not None and bool(np.any(np.abs(x[np.asarray(layers[li].weight)[:, k]]) > 1e-9))
              for li, k in units}

    def unit_cols(li, k):
        L = layers[li]
        return [np.ravel(np.asarray(L.weight)[:, k]), np.ravel(np.asarray(L.bias)[k])]

    def label(li, k):
        return f"unit {k + 1}" if len(layers) == 2 else f"layer {li + 1} unit {k + 1}"

    if size == "output":
        return [("output layer", out_cols)]
    units.sort(key=lambda u: -int(active[u]))  # units that compute something first (stable)
    if size == "unit":
        return [(f"{label(*u)} + output layer", unit_cols(*u) + out_cols) for u in units]
    return [(f"{label(*u)}, {label(*v)} + output layer", unit_cols(*u) + unit_cols(*v) + out_cols)
            for u, v in combinations(units, 2)]


def restricted(model: Model, x: np.ndarray, free: list[np.ndarray]) -> Model:
    """``model`` with every weight and bias column fixed at ``x`` except ``free``, and
    without symmetry-breaking rows (module docstring)."""
    lb, ub = model.lb.copy(), model.ub.copy()
    fixed = np.concatenate([np.ravel(c) for L in model.layout.layers for c in (L.weight, L.bias)])
    keep = np.zeros(model.num_cols, dtype=bool)
    keep[np.concatenate(free)] = True
    fix = fixed[~keep[fixed]]
    lb[fix] = ub[fix] = x[fix]
    sub = replace(model, lb=lb, ub=ub)
    for block in [b.name for b in model.row_blocks if b.role == "symmetry"]:
        sub = sub.without_rows(block)
    return sub


def search(model: Model, problem: TrainingProblem, x: np.ndarray, *, node_limit: int = NODE_LIMIT,
           max_sub_mips: int = MAX_SUBMIPS, cap: float | None = None, floor: float = -np.inf,
           interrupt=None, log=None, polish=None) -> SearchResult:
    """Variable-neighbourhood descent from the feasible point ``x`` (module docstring).

    ``floor``: a lower bound on the optimum (the search ends when it is reached: nothing
    can improve).  ``polish(x) -> x``: a cheap improvement applied after each accepted
    step (the start's weight dropping), never making ``x`` worse.  ``log`` gets a line per
    accepted step and per certificate."""
    from ..solutions import Status
    from ..solvers import SolveOptions, solve
    t0 = time.perf_counter()
    best = model.objective(x)
    result = SearchResult(x, best, None, 0)
    say = log or (lambda *_: None)

    def out_of_work() -> bool:
        if interrupt is not None and interrupt.requested:
            return True
        if cap is not None and time.perf_counter() - t0 >= cap:
            result.capped = True
            return True
        return result.sub_mips >= max_sub_mips

    level = 0
    while level < len(SIZES):
        size = SIZES[level]
        hoods = neighbourhoods(model, size, x)
        if not hoods:
            break
        proven, i, since = 0, 0, 0  # since: neighbourhoods in a row without improvement
        improved = False
        while since < len(hoods):
            if best <= floor + ABS_GAP or out_of_work():
                return _finish(result, x, best)
            name, free = hoods[i % len(hoods)]
            i += 1
            left = None if cap is None else max(cap - (time.perf_counter() - t0), 0.1)
            r = solve(restricted(model, x, free), "highs",
                      SolveOptions(node_limit=node_limit, gap=0.0, start=x, time_limit=left, interrupt=interrupt))
            result.sub_mips += 1
            y = None if r.x is None else rounded(model, r.x)
            obj = np.inf if y is None else model.objective(y)
            if obj < best - 1e-9:
                if polish is not None:
                    y = polish(y)
                    obj = model.objective(y)
                x, best, improved = y, obj, True
                result.improvements.append((name, best))
                say(f"[search] {name}: objective {best:.6g}")
                proven, since = 0, 0
                continue
            since += 1
            if r.status == Status.OPTIMAL and r.bound is not None and r.bound >= best - ABS_GAP:
                proven += 1
        if improved and level > 0:  # a new incumbent: the smaller neighbourhoods are not proven for it
            result.certificate, level = None, 0
            continue
        if proven < len(hoods):
            break  # some neighbourhood of this size was not proven: no certificate at this size
        result.certificate = Certificate(size, proven)
        say(f"[search] certificate: {result.certificate.text}")
        level += 1
    return _finish(result, x, best)


def _finish(result: SearchResult, x: np.ndarray, best: float) -> SearchResult:
    result.x, result.objective = x, best
    return result
