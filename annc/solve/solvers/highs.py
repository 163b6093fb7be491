"""HiGHS through highspy, in memory: the model's arrays go straight to ``passModel``.

HiGHS's thread scheduler is process-wide: every run takes a lease on it
(:mod:`.highs_scheduler`, which says the policy), so solves with different ``threads``
in one process work in any order.

Progress comes from HiGHS's MIP logging and improving-solution callbacks; Ctrl-C sets
the interrupt flag that HiGHS polls, so it stops and keeps its incumbent.  A MIP start
goes in through ``setSolution``.  The stall rule (:mod:`.stall`) reads the node count,
incumbent and bound that HiGHS passes to its MIP interrupt callback, and stops it there.
Under a time limit presolve's enumeration rule is off (:data:`ENUMERATION_OFF`): it does not
check the limit.
"""
from __future__ import annotations

import threading

import highspy
import numpy as np
import scipy.sparse as sp

from ...core.errors import UsageError
from ...core.model import Model
from . import highs_scheduler as scheduler
from .base import BOUND_EVERY, Clock, Progress, SolveOptions, SolveResult, check_threads, interrupt_of, moved, verdict
from .driver import Driver
from .highs_scheduler import new_highs
from .stall import stall_of


ENUMERATION_OFF = ("presolve_rule_off", 1 << 16)  # HiGHS's presolve rule 16, "Enumeration" (1.16; no rule
# has that bit in older releases, where it is ignored). It does not check the time limit: on a neighbourhood
# sub-MIP of 7,000 rows (28,577 rows and 228 columns after the other reductions) it ran 37 s of a 10 s limit
# (HPresolve::enumerateSolutions, seen with py-spy); without it the same solve stops at 10.1 s with a dual
# bound of 692 (700 the incumbent), and in 30 s improves it to 696.


def to_highs_lp(model: Model) -> "highspy.HighsLp":
    """The model as a ``HighsLp`` (minimise, objective offset = ``obj_const``).

    The arrays go through ``Highs.passModel``'s array overload, which copies numpy
    buffers in C++ (assigning them to ``HighsLp`` fields converts element by element:
    ~4x slower on millions of non-zeros); ``getLp`` then hands the model back.
    """
    h = new_highs()
    pass_arrays(h, model.A, model.obj, model.lb, model.ub, np.where(model.sense == "L", -np.inf, model.rhs),
                np.where(model.sense == "G", np.inf, model.rhs), integer=model.integer, offset=model.obj_const)
    return h.getLp()


def pass_arrays(h: "highspy.Highs", A, cost, lower, upper, row_lower, row_upper, *, integer=None,
                offset: float = 0.0) -> None:
    """``min cost x + offset`` s.t. ``row_lower <= A x <= row_upper``, ``lower <= x <= upper``
    (``integer``: a mask of the integer columns; None: none) into ``h``, through ``passModel``'s
    array overload (see :func:`to_highs_lp`); infinite bounds become HiGHS's.  ``A``: a scipy
    sparse matrix or a dense array; ``lower``/``upper`` may be scalars."""
    inf = highspy.kHighsInf
    A = sp.csc_matrix(A)
    if not A.has_sorted_indices:
        A = A.copy()
        A.sort_indices()
    n_row, n_col = A.shape
    i32 = lambda a: np.ascontiguousarray(a, dtype=np.int32)  # noqa: E731 - HighsInt
    f64 = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731

    def bound(a, n: int) -> np.ndarray:  # n entries, HiGHS's infinity for an infinite one
        a = np.broadcast_to(np.asarray(a, float), (n,))
        return f64(np.where(a == np.inf, inf, np.where(a == -np.inf, -inf, a)))
    kind = (np.full(n_col, int(highspy.HighsVarType.kContinuous)) if integer is None else
            np.where(integer, int(highspy.HighsVarType.kInteger), int(highspy.HighsVarType.kContinuous)))
    status = h.passModel(
        int(n_col), int(n_row), int(A.nnz), int(highspy.MatrixFormat.kColwise), int(highspy.ObjSense.kMinimize),
        float(offset), f64(cost), bound(lower, n_col), bound(upper, n_col), bound(row_lower, n_row),
        bound(row_upper, n_row), i32(A.indptr), i32(A.indices), f64(A.data), i32(kind))
    if status == highspy.HighsStatus.kError:
        raise ValueError("HiGHS refused the model's arrays")


