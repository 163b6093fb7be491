"""SCIP through pyscipopt (see :mod:`.apis` for what the package drivers share).

Progress comes from an event handler on new incumbents and solved nodes; SCIP
catches Ctrl-C itself (``misc/catchctrlc``) and stops with status "userinterrupt".
"""
from __future__ import annotations

from ...core.model import Model
from .apis import PackageDriver, Reporter, by_name, finite
from .base import Clock, Interrupt, SolveOptions, SolveResult, verdict


class ScipDriver(PackageDriver):
    name = "scip"
    title = "SCIP"
    start_format = 'scip-sol'  # the start file it reads (annc.io.writers.startfiles)
    module = "pyscipopt"
    parameters = {"time_limit": "limits/time", "gap": "limits/gap", "threads": "parallel/maxnthreads",
                  "node_limit": "limits/nodes"}

    def load(self, scip, path: str):
        m = scip.Model()
        m.hideOutput()
        m.readProblem(path)
        return m

    def add_start(self, scip, m, start: dict) -> None:
        sol = m.createSol()
        for v in m.getVars():
            m.setSolVal(sol, v, start.get(v.name, 0.0))
        m.addSol(sol)

    def run(self, scip, m, model: Model, opts: SolveOptions, intr: Interrupt) -> SolveResult:
        clock = Clock()
        report = Reporter(opts, clock)
        E = scip.SCIP_EVENTTYPE

        class OnProgress(scip.Eventhdlr):
            def eventinit(self):
                self.model.catchEvent(E.BESTSOLFOUND, self)
                self.model.catchEvent(E.NODESOLVED, self)

            def eventexit(self):
                self.model.dropEvent(E.BESTSOLFOUND, self)
                self.model.dropEvent(E.NODESOLVED, self)

            def eventexec(self, event):
                inc = self.model.getPrimalbound() if self.model.getNSols() else None
                report(inc, self.model.getDualbound())

        m.includeEventhdlr(OnProgress(), "annc_progress", "reports incumbents and bounds")
        intr.on_interrupt = m.interruptSolve  # Interrupt.request() (e.g. from a progress callback)
        try:
            m.optimize()  # SCIP catches Ctrl-C itself (misc/catchctrlc) and stops with "userinterrupt"
        finally:
            intr.on_interrupt = None
        st = m.getStatus()
        has = m.getNSols() > 0
        obj = m.getObjVal() if has else None
        bound = finite(m.getDualbound())
        x = by_name(model, {v.name: m.getVal(v) for v in m.getVars()}) if has else None
        interrupted = st == "userinterrupt" or intr.requested
        intr.requested = intr.requested or interrupted
        status, text = verdict(st == "optimal", has, obj, bound, "interrupted" if interrupted else st,
                               infeasible=st == "infeasible", unbounded=st in ("unbounded", "inforunbd"))
        return SolveResult(self.name, status, text, obj, bound, x, clock(), interrupted,
                           {"nodes": m.getNNodes()})
