"""What a solver driver is: a name, the capabilities it declares, its parameter names
for annc's options, and ``solve(model, opts)``.

As linopy's solver classes do, each driver says what it can do, so that callers ask
the driver instead of keeping their own lists of solver names:

=============  =================================================================
``in_memory``  takes the model's arrays directly (no model file is written)
``in_process`` solves in this process (HiGHS; the Python packages, through a temporary MPS
               file), not as a program run on files
``mip_start``  honours ``SolveOptions.start`` (a feasible point to start from)
``progress``   calls ``SolveOptions.progress`` while it solves
``interrupt``  a first Ctrl-C stops it *with* its incumbent (else the run stops
               without a solution from this solver)
``stall``      sees its solver's node count, incumbent and bound while it solves, and
               applies the stall rule (``SolveOptions.stall_checks``, :mod:`.stall`); the
               others ignore the rule, and never report a stall
=============  =================================================================

A driver that solves in process, takes a MIP start and has a node limit **serves annc's own
sub-MIPs** (:attr:`Driver.sub_mips`: the start pool's output layers, the neighbourhoods, the
bounds' subsets), so ``annc train --solver scip`` runs them all on SCIP; the others (CBC and
GLPK as programs, ``cmd``) leave them to HiGHS, and the verdict says so.

**Native options.**  ``SolveOptions.native`` (``--solver-option NAME=VALUE``) passes the
solver's own parameters through, as linopy's ``solver_options`` do: :meth:`Driver.settings`
appends them after annc's, each name prefixed by :attr:`Driver.native_prefix` (``-`` for
CBC's command line, ``--`` for GLPK's).

**One option table.**  :data:`OPTIONS` lists annc's solver settings (attributes of
:class:`~annc.solve.solvers.base.SolveOptions`) and their types.  A driver maps them to its
solver's own parameter names in ``parameters`` (an option it leaves out is not passed:
GLPK has no thread count) and, where the solver wants another unit, converts the value
in ``conversions``; :meth:`Driver.settings` is the one loop over that table.

``start_format`` names the MIP start file the solver reads (a ``format`` of
:data:`annc.io.writers.startfiles.START_FILES`; None for none), which ``annc compile``
writes beside the model and names the driver's ``title`` as its reader.

A new solver is one module with a :class:`Driver` subclass, plus one line in the
registry (:data:`annc.solve.solvers.SOLVERS`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from ...core.deadline import Deadline
from ...core.model import Model
from .base import SolveOptions, SolveResult

OPTIONS: Mapping[str, Callable] = {
    "time_limit": float,  # seconds per solve (wall clock)
    "gap": float,  # relative gap at which to stop
    "threads": int,  # solver threads
    "node_limit": int,  # branch-and-bound nodes per solve (a work limit, unlike time_limit: the same
    # on any machine); GLPK has none
}


@dataclass(frozen=True)
class SolveInputs:
    """What one solve is given beside the user's settings (:class:`SolveOptions`): a MIP start, annc's
    bound as a stop, the model's file already written and where to work, a work limit, the progress
    callback and the stall rule's length.  The time limit is neither: the driver takes it from the run's
    budget (:meth:`annc.solve.solvers.driver.Driver.solve_within`)."""

    start: "np.ndarray | None" = None
    stop_at: float | None = None
    model_file: str | None = None
    workdir: str | None = None
    node_limit: int | None = None
    progress: Callable[["Progress"], None] | None = None  # None: the settings' own
    stall_checks: int | None = None

    def into(self, settings: SolveOptions) -> SolveOptions:
        """``settings`` with these inputs set (the progress callback kept where none is given)."""
        return replace(settings, start=self.start, stop_at=self.stop_at, model_file=self.model_file,
                       workdir=self.workdir, node_limit=self.node_limit, stall_checks=self.stall_checks,
                       progress=self.progress if self.progress is not None else settings.progress)


class Driver:
    """A solver driver; subclasses set the class attributes and implement :meth:`solve`."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""  # the solver's name in messages ("HiGHS")
    start_format: ClassVar[str | None] = None  # the start file (annc.io.writers.startfiles) the solver reads, if any
    in_memory: ClassVar[bool] = False
    in_process: ClassVar[bool] = False
    mip_start: ClassVar[bool] = False
    progress: ClassVar[bool] = False
    interrupt: ClassVar[bool] = False
    stall: ClassVar[bool] = False
    parameters: ClassVar[Mapping[str, str]] = {}  # option of OPTIONS -> the solver's parameter name
    conversions: ClassVar[Mapping[str, Callable]] = {}  # option -> value in the solver's unit
    native_prefix: ClassVar[str] = ""  # put before a native option's name ("-" for CBC's command line)

    @property
    def sub_mips(self) -> bool:
        """Whether it serves annc's own sub-MIPs: in process, with a MIP start and a node limit."""
        return self.in_process and self.mip_start and "node_limit" in self.parameters

    def settings(self, opts: SolveOptions) -> list[tuple[str, object]]:
        """``(parameter name, value)`` for each option of :data:`OPTIONS` that ``opts``
        sets and this solver takes, in the table's order, the value in the solver's unit;
        then the native options (module docstring)."""
        out = []
        for option, kind in OPTIONS.items():
            value = getattr(opts, option)
            if value is not None and option in self.parameters:
                out.append((self.parameters[option], self.conversions.get(option, kind)(value)))
        out += [(self.native_prefix + name if not name.startswith(self.native_prefix) else name, value)
                for name, value in opts.native]
        return out

    def solve_within(self, model: Model, settings: SolveOptions, inputs: SolveInputs = SolveInputs(),
            budget: Deadline | None = None) -> SolveResult:
        """Solve ``model`` with the user's ``settings`` and this solve's ``inputs`` within ``budget`` (a
        training run's deadline; None: no limit): the one place a run's time becomes a solver's time
        limit (what is left of ``budget``, :meth:`~annc.core.deadline.Deadline.cap`)."""
        limit = None if budget is None else budget.cap()
        return self.solve(model, replace(inputs.into(settings), time_limit=limit))

    def solve(self, model: Model, opts: SolveOptions) -> SolveResult:
        """Solve ``model``; the result's ``x`` is in the model's column order."""
        raise NotImplementedError

    def __repr__(self) -> str:
        able = [c for c in ("in_memory", "in_process", "mip_start", "progress", "interrupt", "stall")
                if getattr(self, c)]
        return f"<{type(self).__name__} {self.name!r}: {', '.join(able) or 'no capabilities'}>"
