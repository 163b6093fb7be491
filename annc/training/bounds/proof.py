"""A proof before the full MIP: annc's own bounds on the network its search found.

After annc's search (:mod:`annc.training.search.incumbent`) the trainer has a network, the
MIP start.  If a valid lower bound (:func:`annc.training.bounds.lower_bounds`: the loss
floor, conflict, support and weight-level bounds) already meets that network's objective
within the verdict's tolerance (:func:`annc.solve.verdict.closes`: ``ABS_TOL + rel |obj|``),
the network is proven optimal and the full MIP has nothing left to gain: the run stops
there (:func:`skipped_solve` stands in for the solver's result).  The objective checked is
the larger of the MIP's at the start and annc's forward pass of the start's network, so a
proof here is a proof for the exported network.

Work limits decide what the attempt does (:data:`PROOF_LEVELS`: sub-MIPs and nodes); the
time limit only caps it, at :data:`PROOF_SHARE` of the run's limit and half of what the
solver would have.

Earlier, in the start pool, :class:`PoolTest` compares each candidate with the bounds that need
no sub-MIP and no incumbent; once the pool's best meets them, the pool ends and no search runs
after it.  What it computed is kept (``known``) and read back here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...formulations import ACTIVATIONS, network_loss
from ...io.solutions import Status
from ...solve.solvers.base import SolveResult
from ...solve.verdict import closes
from ..context import RunContext
from ..warmstart.pool.point import hidden_network
from . import Bound, Levels, best, lower_bounds

PROOF_LEVELS = Levels(max_subs=10, node_limit=300)  # the weight levels' work before the full MIP
QUICK_LEVELS = Levels(max_subs=0)  # the pool's test: the weight levels' counting arguments, no sub-MIP
PROOF_SHARE = 0.15  # of the run's time limit, at most, for the attempt (a cap; the work limits decide)


@dataclass(frozen=True)
class Proof:
    """A bound that meets the start's objective."""

    bound: Bound
    objective: float

    def source(self) -> str:
        return f"{self.bound.source}: {self.bound.detail}"


def forward_objective(c, x: np.ndarray) -> float:
    """The objective of the network at the MIP point ``x`` by annc's forward pass."""
    spec, (W, b) = c.problem.spec, hidden_network(c.model, x)
    act = c.problem.X
    for ls, w, bias in zip(spec.hidden, W, b):
        act = ACTIVATIONS[ls.activation].lift_units(act @ w + bias, spec.eps)[1]
    return float(network_loss(spec, act @ W[-1] + b[-1], c.problem.counts, W))


def prove_start(c, x: np.ndarray, *, ctx: RunContext | None = None, rel_tol: float | None = None,
                levels: Levels = PROOF_LEVELS, known: dict | None = None) -> tuple[Bound | None, Proof | None]:
    """``(best bound, proof)``: annc's best bound for the problem of ``c`` aimed at the
    start ``x``, and a :class:`Proof` when it meets the start's objective (else None); the
    sub-MIPs run on ``ctx``'s solver, within :data:`PROOF_SHARE` of its limit and half of what
    is left before its finish (the solver keeps the other half).  ``known``: the bounds of
    :class:`PoolTest` already computed for this problem (see
    :func:`~annc.training.bounds.lower_bounds`)."""
    objective = max(c.model.objective(x), forward_objective(c, x))
    ctx = ctx or RunContext()
    cap = ctx.share(0.5).within(PROOF_SHARE * ctx.deadline.limit) if ctx.limited else ctx
    found = best(lower_bounds(c.problem, incumbent=hidden_network(c.model, x), work=None, target=objective,
                              levels=levels, ctx=cap, known=known))
    if found is not None and closes(objective, found.value, rel_tol):
        return found, Proof(found, objective)
    return found, None


@dataclass
class PoolTest:
    """A test of the start pool's objectives (call it): true when an objective is within the verdict's
    tolerance of annc's bounds that need no sub-MIP and no incumbent (the loss floor, conflict,
    support and hull packing bounds of :func:`~annc.training.bounds.lower_bounds`, and the weight
    levels' counting arguments, :data:`QUICK_LEVELS`): no network of the class does better, so the
    pool and the searches after it have nothing left to gain.

    The bound is computed once, at the first call, aimed at that objective ``T1``: the pool's
    later objectives ``T2 <= T1`` are compared with it, which is right because the weight levels'
    bound aimed higher is never weaker (``min(min_{p <= p*} lambda p + F(p), lambda (p* + 1))``
    with ``p* < T / lambda``: a larger ``p*`` adds levels that are each at least ``lambda p``).
    What it computes is kept in ``known``, where :func:`prove_start` reads it back: the run pays
    for it once.  A pass decides work only: the proof the verdict reports is
    :func:`prove_start`'s, on the exported network's objective.  :meth:`floor` is the bound once
    computed: the local and neighbourhood searches stop when they reach it."""

    c: object
    known: dict
    ctx: RunContext | None = None
    rel_tol: float | None = None
    value: float | None = None  # the bound, once computed

    def __call__(self, objective: float) -> bool:
        if self.value is None:
            found = best(lower_bounds(self.c.problem, work=None, target=objective, levels=QUICK_LEVELS,
                                      ctx=self.ctx, known=self.known))
            self.value = -np.inf if found is None else found.value
        return closes(objective, self.value, self.rel_tol)

    def floor(self) -> float:
        """The bound (``-inf`` before the first call)."""
        return -np.inf if self.value is None else self.value


def skipped_solve(solver: str, x: np.ndarray, proof: Proof) -> SolveResult:
    """What stands for the full MIP's result when a proof made it needless: the start as
    the solution, no solver bound (the verdict takes the proof's, with its source)."""
    return SolveResult(solver, Status.FEASIBLE, "not run: annc's bound meets the start's objective",
                       objective=proof.objective, bound=None, x=np.asarray(x, float), seconds=0.0,
                       extra={"proof": proof.source()})
