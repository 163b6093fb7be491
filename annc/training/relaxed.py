"""After a relaxed solve: the network to export, and a lower bound to judge it by.

A model whose products are relaxed (``model.layout.relaxed``: piecewise McCormick after
ReLU layers) gives the solver points that no network need realise; its optimum is a
lower bound.  :func:`conclude_relaxed` turns the solve into a network and a bound:

* candidates, all scored by their own forward pass (annc's ``network_loss``): the
  solver's decoded network, the MIP start, and the exact finish from the solver's hidden
  layers (:func:`annc.training.starts.finish`);
* then, while time is left and the gap is open, adaptive refinement
  (:func:`annc.training.starts.refine.refine`) alternates refined relaxations (lower bounds) and
  exact finishes (networks);
* the best network is exported; its verification is that of its own lift (exact
  products, so the objective at the point is its loss), or the solver's point when the
  solver's own network is the best.

The lower bound is the largest of the first solve's (:func:`annc.solve.verdict.lower_bound`)
and every refined relaxation's.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

from ..core.network import TrainedNetwork
from ..solve.compiler import Compiled
from ..solve.decode import decode_network
from ..solve.solvers import SOLVERS, SolveOptions, SolveResult, solve
from ..solve.verdict import ABS_TOL, REL_TOL
from ..solve.verify import Verification, check
from .starts import complete, finish
from .starts.budget import MIN_START_BUDGET as MIN_BUDGET  # below this no finish is tried either
from .starts.refine import refine


def conclude_relaxed(name: str, c: Compiled, res: SolveResult, ver: Verification, net: TrainedNetwork,
                     bound: float | None, *, start, solver: str, opts: SolveOptions, time_left: float | None,
                     budget: float, log: Callable, rounds: int = 8):
    """``(network, its verification, where it comes from, lower bound)``; see the module docstring."""
    if budget < MIN_BUDGET:
        log(f"[{name}] no exact finish: the time limit is too short")
        return net, ver, "solver", bound
    t0 = time.perf_counter()
    x = finish(c.model, c.problem, res.x, candidates=[start], budget=budget, floor=bound if bound is not None
               else -float("inf"), interrupt=opts.interrupt)
    took = time.perf_counter() - t0
    source = "solver"
    if x is not None and c.model.objective(x) < ver.network_loss:
        source = "MIP start" if start is not None and (x == start).all() else "exact finish"
    log(f"[{name}] exact finish ({took:.1f}s): the solver's network has loss {ver.network_loss:.6g} "
        f"(its relaxed objective {res.objective:.6g})"
        + ("" if x is None else f"; the best network found {c.model.objective(x):.6g}"))
    if x is not None and time_left is not None and bound is not None:
        x, bound, refined = _refine(name, c, res, x, bound, solver=solver, opts=opts,
                                    time_left=time_left - took, log=log, rounds=rounds)
        if refined:
            source = "adaptive refinement"
    if x is None or c.model.objective(x) >= ver.network_loss:
        return net, ver, "solver", bound
    fin = decode_network(c.varmap, x)
    return fin, check(c, x, fin, status=res.status.value, solver_objective=None), source, bound


def _refine(name, c: Compiled, res: SolveResult, x, bound: float, *, solver: str, opts: SolveOptions,
            time_left: float, log: Callable, rounds: int):
    """Adaptive refinement from the exact point ``x``: ``(best exact point, bound, improved?)``."""
    rel = REL_TOL if opts.gap is None else opts.gap
    tol = (lambda loss: ABS_TOL + rel * abs(loss))
    if time_left <= MIN_BUDGET or c.model.objective(x) - bound <= tol(c.model.objective(x)):
        return x, bound, False
    by = solver if SOLVERS[solver].in_memory else "highs"  # the refined models exist only in memory

    def solve_one(m, limit, point):
        o = replace(opts, time_limit=limit, start=point if SOLVERS[by].mip_start else None, model_file=None,
                    workdir=None, progress=None)
        return solve(m, by, o)

    log(f"[{name}] adaptive refinement with {by}: lower bound {bound:.6g}, best network "
        f"{c.model.objective(x):.6g}, up to {time_left:.0f}s")
    r = refine(c.model, c.problem, res.x, x, bound, solve=solve_one, time_limit=time_left, rounds=rounds,
               tolerance=tol, interrupt=opts.interrupt, log=lambda line: log(f"[{name}] {line}"))
    bound = max(bound, r.lower_bound)
    if r.loss < c.model.objective(x) - 1e-9 * max(1.0, abs(r.loss)):
        y = complete(c.model, c.problem, r.weights, r.biases)
        if y is not None:
            return y, bound, True
    return x, bound, False
