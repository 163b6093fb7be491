"""Exact neighbourhood search: sub-MIPs solved to proven optimality, and the certificates they give.

The neighbourhoods are :mod:`.neighbourhoods` (one class per kind, in a registry): the unit
descent walks the kinds that are not bands in order of their ``level`` (the output layer,
one unit, two units, and any kind registered from outside), and the band descent grows the
band kind from :data:`BAND_ROWS` rows.  Neither knows a kind by name.

The search alternates two descents until neither improves: the band descent (each band
size solved from the incumbent, repeated while it improves, doubled when proven; it stops
at the first unproven band; the last band holds every row), then the unit descent below.
A proven band of ``B`` rows certifies: no network with this output layer whose hidden units
agree with this one's on every row but the B nearest their thresholds has a lower training
objective.

The unit descent is variable-neighbourhood descent: an improving sub-MIP replaces the incumbent
(its point rounded and checked against the full model, and kept only if strictly better)
and the pass of that level goes on until a whole round of its neighbourhoods improves
nothing; if that level is not the smallest, the search then starts over from the smallest
(the new incumbent's smaller neighbourhoods are not proven yet); a round without
improvement in which every sub-MIP was proven earns the certificate of that kind and
moves on to the next; a round with an unproven sub-MIP ends the search (the certificate
stays at the last kind proven for the final incumbent).

**Work limits.**  Each sub-MIP has a node limit (:data:`NODE_LIMIT`) and the search a
limit on sub-MIPs solved (:data:`MAX_SUBMIPS`): every decision depends on these and on
the data, not on the machine's speed, so the same inputs give the same network.  The
run context's deadline only stops the search early, and the result then says so (``capped``).
Every sub-MIP runs on the run's sub-MIP solver (:meth:`annc.training.context.RunContext.solve`).

A model with relaxed products
(McCormick, after ReLU layers) has no exact sub-MIPs with units free; the search does
not run there (:func:`applies`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.model import Model
from ...io.problem import TrainingProblem
from ...io.solutions import Status
from ..context import RunContext
from .local import rounded
from .neighbourhoods import NEIGHBOURHOODS, Certificate, Neighbourhood, band_kind, band_rows, levels  # noqa: F401

NODE_LIMIT = 200  # branch-and-bound nodes per sub-MIP (on 400 real rows a unit sub-MIP takes 5-10 s for 100)
MAX_SUBMIPS = 32  # sub-MIPs per search (a 4-unit layer: 1 + 4 + 6 neighbourhoods a round, and the bands)
BAND_ROWS = 16  # rows of the first band; each proven band doubles it (below the problem's rows)
ABS_GAP = 1e-6  # a sub-MIP is proven when its bound is within this of its optimum (relative gap 0)


@dataclass
class SearchResult:
    x: np.ndarray
    objective: float
    certificate: Certificate | None
    sub_mips: int  # solved in all
    improvements: list = field(default_factory=list)  # (neighbourhood name, objective) per accepted step
    band: Certificate | None = None  # the largest band proven for the final network
    capped: bool = False  # the deadline stopped the search before its work limits


@dataclass(frozen=True)
class SearchWork:
    """The search's work limits: ``node_limit`` branch-and-bound nodes per sub-MIP, ``max_sub_mips``
    sub-MIPs in all, and the first band's rows ``band`` (None: no band descent)."""

    node_limit: int = NODE_LIMIT
    max_sub_mips: int = MAX_SUBMIPS
    band: int | None = BAND_ROWS


def applies(model: Model, problem: TrainingProblem) -> bool:
    """Whether the sub-MIPs are exact: no relaxed products and at least one hidden layer."""
    return bool(problem.spec.hidden) and not model.layout.relaxed


