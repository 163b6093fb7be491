"""FICO Xpress through its Python package (see :mod:`.apis` for what the package drivers
share).

Progress comes from the integer-solution callback; Xpress catches Ctrl-C itself
(stop type CTRLC).  Xpress prunes nodes within 1e-5 of the incumbent by default
(``mipaddcutoff``), which proves less than annc's "optimal" (relative gap 1e-4 or
absolute 1e-6) on the small objectives of these models: the driver asks for the same
proof as the other solvers.
"""
from __future__ import annotations

import warnings

from ...core.model import Model
from .apis import PackageDriver, Reporter, by_name, finite
from .base import Clock, Interrupt, SolveOptions, SolveResult, verdict


class XpressDriver(PackageDriver):
    name = "xpress"
    title = "Xpress"
    start_format = 'xpress-slx'  # the start file it reads (annc.io.writers.startfiles)
    parameters = {"time_limit": "timelimit", "gap": "miprelstop", "threads": "threads", "node_limit": "maxnode"}
    licence = "the community licence (the pip package) allows 5,000 rows and columns together"

    def size_limited(self, xp, error: Exception) -> bool:  # "?120 Error: Problem has too many rows and columns"
        return "too many rows and columns" in str(error) or str(error).lstrip().startswith("?120 ")

    def load(self, xp, path: str):
        with warnings.catch_warnings():  # the community licence notice
            warnings.simplefilter("ignore")
            p = xp.problem()
        p.setControl("outputlog", 0)
        p.setControl("mipaddcutoff", -1e-7)  # the proof annc calls optimal (module docstring)
        p.readProb(path)
        return p

    def set_parameter(self, p, name: str, value) -> None:
        p.setControl(name, value)

    def add_start(self, xp, p, start: dict) -> None:
        cols = p.getVariable()
        add = p.addMipSol if hasattr(p, "addMipSol") else p.addmipsol  # Xpress >= 9.8 renamed it
        add([start.get(v.name, 0.0) for v in cols], cols, "annc")

    def run(self, xp, p, model: Model, opts: SolveOptions, intr: Interrupt) -> SolveResult:
        clock = Clock()
        report = Reporter(opts, clock)
        if opts.progress:
            def on_sol(prob, data):
                report(prob.attributes.mipobjval, prob.attributes.bestbound)
            if hasattr(p, "addIntsolCallback"):  # Xpress >= 9.8
                p.addIntsolCallback(on_sol, None)
            else:
                p.addcbintsol(on_sol, None)
        intr.on_interrupt = lambda: p.interrupt(xp.StopType.USER)  # Interrupt.request()
        try:
            p.optimize()  # Xpress catches Ctrl-C itself (stop type CTRLC)
        finally:
            intr.on_interrupt = None
        sol_status = p.attributes.solstatus
        has = sol_status in (xp.SolStatus.OPTIMAL, xp.SolStatus.FEASIBLE)
        obj = p.attributes.objval if has else None
        bound = finite(p.attributes.bestbound)
        x = by_name(model, dict(zip([v.name for v in p.getVariable()], p.getSolution()))) if has else None
        stop = xp.StopType(p.attributes.stopstatus)  # an int, not the enum, in some versions
        interrupted = stop in (xp.StopType.CTRLC, xp.StopType.USER) or intr.requested
        intr.requested = intr.requested or interrupted
        why = ("interrupted" if interrupted else
               f"xpress {xp.SolveStatus(p.attributes.solvestatus).name.lower()}"
               + (f", {stop.name.lower()}" if stop != xp.StopType.NONE else ""))
        status, text = verdict(sol_status == xp.SolStatus.OPTIMAL, has, obj, bound, why,
                               infeasible=sol_status == xp.SolStatus.INFEASIBLE,
                               unbounded=sol_status == xp.SolStatus.UNBOUNDED)
        return SolveResult(self.name, status, text, obj, bound, x, clock(), interrupted)
