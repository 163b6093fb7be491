"""Subset bounds: the training problem on a few rows, solved (or bounded) as its own MIP.

**One subset.**  For rows ``S``, ``P_S = min_theta sum_{n in S} loss_n(theta) + pen(theta)``
is at most the optimum of the whole problem: every network's full objective is its
objective on ``S`` plus the losses of the other rows, each ``>= 0``.  (The sub-MIP also
admits networks whose pre-activations fall in the gap ``(0, eps)`` on rows outside ``S``:
a larger set of networks, so a smaller minimum, still a bound.)  A solver stopped at a
node or time limit gives a dual bound ``<= P_S``, just as valid.  Ordering each hidden
layer's units (:mod:`annc.formulations.symmetry`, ``symmetry`` of :class:`Work`) cuts off
no optimum, so it leaves ``P_S`` unchanged while the solver has fewer copies to search.

**Disjoint subsets.**  For disjoint ``S_1..S_m``, let ``L_i = min_theta sum_{n in S_i}
loss_n`` (no penalty).  Then for any ``k``::

    min_theta [sum_n loss_n + pen]  >=  min_theta [loss_{S_k} + pen] + sum_{i != k} min_theta loss_{S_i}
                                   >=  P_k + sum_{i != k} L_i

(the minimum of a sum is at least the sum of the minima; the rows outside every subset
add ``>= 0``).  So ``sum_i L_i + max_k (P_k - L_k)`` is a bound: the penalty is counted
once.  Dual bounds in place of ``P_k`` and ``L_i`` keep it valid.

**Which rows.**  Subsets are small (a sub-MIP must be proven, or nearly, within its node
limit) and disjoint.  With an incumbent network, each row where it errs is taken with its
nearest rows (L1, scaled space) that hold another class: where the incumbent pays, any
network pays unless it spends weights.  The rest are random rows, the same number from
each class.  Each value is raised to the next attainable objective
(:func:`.bound.attainable`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.spatial import cKDTree

from ...core.errors import UsageError
from ...formulations import ACTIVATIONS, formulate
from ...formulations.common import leads
from ...io.problem import TrainingProblem
from ...io.solutions import Status
from ...io.spec import penalty_at
from ..context import RunContext
from .bound import Bound, attainable

NEAR = 3  # rows of other classes taken with each row the incumbent gets wrong


@dataclass(frozen=True)
class Work:
    """How much the sub-MIPs may do: ``subsets`` disjoint subsets of ``rows`` rows each,
    each solved by the run's sub-MIP solver (:meth:`annc.training.context.RunContext.solve`)
    to ``node_limit`` nodes (a work limit: the same on any machine) with ``time_cap`` seconds
    (and the run context's deadline) as a safety only; ``symmetry`` orders the sub-MIPs' hidden
    units (``None``: the spec's own order, which proved the most subsets: docs/decisions.md,
    "Search and bounds");
    ``disjoint`` also solves each subset without the penalty for the disjoint-sum bound
    (twice the sub-MIPs)."""

    subsets: int = 4
    rows: int = 8
    node_limit: int = 200
    time_cap: float | None = 20.0
    seed: int = 0
    symmetry: str | None = None
    disjoint: bool = False


@dataclass(frozen=True)
class Solved:
    """What one sub-MIP gave: its bound (raised to an attainable value), nodes, seconds,
    and whether it was proven optimal."""

    value: float
    nodes: int
    seconds: float
    proven: bool


def restrict(problem: TrainingProblem, rows, spec=None) -> TrainingProblem:
    """The problem on the distinct rows ``rows`` only (their samples, the same spec unless
    ``spec`` is given)."""
    rows = np.asarray(rows, int)
    where = np.full(problem.num_rows, -1)
    where[rows] = np.arange(len(rows))
    keep = where[problem.sample_row] >= 0
    return TrainingProblem(spec or problem.spec, problem.X[rows], problem.counts[rows],
                           where[problem.sample_row[keep]], problem.y[keep], problem.classes,
                           problem.merged, problem.partitions,
                           weights=None if problem.weights is None else problem.weights[keep])


def wrong_groups(problem: TrainingProblem, weights, biases) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, classes)`` of the sample groups the network ``(weights, biases)`` gets wrong
    (the MIP's rule: class j must lead every rival by eps)."""
    spec = problem.spec
    if len(weights) != len(spec.layers) or len(biases) != len(spec.layers):
        raise UsageError(f"the incumbent needs weights and biases for {len(spec.layers)} layers")
    act = problem.X
    for ls, W, b in zip(spec.hidden, weights, biases):
        act = ACTIVATIONS[ls.activation].lift_units(act @ np.asarray(W, float) + np.asarray(b, float), spec.eps)[1]
    scores = act @ np.asarray(weights[-1], float) + np.asarray(biases[-1], float)
    return np.nonzero((problem.counts > 0) & (leads(scores) < spec.eps))


def choose(problem: TrainingProblem, incumbent, subsets: int, rows: int, rng) -> list[np.ndarray]:
    """Disjoint subsets of at most ``rows`` rows (module docstring, "Which rows")."""
    U = problem.num_rows
    free = np.ones(U, bool)
    out = []
    if incumbent is not None and subsets > 0:
        u, j = wrong_groups(problem, *incumbent)
        order = rng.permutation(len(u))
        tree = cKDTree(problem.X)
        near = subsets - subsets // 3 if subsets >= 3 else subsets  # keep some random ones
        current: list[int] = []
        for i in order:
            if len(out) >= near:
                break
            r, cls = u[i], j[i]
            if not free[r]:
                continue
            other = free & (np.delete(problem.counts, cls, axis=1).sum(1) > 0)  # free rows of another class
            other[r] = False
            take = [r]
            k = min(NEAR, rows - 1, int(other.sum()))
            if k > 0:
                _, idx = tree.query(problem.X[r], k=min(U, 8 * k + 1), p=1)
                idx = np.atleast_1d(idx)
                take += [int(x) for x in idx[idx < U] if other[x]][:k]
            if len(current) + len(take) > rows:
                if current:
                    out.append(np.array(current))
                current = []
            current += take
            free[take] = False
        if current and len(out) < near:
            out.append(np.array(current))
    J = problem.counts.shape[1]
    while len(out) < subsets:
        pick = []
        for cls in rng.permutation(J):
            have = np.flatnonzero(free & (problem.counts[:, cls] > 0))
            n = min(len(have), max(rows // J, 1), rows - len(pick))
            chosen = rng.choice(have, n, replace=False) if n > 0 else []
            pick += list(chosen)
            free[chosen] = False
        if not pick:
            break
        out.append(np.array(pick))
    return out


def solve_rows(problem: TrainingProblem, rows, work: Work, *, penalty: bool = True,
               ctx: RunContext | None = None) -> Solved:
    """The bound of one subset: its sub-MIP's dual bound (its optimum when proven)."""
    spec = problem.spec
    if work.symmetry is not None:
        spec = replace(spec, symmetry=work.symmetry)
    if not penalty:
        kind, weight = penalty_at(spec, 0.0)
        spec = replace(spec, penalty=kind, penalty_weight=weight)
    sub = restrict(problem, rows, spec)
    clock = RunContext.stopwatch()
    res = (ctx or RunContext()).within(work.time_cap).solve(formulate(sub), node_limit=work.node_limit, gap=None)
    value = attainable(sub, res.bound) if res.bound is not None else 0.0
    return Solved(max(value, 0.0), int(res.extra.get("nodes", 0)), clock.seconds(), res.status == Status.OPTIMAL)


def subset_bounds(problem: TrainingProblem, *, incumbent=None, work: Work = Work(),
                  ctx: RunContext | None = None) -> list[Bound]:
    """The best single-subset bound (source ``subset``) and, with ``work.disjoint``, the
    disjoint-sum bound (source ``disjoint subsets``); see the module docstring.
    ``incumbent``: ``(weights, biases)`` of a network on the problem's (scaled) rows."""
    if work.rows < 1 or work.subsets < 0:
        raise UsageError("subset bounds need rows >= 1 and subsets >= 0")
    chosen = choose(problem, incumbent, work.subsets, work.rows, np.random.default_rng(work.seed))
    if not chosen:
        return []
    if ctx is not None and ctx.expired():
        return []
    full = [solve_rows(problem, S, work, ctx=ctx) for S in chosen]  # one deadline for them all (ctx's)
    nodes = sum(s.nodes for s in full)
    secs = sum(s.seconds for s in full)
    proven = sum(s.proven for s in full)
    k = int(np.argmax([s.value for s in full]))
    out = [Bound(full[k].value, "subset",
                 f"{'exact optimum' if full[k].proven else 'dual bound'} on {len(chosen[k])} of "
                 f"{problem.num_rows} rows, penalty included (best of {len(chosen)} sub-MIPs: {proven} proven, "
                 f"{nodes} nodes, {secs:.1f} s)")]
    if work.disjoint and len(chosen) > 1:
        bare = [solve_rows(problem, S, work, penalty=False, ctx=ctx) if problem.spec.penalty != "none" else s
                for S, s in zip(chosen, full)]
        gain = max(p.value - b.value for p, b in zip(full, bare))
        total = attainable(problem, sum(b.value for b in bare) + max(gain, 0.0))
        out.append(Bound(total, "disjoint subsets",
                         f"{len(chosen)} disjoint subsets of {sum(map(len, chosen))} rows, penalty counted once "
                         f"({2 * len(chosen)} sub-MIPs, {nodes + sum(b.nodes for b in bare)} nodes)"))
    return out
