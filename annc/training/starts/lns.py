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
* ``pair``: two hidden units together with the output layer;

and, across every hidden unit at once, the **band** of ``B`` rows (:data:`BAND_ROWS`): the
output layer is fixed at ``x``'s, every hidden weight and bias is free, and each hidden
unit's activation is free on the band's rows and fixed at ``x``'s on every other row.  The
band holds the rows ``x`` gets wrong that lie nearest a hidden unit's threshold, then the
rows nearest a threshold (:func:`band_rows`).  With the other rows' activations fixed,
each unit's weights only have to keep those rows on their side (``a.x_u + b >= eps`` or
``<= 0``: linear rows) and their loss is fixed, so a band sub-MIP has binaries for ``B``
rows' activations, not all of them; it moves every hidden unit at once, which the unit
neighbourhoods cannot.  Bands double from :data:`BAND_ROWS` rows while they are proven
not to improve; the last band holds every row (the hidden layers free under the output
layer: fix-and-optimise's step).  A proven band of ``B`` rows certifies:

    no network with this output layer whose hidden units agree with this one's on every
    row but the B nearest their thresholds has a lower training objective.

The search alternates two descents until neither improves: the band descent (each band
size solved from the incumbent, repeated while it improves, doubled when proven; it stops
at the first unproven band), then the unit-neighbourhood descent below.

The unit-neighbourhood descent is variable-neighbourhood descent: an improving sub-MIP replaces the incumbent
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

from ...core.model import Model
from ...io.problem import TrainingProblem
from .search import rounded

NODE_LIMIT = 200  # branch-and-bound nodes per sub-MIP (on 400 real rows a unit sub-MIP takes 5-10 s for 100)
MAX_SUBMIPS = 32  # sub-MIPs per search (a 4-unit layer: 1 + 4 + 6 neighbourhoods a round, and the bands)
BAND_ROWS = 16  # rows of the first band; each proven band doubles it (below the problem's rows)
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
    rows: int = 0  # the band's rows (size "band")

    @property
    def describe(self) -> str:
        if self.size == "band":
            return f"the hidden layers' activations on the {self.rows} rows nearest their thresholds"
        return DESCRIBE[self.size]

    @property
    def text(self) -> str:
        proof = f"proven by {self.sub_mips} sub-MIP{'s' if self.sub_mips != 1 else ''}"
        if self.size == "band":
            return (f"no network with this output layer whose hidden units agree with this one's on every row "
                    f"but the {self.rows} nearest their thresholds has a lower objective: {proof}")
        return f"no network that differs from this one only in {DESCRIBE[self.size]} has a lower objective: {proof}"

    def to_dict(self) -> dict:
        d = {"size": self.describe, "key": self.size, "sub_mips": self.sub_mips, "text": self.text}
        if self.size == "band":
            d["rows"] = self.rows
        return d


@dataclass
class SearchResult:
    x: np.ndarray
    objective: float
    certificate: Certificate | None
    sub_mips: int  # solved in all
    improvements: list = field(default_factory=list)  # (neighbourhood name, objective) per accepted step
    band: Certificate | None = None  # the largest band proven for the final network
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


def fixed_at(model: Model, x: np.ndarray, cols: np.ndarray) -> Model:
    """``model`` with the columns ``cols`` fixed at their values in ``x`` (``lb = ub = x``)."""
    lb, ub = model.lb.copy(), model.ub.copy()
    lb[cols] = ub[cols] = x[cols]
    return replace(model, lb=lb, ub=ub)


def restricted(model: Model, x: np.ndarray, free: list[np.ndarray]) -> Model:
    """``model`` with every weight and bias column fixed at ``x`` except ``free``, and
    without symmetry-breaking rows (module docstring)."""
    fixed = np.concatenate([np.ravel(c) for L in model.layout.layers for c in (L.weight, L.bias)])
    keep = np.zeros(model.num_cols, dtype=bool)
    keep[np.concatenate(free)] = True
    sub = fixed_at(model, x, fixed[~keep[fixed]])
    for block in [b.name for b in model.row_blocks if b.role == "symmetry"]:
        sub = sub.without_rows(block)
    return sub


def band_rows(model: Model, problem: TrainingProblem, x: np.ndarray, size: int) -> np.ndarray:
    """The ``size`` rows of the band around the network at ``x`` (sorted indices).

    A row's *distance* is the least ``|pre - eps/2|`` over the hidden units that read
    something (a unit with no non-zero weight is constant on every row): how far its
    pre-activation is from the middle of the forbidden gap ``(0, eps)``.  The band takes
    the rows the network gets wrong (a class of the row ahead of its rivals by less than
    eps), nearest first, up to half of ``size``, then the nearest of the others."""
    from ...formulations.common import leads
    from .point import hidden_network
    from .repair import layer_inputs
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


def band_restricted(model: Model, x: np.ndarray, rows: np.ndarray) -> Model:
    """``model`` with the output layer and every hidden unit's integer activation columns
    (``h``, one row per problem row) on the rows outside ``rows`` fixed at ``x``; the hidden
    weights and biases stay free."""
    out = model.layout.layers[-1]
    fix = [np.ravel(out.weight), np.ravel(out.bias)]
    for L in model.layout.layers[:-1]:
        for cols in map(np.asarray, L.units.values()):
            if cols.ndim == 2 and model.integer[cols].all():
                fix.append(np.ravel(np.delete(cols, rows, axis=0)))
    return fixed_at(model, x, np.concatenate(fix))


def search(model: Model, problem: TrainingProblem, x: np.ndarray, *, node_limit: int = NODE_LIMIT,
           max_sub_mips: int = MAX_SUBMIPS, cap: float | None = None, floor: float = -np.inf,
           interrupt=None, log=None, polish=None, band: int | None = BAND_ROWS) -> SearchResult:
    """The band descent and the unit-neighbourhood descent from the feasible point ``x``,
    alternately until neither improves (module docstring).

    ``floor``: a lower bound on the optimum (the search ends when it is reached: nothing
    can improve).  ``polish(x) -> x``: a cheap improvement applied after each accepted
    step (the start's weight dropping), never making ``x`` worse.  ``band``: the first
    band's rows (None: no band descent).  ``log`` gets a line per accepted step and per
    certificate."""
    from ...io.solutions import Status
    from ...solve.solvers import SolveOptions, solve
    t0 = time.perf_counter()
    result = SearchResult(x, model.objective(x), None, 0)
    say = log or (lambda *_: None)
    state = {"x": x, "best": result.objective}

    def out_of_work() -> bool:
        if state["best"] <= floor + ABS_GAP:
            return True
        if interrupt is not None and interrupt.requested:
            return True
        if cap is not None and time.perf_counter() - t0 >= cap:
            result.capped = True
            return True
        return result.sub_mips >= max_sub_mips

    def step(sub: Model, name: str) -> tuple[bool, bool]:
        """Solve one sub-MIP from the incumbent: (improved, proven not to improve)."""
        left = None if cap is None else max(cap - (time.perf_counter() - t0), 0.1)
        r = solve(sub, "highs", SolveOptions(node_limit=node_limit, gap=0.0, start=state["x"], time_limit=left,
                                             interrupt=interrupt))
        result.sub_mips += 1
        y = None if r.x is None else rounded(model, r.x)
        obj = np.inf if y is None else model.objective(y)
        if obj < state["best"] - 1e-9:
            if polish is not None:
                y = polish(y)
                obj = model.objective(y)
            state["x"], state["best"] = y, obj
            result.improvements.append((name, obj))
            say(f"[search] {name}: objective {obj:.6g}")
            return True, False
        return False, r.status == Status.OPTIMAL and r.bound is not None and r.bound >= state["best"] - ABS_GAP

    def bands() -> bool:
        """The band descent; whether it improved.  Sets ``result.band``."""
        size, improved = min(band, problem.num_rows), False
        while not out_of_work():
            rows = band_rows(model, problem, state["x"], size)
            name = f"band of {size} rows" if size < problem.num_rows else "all rows (hidden layers)"
            better, proven = step(band_restricted(model, state["x"], rows), name)
            if better:
                improved, result.band = True, None
                continue
            if not proven:
                break
            result.band = Certificate("band", 1, rows=size)
            say(f"[search] certificate: {result.band.text}")
            if size >= problem.num_rows:
                break
            size = min(2 * size, problem.num_rows)
        return improved

    def units() -> bool:
        """The unit-neighbourhood descent; whether it improved.  Sets ``result.certificate``."""
        level, any_better = 0, False
        while level < len(SIZES):
            hoods = neighbourhoods(model, SIZES[level], state["x"])
            if not hoods:
                break
            proven, i, since, improved = 0, 0, 0, False  # since: neighbourhoods in a row without improvement
            while since < len(hoods):
                if out_of_work():
                    return any_better
                name, free = hoods[i % len(hoods)]
                i += 1
                better, ok = step(restricted(model, state["x"], free), name)
                if better:
                    result.certificate = None
                    improved = any_better = True
                    proven, since = 0, 0
                    continue
                since += 1
                proven += ok
            if improved and level > 0:  # a new incumbent: the smaller neighbourhoods are not proven for it
                result.certificate, level = None, 0
                continue
            if proven < len(hoods):
                break  # some neighbourhood of this size was not proven: no certificate at this size
            result.certificate = Certificate(SIZES[level], proven)
            say(f"[search] certificate: {result.certificate.text}")
            level += 1
        return any_better

    band_done, units_done = not band, False
    while not (band_done and units_done) and not out_of_work():
        if not band_done:
            band_done = True
            if bands():
                result.certificate, units_done = None, False
        if not units_done and not out_of_work():
            units_done = True
            if units():
                result.band, band_done = None, not band  # the band is not proven for the new incumbent
    return _finish(result, state["x"], state["best"])


def _finish(result: SearchResult, x: np.ndarray, best: float) -> SearchResult:
    result.x, result.objective = x, best
    return result
