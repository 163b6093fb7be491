"""Gurobi through gurobipy (see :mod:`.apis` for what the package drivers share).

Progress comes from Gurobi's MIP and MIPSOL callbacks; Gurobi catches Ctrl-C itself
and stops with status INTERRUPTED.  The stall rule (:mod:`.stall`) counts its MIPNODE
callbacks (each node's LP, root cut rounds included: points of the algorithm, unlike the
MIP callback, which comes by the clock) and stops it with ``terminate``.  Each solve has its own
environment (silent, which also silences the licence banner), disposed of with the model.
"""
from __future__ import annotations

from ...core.model import Model
from .apis import PackageDriver, Reporter, by_name, finite
from .base import Clock, Interrupt, SolveOptions, SolveResult, verdict
from .stall import stall_of


class GurobiDriver(PackageDriver):
    name = "gurobi"
    title = "Gurobi"
    start_format = 'sol'  # the start file it reads (annc.io.writers.startfiles)
    module = "gurobipy"
    stall = True
    parameters = {"time_limit": "TimeLimit", "gap": "MIPGap", "threads": "Threads", "node_limit": "NodeLimit"}
    licence = "the pip package's size-limited licence allows 2,000 variables and 2,000 constraints"
    SIZE_LIMIT = 10010  # GRB_ERROR_SIZE_LIMIT_EXCEEDED

    def size_limited(self, gp, error: Exception) -> bool:
        return isinstance(error, gp.GurobiError) and getattr(error, "errno", None) == self.SIZE_LIMIT

    def load(self, gp, path: str):
        env = gp.Env(empty=True)
        env.setParam("OutputFlag", 0)  # also silences the licence banner
        env.start()
        m = gp.read(path, env)
        m._annc_env = env  # gurobipy keeps attributes whose names start with "_"
        return m

    def add_start(self, gp, m, start: dict) -> None:
        for v in m.getVars():
            v.Start = start.get(v.VarName, 0.0)

    def run(self, gp, m, model: Model, opts: SolveOptions, intr: Interrupt) -> SolveResult:
        clock = Clock()
        report = Reporter(opts, clock)
        C = gp.GRB.Callback
        stall = stall_of(opts)

        def cb(mod, where):
            if where == C.MIPNODE and not stall.fired:
                inc = mod.cbGet(C.MIPNODE_OBJBST) if mod.cbGet(C.MIPNODE_SOLCNT) else None
                if stall.update(int(mod.cbGet(C.MIPNODE_NODCNT)), finite(inc), finite(mod.cbGet(C.MIPNODE_OBJBND))):
                    mod.terminate()
            elif where == C.MIPSOL:
                report(mod.cbGet(C.MIPSOL_OBJBST), mod.cbGet(C.MIPSOL_OBJBND))
            elif where == C.MIP:
                report(mod.cbGet(C.MIP_OBJBST) if mod.cbGet(C.MIP_SOLCNT) else None, mod.cbGet(C.MIP_OBJBND))

        intr.on_interrupt = m.terminate  # Interrupt.request() (e.g. from a progress callback)
        try:
            m.optimize(cb)  # Gurobi catches Ctrl-C itself and stops with status INTERRUPTED
        finally:
            intr.on_interrupt = None
        S = gp.GRB.Status
        has = m.SolCount > 0
        obj = m.ObjVal if has else None
        bound = finite(m.ObjBound) if m.IsMIP else obj
        x = by_name(model, {v.VarName: v.X for v in m.getVars()}) if has else None
        stalled = stall.fired and m.Status == S.INTERRUPTED and not intr.requested
        interrupted = (m.Status == S.INTERRUPTED and not stalled) or intr.requested
        intr.requested = intr.requested or interrupted
        status, text = verdict(m.Status == S.OPTIMAL, has, obj, bound,
                               "interrupted" if interrupted else stall.reason() if stalled
                               else f"gurobi status {m.Status}",
                               infeasible=m.Status in (S.INFEASIBLE, S.INF_OR_UNBD),
                               unbounded=m.Status == S.UNBOUNDED)
        extra = {"stall": stall.record(), **({"stalled": stall.reason()} if stalled else {})}
        result = SolveResult(self.name, status, text, obj, bound, x, clock(), interrupted, extra)
        env = m._annc_env
        m.dispose()
        env.dispose()
        return result
