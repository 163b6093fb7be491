"""One training request: what ``annc train``, ``annc.train`` and ``MIPNetClassifier.fit`` ask for.

The command line (:mod:`annc.app.cli_train`), the Python API (:func:`annc.app.api.train_request`)
and the scikit-learn estimator each build a :class:`TrainRequest`; :meth:`TrainRequest.checked`
validates it, once, with one set of messages (each names the option and the keyword:
``--per-class`` / ``per_class``), before anything is written; :func:`annc.training.dispatch.run`
then trains it in one of the five modes of :data:`MODES`:

* ``full``: one MIP for the whole network (:func:`annc.training.trainer.fit`);
* ``greedy``: one MIP per hidden layer (``--greedy`` or ``training greedy``);
* ``select``: first choose the spec among candidates by held-out accuracy
  (:mod:`annc.training.modelselect.selection`), then train the chosen one on all the data;
  ``select`` None (the default) lets :func:`annc.training.dispatch.run` choose what the spec
  leaves open by cross-validation where :func:`annc.training.modelselect.cvselect.applies` (real data), and
  ``select=False`` (``--no-select``) trains the spec's defaults as written;
* ``ovo`` and ``batches``: decompositions, each sub-MIP a Dask task (:mod:`annc.training.decompose.decomposition`).

Errors are annc's own: :class:`~annc.core.errors.UsageError` for options (exit 2),
:class:`~annc.core.errors.DataError` for data that do not fit the spec (exit 2).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..core.errors import UsageError
from ..core.log import silent
from ..core.rowweights import check_class_weight, with_weights
from ..io.data import Dataset
from ..io.datacheck import check_against_spec, inputs_line, resolve_inputs
from ..io.outputs import check_out_dir
from ..io.spec import NetworkSpec
from ..solve.compiler import check_name
from ..solve.solvers import DEFAULT, SOLVERS, SolveOptions
from ..solve.solvers.base import Interrupt
from ..solve.solvers.driver import Driver
from .large.executor import check_scheduler, check_workers

if TYPE_CHECKING:  # both import scikit-learn, which annc.compile does not
    from .large.compress import LargeData
    from .mip.job import SolverSetup

MODES = ("full", "greedy", "select", "ovo", "batches")
DECOMPOSED = ("ovo", "batches")


def mode_of(spec: NetworkSpec, *, ensemble: str | None = None, batches: int | None = None,
            select=False, greedy: bool | None = None) -> str:
    """The training mode (one of :data:`MODES`) that these settings ask for."""
    if ensemble == "ovo" or (batches is None and spec.training == "ovo"):
        return "ovo"
    if batches is not None or spec.training == "batches":
        return "batches"
    if select is not False and select is not None:
        return "select"
    greedy = spec.training == "greedy" if greedy is None else greedy
    return "greedy" if greedy and spec.hidden else "full"


def default_stem(spec: NetworkSpec) -> str:
    """The name of a run's files when none is given: the spec file's stem."""
    return Path(spec.source).stem.strip("<>").replace(" ", "_") or "net"


def check_solver_cmd(template) -> str:
    """A ``--solver-cmd`` template: text with both ``{model}`` and ``{sol}``."""
    if not isinstance(template, str) or "{model}" not in template or "{sol}" not in template:
        raise UsageError("--solver-cmd (solver_cmd) needs both {model} and {sol} in its template, e.g. "
                         "'gurobi_cl ResultFile={sol} {model}'")
    return template


def check_solver(solver: str, opts: SolveOptions) -> None:
    """A solver annc drives, or ``"cmd"`` with its command template in ``opts.command``."""
    if solver not in SOLVERS:
        raise UsageError(f"unknown solver {solver!r}: choose one of "
                         + ", ".join(s for s in SOLVERS if s != "cmd") + " (or a solver command)")
    if solver == "cmd":
        check_solver_cmd(opts.command)
        if opts.native:
            raise UsageError("--solver-option does not reach a solver command: write its options in "
                             "--solver-cmd's template")


def check_train_args(spec: NetworkSpec, data: Dataset, test: Dataset | None, *, solver: str,
                     opts: SolveOptions, stem: str, out_dir) -> SolveOptions:
    """Everything a training run checks of its solver, files and data before it writes
    anything: the solver, the options (returned checked), the name of the files, the data
    and the test data against the spec, and the output folder."""
    check_solver(solver, opts)
    opts = opts.checked()
    check_name(stem)
    check_against_spec(spec, data)
    if test is not None:
        check_against_spec(spec, test)  # the test CSV's width (its classes are the data's)
    if out_dir is not None:
        check_out_dir(out_dir)
    return opts


def check_per_class(per_class) -> int | None:
    """``--per-class``: None or a whole number >= 1."""
    if per_class is not None and (isinstance(per_class, bool) or not isinstance(per_class, int) or per_class < 1):
        raise UsageError(f"per_class (--per-class) must be a whole number >= 1, not {per_class!r}")
    return per_class


def check_batches(K) -> int:
    """The number of batches: a whole number >= 2."""
    if isinstance(K, bool) or not isinstance(K, int) or K < 2:
        raise UsageError(f"batches must be a whole number >= 2, not {K!r}")
    return K


def _check_flags(**flags) -> None:
    for what, value in flags.items():
        if value is not None and not isinstance(value, (bool, np.bool_)):
            raise UsageError(f"{what} must be True or False, not {value!r}")


@dataclass
class TrainRequest:
    """Everything one training run needs; see the module docstring.  ``solver`` None is
    :data:`annc.solve.solvers.DEFAULT`; ``solver_cmd`` (a command template) makes it ``"cmd"``."""

    spec: NetworkSpec
    data: Dataset
    test: Dataset | None = None
    solver: str | None = None
    solver_cmd: str | None = None
    opts: SolveOptions | None = None
    out_dir: str | Path | None = "out"
    stem: str | None = None
    merge: bool = True
    greedy: bool | None = None
    warm_start: bool = True
    max_nonzeros: int | None = None
    refine: bool = True
    select: object = None  # None: cross-validation where it applies; False: never;
    # a Strategy (annc.training.modelselect.strategy) with its own policy
    select_fraction: float = 0.25
    select_seed: int = 0
    ensemble: str | None = None
    batches: int | None = None
    per_class: int | None = None
    workers: int | None = None
    scheduler: str | None = None
    class_weight: str | dict | None = None  # "balanced", label -> weight, None (annc.core.rowweights)
    sample_weight: np.ndarray | None = None  # one weight per sample of ``data`` (the estimator's fit)
    log: Callable = field(default=silent, repr=False)
    started: float | None = None  # the clock's reading when the user's command began (annc.app.cli.main): the
    # time limit counts from then (annc.training.dispatch); None: from when training starts
    driver: Driver | None = field(default=None, repr=False)  # the solver's driver, resolved once by checked()
    large: LargeData | None = None  # where the large-data path begins and how far it compresses (None: its defaults)
    setup: SolverSetup | None = None  # the solver's setup time a budget must leave (None: its defaults)
    start: tuple | None = field(default=None, repr=False)  # (name, (weights, biases) on the raw inputs): a
    # candidate of the start pool, as model selection's network is (a decomposition's member: its separator)

    @property
    def mode(self) -> str:
        """One of :data:`MODES`."""
        return mode_of(self.spec, ensemble=self.ensemble, batches=self.batches, select=self.select,
                       greedy=self.greedy)

    def checked(self) -> TrainRequest:
        """A checked copy (the caller's options stay as they were): every option, their
        combinations, the solver and its options, the file name, the data and the test data
        against the spec (not for ovo and batches, whose MIPs see other outputs), the output
        folder.  The one place these are checked, the time limit among them; the solver is resolved
        to its driver here, once (``driver``)."""
        if self.ensemble not in (None, "ovo"):
            raise UsageError(f"ensemble (--ensemble) must be 'ovo' or None, not {self.ensemble!r}")
        if self.solver_cmd is not None and self.solver not in (None, "cmd"):
            raise UsageError("give either --solver or --solver-cmd (solver or solver_cmd), not both")
        if self.solver is not None and not isinstance(self.solver, str):
            raise UsageError(f"solver must be a solver's name, not {type(self.solver).__name__} {self.solver!r}")
        _check_flags(greedy=self.greedy, merge=self.merge, warm_start=self.warm_start, refine=self.refine)
        opts = replace(self.opts) if self.opts is not None else SolveOptions()
        if opts.progress is not None and not callable(opts.progress):
            raise UsageError(f"progress must be a callable, not {type(opts.progress).__name__}")
        solver = "cmd" if self.solver_cmd is not None else (self.solver or DEFAULT)
        if self.solver_cmd is not None:
            opts.command = self.solver_cmd
        mode = self.mode
        if self.spec.max_weights is not None and (mode == "greedy" or mode in DECOMPOSED):
            raise UsageError(f"max_weights {self.spec.max_weights} bounds the weights of one MIP's network; {mode} "
                             "training solves several MIPs (one per layer, pair or batch), whose networks together "
                             "could have more: train it as one MIP (training full), or drop max_weights")
        if mode in DECOMPOSED:
            self._check_decomposed(mode, solver)
        else:
            if self.per_class is not None:
                raise UsageError("--per-class applies to ovo training: add --ensemble ovo (ensemble='ovo'), "
                                 "or 'training ovo' to the spec")
            # full and greedy training take workers and scheduler too: the large-data path of each
            # MIP runs its clustering and annealed seeds on them (annc.training.large.largedata)
            from .modelselect.strategy import Strategy  # here: compiling imports no selection (nor scikit-learn)
            if mode == "select" and self.select is not True and not isinstance(self.select, (dict, Strategy)):
                raise UsageError(f"select must be True, False or a grid dict, not {self.select!r}")
        workers, scheduler = check_workers(self.workers), check_scheduler(self.scheduler)
        stem = default_stem(self.spec) if self.stem is None else self.stem
        spec = self.spec
        data = self._weighted(mode)
        if mode in DECOMPOSED:
            opts = self._check_files(solver, opts, stem)
            spec = self._resolved()
        else:
            spec = self._resolved()
            opts = check_train_args(spec, self.data, self.test, solver=solver, opts=opts, stem=stem,
                                    out_dir=self.out_dir)
            if opts.interrupt is None:
                opts.interrupt = Interrupt(log=self.log)  # the first Ctrl-C says what it does
        return replace(self, spec=spec, data=data, solver=solver, solver_cmd=None, opts=opts, stem=stem,
                       workers=workers, scheduler=scheduler, driver=SOLVERS[solver])

    def _weighted(self, mode: str) -> Dataset:
        """The data with each sample's weight (class weight x sample weight,
        :mod:`annc.core.rowweights`) attached; the data as they are without weights."""
        check_class_weight(self.class_weight)
        if self.class_weight is None and self.sample_weight is None:
            return self.data
        if mode in DECOMPOSED:
            raise UsageError(f"class_weight (--class-weight) and sample_weight apply to one MIP's objective; "
                             f"{mode} training solves several on other labels: train it as one MIP")
        if not isinstance(self.data, Dataset):
            raise UsageError(f"data must be a Dataset, not {type(self.data).__name__}")
        return with_weights(self.data, self.class_weight, self.sample_weight)

    def _resolved(self) -> NetworkSpec:
        """The spec with ``input auto`` made the data's width (:func:`annc.io.datacheck.resolve_inputs`),
        saying so, and what was done with missing cells, in the run's log."""
        if not isinstance(self.data, Dataset):
            raise UsageError(f"data must be a Dataset, not {type(self.data).__name__}")
        if self.spec.inputs is None:
            self.log(f"input {inputs_line(self.data)}")
        for d in (self.data, self.test):
            if isinstance(d, Dataset) and d.missing_note:
                self.log(d.missing_note)
        return resolve_inputs(self.spec, self.data)

    def _check_decomposed(self, mode: str, solver: str) -> None:
        if self.ensemble and self.batches is not None:
            raise UsageError("give either --ensemble ovo or --batches K (ensemble='ovo' or batches=K), not both")
        if mode == "batches" and self.per_class is not None:
            raise UsageError("--per-class applies to --ensemble ovo (per_class to ensemble='ovo')")
        other = [f for f, v in (("--greedy", self.greedy), ("--select", self.select),
                                ("--solver-cmd", solver == "cmd"), ("--max-nonzeros", self.max_nonzeros)) if v]
        if other:
            raise UsageError(f"{', '.join(other)} cannot be combined with {mode} training")
        check_per_class(self.per_class)
        if mode == "batches":
            check_batches(self.spec.batches if self.batches is None else self.batches)

    def _check_files(self, solver: str, opts: SolveOptions, stem: str) -> SolveOptions:
        """ovo and batches: the solver, its options, the file name, the output folder."""
        if not isinstance(self.spec, NetworkSpec) or not isinstance(self.data, Dataset):
            raise UsageError("ovo and batch training take a NetworkSpec and a Dataset")
        check_solver(solver, opts)
        check_name(stem)
        if self.out_dir is not None:
            check_out_dir(self.out_dir)
        return opts.checked()
