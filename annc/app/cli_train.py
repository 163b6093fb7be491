"""``annc train`` on the command line: the training request of the flags, and what is printed.

:func:`cmd_train` builds one :class:`~annc.training.request.TrainRequest` from the flags, whatever
the mode (full, greedy, ``--select``, ``--ensemble ovo``, ``--batches K``), and runs it
(:func:`annc.training.dispatch.run`, which checks it: the same checks and messages as
``annc.train``).  Progress (:mod:`annc.app.progress`): a live line in a terminal, stamped
lines and a heartbeat in a pipe or a log, nothing with ``-q``; the summary is printed
once it has stopped.
"""
from __future__ import annotations

import sys
from pathlib import Path

from .cli_commands import print_lines

VERIFY_FAILED = 4


def cmd_train(a) -> int:
    from ..io.data import load_data
    from ..io.spec import load_spec_of
    from ..solve.compiler import with_scale
    from ..solve.solvers import SolveOptions
    from ..solve.solvers.base import Interrupt, solver_options, stall_setting
    from ..training.context import seconds_since
    from ..training.dispatch import run
    from ..training.request import DECOMPOSED, TrainRequest, mode_of
    from .progress import Reporter

    from ..core.errors import UsageError
    from ..core.rowweights import parse_class_weight
    class_weight = parse_class_weight(a.class_weight)
    if a.select and a.no_select:
        raise UsageError("give either --select or --no-select, not both")
    select = True if a.select else False if a.no_select else None  # None: cross-validation where it applies
    spec = with_scale(load_spec_of(a.spec, a.data), a.scale)
    mode = mode_of(spec, ensemble=a.ensemble, batches=a.batches, select=select, greedy=True if a.greedy else None)
    decomposed = mode in DECOMPOSED
    phase = f"{mode} training" if decomposed else "select" if a.select else "build"
    # ovo and batches: the MIPs run elsewhere, a heartbeat only
    with Reporter(quiet=a.quiet, time_limit=None if decomposed else a.time_limit, phase=phase) as rep:
        data = load_data(a.data, label=a.label, missing=a.missing)
        # the test rows: the training rows' fills, or --missing drop's drop (annc.core.missing)
        test = load_data(a.test, label=a.label, inputs_of=data, missing=a.missing, unknown=a.unknown) if a.test else None
        opts = SolveOptions(time_limit=a.time_limit, gap=a.gap, threads=a.threads,
                            native=solver_options(a.solver_option), stall=stall_setting(a.stall))
        if not decomposed:
            opts.progress = None if a.quiet else rep.progress
            # the first Ctrl-C says what it does (on stderr, as the error messages)
            opts.interrupt = Interrupt(log=lambda line: print(line, file=sys.stderr, flush=True))
        request = TrainRequest(
            spec, data, test, solver=a.solver, solver_cmd=a.solver_cmd, opts=opts, out_dir=a.out,
            stem=Path(a.spec).stem, merge=not a.no_merge, greedy=True if a.greedy else None,
            warm_start=not a.no_warm_start, max_nonzeros=a.max_nonzeros, refine=not a.no_refine,
            select=select, select_fraction=a.select_fraction, select_seed=a.select_seed, ensemble=a.ensemble,
            batches=a.batches, per_class=a.per_class, workers=a.workers, scheduler=a.scheduler, log=rep.log,
            started=getattr(a, "started", None), class_weight=class_weight)
        if rep.time_limit is not None and request.started is not None:  # the time left counts from the start too
            rep.time_limit = max(rep.time_limit - seconds_since(request.started), 0.0)
        r = run(request)
    if decomposed:
        _decomposed_summary(mode, r, spec, data, test)
    else:
        _summary(a, r, spec, data, test)
    return _finish_train(a, r, data, test)


