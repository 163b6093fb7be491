"""What the drivers that use a solver's Python package share (SCIP, Gurobi, CPLEX and
Xpress: :mod:`.scip`, :mod:`.gurobi`, :mod:`.cplex`, :mod:`.xpress`).

Each reads the model as the MPS file annc writes (so it solves exactly what a user of
that solver would), takes ``SolveOptions.start`` as a MIP start (by column name), maps
its values back by column name, and handles Ctrl-C itself:
SCIP, Gurobi, CPLEX and Xpress each install their own SIGINT handler while they
solve and stop with their incumbent; annc reads the "interrupted" status back (and
records it in the shared :class:`~annc.solve.solvers.base.Interrupt`, so that greedy
training stops too).  Progress is reported on every improved incumbent, and on bound
changes at most once a second.
"""
from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import ClassVar

import numpy as np

from ...core.errors import EnvironmentLimitError, UsageError
from ...core.model import Model
from ...io.solutions import Status
from ...io.writers import write_model
from .base import BOUND_EVERY, Clock, Interrupt, Progress, SolveOptions, SolveResult, interrupt_of, moved
from .driver import Driver


class PackageDriver(Driver):
    """A solver through its Python package (``module``, imported when first used).

    :meth:`solve` is the same for every such solver: it loads annc's MPS file
    (:meth:`load`), sets the options (:meth:`set_parameter`, over the one option table),
    passes the MIP start by column name (:meth:`add_start`), then :meth:`run` solves and
    reads the result.  A subclass implements those four steps."""

    in_process = mip_start = progress = interrupt = True
    module: ClassVar[str] = ""  # the package to import (and to pip install); default: the name
    licence: ClassVar[str] = ""  # the size limit of the free licence pip installs, in words

    def solve(self, model: Model, opts: SolveOptions) -> SolveResult:
        lib = need(self.module or self.name)
        intr = interrupt_of(opts)
        if intr.requested:  # Ctrl-C before the solve started: do not start it
            return not_started(self.name)
        with mps_file(model, opts) as path:
            problem = self.load(lib, str(path))
        for name, value in self.settings(opts):
            try:
                self.set_parameter(problem, name, value)
            except Exception as e:  # noqa: BLE001 - an unknown name or a wrong value of the user's
                raise UsageError(f"{self.title} refuses {name} = {value!r}: {str(e).strip() or type(e).__name__}") \
                    from None
        start = start_values(model, opts)
        if start is not None:
            self.add_start(lib, problem, start)
        try:
            return self.run(lib, problem, model, opts, intr)
        except Exception as e:  # noqa: BLE001 - a size limit becomes annc's own error; the rest is re-raised
            if not self.size_limited(lib, e):
                raise
            raise EnvironmentLimitError(
                f"{self.title} refuses this model for its size ({model.num_cols:,} columns, {model.num_rows:,} rows): "
                f"{self.licence or 'a size-limited licence'}; use --solver highs (bundled, no size limit) "
                "or a full licence") from None

    def size_limited(self, lib: ModuleType, error: Exception) -> bool:
        """Whether ``error``, raised by the solve, is the solver refusing the model for its
        size (a size-limited licence); such an error is an environment limit, not a bug."""
        return False

    def load(self, lib: ModuleType, path: str):
        """The solver's problem object, read from the MPS file at ``path``, silenced."""
        raise NotImplementedError

    def set_parameter(self, problem, name: str, value) -> None:
        """Set the solver's parameter ``name`` (from :attr:`parameters`) to ``value``
        (by default with ``setParam``, as SCIP's and Gurobi's models take it)."""
        problem.setParam(name, value)

    def add_start(self, lib: ModuleType, problem, start: dict) -> None:
        """Pass the MIP start ``start`` (values by column name; 0 for a name left out)."""
        raise NotImplementedError

    def run(self, lib: ModuleType, problem, model: Model, opts: SolveOptions, intr: Interrupt) -> SolveResult:
        """Solve ``problem``, reporting progress and honouring ``intr`` (the shared Ctrl-C
        state), and read the result back in ``model``'s column order."""
        raise NotImplementedError


@contextmanager
def mps_file(model: Model, opts: SolveOptions):
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


def need(module: str):
    """The solver's Python module, imported when first used; a missing package is a
    clear :class:`~annc.core.errors.AnncError`, not an ``ImportError``."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise EnvironmentLimitError(f"solver package {module} is not installed (pip install {module}), "
                                    "or use --solver highs (bundled)") from None


def by_name(model: Model, values: dict) -> np.ndarray:
    """The solver's values by column name as a vector in the model's column order."""
    return np.array([values.get(n, 0.0) for n in model.col_names()], dtype=float)


def start_values(model: Model, opts: SolveOptions) -> dict | None:
    """The MIP start ``opts.start`` by column name (None without one)."""
    if opts.start is None:
        return None
    return dict(zip(model.col_names(), map(float, opts.start)))


def finite(v) -> float | None:
    """``v`` as a float, or None for the huge values solvers use for "no value"."""
    return float(v) if v is not None and abs(v) < 1e20 else None


class Reporter:
    """Calls ``opts.progress`` when the incumbent changes, or the bound (rate-limited)."""

    def __init__(self, opts: SolveOptions, clock: Clock):
        self.opts, self.clock, self.last, self.when = opts, clock, (None, None), -1e9

    def __call__(self, incumbent, bound) -> None:
        if not self.opts.progress:
            return
        now = (finite(incumbent), finite(bound))
        if not moved(now[0], self.last[0]) and not moved(now[1], self.last[1]):
            return
        if not moved(now[0], self.last[0]) and self.clock() - self.when < BOUND_EVERY:
            return
        self.last, self.when = now, self.clock()
        self.opts.progress(Progress(self.when, *now))


def not_started(name: str) -> SolveResult:
    """The result of a solve that a Ctrl-C (before it began) kept from starting."""
    return SolveResult(name, Status.NO_SOLUTION, "interrupted before the solve started", interrupted=True)
