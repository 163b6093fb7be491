"""The weight-level bound: a growing row set solved exactly per weight budget.

Under the ``errors`` loss and an ``l0`` penalty (factor ``lambda``) a network with ``n``
non-zero weights and ``E`` errors has objective ``E + lambda n``.  Take a set of rows ``S``
and the rest ``R``.  For a weight budget ``p`` let

    e_S(p) = min { errors on S : networks with at most p non-zero weights }

(a sub-MIP: the problem on ``S``, no penalty, one row ``sum n <= p`` over the ``l0``
indicators; its dual bound in its place is as valid), and ``s_R(p)`` the structural bound
on ``R`` (:mod:`.structure`).  Errors add up over disjoint rows and every network with
``n`` weights is one with at most ``n``, so for every network::

    E + lambda n  >=  lambda n + s_R(n) + e_S(n)  >=  min_p [ lambda p + F(p) ],
    F(p) = max( s_all(p),  s_R(p) + e_S(p) ),

``s_all`` the structural bound on every row.  The penalty is counted once, at the level
``p`` itself (a penalised subset optimum would only see the weights ``S`` needs).

**Cases.**  With one hidden layer of step units the networks of a budget split by their
effective units (:mod:`.structure`): at most one, or two and more.  Each case has its own
``s_all``, ``s_R`` and ``e_S`` (its sub-MIP keeps one hidden unit, or ``p // 2``: a
relaxation of the case either way), and a level's value is that of its weaker case: every
network is in one of them.  A single unit's sub-MIPs are small and settle quickly; the
second case starts at four weights, where two units reading one feature each are bounded
by two cuts (``D2``) without a solver.  Only levels ``p <= P`` matter (``P`` the spec's weights, or its weight budget ``max_weights``: :func:`.structure.weight_count`), and
once ``lambda p`` reaches the target no level above can go below it: the bound is
``min( min_{p <= p*} lambda p + F(p),  lambda (p* + 1) )`` with ``p* < target / lambda``.

**Monotonicity** makes the search cheap: ``e_S`` never rises with ``p`` and never falls as
``S`` grows, so a value found at level ``q`` on a set ``S`` bounds every level ``p <= q`` on
every superset of ``S``.  The bound is a minimum, so the work goes to the level of least
value (the highest of equal ones: what it finds bounds the lower ones too) until every
level reaches the target (a proof) or the least one is *final*: its sub-MIP's network is
as good on every row, or the sub-MIP can settle nothing more.

**Row generation** (which rows; soundness never depends on it).  ``S`` starts with the rows
the incumbent gets wrong and the rows closest to a row of another class.  At a level
that falls short, the sub-MIP's network (at most ``p`` weights, best on ``S``) is run on
every row; a few rows it gets wrong join ``S`` and the level is solved again.  It ends
when the level reaches what is needed, or that network also falls short on all rows
(then the level truly is that low: no set of rows proves more), or the work is spent.
The sub-MIPs keep every ``l0`` indicator and drop only the penalty's factor: the
feasible networks are the spec's, with the pre-activation gap enforced on ``S`` only
(more networks, a smaller minimum: still a bound).

Work limits decide: ``rows`` to start, ``grow`` rows added per round, at most ``max_rows``,
``node_limit`` per sub-MIP and ``max_subs`` sub-MIPs in all; the deadline only caps each
sub-MIP's time (and stops the loop).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from ...core.losses import LOSS
from ...formulations import formulate
from ...io.solutions import Status
from ..context import RunContext
from .bound import TOL, Bound, attainable
from .hulls import nearest_other, packed
from .structure import Cuts, errors_by_weights, one_hidden_step, weight_count
from .subset import restrict, wrong_groups


@dataclass(frozen=True)
class Levels:
    """Work limits of the weight-level bound (module docstring)."""

    rows: int = 12
    grow: int = 4
    max_rows: int = 60
    node_limit: int = 500
    max_subs: int = 24
    symmetry: str | None = None
    seed: int = 0


def applies(spec) -> bool:
    """The ``errors`` loss and an ``l0`` penalty with a positive factor."""
    return LOSS[spec.loss].counts_errors and spec.penalty == "l0" and spec.penalty_weight > 0


def boundary_order(problem) -> np.ndarray:
    """The rows by their L1 distance to the nearest of 8 neighbours of another class
    (rows holding several classes first)."""
    return np.argsort(nearest_other(problem.X, problem.counts, 8)[2], kind="stable")


def first_rows(problem, incumbent, rows: int, order: np.ndarray) -> np.ndarray:
    """The starting set: the incumbent's wrong rows, then boundary rows, ``rows`` in all
    (at least every wrong row, up to ``rows``)."""
    seeds = []
    if incumbent is not None:
        seeds = list(dict.fromkeys(int(u) for u in wrong_groups(problem, *incumbent)[0]))[:rows]
    have = set(seeds)
    seeds += [int(u) for u in order if int(u) not in have][:max(rows - len(seeds), 0)]
    return np.array(sorted(seeds), int)


def units_for(spec, p: int, m: int | None = None):
    """The spec of a relaxation that holds every network with at most ``p`` non-zero
    weights, with fewer hidden units where ``p`` allows (:mod:`.structure`): with one
    hidden layer of step units, at most ``m = p // 2`` units are effective (an input and
    an output weight each); the others change the outputs by a constant each (a unit
    without input weights: ``a h`` with ``|a| <= W``, the output layer's weight bound, and
    ``|h| <= 1``) or not at all.  So keep ``m`` units and widen the output biases by
    ``W`` per unit left out (their grid, if any, dropped): every such network has a
    point there with the same outputs and no more non-zero weights.  ``m``: keep that many
    units instead (the networks with at most ``m`` effective units)."""
    K = spec.hidden[0].units if one_hidden_step(spec) else 0
    m = max(p // 2, 1) if m is None else m
    if K <= m:
        return spec
    out = spec.output
    W = max(abs(out.weight_bounds[0]), abs(out.weight_bounds[1])) * (K - m)
    lo, hi = out.bias_bounds
    hidden = replace(spec.hidden[0], units=m)
    return replace(spec, hidden=(hidden,), output=replace(out, bias_bounds=(lo - W, hi + W), bias_grid=None))


def budget_model(sub, symmetry: str | None, p: int | None = None, m: int | None = None):
    """The sub-MIP of a row set: its problem, no penalty factor, the ``l0`` indicators kept,
    one row ``sum n <= p`` (rhs set per level), the hidden units that ``p`` weights can use
    (:func:`units_for`, ``m`` of them if given; all for ``p`` None).  Returns ``(model,
    index of that row)``."""
    spec = sub.spec if p is None else units_for(sub.spec, p, m)
    spec = replace(spec, penalty_weight=0.0, **({"symmetry": symmetry} if symmetry else {}))
    model = formulate(replace(sub, spec=spec))
    cols = np.concatenate([np.ravel(blk["n"]) for blk in model.layout.penalty])
    A = sp.csr_matrix((np.ones(len(cols)), (np.zeros(len(cols), int), cols)), shape=(1, model.num_cols))
    model = model.with_rows("budget", A, "L", 0.0, role="budget")
    return model, model.num_rows - 1


@dataclass
class Tally:
    """What the sub-MIPs did: how many, how many proven optimal, their nodes."""

    subs: int = 0
    proven: int = 0
    nodes: int = 0


def solve_level(model, row: int, p: int, *, node_limit: int, ctx: RunContext, tally: Tally):
    """``(e_S(p), network, proven)`` of the set's ``model``: a number of errors (0 without a
    bound; rounded up to a whole number when the objective's coefficients, the rows' sample
    weights, are whole: :mod:`annc.core.rowweights`), the sub-MIP's best network (None without
    one), and whether it is proven optimal."""
    rhs = model.rhs.copy()
    rhs[row] = p
    level = replace(model, rhs=rhs)
    res = ctx.solve(level, node_limit=node_limit, gap=None)
    tally.subs += 1
    tally.nodes += int(res.extra.get("nodes", 0) or 0)
    proven = res.status == Status.OPTIMAL
    tally.proven += proven
    whole = bool(np.all(model.obj == np.round(model.obj)))  # whole weights on the error binaries: whole errors
    e = 0.0 if res.bound is None or not math.isfinite(res.bound) else max(
        float(math.ceil(res.bound - TOL)) if whole else float(res.bound) - TOL, 0.0)
    return e, (None if res.x is None else network_at(level, res.x)), proven


def network_at(model, x: np.ndarray) -> tuple[list, list]:
    """The weights and biases of every layer at the point ``x`` (through the layout)."""
    layers = model.layout.layers
    return [np.asarray(x[L.weight], float) for L in layers], [np.asarray(x[L.bias], float) for L in layers]


def level_bound(problem, *, target: float, incumbent=None, base: float = 0.0, work: Levels = Levels(),
                ctx: RunContext | None = None, hulls: list | None = None, memo: dict | None = None) -> Bound | None:
    """The bound of the module docstring, aiming at ``target`` (the incumbent's objective:
    levels that reach it need no more work); ``incumbent``: ``(weights, biases)`` on the
    problem's rows; ``base``: an errors bound valid for every network on all rows (the
    conflict bound), a floor of ``s_all``; ``hulls``: the sets of a hull packing on the problem's
    rows (:func:`.hulls.hull_sets`), which bound the networks of one effective unit on all rows
    and, those of them that use no row of ``S``, on the rest.  None where it does not apply.
    ``ctx``: the run context: its solver and threads run the sub-MIPs, its deadline caps them.
    ``memo``: a dict the caller keeps for ``problem``, where the single-feature cuts on all rows
    (:class:`.structure.Cuts`, the costly part of ``s_all``) are kept once computed."""
    spec = problem.spec
    if not applies(spec) or not math.isfinite(target) or problem.num_rows == 0:
        return None
    ctx = ctx or RunContext()
    lam, P = spec.penalty_weight, weight_count(spec)
    top = min(P, max(int(math.ceil(target / lam - TOL)) - 1, 0))  # p*: lambda p < target
    # cases by effective units: at most one (a sub-MIP with one unit), two or more (p // 2 units)
    split = one_hidden_step(spec) and spec.hidden[0].units >= 2
    cases = [(0, 1), (2, spec.hidden[0].units)] if split else [None]
    hulls = hulls or []
    cuts = Cuts(problem.X, problem.counts, stop=ctx.stopped)  # shared by the cases
    cuts = cuts if memo is None else memo.setdefault("cuts on all rows", cuts)
    s_all = {c: errors_by_weights(problem.X, problem.counts, spec, top, base, units=c, hull=packed(hulls), cuts=cuts)
             for c in cases}
    order = boundary_order(problem)
    S = first_rows(problem, incumbent, work.rows, order) if work.max_subs > 0 else np.zeros(0, int)
    rng = np.random.default_rng(work.seed)
    search = _LevelSearch(problem, top, cases, s_all, hulls, S)
    tail = lam * (top + 1) if top < P else math.inf  # the levels above p*
    while len(search.S) and search.tally.subs < work.max_subs:
        p = search.next_level(target, tail)
        if p is None or ctx.expired():
            break
        search.solve(p, work, ctx, rng)
    lowest = min(min(search.value(p) for p in range(top + 1)), tail)
    result = attainable(problem, lowest) if math.isfinite(lowest) else attainable(problem, lam * P)
    packing = f", a hull packing of {len(hulls)} sets ({packed(hulls):g} errors)" if hulls else ""
    t = search.tally
    return Bound(result, "weight levels",
                 f"every weight budget 0..{top} bounded: structure on all rows{packing}, {t.subs} sub-MIPs on a "
                 f"set of {len(search.S)} rows ({t.proven} proven, {t.nodes} nodes), penalty counted once")


class _LevelSearch:
    """The state of :func:`level_bound`'s rounds: the rows ``S`` of its sub-MIPs, each case's bound
    on all rows (``s_all``) and on the rows outside ``S`` (``s_rest``), what the sub-MIPs on ``S``
    proved so far (``known``: ``e_S(p)`` of each case, monotone in ``p`` and ``S``), the (case,
    level) pairs that no more rows or nodes can raise (``final``), and the sub-MIP's model, kept
    while its rows and units stay."""

    def __init__(self, problem, top: int, cases: list, s_all: dict, hulls: list, S: np.ndarray):
        self.problem, self.top, self.cases, self.s_all, self.hulls, self.S = problem, top, cases, s_all, hulls, S
        self.lam = problem.spec.penalty_weight
        self.known = {c: np.zeros(top + 1) for c in cases}
        self.final: set = set()
        self.model: dict = {}
        self.tally = Tally()
        self.s_rest = self.rest_bound() if len(S) else {c: np.zeros(top + 1) for c in cases}  # no S: s_all says all

    def rest_bound(self) -> dict:
        """Each case's ``s`` on the rows outside ``S`` (cheap: every round)."""
        rest = np.ones(self.problem.num_rows, bool)
        rest[self.S] = False
        X, counts = self.problem.X[rest], self.problem.counts[rest]
        return {c: errors_by_weights(X, counts, self.problem.spec, self.top, units=c,
                                     hull=packed(self.hulls, leave_out=self.S), cuts=Cuts(X, counts, max_cells=0))
                for c in self.cases}

    def case_value(self, c, p: int) -> float:
        return max(self.s_all[c][p], self.s_rest[c][p] + self.known[c][p])

    def weakest(self, p: int):
        return min(self.cases, key=lambda c: self.case_value(c, p))

    def value(self, p: int) -> float:
        return self.lam * p + self.case_value(self.weakest(p), p)

    def next_level(self, target: float, tail: float) -> int | None:
        """The level to work on next: of the least levels that are not final the highest (what it
        finds bounds the lower ones too); None when every level reaches ``target`` or the least is final."""
        vals = np.array([self.value(p) for p in range(self.top + 1)])
        low = min(vals.min(), tail)
        if low >= target - TOL:
            return None  # proven: every level reaches the target
        least = [p for p in np.flatnonzero(vals <= low + TOL) if (self.weakest(p), p) not in self.final]
        return int(max(least)) if least else None

    def solve(self, p: int, work: Levels, ctx: RunContext, rng) -> None:
        """One sub-MIP on ``S`` at level ``p`` of its weakest case; ``S`` grows by rows its network
        gets wrong, or the (case, level) becomes final when it gained nothing."""
        spec, c = self.problem.spec, self.weakest(p)
        m = None if c is None else min(max(p // 2, 1), c[1]) if c[0] > 0 else 1
        units = units_for(spec, p, m).hidden[0].units if spec.hidden else 0
        if self.model.get("rows") is not self.S or self.model.get("units") != units:
            self.model.update(rows=self.S, units=units,
                              model=budget_model(restrict(self.problem, self.S), work.symmetry, p, m))
        e, net, proven = solve_level(*self.model["model"], p, node_limit=work.node_limit, ctx=ctx, tally=self.tally)
        known = self.known[c]
        improved = e > known[p] + TOL
        known[:p + 1] = np.maximum(known[:p + 1], e)
        wrong = np.zeros(0, int) if net is None else np.setdiff1d(wrong_groups(self.problem, *net)[0], self.S)
        if len(wrong) and len(self.S) < work.max_rows and (proven or improved):
            self.S = np.union1d(self.S, rng.permutation(wrong)[:min(work.grow, work.max_rows - len(self.S))])
            self.s_rest = self.rest_bound()
        elif not improved:
            self.final.add((c, p))  # its network is as good on every row, or the sub-MIP cannot settle it
