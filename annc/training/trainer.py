"""``annc train``: compile, solve, decode and verify in one go; greedy layer-wise training.

Full training solves one MIP for the whole network.  Greedy training (the paper's
Algorithms 1 and 2) solves one MIP per hidden layer: layer ``l`` plus a throw-away
output layer, trained on the forward pass of the decoded layers before it (standard
semantics, not the solver's rounded variables).  When the last hidden layer is ReLU
the output layer is then retrained by the exact output-layer-only MIP (Algorithm 2);
otherwise the output layer of the last MIP is kept (Algorithm 1).  Time limits apply
to each MIP.  The chain of MIPs is :mod:`annc.training.mip.chain` (which ``annc experiment`` uses
too); each MIP is run by :func:`annc.training.mip.runner.run_mip`, as named stages
(:mod:`annc.training.mip.stages`: build, start, bound, solve, finish, judge).

Ctrl-C (one shared :class:`~annc.solve.solvers.base.Interrupt` for the whole run) stops the
running solver, which keeps its incumbent; that incumbent is decoded and verified as
usual.  In greedy training no further layer is trained after an interrupt: the
network is the layers trained so far plus the output layer of the last MIP that has a
solution (a complete, verified network, maybe shallower than the spec, or without
Algorithm 2's exact output layer; ``meta["truncated"]`` says so).  A first Ctrl-C at any
point is a request (:class:`~annc.solve.solvers.base.Interrupt`): in the start pool it ends the
pool after its first candidate, which the searches and the solver then keep; a run stopped
before any solution exists gives :class:`~annc.core.errors.NoSolutionError` (exit 3).  Only a
second Ctrl-C aborts (``KeyboardInterrupt``).

**Files.**  A run checks everything before it writes anything
(:meth:`annc.training.request.TrainRequest.checked`: the options, the solver, the file name, the
data and the test data against the spec, the output folder).  It then writes, in the output folder,
each MIP's model and map (and the CSV of a greedy layer's inputs, or of data given as
arrays, which the map names) together (:func:`~annc.solve.compiler.write_artifacts`), any
file a file-based solver leaves there (its solution file), and at the end the weights
(``<stem>.weights.json`` / ``.npz``, through temporary files).  What stays when a run
fails:

* no solution (exit 3, :class:`~annc.core.errors.NoSolutionError`): the model and map of the
  MIP that has none (with the CSV its map names), complete and valid for another
  solver; the message names them.  Nothing else: no weights, no solution files, and
  in greedy training none of the files of the layers trained before;
* a solution that fails verification (exit 4): no weights; the same rule keeps the
  model and map of the (first) MIP whose solution failed;
* any other error or an abort (a second Ctrl-C): nothing this run wrote.

The command line, the Python API (:mod:`annc.app.api`) and the estimator all build one
:class:`~annc.training.request.TrainRequest`, and :func:`annc.training.dispatch.run` trains it: its full
and greedy modes come here (:func:`fit`); the files of a run are :mod:`annc.training.mip.runfiles`,
its result :mod:`annc.training.results`.

Nothing here prints: progress goes to the ``log`` callback (silent by default), which
the command line sets to ``print``.
"""
from __future__ import annotations

from pathlib import Path

from ..core.errors import NoSolutionError
from ..core.log import silent
from ..core.network import TrainedNetwork
from ..io.data import Dataset
from ..io.outputs import export_atomically
from ..io.spec import NetworkSpec
from .context import RunContext
from .mip.chain import Step, run_chain
from .mip.runfiles import RunFiles as _RunFiles
from .mip.runfiles import csv_backing
from .mip.runner import run_mip
from .large.compress import LargeData
from .mip.job import MipSettings, SolverSetup
from .request import TrainRequest, check_solver_cmd, check_train_args  # noqa: F401 - re-exported
from .results import TrainResult, accuracy, result_of
from .warmstart.pool.candidates import SEED_NAME

__all__ = ["TrainResult", "accuracy", "check_train_args", "csv_backing", "fit", "silent", "train"]


def _train_mips(r: TrainRequest, ctx: RunContext, greedy: bool, settings: MipSettings
                ) -> tuple[list[Step], TrainedNetwork, str | None]:
    """Solve the MIP of full training, or those of greedy training (:func:`~annc.training.mip.chain.run_chain`,
    each MIP by :func:`~annc.training.mip.runner.run_mip`, on what is left of ``ctx``, or in greedy
    training each layer's MIP on the whole limit from its start): ``(steps, network, why the network
    is truncated or None)``."""
    with ctx.interrupt.armed():
        return run_chain(r.spec, r.data, r.stem, greedy=greedy, interrupt=ctx.interrupt, log=r.log,
                         solve=lambda name, sub, d: run_mip(name, sub, d, ctx.renewed() if greedy else ctx.for_mip(),
                                                            settings))


