"""SCIP, Gurobi, CPLEX and Xpress through their Python packages.

Each reads the model as the MPS file annc writes (so it solves exactly what a user of
that solver would), maps its values back by column name, and handles Ctrl-C itself
(SCIP, Gurobi and Xpress catch SIGINT and stop with their incumbent; CPLEX through
an aborter).  Progress is reported on every improved incumbent.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from ..errors import AnncError
from ..model import Model
from ..writers import write_model
from .base import Clock, Interrupt, Progress, SolveOptions, SolveResult, verdict


def _mps(model: Model, opts: SolveOptions) -> Path:
    work = Path(opts.workdir or tempfile.mkdtemp(prefix="annc-"))
    path = work / f"{model.name}.mps"
    write_model(model, path, "mps")
    return path


def _need(module: str, package: str):
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise AnncError(f"solver package {package} is not installed (pip install {package})") from None


def _by_name(model: Model, values: dict) -> np.ndarray:
    return np.array([values.get(n, 0.0) for n in model.col_names()], dtype=float)


def solve_scip(model: Model, opts: SolveOptions) -> SolveResult:
    scip = _need("pyscipopt", "pyscipopt")
    m = scip.Model()
    m.hideOutput()
    m.readProblem(str(_mps(model, opts)))
    if opts.time_limit is not None:
        m.setParam("limits/time", float(opts.time_limit))
    if opts.gap is not None:
        m.setParam("limits/gap", float(opts.gap))
    if opts.threads is not None:
        m.setParam("parallel/maxnthreads", int(opts.threads))
    clock = Clock()

    class OnBest(scip.Eventhdlr):
        def eventinit(self):
            self.model.catchEvent(scip.SCIP_EVENTTYPE.BESTSOLFOUND, self)

        def eventexec(self, event):
            if opts.progress:
                opts.progress(Progress(clock(), self.model.getPrimalbound(), self.model.getDualbound()))

    m.includeEventhdlr(OnBest(), "annc_progress", "reports improved incumbents")
    m.optimize()
    st = m.getStatus()
    has = m.getNSols() > 0
    obj = m.getObjVal() if has else None
    bound = m.getDualbound()
    x = _by_name(model, {v.name: m.getVal(v) for v in m.getVars()}) if has else None
    status, text = verdict(st == "optimal", has, obj, bound, st, infeasible=st == "infeasible",
                           unbounded=st in ("unbounded", "inforunbd"))
    return SolveResult("scip", status, text, obj, bound, x, clock(), st == "userinterrupt",
                       {"nodes": m.getNNodes()})


def solve_gurobi(model: Model, opts: SolveOptions) -> SolveResult:
    gp = _need("gurobipy", "gurobipy")
    m = gp.read(str(_mps(model, opts)))
    m.Params.OutputFlag = 0
    if opts.time_limit is not None:
        m.Params.TimeLimit = float(opts.time_limit)
    if opts.gap is not None:
        m.Params.MIPGap = float(opts.gap)
    if opts.threads is not None:
        m.Params.Threads = int(opts.threads)
    clock = Clock()

    def cb(mod, where):
        if where == gp.GRB.Callback.MIPSOL and opts.progress:
            opts.progress(Progress(clock(), mod.cbGet(gp.GRB.Callback.MIPSOL_OBJBST),
                                   mod.cbGet(gp.GRB.Callback.MIPSOL_OBJBND)))

    m.optimize(cb)
    S = gp.GRB.Status
    has = m.SolCount > 0
    obj = m.ObjVal if has else None
    bound = m.ObjBound if m.IsMIP else obj
    x = _by_name(model, {v.VarName: v.X for v in m.getVars()}) if has else None
    status, text = verdict(m.Status == S.OPTIMAL, has, obj, bound, f"gurobi status {m.Status}",
                           infeasible=m.Status == S.INFEASIBLE, unbounded=m.Status == S.UNBOUNDED)
    return SolveResult("gurobi", status, text, obj, bound, x, clock(), m.Status == S.INTERRUPTED)


def solve_cplex(model: Model, opts: SolveOptions) -> SolveResult:
    cplex = _need("cplex", "cplex")
    c = cplex.Cplex(str(_mps(model, opts)))
    for stream in (c.set_log_stream, c.set_results_stream, c.set_warning_stream):
        stream(None)
    if opts.time_limit is not None:
        c.parameters.timelimit.set(float(opts.time_limit))
    if opts.gap is not None:
        c.parameters.mip.tolerances.mipgap.set(float(opts.gap))
    if opts.threads is not None:
        c.parameters.threads.set(int(opts.threads))
    clock, aborter, intr = Clock(), c.use_aborter(cplex.Aborter()), Interrupt()
    intr.on_interrupt = aborter.abort
    with intr.armed():
        c.solve()
    s = c.solution
    code = s.get_status()
    has = s.is_primal_feasible()
    obj = s.get_objective_value() if has else None
    bound = s.MIP.get_best_objective() if has else None
    x = _by_name(model, dict(zip(c.variables.get_names(), s.get_values()))) if has else None
    sc = s.status
    status, text = verdict(code in (sc.MIP_optimal, sc.optimal), has, obj, bound, s.get_status_string(),
                           infeasible=code in (sc.MIP_infeasible, sc.infeasible),
                           unbounded=code in (sc.MIP_unbounded, sc.unbounded))
    return SolveResult("cplex", status, text, obj, bound, x, clock(), intr.requested)


def solve_xpress(model: Model, opts: SolveOptions) -> SolveResult:
    xp = _need("xpress", "xpress")
    p = xp.problem()
    p.setControl("outputlog", 0)
    p.readProb(str(_mps(model, opts)))
    if opts.time_limit is not None:
        p.setControl("timelimit", float(opts.time_limit))
    if opts.gap is not None:
        p.setControl("miprelstop", float(opts.gap))
    if opts.threads is not None:
        p.setControl("threads", int(opts.threads))
    clock = Clock()
    p.optimize()
    sol_status = p.attributes.solstatus
    has = sol_status in (xp.SolStatus.OPTIMAL, xp.SolStatus.FEASIBLE)
    obj = p.attributes.objval if has else None
    bound = p.attributes.bestbound
    x = _by_name(model, dict(zip([v.name for v in p.getVariable()], p.getSolution()))) if has else None
    status, text = verdict(sol_status == xp.SolStatus.OPTIMAL, has, obj, bound,
                           f"xpress {p.attributes.solvestatus.name.lower()}",
                           infeasible=sol_status == xp.SolStatus.INFEASIBLE,
                           unbounded=sol_status == xp.SolStatus.UNBOUNDED)
    return SolveResult("xpress", status, text, obj, bound, x, clock(), False)