class HighsDriver(Driver):
    name = "highs"
    title = "HiGHS"
    start_format = 'highs'  # the start file it reads (annc.io.writers.startfiles)
    in_memory = in_process = mip_start = progress = interrupt = stall = True
    parameters = {"time_limit": "time_limit", "gap": "mip_rel_gap", "threads": "threads", "node_limit": "mip_max_nodes"}

    def highs_options(self, opts: SolveOptions) -> list[tuple[str, object]]:
        """What :meth:`solve` sets, in order: under a time limit :data:`ENUMERATION_OFF` first, then
        :meth:`settings` (a native ``presolve_rule_off`` of the user's, set later, wins)."""
        return ([ENUMERATION_OFF] if opts.time_limit is not None else []) + self.settings(opts)

    def solve(self, model: Model, opts: SolveOptions) -> SolveResult:
        check_threads(opts.threads)  # HiGHS aborts the process on an absurd thread count: never pass one
        h = new_highs()
        for name, value in self.highs_options(opts):
            if h.setOptionValue(name, value) == highspy.HighsStatus.kError:
                raise UsageError(f"HiGHS refuses {name} = {value!r}")
        h.passModel(to_highs_lp(model))
        if opts.start is not None:
            start = highspy.HighsSolution()
            start.col_value = list(map(float, opts.start))
            start.value_valid = True
            h.setSolution(start)

        clock, stop = Clock(), threading.Event()
        last = [None, None, -BOUND_EVERY]  # incumbent, bound, when reported
        root = []  # the dual bound when the root node is done (first report with a node count)
        stall = stall_of(opts)

        def report(e):
            out = e.data_out
            inc = out.mip_primal_bound if abs(out.mip_primal_bound) < 1e50 else None
            bnd = out.mip_dual_bound if abs(out.mip_dual_bound) < 1e50 else None
            if not root and out.mip_node_count >= 1 and bnd is not None:
                root.append(bnd)
            now = clock()
            # every new incumbent; a moved bound alone at most every BOUND_EVERY seconds (the two
            # callbacks report one incumbent in turn, its last digits re-evaluated: not a new one)
            if opts.progress and (moved(inc, last[0]) or (moved(bnd, last[1]) and now - last[2] >= BOUND_EVERY)):
                last[:] = [inc, bnd, now]
                opts.progress(Progress(now, inc, bnd))

        def poll(e):
            if stop.is_set():
                e.interrupt()

        def poll_mip(e):  # polled through the search: the bound's moves between log lines
            poll(e)
            report(e)
            out = e.data_out
            if stall.update(out.mip_node_count, out.mip_primal_bound if abs(out.mip_primal_bound) < 1e50 else None,
                            out.mip_dual_bound if abs(out.mip_dual_bound) < 1e50 else None):
                e.interrupt()

        h.cbMipLogging.subscribe(report)
        h.cbMipImprovingSolution.subscribe(report)
        # HiGHS polls these during the MIP search and during the LPs (the root LP of a big
        # model can take long): a Ctrl-C is honoured wherever the solver is.
        h.cbMipInterrupt.subscribe(poll_mip)
        for cb in (h.cbSimplexInterrupt, h.cbIpmInterrupt):
            cb.subscribe(poll)
        intr = interrupt_of(opts)
        # h.run() releases the GIL and runs in a worker thread, so the main thread stays
        # free to run the Python SIGINT handler, which only sets the event HiGHS polls.
        intr.on_interrupt = stop.set
        failed: list[BaseException] = []

        def run() -> None:
            try:
                with scheduler.lease(opts.threads):  # threads is set above; see highs_scheduler
                    h.run()
            except BaseException as e:  # noqa: BLE001 - re-raised in the calling thread below
                failed.append(e)

        thread = threading.Thread(target=run, name="highs", daemon=True)
        try:
            with intr.armed():
                if intr.requested:  # Ctrl-C before the solve started
                    stop.set()
                thread.start()
                while thread.is_alive():
                    thread.join(0.1)
        except BaseException:  # a second Ctrl-C: let HiGHS stop before the interpreter unwinds
            stop.set()
            thread.join(10)
            raise
        finally:
            intr.on_interrupt = None
        if failed:  # not "no solution within the time limit": say what happened
            raise failed[0]

        status = h.getModelStatus()
        info = h.getInfo()
        MS = highspy.HighsModelStatus
        has = info.primal_solution_status == 2  # kSolutionStatusFeasible
        obj = info.objective_function_value if has else None
        bound = info.mip_dual_bound if abs(info.mip_dual_bound) < 1e50 else None
        if not model.integer.any() and status == MS.kOptimal and obj is not None:
            bound = obj  # an LP (no integer column): HiGHS leaves mip_dual_bound at 0; the optimum is its bound
        stalled = stall.fired and not intr.requested and status == MS.kInterrupt
        interrupted = intr.requested or (status == MS.kInterrupt and not stalled)
        st, text = verdict(status == MS.kOptimal, has, obj, bound,
                           "interrupted" if interrupted else stall.reason() if stalled
                           else h.modelStatusToString(status).lower(),
                           # annc's models box every column that the objective could push
                           # to infinity, so "unbounded or infeasible" can only be infeasible
                           infeasible=status in (MS.kInfeasible, MS.kUnboundedOrInfeasible),
                           unbounded=status == MS.kUnbounded)
        x = np.asarray(h.getSolution().col_value, dtype=float) if has else None
        extra = {"nodes": int(info.mip_node_count), "root_bound": root[0] if root else bound, "stall": stall.record()}
        if stalled:  # the stall rule, or annc's bound met (stall.proven)
            extra["stalled"] = stall.reason()
        return SolveResult(self.name, st, text, obj, bound, x, clock(), interrupted, extra)