class _Search:
    """The state of one search: the incumbent, its objective, the result being built."""

    def __init__(self, model, problem, x, ctx, work: SearchWork, floor, log, polish):
        self.model, self.problem, self.ctx = model, problem, ctx
        self.node_limit, self.max_sub_mips, self.floor = work.node_limit, work.max_sub_mips, floor
        self.say, self.polish = log or (lambda *_: None), polish
        self.x, self.best = x, model.objective(x)
        self.result = SearchResult(x, self.best, None, 0)

    def out_of_work(self) -> bool:
        if self.best <= self.floor + ABS_GAP or self.ctx.interrupted:
            return True
        if self.ctx.expired():
            self.result.capped = True
            return True
        return self.result.sub_mips >= self.max_sub_mips

    def step(self, hood: Neighbourhood) -> tuple[bool, bool]:
        """Solve one neighbourhood's sub-MIP from the incumbent: (improved, proven not to improve)."""
        model = self.model
        r = self.ctx.solve(hood.free(model, self.x), node_limit=self.node_limit, gap=0.0, start=self.x)
        self.result.sub_mips += 1
        y = None if r.x is None else rounded(model, r.x)
        obj = np.inf if y is None else model.objective(y)
        if obj < self.best - 1e-9:
            if self.polish is not None:
                y = self.polish(y)
                obj = model.objective(y)
            self.x, self.best = y, obj
            self.result.improvements.append((hood.name, obj))
            self.say(f"[search] {hood.name}: objective {obj:.6g}")
            return True, False
        return False, r.status == Status.OPTIMAL and r.bound is not None and r.bound >= self.best - ABS_GAP

    def bands(self, first: int) -> bool:
        """The band descent from ``first`` rows; whether it improved.  Sets ``result.band``."""
        kind, n = band_kind(), self.problem.num_rows
        size, improved = min(first, n), False
        while kind is not None and not self.out_of_work():
            (hood,) = kind.around(self.model, self.problem, self.x, size)
            better, proven = self.step(hood)
            if better:
                improved, self.result.band = True, None
                continue
            if not proven:
                break
            self.result.band = Certificate(kind.key, 1, rows=size)
            self.say(f"[search] certificate: {self.result.band.text}")
            if size >= n:
                break
            size = min(2 * size, n)
        return improved

    def units(self) -> bool:
        """The unit descent over :func:`~.neighbourhoods.levels`; whether it improved.  Sets
        ``result.certificate``."""
        kinds, level, any_better = levels(), 0, False
        while level < len(kinds):
            hoods = kinds[level].around(self.model, self.problem, self.x)
            if not hoods:
                break
            proven, i, since, improved = 0, 0, 0, False  # since: neighbourhoods in a row without improvement
            while since < len(hoods):
                if self.out_of_work():
                    return any_better
                hood = hoods[i % len(hoods)]
                i += 1
                better, ok = self.step(hood)
                if better:
                    self.result.certificate = None
                    improved = any_better = True
                    proven, since = 0, 0
                    continue
                since += 1
                proven += ok
            if improved and level > 0:  # a new incumbent: the smaller neighbourhoods are not proven for it
                self.result.certificate, level = None, 0
                continue
            if proven < len(hoods):
                break  # some neighbourhood of this kind was not proven: no certificate for it
            self.result.certificate = Certificate(kinds[level].key, proven)
            self.say(f"[search] certificate: {self.result.certificate.text}")
            level += 1
        return any_better


def search(model: Model, problem: TrainingProblem, x: np.ndarray, *, ctx: RunContext | None = None,
           work: SearchWork = SearchWork(), floor: float = -np.inf, log=None, polish=None) -> SearchResult:
    """The band descent and the unit descent from the feasible point ``x``, alternately until
    neither improves (module docstring), within ``work`` (:class:`SearchWork`).

    ``ctx``: the run context (its sub-MIP solver, deadline and interrupt).  ``floor``: a lower
    bound on the optimum (the search ends when it is reached: nothing can improve).
    ``polish(x) -> x``: a cheap improvement applied after each accepted step (the start's
    weight dropping), never making ``x`` worse.  ``log`` gets a line per accepted step and per
    certificate."""
    band = work.band
    s = _Search(model, problem, x, ctx or RunContext(), work, floor, log, polish)
    band_done, units_done = not band, False
    while not (band_done and units_done) and not s.out_of_work():
        if not band_done:
            band_done = True
            if s.bands(band):
                s.result.certificate, units_done = None, False
        if not units_done and not s.out_of_work():
            units_done = True
            if s.units():
                s.result.band, band_done = None, not band  # the band is not proven for the new incumbent
    s.result.x, s.result.objective = s.x, s.best
    return s.result
