"""CPLEX through its Python package (see :mod:`.apis` for what the package drivers share).

Progress comes from a MIP information callback; CPLEX's own SIGINT handler stops it
with an "aborted" status while it runs, and annc's Ctrl-C handler uses its aborter.
A parameter name such as ``mip.tolerances.mipgap`` is the path below ``parameters``.
"""
from __future__ import annotations

from functools import reduce

from ...core.model import Model
from .apis import PackageDriver, Reporter, by_name, finite
from .base import Clock, Interrupt, SolveOptions, SolveResult, verdict


class CplexDriver(PackageDriver):
    name = "cplex"
    title = "CPLEX"
    start_format = 'cplex-mst'  # the start file it reads (annc.io.writers.startfiles)
    parameters = {"time_limit": "timelimit", "gap": "mip.tolerances.mipgap", "threads": "threads",
                  "node_limit": "mip.limits.nodes"}
    licence = "the Community Edition (the pip package) allows 1,000 variables and 1,000 constraints"
    SIZE_LIMIT = 1016  # CPXERR_RESTRICTED_VERSION: "Community Edition. Problem size limits exceeded"

    def size_limited(self, cplex, error: Exception) -> bool:
        return isinstance(error, cplex.exceptions.CplexError) and self.SIZE_LIMIT in getattr(error, "args", ())[2:3]

    def load(self, cplex, path: str):
        c = cplex.Cplex()
        for stream in (c.set_log_stream, c.set_results_stream, c.set_warning_stream, c.set_error_stream):
            stream(None)
        c.read(path)
        return c

    def set_parameter(self, c, name: str, value) -> None:
        reduce(getattr, name.split("."), c.parameters).set(value)

    def add_start(self, cplex, c, start: dict) -> None:
        names = c.variables.get_names()
        c.MIP_starts.add(cplex.SparsePair(ind=names, val=[start.get(n, 0.0) for n in names]),
                         c.MIP_starts.effort_level.check_feasibility)

    def run(self, cplex, c, model: Model, opts: SolveOptions, intr: Interrupt) -> SolveResult:
        clock = Clock()
        report = Reporter(opts, clock)
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
        bound = finite(s.MIP.get_best_objective()) if has else None
        x = by_name(model, dict(zip(c.variables.get_names(), s.get_values()))) if has else None
        sc = s.status
        text = s.get_status_string()
        interrupted = "abort" in text.lower() or intr.requested
        intr.requested = intr.requested or interrupted
        status, text = verdict(code in (sc.MIP_optimal, sc.optimal), has, obj, bound,
                               "interrupted" if interrupted else text,
                               infeasible=code in (sc.MIP_infeasible, sc.infeasible, sc.MIP_infeasible_or_unbounded),
                               unbounded=code in (sc.MIP_unbounded, sc.unbounded))
        c.end()
        return SolveResult(self.name, status, text, obj, bound, x, clock(), interrupted)
