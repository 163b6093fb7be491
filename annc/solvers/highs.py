"""HiGHS through highspy, in memory: the model's arrays go straight to ``passModel``.

Progress comes from HiGHS's MIP logging and improving-solution callbacks; Ctrl-C sets
the interrupt flag that HiGHS polls, so it stops and keeps its incumbent.
"""
from __future__ import annotations

import threading

import highspy
import numpy as np

from ..model import Model
from .base import Clock, Interrupt, Progress, SolveOptions, SolveResult, verdict


def to_highs_lp(model: Model) -> "highspy.HighsLp":
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = model.num_cols, model.num_rows
    lp.col_cost_ = model.obj
    lp.offset_ = model.obj_const
    lp.col_lower_ = np.where(np.isinf(model.lb), -inf, model.lb)
    lp.col_upper_ = np.where(np.isinf(model.ub), inf, model.ub)
    lp.row_lower_ = np.where(model.sense == "L", -inf, model.rhs)
    lp.row_upper_ = np.where(model.sense == "G", inf, model.rhs)
    A = model.A.tocsc()
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    kind = np.where(model.integer, int(highspy.HighsVarType.kInteger), int(highspy.HighsVarType.kContinuous))
    lp.integrality_ = [highspy.HighsVarType(int(k)) for k in kind]
    return lp


def solve(model: Model, opts: SolveOptions) -> SolveResult:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if opts.time_limit is not None:
        h.setOptionValue("time_limit", float(opts.time_limit))
    if opts.gap is not None:
        h.setOptionValue("mip_rel_gap", float(opts.gap))
    if opts.threads is not None:
        h.setOptionValue("threads", int(opts.threads))
    h.passModel(to_highs_lp(model))

    clock, stop = Clock(), threading.Event()
    last = [None, None]

    def report(e):
        out = e.data_out
        inc = out.mip_primal_bound if abs(out.mip_primal_bound) < 1e50 else None
        bnd = out.mip_dual_bound if abs(out.mip_dual_bound) < 1e50 else None
        if opts.progress and (inc, bnd) != tuple(last):
            last[:] = [inc, bnd]
            opts.progress(Progress(clock(), inc, bnd))

    def poll(e):
        if stop.is_set():
            e.interrupt()

    h.cbMipLogging.subscribe(report)
    h.cbMipImprovingSolution.subscribe(report)
    h.cbMipInterrupt.subscribe(poll)
    intr = Interrupt()
    intr.on_interrupt = stop.set
    with intr.armed():
        thread = threading.Thread(target=h.run, daemon=True)
        thread.start()
        while thread.is_alive():
            thread.join(0.1)

    status = h.getModelStatus()
    info = h.getInfo()
    MS = highspy.HighsModelStatus
    has = info.primal_solution_status == 2  # kSolutionStatusFeasible
    obj = info.objective_function_value if has else None
    bound = info.mip_dual_bound if abs(info.mip_dual_bound) < 1e50 else None
    st, text = verdict(status == MS.kOptimal, has, obj, bound,
                       "interrupted" if intr.requested else h.modelStatusToString(status).lower(),
                       infeasible=status == MS.kInfeasible,
                       unbounded=status in (MS.kUnbounded, MS.kUnboundedOrInfeasible))
    x = np.asarray(h.getSolution().col_value, dtype=float) if has else None
    return SolveResult("highs", st, text, obj, bound, x, clock(), intr.requested,
                       {"nodes": int(info.mip_node_count)})
