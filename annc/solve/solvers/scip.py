"""SCIP through pyscipopt (see :mod:`.apis` for what the package drivers share).

Progress comes from an event handler on new incumbents and solved nodes; SCIP
catches Ctrl-C itself (``misc/catchctrlc``) and stops with status "userinterrupt".  The
stall rule (:mod:`.stall`) counts its LP solves and solved nodes as work checks and stops
it with ``interruptSolve``.
"""
from __future__ import annotations

from ...core.model import Model
from .apis import PackageDriver, Reporter, by_name, finite
from .base import Clock, Interrupt, SolveOptions, SolveResult, verdict
from .stall import stall_of


class ScipDriver(PackageDriver):
    name = "scip"
    title = "SCIP"
    start_format = 'scip-sol'  # the start file it reads (annc.io.writers.startfiles)
    module = "pyscipopt"
    stall = True
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
        stall = stall_of(opts)

        class OnProgress(scip.Eventhdlr):
            def eventinit(self):
                self.model.catchEvent(E.BESTSOLFOUND, self)
                self.model.catchEvent(E.NODESOLVED, self)
                self.model.catchEvent(E.LPSOLVED, self)

            def eventexit(self):
                self.model.dropEvent(E.BESTSOLFOUND, self)
                self.model.dropEvent(E.NODESOLVED, self)
                self.model.dropEvent(E.LPSOLVED, self)

            def eventexec(self, event):
                inc = self.model.getPrimalbound() if self.model.getNSols() else None
                bound = finite(self.model.getDualbound())
                report(inc, bound)
                if event.getType() != E.BESTSOLFOUND and not stall.fired \
                        and stall.update(self.model.getNNodes(), finite(inc), bound):
                    self.model.interruptSolve()

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
        stalled = stall.fired and st == "userinterrupt" and not intr.requested
        interrupted = (st == "userinterrupt" and not stalled) or intr.requested
        intr.requested = intr.requested or interrupted
        status, text = verdict(st == "optimal", has, obj, bound,
                               "interrupted" if interrupted else stall.reason() if stalled else st,
                               infeasible=st == "infeasible", unbounded=st in ("unbounded", "inforunbd"))
        extra = {"nodes": m.getNNodes(), "stall": stall.record()}
        if stalled:  # the stall rule, or annc's bound met (stall.proven)
            extra["stalled"] = stall.reason()
        return SolveResult(self.name, status, text, obj, bound, x, clock(), interrupted, extra)
