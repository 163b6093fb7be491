"""Solver drivers by name.

Each driver (:class:`~annc.solve.solvers.driver.Driver`) declares what it can do (``in_memory``,
``mip_start``, ``progress``, ``interrupt``) and maps annc's options to its solver's
parameter names; ``driver.solve(model, opts)`` returns a :class:`SolveResult` whose ``x``
is in the model's column order.  A new solver is one driver module plus one entry in
:data:`SOLVERS`.
"""
from __future__ import annotations

from ...core.errors import AnncError
from ...core.model import Model
from .base import Progress, SolveOptions, SolveResult
from .cbc import CbcDriver
from .command import CommandDriver
from .cplex import CplexDriver
from .driver import Driver
from .glpk import GlpkDriver
from .gurobi import GurobiDriver
from .highs import HighsDriver
from .scip import ScipDriver
from .xpress import XpressDriver

SOLVERS: dict[str, Driver] = {d.name: d for d in (
    HighsDriver(), CbcDriver(), ScipDriver(), GlpkDriver(), GurobiDriver(), CplexDriver(), XpressDriver(),
    CommandDriver(),
)}
DEFAULT = "highs"


def get_driver(solver: str) -> Driver:
    """The driver named ``solver``; :class:`~annc.core.errors.AnncError` for an unknown name."""
    if solver not in SOLVERS:
        raise AnncError(f"unknown solver {solver!r}; choose one of {', '.join(SOLVERS)}")
    return SOLVERS[solver]


def solve(model: Model, solver: str = DEFAULT, opts: SolveOptions | None = None) -> SolveResult:
    """Solve ``model`` with the driver named ``solver``."""
    return get_driver(solver).solve(model, opts or SolveOptions())


__all__ = ["SOLVERS", "DEFAULT", "Driver", "get_driver", "solve", "SolveOptions", "SolveResult", "Progress"]