def _summary(a, r, spec, data, test) -> None:
    """The verdict of full, greedy or selected training: status, recipe, accuracies, verification."""
    from ..export.report import (headline, network_lines, search_lines, sub_mip_lines, time_line, verdict_lines,
                                 verification_lines)
    from ..io.recipe import summary_lines
    if r.selection is not None:
        print("selection:")
        print_lines(r.selection.table_lines())
    print("summary:")
    # one plain line first: the accuracy to judge it by, its weights, what found it, what is proven
    test_acc = None if r.test_accuracy is None else (r.test_accuracy, len(test.y))
    print("  " + headline(r.steps[0].verdict if len(r.steps) == 1 else None, train=(r.train_accuracy, len(data.y)),
                          test=test_acc, weights=r.network.nonzero_weights(), verified=r.verified))
    # then the status, then the loss, penalty and eps in force and where each came from (annc.io.recipe)
    recipes = [(s.name, s.compiled.recipe) for s in r.steps if s.compiled.recipe is not None]
    if r.selection is not None:
        recipes = [(name, rec.selected(spec)) for name, rec in recipes]
    if len(r.steps) == 1:
        s = r.steps[0]
        verdict = verdict_lines(s.verdict, s.result, s.verification is not None and s.verification.ok)
        print_lines(verdict[:1] + summary_lines(recipes) + verdict[1:])
        print_lines(search_lines(s.verdict) + sub_mip_lines(s.verdict))
    else:
        print(f"  status             greedy, {len(r.steps)} MIPs: "
              + "; ".join(s.verdict.status.value for s in r.steps) + " (each MIP's network; see below)")
        print_lines(summary_lines(recipes))
        for s in r.steps:
            print(f"  {s.summary()}")
    if r.interrupted:
        print("  interrupted        by Ctrl-C: the best solution found was kept, decoded and verified")
    if r.truncated:
        print(f"  truncated          {r.truncated}")
    print(time_line(r.wall, r.times()))
    _accuracy_lines(r, spec, data, test, r.steps[0].compiled.data.class_weight if r.steps else None)
    for s in r.steps:
        print(f"verification of {s.name}:")
        print_lines(verification_lines(s.verification))
    if not a.quiet:
        print_lines(network_lines(r.network))
    if not r.verified:  # the verdict says so even with -q (the log said it as it happened)
        print("no weights written: the solution failed verification; the model and its map are kept "
              "for another solver")


def _accuracy_lines(r, spec, data, test, class_weight) -> None:
    """Accuracies (and balanced accuracies where a class is a minority, :mod:`annc.core.rowweights`),
    the class weights of the objective (``class_weight``, one per class, or None), the weights, the
    columns, the missing cells."""
    from ..core.rowweights import accuracy_text
    J = len(data.classes)
    train = accuracy_text(data.y, r.network.predict_index(data.X), J).removeprefix("accuracy ")
    print(f"  train accuracy     {train} (forward pass, {len(data.y)} samples)")
    if r.test_accuracy is not None:
        test_text = accuracy_text(test.y, r.network.predict_index(test.X), J).removeprefix("accuracy ")
        print(f"  test accuracy      {test_text} ({len(test.y)} samples)")
    if class_weight is not None:
        print("  class weights      " + ", ".join(f"{c}: {w:.4g}" for c, w in zip(data.classes, class_weight))
              + " (each sample's weight in the objective)")
    print(f"  non-zero weights   {r.network.nonzero_weights()}")
    if data.categories:  # said once, with the label column, as a text label column would now be read as a feature
        text = ", ".join(f"'{c}' ({len(k)} categories)" for c, k in data.categories.items())
        print(f"  text columns       {text}: one-hot encoded; the label is column '{data.label}'")
    if spec.inputs is None:  # 'input auto': what it chose (annc.io.datacheck.resolve_inputs)
        from ..io.datacheck import inputs_line
        print(f"  input              {inputs_line(data)}")
    for d in (data, test):
        if d is not None and d.missing_note:  # rows dropped, cells imputed (annc.core.missing)
            print(f"  missing cells      {d.missing_note}")


def _decomposed_summary(kind: str, r, spec, data, test) -> None:
    """The verdict of an ovo ensemble or of batches (annc.training.decompose.decomposition)."""
    from ..export.report import confusion_lines, headline
    print("summary:")
    what = ("one-vs-one ensemble of" if kind == "ovo" else "batch training (a heuristic: no bound) with")
    print("  " + headline(None, train=(r.train_accuracy, len(data.y)),
                          test=None if r.test_accuracy is None else (r.test_accuracy, len(test.y)),
                          weights=r.network.nonzero_weights(), how=f"{what} {len(r.members)} MIPs"))
    print(f"  status             {r.status.value} ({what} {len(r.members)} MIPs; the weakest of them)")
    _accuracy_lines(r, spec, data, test, None)  # a decomposition refuses weights
    print(f"  wall time          {r.seconds:.1f} s")
    for m in r.members:
        print(f"  {m.name}: {m.describe}, {m.rows} rows, {m.seconds:.1f} s, verification "
              f"{'passed' if m.verified else 'FAILED'}")
    if test is not None:
        print_lines(confusion_lines(r.network.classes, test.y, r.network.predict_index(test.X)))


def _finish_train(a, r, data, test) -> int:
    """The end of every ``annc train``: the report (``--report``; a network that fails
    verification gets no weights and no report), the files written, the exit code."""
    if a.report and r.verified:
        from ..export.html_report import write_report
        stem = Path(a.spec).stem
        r.files.append(write_report(r.network, Path(a.out) / f"{stem}.report.html", data=data, test=test,
                                    source=str(Path(a.out) / f"{stem}.weights.json")))
    for p in r.files:
        print(f"wrote {p}")
    return 0 if r.verified else VERIFY_FAILED
