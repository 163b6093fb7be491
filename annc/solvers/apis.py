"""SCIP, Gurobi, CPLEX and Xpress through their Python packages.

Each reads the model as the MPS file annc writes (so it solves exactly what a user of
that solver would), takes ``SolveOptions.start`` as a MIP start (by column name), maps
its values back by column name, and handles Ctrl-C itself:
SCIP, Gurobi, CPLEX and Xpress each install their own SIGINT handler while they
solve and stop with their incumbent; annc reads the "interrupted" status back (and
records it in the shared :class:`~annc.solvers.base.Interrupt`, so that greedy
training stops too).  Progress is reported on every improved incumbent, and on bound
changes at most once a second.
"""
from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..errors import AnncError
from ..model import Model
from ..solutions import Status
from ..writers import write_model
from .base import Clock, Progress, SolveOptions, SolveResult, interrupt_of, verdict

BOUND_EVERY = 1.0  # seconds between progress lines that report only a moved bound


@contextmanager
def _mps(model: Model, opts: SolveOptions):
    """The model's MPS file: ``opts.model_file``, or one written to the work folder
    (a temporary one, removed afterwards, unless ``opts.workdir`` is set)."""
    if opts.model_file and Path(opts.model_file).exists():
        yield Path(opts.model_file)
    elif opts.workdir:
        Path(opts.workdir).mkdir(parents=True, exist_ok=True)
        yield write_model(model, Path(opts.workdir) / f"{model.name}.mps", "mps")
    else:
        with tempfile.TemporaryDirectory(prefix="annc-") as tmp:
            yield write_model(model, Path(tmp) / f"{model.name}.mps", "mps")


def _need(module: str, package: str):
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise AnncError(f"solver package {package} is not installed (pip install {package})") from None


def _by_name(model: Model, values: dict) -> np.ndarray:
    return np.array([values.get(n, 0.0) for n in model.col_names()], dtype=float)


def _start_values(model: Model, opts: SolveOptions) -> dict | None:
    """The MIP start ``opts.start`` by column name (None without one)."""
    if opts.start is None:
        return None
    return dict(zip(model.col_names(), map(float, opts.start)))


def _finite(v) -> float | None:
    return float(v) if v is not None and abs(v) < 1e20 else None


class _Reporter:
    """Calls ``opts.progress`` when the incumbent changes, or the bound (rate-limited)."""

    def __init__(self, opts: SolveOptions, clock: Clock):
        self.opts, self.clock, self.last, self.when = opts, clock, (None, None), -1e9

    def __call__(self, incumbent, bound) -> None:
        if not self.opts.progress:
            return
        now = (_finite(incumbent), _finite(bound))
        if now == self.last:
            return
        if now[0] == self.last[0] and self.clock() - self.when < BOUND_EVERY:
            return
        self.last, self.when = now, self.clock()
        self.opts.progress(Progress(self.when, *now))


def _not_started(name: str) -> SolveResult:
    return SolveResult(name, Status.NO_SOLUTION, "interrupted before the solve started", interrupted=True)


def solve_scip(model: Model, opts: SolveOptions) -> SolveResult:
    scip = _need("pyscipopt", "pyscipopt")
    intr = interrupt_of(opts)
    if intr.requested:
        return _not_started("scip")
    m = scip.Model()
    m.hideOutput()
    with _mps(model, opts) as path:
        m.readProblem(str(path))
    if opts.time_limit is not None:
        m.setParam("limits/time", float(opts.time_limit))
    if opts.gap is not None:
        m.setParam("limits/gap", float(opts.gap))
    if opts.threads is not None:
        m.setParam("parallel/maxnthreads", int(opts.threads))
    start = _start_values(model, opts)
    if start is not None:
        sol = m.createSol()
        for v in m.getVars():
            m.setSolVal(sol, v, start.get(v.name, 0.0))
        m.addSol(sol)
    clock = Clock()
    report = _Reporter(opts, clock)
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
    bound = _finite(m.getDualbound())
    x = _by_name(model, {v.name: m.getVal(v) for v in m.getVars()}) if has else None
    interrupted = st == "userinterrupt" or intr.requested
    intr.requested = intr.requested or interrupted
    status, text = verdict(st == "optimal", has, obj, bound, "interrupted" if interrupted else st,
                           infeasible=st == "infeasible", unbounded=st in ("unbounded", "inforunbd"))
    return SolveResult("scip", status, text, obj, bound, x, clock(), interrupted,
                       {"nodes": m.getNNodes()})


def solve_gurobi(model: Model, opts: SolveOptions) -> SolveResult:
    gp = _need("gurobipy", "gurobipy")
    intr = interrupt_of(opts)
    if intr.requested:
        return _not_started("gurobi")
    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)  # also silences the licence banner
    env.start()
    with _mps(model, opts) as path:
        m = gp.read(str(path), env)
    if opts.time_limit is not None:
        m.Params.TimeLimit = float(opts.time_limit)
    if opts.gap is not None:
        m.Params.MIPGap = float(opts.gap)
    if opts.threads is not None:
        m.Params.Threads = int(opts.threads)
    start = _start_values(model, opts)
    if start is not None:
        for v in m.getVars():
            v.Start = start.get(v.VarName, 0.0)
    clock = Clock()
    report = _Reporter(opts, clock)
    C = gp.GRB.Callback

    def cb(mod, where):
        if where == C.MIPSOL:
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
    bound = _finite(m.ObjBound) if m.IsMIP else obj
    x = _by_name(model, {v.VarName: v.X for v in m.getVars()}) if has else None
    interrupted = m.Status == S.INTERRUPTED or intr.requested
    intr.requested = intr.requested or interrupted
    status, text = verdict(m.Status == S.OPTIMAL, has, obj, bound,
                           "interrupted" if interrupted else f"gurobi status {m.Status}",
                           infeasible=m.Status in (S.INFEASIBLE, S.INF_OR_UNBD), unbounded=m.Status == S.UNBOUNDED)
    result = SolveResult("gurobi", status, text, obj, bound, x, clock(), interrupted)
    m.dispose()
    env.dispose()
    return result