def train(spec: NetworkSpec, data: Dataset, test: Dataset | None = None, **options) -> TrainResult:
    """Train ``spec`` on ``data`` by full or greedy training; see the module docstring.  ``options``:
    the :class:`~annc.training.request.TrainRequest`'s (``solver``, ``opts``, ``out_dir``, ``stem``,
    ``merge``, ``greedy``, ``log``, ``warm_start``, ``max_nonzeros``, ``refine``).

    Checks everything first (:meth:`annc.training.request.TrainRequest.checked`), then :func:`fit`.
    Selection, ovo and batches are modes of :func:`annc.training.dispatch.run` (``annc.train``).
    """
    return fit(TrainRequest(spec, data, test, **options).checked())


def fit(request: TrainRequest, ctx: RunContext | None = None, selection=None) -> TrainResult:
    """Full or greedy training of a checked request (:meth:`~annc.training.request.TrainRequest.checked`)
    within ``ctx``, the run's context (:func:`annc.training.dispatch.run` builds it once; None: one from
    the request, its limit counted from now).

    ``selection`` (the :class:`~annc.training.modelselect.chosen.Chosen` that chose ``request.spec``, if
    any: its start network, kept or not) goes into ``.selection`` and the network's ``meta["selection"]`` (so every
    weights file).  Raises :class:`~annc.core.errors.NoSolutionError` when a MIP ends without a
    solution (infeasible, or stopped before an incumbent was found); the message names
    the model and map that are kept.
    """
    r = request
    ctx = ctx if ctx is not None else RunContext.create(r.driver, r.opts)
    out = Path(r.out_dir) if r.out_dir is not None else None
    greedy = bool((r.spec.training == "greedy" if r.greedy is None else r.greedy) and r.spec.hidden)
    files = _RunFiles()
    settings = _settings(r, out, files, None if greedy else selection)
    clock = RunContext.stopwatch()
    try:
        steps, net, truncated = _train_mips(r, ctx, greedy, settings)
        result = result_of(net, steps, r.data, r.test, solver=r.solver, greedy=greedy, truncated=truncated,
                           interrupted=ctx.interrupted)
        if selection is not None:
            result.selection = selection
            net.meta["selection"] = selection.to_dict()
        result.files = _files(r, out, files, steps, net, result.verified)
        result.wall = clock.seconds()
    except NoSolutionError as e:
        kept = files.keep_only(files.latest)
        if not kept:
            raise
        err = NoSolutionError(f"{e}\nkept the model and its map for another solver: " + ", ".join(map(str, kept)))
        err.interrupted = getattr(e, "interrupted", False)
        raise err from None
    except BaseException:
        files.keep_only(None)
        raise
    return result


def _settings(r: TrainRequest, out: Path | None, files: _RunFiles, selection) -> MipSettings:
    """What every MIP of ``r`` shares; ``selection``'s network (None in greedy training) starts, or is kept."""
    keeps = selection is not None and selection.keeps
    name, start = (SEED_NAME, selection.start_network) if selection is not None else r.start or (SEED_NAME, None)
    return MipSettings(out, files, r.log, merge=r.merge, warm_start=r.warm_start, max_nonzeros=r.max_nonzeros,
                       refine=r.refine, start_network=start, start_name=name,
                       keep=(selection.label, selection.kept_reason) if keeps else None,
                       workers=r.workers, scheduler=r.scheduler, large=r.large or LargeData(),
                       setup=r.setup or SolverSetup())


def _files(r: TrainRequest, out: Path | None, files: _RunFiles, steps: list[Step], net, verified: bool) -> list:
    """The files the run leaves: all of them and the weights, or for a network that fails
    verification only the failed MIP's model and map (no weights)."""
    if out is None:
        return []
    if verified:
        return files.paths + export_atomically(net.export, out / r.stem)
    failed = next(s.name for s in steps if not (s.verification and s.verification.ok))
    kept = files.keep_only(failed)
    r.log(f"[{failed}] the solution fails verification: no weights written; kept the model and "
          "its map for another solver: " + ", ".join(map(str, kept)))
    return kept
