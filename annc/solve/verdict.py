"""The verdict on a trained network: what is proven about the network the user gets.

A solver proves things about its *model*.  The user gets a *network*: the weights
annc exports, whose training objective annc computes itself by a forward pass
(``loss``).  The verdict speaks of the network only:

* ``objective``: the exported network's own training objective (loss plus penalty);
* ``lower_bound``: a valid lower bound on the best objective any network of the spec
  can reach on these data: the largest of the solver's dual bound (of the MIP, or of
  its relaxation when products are relaxed: a relaxation's bound is lower still), the
  objective of a solver's claimed optimum when it gives no bound (its claim, reported
  as a bound), and the formulation's floor (:func:`annc.formulations.floor`);
  ``bound_source`` says which (:func:`sourced_bound`; None where the caller does not
  say, e.g. after a relaxed solve's refinements);
* ``ended``: why the run that found it ended (set by the trainer: proven before the full MIP,
  the full MIP stalled, its time limit, ...), which the weights file's ``meta`` records;
* ``status``: ``optimal`` when ``objective - lower_bound <= ABS_TOL + rel * |objective|``
  (``rel`` the run's relative gap, :data:`REL_TOL` by default), else ``feasible``: a
  network with a certified gap, never "optimal" because a solver said so about a
  relaxation.

For a relaxed model (``relaxed``: McCormick products after ReLU layers) the solver's
objective is the relaxation's value at its point, which no network need realise; it
is reported as that and never as the network's objective.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..io.solutions import Status

ABS_TOL = 1e-6  # absolute optimality tolerance (HiGHS's and Gurobi's default mip_abs_gap)
REL_TOL = 1e-4  # relative, when the run sets no gap (the solvers' usual default)

# where a lower bound comes from (Verdict.bound_source), as the reports name it
SOLVER_BOUND = "the solver's dual bound"
SOLVER_CLAIM = "the solver's claimed optimum"
FLOOR = "the formulation's floor"


@dataclass
class Verdict:
    status: Status  # optimal or feasible: about the exported network
    objective: float  # the exported network's training objective (annc's forward pass)
    lower_bound: float | None  # valid lower bound on the optimum over networks
    relaxed: bool  # the model relaxes some products: its optimum is a bound, not a network
    source: str  # where the exported network comes from ("solver", "exact finish", "MIP start")
    solver_objective: float | None = None  # the solver's objective at its point (a relaxation's, if relaxed)
    bound_source: str | None = None  # SOLVER_BOUND, SOLVER_CLAIM or FLOOR; None: not said
    search: dict | None = None  # what annc's own search found (annc.training.search.incumbent.SearchRecord.conclude)
    compression: dict | None = None  # the MIP ran on weighted representatives (annc.training.large.compress)
    dead_weights: tuple[int, float] | None = None  # (weights dropped from dead hidden units, objective before)
    sub_mips: dict | None = None  # annc's own sub-MIPs by solver, and why HiGHS stood in (annc.training.context)
    ended: str | None = None  # why the run ended: proven, stalled (no gain in N work checks), the solver's limit

    @property
    def gap(self) -> float | None:
        """``(objective - lower_bound) / |objective|`` (0 when both are 0; None without a bound)."""
        if self.lower_bound is None:
            return None
        diff = self.objective - self.lower_bound
        if abs(diff) <= 1e-12:
            return 0.0
        return max(diff, 0.0) / abs(self.objective) if self.objective else math.inf

    @property
    def bound_says_nothing(self) -> bool:
        """The lower bound is 0 (or none) while the objective is positive: nothing beyond
        "a loss is never negative" is proven, so the gap (100% or more) does not rank this
        network against others (typical of real data: the LP relaxation of big-M rows
        lets every unit be fractional and reaches 0)."""
        return self.objective > ABS_TOL and (self.lower_bound is None or self.lower_bound <= ABS_TOL)

    @property
    def proven(self) -> bool:
        """The bound meets the objective within the verdict's own tolerance (:func:`closes` at
        :data:`REL_TOL`): no network of the class does better.  A status ``optimal`` reached only
        through a larger ``--gap`` is optimal *within that gap*, not this."""
        return self.lower_bound is not None and math.isfinite(self.objective) and closes(self.objective,
                                                                                          self.lower_bound)

    def describe(self) -> str:
        """``optimal (proved: ...)`` or ``feasible, gap ...``: one line."""
        bound = "no lower bound" if self.lower_bound is None else f"lower bound {self.lower_bound:.6g}"
        if self.status == Status.OPTIMAL and not self.proven:
            return (f"optimal within the gap asked (gap {100 * self.gap:.2f}%: objective {self.objective:.6g}, "
                    f"{bound})")
        if self.status == Status.OPTIMAL:
            return f"optimal (objective {self.objective:.6g} meets the {bound})"
        g = self.gap
        gs = "unknown" if g is None else ("inf" if math.isinf(g) else f"{100 * g:.2f}%")
        return f"feasible, gap {gs} (objective {self.objective:.6g}, {bound})"


def sourced_bound(*, solver_status: Status | None, solver_objective: float | None, solver_bound: float | None,
                  floor: float | None = None) -> tuple[float | None, str | None]:
    """The best valid lower bound of the module docstring and where it comes from
    (:data:`SOLVER_BOUND`, :data:`SOLVER_CLAIM` or :data:`FLOOR`; the solver's on a tie),
    or ``(None, None)``."""
    cands = []
    if solver_bound is not None and math.isfinite(solver_bound):
        cands.append((solver_bound, SOLVER_BOUND))
    elif solver_status == Status.OPTIMAL and solver_objective is not None and math.isfinite(solver_objective):
        cands.append((solver_objective, SOLVER_CLAIM))  # a claimed optimum without a bound: the claim is the bound
    if floor is not None and math.isfinite(floor):
        cands.append((floor, FLOOR))
    return max(cands, key=lambda c: c[0]) if cands else (None, None)


def lower_bound(*, solver_status: Status | None, solver_objective: float | None, solver_bound: float | None,
                floor: float | None = None) -> float | None:
    """The best valid lower bound of the module docstring, or None (:func:`sourced_bound`'s value)."""
    return sourced_bound(solver_status=solver_status, solver_objective=solver_objective,
                         solver_bound=solver_bound, floor=floor)[0]


def closes(objective: float, bound: float, rel_tol: float | None = None) -> bool:
    """``bound`` meets ``objective`` within the verdict's tolerance: ``objective - bound <= ABS_TOL +
    rel |objective|`` (``rel`` = ``rel_tol``, default :data:`REL_TOL`): no network does better."""
    rel = REL_TOL if rel_tol is None else rel_tol
    return objective - bound <= ABS_TOL + rel * abs(objective)


def judge(objective: float, bound: float | None, *, relaxed: bool, source: str, rel_tol: float | None = None,
          solver_objective: float | None = None, verified: bool = True, bound_source: str | None = None,
          **record) -> Verdict:
    """The verdict on a network of training objective ``objective`` given the lower bound
    ``bound`` (from ``bound_source``, if said); ``unknown`` when its point failed
    verification (no network to speak of).  ``record``: the verdict's other fields (``search``,
    ``compression``, ``dead_weights``, ``sub_mips``, ``ended``), set as it is built."""
    proven = bound is not None and math.isfinite(objective) and closes(objective, bound, rel_tol)
    status = Status.UNKNOWN if not verified else Status.OPTIMAL if proven else Status.FEASIBLE
    bound = None if bound is None else float(bound)  # a numpy number (weighted bounds) is no JSON number
    return Verdict(status, float(objective), bound, relaxed, source, solver_objective, bound_source, **record)


def search_record(meta: dict) -> dict | None:
    """What annc's own search added, as a weights file's ``meta`` records it: in the verdict
    of its first MIP (``meta["steps"][0]["search"]``, full training); a file of an older annc
    also had it at ``meta["search"]``.  None when there is none (greedy training, decoded
    solutions, an older file)."""
    if not isinstance(meta, dict):
        return None
    steps = meta.get("steps")
    first = steps[0] if isinstance(steps, list) and steps and isinstance(steps[0], dict) else {}
    found = first.get("search", meta.get("search"))
    return found if isinstance(found, dict) else None


def verdict_record(v: Verdict) -> dict:
    """What a weights file's ``meta`` records of a verdict (JSON: an infinite gap as "inf");
    ``annc train`` per MIP, ``annc decode`` for its solution; the report reads it."""
    g = v.gap
    return {"status": v.status.value, "describe": v.describe(), "objective": v.objective,
            "lower_bound": v.lower_bound, "gap": g if g is None or math.isfinite(g) else "inf",
            "relaxed": v.relaxed, "network_from": v.source, "bound_says_nothing": bool(v.bound_says_nothing),
            **({"bound_source": v.bound_source} if v.bound_source else {}),
            **({"search": v.search} if v.search else {}),
            **({"compression": v.compression} if v.compression else {}),
            **({"sub_mips": v.sub_mips} if v.sub_mips else {}),
            **({"ended": v.ended} if v.ended else {})}
