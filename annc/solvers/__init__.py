"""Solver drivers by name; each takes a Model and SolveOptions and returns a SolveResult."""
from __future__ import annotations

from ..errors import AnncError
from ..model import Model
from .apis import solve_cplex, solve_gurobi, solve_scip, solve_xpress
from .base import Progress, SolveOptions, SolveResult
from .external import solve_cbc, solve_command, solve_glpk
from .highs import solve as solve_highs

SOLVERS = {
    "highs": solve_highs, "cbc": solve_cbc, "scip": solve_scip, "glpk": solve_glpk,
    "gurobi": solve_gurobi, "cplex": solve_cplex, "xpress": solve_xpress, "cmd": solve_command,
}
DEFAULT = "highs"


def solve(model: Model, solver: str = DEFAULT, opts: SolveOptions | None = None) -> SolveResult:
    if solver not in SOLVERS:
        raise AnncError(f"unknown solver {solver!r}; choose one of {', '.join(SOLVERS)}")
    return SOLVERS[solver](model, opts or SolveOptions())


__all__ = ["SOLVERS", "DEFAULT", "solve", "SolveOptions", "SolveResult", "Progress"]