def solve_cplex(model: Model, opts: SolveOptions) -> SolveResult:
    cplex = _need("cplex", "cplex")
    intr = interrupt_of(opts)
    if intr.requested:
        return _not_started("cplex")
    c = cplex.Cplex()
    for stream in (c.set_log_stream, c.set_results_stream, c.set_warning_stream, c.set_error_stream):
        stream(None)
    with _mps(model, opts) as path:
        c.read(str(path))
    if opts.time_limit is not None:
        c.parameters.timelimit.set(float(opts.time_limit))
    if opts.gap is not None:
        c.parameters.mip.tolerances.mipgap.set(float(opts.gap))
    if opts.threads is not None:
        c.parameters.threads.set(int(opts.threads))
    start = _start_values(model, opts)
    if start is not None:
        names = c.variables.get_names()
        c.MIP_starts.add(cplex.SparsePair(ind=names, val=[start.get(n, 0.0) for n in names]),
                         c.MIP_starts.effort_level.check_feasibility)
    clock = Clock()
    report = _Reporter(opts, clock)
    if opts.progress:
        class Info(cplex.callbacks.MIPInfoCallback):
            def __call__(self):
                report(self.get_incumbent_objective_value() if self.has_incumbent() else None,
                       self.get_best_objective_value())
        c.register_callback(Info)
    aborter = c.use_aborter(cplex.Aborter())
    intr.on_interrupt = aborter.abort
    try:
        with intr.armed():
            c.solve()  # CPLEX's own SIGINT handler stops it with "aborted" while it runs
    finally:
        intr.on_interrupt = None
    s = c.solution
    code = s.get_status()
    has = s.is_primal_feasible()
    obj = s.get_objective_value() if has else None
    bound = _finite(s.MIP.get_best_objective()) if has else None
    x = _by_name(model, dict(zip(c.variables.get_names(), s.get_values()))) if has else None
    sc = s.status
    text = s.get_status_string()
    interrupted = "abort" in text.lower() or intr.requested
    intr.requested = intr.requested or interrupted
    status, text = verdict(code in (sc.MIP_optimal, sc.optimal), has, obj, bound,
                           "interrupted" if interrupted else text,
                           infeasible=code in (sc.MIP_infeasible, sc.infeasible, sc.MIP_infeasible_or_unbounded),
                           unbounded=code in (sc.MIP_unbounded, sc.unbounded))
    c.end()
    return SolveResult("cplex", status, text, obj, bound, x, clock(), interrupted)


def solve_xpress(model: Model, opts: SolveOptions) -> SolveResult:
    xp = _need("xpress", "xpress")
    intr = interrupt_of(opts)
    if intr.requested:
        return _not_started("xpress")
    import warnings
    with warnings.catch_warnings():  # the community licence notice
        warnings.simplefilter("ignore")
        p = xp.problem()
    p.setControl("outputlog", 0)
    # Xpress prunes nodes within 1e-5 of the incumbent by default (mipaddcutoff), which
    # proves less than annc's "optimal" (relative gap 1e-4 or absolute 1e-6) on the small
    # objectives of these models; ask for the same proof as the other solvers.
    p.setControl("mipaddcutoff", -1e-7)
    with _mps(model, opts) as path:
        p.readProb(str(path))
    if opts.time_limit is not None:
        p.setControl("timelimit", float(opts.time_limit))
    if opts.gap is not None:
        p.setControl("miprelstop", float(opts.gap))
    if opts.threads is not None:
        p.setControl("threads", int(opts.threads))
    start = _start_values(model, opts)
    if start is not None:
        cols = p.getVariable()
        add = p.addMipSol if hasattr(p, "addMipSol") else p.addmipsol  # Xpress >= 9.8 renamed it
        add([start.get(v.name, 0.0) for v in cols], cols, "annc")
    clock = Clock()
    report = _Reporter(opts, clock)
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
    bound = _finite(p.attributes.bestbound)
    x = _by_name(model, dict(zip([v.name for v in p.getVariable()], p.getSolution()))) if has else None
    stop = xp.StopType(p.attributes.stopstatus)  # an int, not the enum, in some versions
    interrupted = stop in (xp.StopType.CTRLC, xp.StopType.USER) or intr.requested
    intr.requested = intr.requested or interrupted
    status, text = verdict(sol_status == xp.SolStatus.OPTIMAL, has, obj, bound,
                           "interrupted" if interrupted else f"xpress {xp.SolveStatus(p.attributes.solvestatus).name.lower()}"
                           + (f", {stop.name.lower()}" if stop != xp.StopType.NONE else ""),
                           infeasible=sol_status == xp.SolStatus.INFEASIBLE,
                           unbounded=sol_status == xp.SolStatus.UNBOUNDED)
    return SolveResult("xpress", status, text, obj, bound, x, clock(), interrupted)
