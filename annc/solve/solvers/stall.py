"""The stall rule: a MIP solve ends when it has nothing left to gain, counted by work.

A solver that reports its progress at fixed points of its algorithm (a driver with
:attr:`~annc.solve.solvers.driver.Driver.stall`: HiGHS, SCIP, Gurobi) is told, through
``SolveOptions.stall_checks = N``, to stop once ``N`` consecutive **work checks** have moved
neither its incumbent nor its dual bound.  A work check is one call of the solver's progress
hook at such a point:

* HiGHS: its MIP interrupt callback, which it calls each time it checks its limits: in the
  root node's separation rounds and heuristics, and at every node of the tree (so at least
  once a node).  The root node can take seconds, and HiGHS counts no node until it is done:
  counting nodes alone would never stop a solve that stalls at its root, which is where
  annc's full MIPs of a few thousand binaries spend a 30 s run (measured: 0 to 27 nodes);
* SCIP: its ``LPSOLVED`` and ``NODESOLVED`` events (every LP solve, root rounds included,
  and every node);
* Gurobi: its ``MIPNODE`` callback (each node's LP, root cut rounds included; not the ``MIP``
  callback, which Gurobi calls by the clock).

Let ``n`` be the number of work checks so far and ``P``, ``D`` the incumbent objective and dual
bound (minimisation) the solver reports with them.  :class:`Stall` keeps a
reference ``(n0, P0, D0)``: set at the first report with an incumbent, and again whenever

    P < P0 - tol    or    D > D0 + tol,        tol = max(ABS, REL * max(1, |P|))

(``ABS`` = 1e-6 and ``REL`` = 1e-4 are the verdict's own tolerances: a smaller move cannot
decide what the verdict proves; moves are measured from the reference, so a bound that creeps
up in many small steps counts once their sum exceeds ``tol``).  The solve stalls at the first
check with ``n - n0 >= N``; the verdict says so, with the solver's nodes.

Only work counts, never seconds: a solver on one thread checks at the same points of the same
search whatever the machine's load (measured with HiGHS 1.16 on wine's full MIP: node 28 at the
243rd check, 4.9 s into one run and 6.6 s into another), so a run on a busy machine stalls at
the same check as on an idle one, only later.  The rule never fires without an incumbent
(the run would end without a network), and a solver that proves optimality stops by itself
first.

Where a driver cannot observe such points (CBC and GLPK as programs, a solver command; CPLEX
and Xpress, whose drivers' callbacks come by the clock) the rule does not apply and no stall is
reported: the result's ``extra["stalled"]`` is set only by a driver that stopped its solver this way.

**A bound the solver does not know.**  annc's own lower bound ``L`` (:mod:`annc.training.bounds.proof`,
computed before the full MIP) is not the solver's: the solver would go on proving what is already
proven.  With ``SolveOptions.stop_at = L`` the same checks also stop the solve once
``P - L <= ABS + rel |P|`` (``rel`` the run's gap, :data:`REL` by default: the verdict's own test),
and the result says ``proven: the incumbent meets annc's lower bound L``.
"""
from __future__ import annotations

from dataclasses import dataclass

ABS = 1e-6  # the verdict's absolute tolerance (annc.solve.verdict.ABS_TOL)
REL = 1e-4  # the verdict's default relative tolerance (annc.solve.verdict.REL_TOL)


@dataclass
class Stall:
    """The stall rule of the module docstring for one solve: :meth:`update` at each report."""

    checks: int | None  # N: consecutive work checks without a move that end the solve (None: only observe)
    ref: tuple | None = None  # (n0, P0, D0) at the last move
    last: int = 0  # work checks so far
    nodes: int = 0  # the solver's node count at the last check
    fired: bool = False
    floor: float | None = None  # L: a valid lower bound from outside the solver (stop_at)
    rel: float = REL  # the relative tolerance of the test against L
    proven: bool = False  # the incumbent met L

    def update(self, nodes: int, incumbent: float | None, bound: float | None) -> bool:
        """One work check: the solver's node count, incumbent and bound (None where it has none);
        True when the solve has stalled and should stop now."""
        self.last += 1
        self.nodes = max(self.nodes, int(nodes))
        if incumbent is None:
            return False
        if self.floor is not None and incumbent - self.floor <= ABS + self.rel * abs(incumbent):
            self.fired = self.proven = True
            return True
        if self.ref is None:
            self.ref = (self.last, incumbent, bound)
            return False
        n0, p0, d0 = self.ref
        tol = max(ABS, REL * max(1.0, abs(incumbent)))
        if incumbent < p0 - tol or (bound is not None and (d0 is None or bound > d0 + tol)):
            d = d0 if bound is None else bound if d0 is None else max(bound, d0)
            self.ref = (self.last, min(incumbent, p0), d)
            return False
        if self.checks is not None and self.last - n0 >= self.checks:
            self.fired = True
        return self.fired

    def since(self) -> int:
        """Work checks since the last move (0 before the first incumbent)."""
        return 0 if self.ref is None else self.last - self.ref[0]

    def record(self) -> dict:
        """What a result's ``extra["stall"]`` says: the rule's ``N`` (None: not applied), the work
        checks in all, at the last move and since, the solver's nodes, and whether it ended the solve."""
        return {"checks": self.checks, "done": self.last, "last_move": None if self.ref is None else self.ref[0],
                "since": self.since(), "nodes": self.nodes, "fired": self.fired, "proven": self.proven}

    def reason(self) -> str:
        """Why the solve ended, in the verdict's words."""
        if self.proven:
            return f"proven: the incumbent meets annc's lower bound {self.floor:.6g}"
        return (f"stalled: no improvement of incumbent or bound in {self.checks:,} work "
                f"check{'s' if self.checks != 1 else ''} ({self.nodes:,} node{'s' if self.nodes != 1 else ''} in all)")


def stall_of(opts) -> Stall:
    """The rule for a solve with ``opts`` (a :class:`~annc.solve.solvers.base.SolveOptions`):
    ``opts.stall_checks`` work checks (None: no stall, only the record), and the stop at
    ``opts.stop_at`` (annc's lower bound, if any) within the run's gap."""
    n, floor, gap = getattr(opts, "stall_checks", None), getattr(opts, "stop_at", None), getattr(opts, "gap", None)
    return Stall(None if n is None else int(n), floor=None if floor is None else float(floor),
                 rel=REL if gap is None else max(float(gap), REL))
