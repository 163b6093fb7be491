"""The ``annc`` command line: the only place that prints, parses arguments or exits.

Exit codes: 0 success; 2 bad input (spec, data, solution file, map, weights file,
options, output folder); 3 no solution (infeasible, unbounded, none found); 4 a
solution that fails verification; 70 an internal error (a bug in annc: the message
says so, ``ANNC_TRACEBACK=1`` shows the traceback); 130 aborted by a second Ctrl-C.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import warnings
from pathlib import Path

import numpy as np

from . import __version__
from .errors import AnncError, AnncWarning, SpecError, UsageError

VERIFY_FAILED = 4
INTERNAL_ERROR = 70  # EX_SOFTWARE: an exception that is not an AnncError is a bug in annc


def _print(lines):
    for line in lines:
        print(line)


# -- compile ----------------------------------------------------------------------
def cmd_compile(a) -> int:
    from .compiler import compile_files
    from .formulations import floor
    from .progress import Reporter
    from .report import stats_lines
    from .solvers import SOLVERS
    from .solvers.base import Progress
    from .starts.budget import START_BUDGET, budgeted_start
    from .starts.margin import choose_eps
    from .writers.startfiles import GLPK_NOTE, START_FILES, start_readers

    def search(model, problem, *, budget=None):  # the start search, its phases on the progress line
        rep.progress(Progress(0.0, None, None, phase="start pool", candidates=0))
        return budgeted_start(model, problem, budget=budget, progress=rep.progress)

    with Reporter(time_limit=a.start_budget or START_BUDGET, phase="build") as rep:
        rep.progress(Progress(0.0, None, None, phase="build"))
        c = compile_files(a.spec, a.data, out_dir=a.out, fmt=a.format, label=a.label, merge=not a.no_merge,
                          allow_small_m=a.allow_small_m, gzip=a.gz, writer=a.writer, max_nonzeros=a.max_nonzeros,
                          start=None if a.no_start else search, start_budget=a.start_budget, scale=a.scale,
                          eps_rule=choose_eps, log=rep.log)
    for w in c.model.warnings:
        print(f"warning: {w}", file=sys.stderr)
    p = c.problem
    print(f"compiled {a.spec} on {a.data}: {p.num_samples} samples"
          + (f" merged into {p.num_rows} distinct inputs" if p.merged else ""))
    _print(stats_lines(c.model.stats()))
    if c.start is not None:
        obj, low = c.model.objective(c.start), floor(c.problem)
        proof = " (= the lower bound: optimal)" if obj <= low + 1e-9 * max(1.0, abs(low)) else ""
        print(f"  MIP start objective {obj:.9g}{proof}, lower bound {low:.9g}, found in {c.start_seconds:.1f} s")
    else:
        print(f"  MIP start none: {c.start_message.removeprefix('no MIP start: ')}")
    print(f"wrote {c.model_path}")
    readers = {f".{f.suffix}": start_readers(f, SOLVERS.values()) for f in START_FILES}
    for path in c.start_paths:
        print(f"wrote {path} (MIP start for {readers[path.suffix]})")
    print(f"wrote {c.map_path}")
    if c.start_paths:
        print(GLPK_NOTE)
    return 0


# -- decode -----------------------------------------------------------------------
def cmd_decode(a) -> int:
    from .decode import check_same_model, decode_network, decode_record, find_map
    from .solutions.align import check_finite, solution_vector
    from .errors import NoSolutionError, VerificationError
    from .report import decoded_verdict_lines, network_lines, verification_lines
    from .solutions import Status, read_solution
    from .verdict import judge, sourced_bound
    NO_POINT = (Status.INFEASIBLE, Status.UNBOUNDED, Status.NO_SOLUTION)
    from .varmap import column_names, load_map, scaling_of
    from .outputs import check_out_dir, export_atomically, prepare_out_dir
    from .verify import verify

    check_out_dir(a.out)  # before any work: a folder that cannot take the weights is an error now
    sol = read_solution(a.solution, a.format)
    if a.map:
        vmap, map_path = load_map(a.map), Path(a.map)
    else:
        vmap, map_path = find_map(sol, a.solution, [Path("out"), Path(a.out), Path(a.solution).parent])
        print(f"using map {map_path}")
    print(f"solution {a.solution}: {sol.format} format, status {sol.status.value} ({sol.status_text})")
    if not sol.has_values or sol.status in NO_POINT:
        raise NoSolutionError(f"{a.solution}: no solution to decode: the solver reports "
                              f"{sol.status.value} ({sol.status_text})")
    names = column_names(vmap)
    x = solution_vector(sol, names, a.solution)
    check_finite(x, names, a.solution)  # even with --no-verify: NaN weights are no network
    net = decode_network(vmap, x)
    net.meta.update({"status": sol.status.value, "decoded_from": str(a.solution)})  # --no-verify: the file's claim
    if not a.no_verify:
        v = verify(vmap, x, net, status=sol.status.value, solver_objective=sol.objective, data_path=a.data,
                   map_path=map_path)
        if not v.ok:
            check_same_model(sol, v.point_objective, a.solution)
    net = net.with_scaling(scaling_of(vmap))  # the exported network takes raw features
    _print(network_lines(net))
    if not a.no_verify:
        bound, source = sourced_bound(solver_status=sol.status, solver_objective=sol.objective,
                                      solver_bound=sol.usable_bound(), floor=v.floor)
        verdict = judge(v.network_loss, bound, relaxed=v.relaxed, source="solver", solver_objective=sol.objective,
                        verified=v.ok, bound_source=source)
        net.meta.update(decode_record(sol, a.solution, verdict, v, vmap["spec"]["text"]))
        print("verdict on the decoded network:")
        lines = decoded_verdict_lines(verdict, sol, v.ok)
        if "recipe" in vmap:  # after the status: the loss, penalty and eps the model was built with
            from .recipe import Recipe, summary_lines
            lines[1:1] = summary_lines([("", Recipe.from_dict(vmap["recipe"]))])
        _print(lines)
        print("verification:")
        _print(verification_lines(v))
        if not v.ok:
            print("no weights written: the solution failed verification (--no-verify writes them anyway)")
            n = len(v.problems) - 1
            more = f" (and {n} more problem{'s' if n > 1 else ''})" if n else ""
            raise VerificationError(f"{a.solution}: the solution failed verification: {v.problems[0]}{more}; "
                                    "no weights written")
    out = prepare_out_dir(a.out)
    for p in export_atomically(net.export, out / _weights_stem(a.solution)):
        print(f"wrote {p}")
    return 0


def _weights_stem(solution) -> str:
    """The weights' name for a solution file: its name without its format suffix (and
    ``.gz``): ``xor.sol`` -> ``xor``, ``xor.start.sol`` -> ``xor.start`` (a start never
    overwrites the trained network's weights)."""
    name = Path(solution).name.removesuffix(".gz")
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return stem or "solution"


# -- eval -------------------------------------------------------------------------
def cmd_eval(a) -> int:
    from .data import load_data
    from .ensemble import load_model
    from .report import confusion_lines
    net = load_model(a.weights)
    data = load_data(a.data, label=a.label, inputs_of=net)  # columns by name, in any order
    pred = net.predict_index(data.X)
    print(f"{a.data}: {len(data.y)} samples, accuracy {np.mean(pred == data.y):.4f}")
    _print(confusion_lines(net.classes, data.y, pred))
    return 0


# -- export -----------------------------------------------------------------------
def cmd_export(a) -> int:
    from .ensemble import load_model
    from .inputs import listed
    from .onnx_export import OPSET, save_onnx
    net = load_model(a.weights)
    path = save_onnx(net, a.onnx)
    scaled = "" if net.scaling is None else f", input scaling {net.scaling.kind}"
    order = "" if net.columns is None else f" (columns in this order: {listed(net.columns.features)})"
    print(f"wrote {path} (ONNX opset {OPSET}: input X "
          f"[N, {net.inputs}] doubles{order}{scaled}; outputs scores, label, class; "
          f"classes {', '.join(map(str, net.classes))})")
    return 0


# -- train ------------------------------------------------------------------------
def cmd_train(a) -> int:
    from .data import load_data
    from .progress import Reporter
    from .recipe import summary_lines
    from .report import network_lines, search_lines, verdict_lines, verification_lines
    from .solvers import DEFAULT, SolveOptions
    from .solvers.base import Interrupt
    from .compiler import with_scale
    from .spec import load_spec
    from .training import train

    if a.solver_cmd is not None and a.solver:
        raise UsageError("give either --solver or --solver-cmd, not both")
    if a.ensemble or a.batches is not None or a.per_class is not None \
            or ((a.workers is not None or a.scheduler is not None) and not a.select) \
            or load_spec(a.spec).training in ("ovo", "batches"):
        return _train_decomposed(a)
    # everything else (options, test width, output folder) is checked by train() before it
    # writes anything: one check for the CLI and the Python API
    # progress (annc.progress): a live line in a terminal, stamped lines and a heartbeat in a
    # pipe or a log, nothing with -q; the verdict below is printed once it has stopped
    with Reporter(quiet=a.quiet, time_limit=a.time_limit, phase="select" if a.select else "build") as rep:
        spec = with_scale(load_spec(a.spec), a.scale)
        data = load_data(a.data, label=a.label)
        test = load_data(a.test, label=a.label, inputs_of=data) if a.test else None
        solver = "cmd" if a.solver_cmd is not None else (a.solver or DEFAULT)
        # the first Ctrl-C says what it does (on stderr, as the error messages)
        interrupt = Interrupt(log=lambda line: print(line, file=sys.stderr, flush=True))
        opts = SolveOptions(time_limit=a.time_limit, gap=a.gap, threads=a.threads,
                            progress=None if a.quiet else rep.progress, command=a.solver_cmd, interrupt=interrupt)
        r = train(spec, data, test=test, solver=solver, opts=opts, out_dir=a.out, stem=Path(a.spec).stem,
                  merge=not a.no_merge, greedy=True if a.greedy else None, warm_start=not a.no_warm_start,
                  refine=not a.no_refine, select=a.select, select_fraction=a.select_fraction,
                  select_seed=a.select_seed, log=rep.log, max_nonzeros=a.max_nonzeros,
                  workers=a.workers, scheduler=a.scheduler)
    if r.selection is not None:
        print("selection:")
        _print(r.selection.table_lines())
    print("summary:")
    # the status first, then the loss, penalty and eps in force and where each came from (annc.recipe)
    recipes = [(s.name, s.compiled.recipe) for s in r.steps if s.compiled.recipe is not None]
    if r.selection is not None:
        recipes = [(name, rec.selected(spec)) for name, rec in recipes]
    if len(r.steps) == 1:
        s = r.steps[0]
        verdict = verdict_lines(s.verdict, s.result, s.verification is not None and s.verification.ok)
        _print(verdict[:1] + summary_lines(recipes) + verdict[1:])
        _print(search_lines(s.verdict))
    else:
        print(f"  status             greedy, {len(r.steps)} MIPs: "
              + "; ".join(s.verdict.status.value for s in r.steps) + " (each MIP's network; see below)")
        _print(summary_lines(recipes))
        for s in r.steps:
            print(f"  {s.summary()}")
    if r.interrupted:
        print("  interrupted        by Ctrl-C: the best solution found was kept, decoded and verified")
    if r.truncated:
        print(f"  truncated          {r.truncated}")
    print(f"  solve time         {r.seconds:.2f} s")
    print(f"  train accuracy     {r.train_accuracy:.4f} (forward pass, {len(data.y)} samples)")
    if r.test_accuracy is not None:
        print(f"  test accuracy      {r.test_accuracy:.4f} ({len(test.y)} samples)")
    print(f"  non-zero weights   {r.network.nonzero_weights()}")
    for s in r.steps:
        print(f"verification of {s.name}:")
        _print(verification_lines(s.verification))
    if not a.quiet:
        _print(network_lines(r.network))
    if not r.verified:  # the verdict says so even with -q (the log said it as it happened)
        print("no weights written: the solution failed verification; the model and its map are kept "
              "for another solver")
    return _finish_train(a, r, data, test)


def _finish_train(a, r, data, test) -> int:
    """The end of every ``annc train``: the report (``--report``; a network that fails
    verification gets no weights and no report), the files written, the exit code."""
    if a.report and r.verified:
        from .html_report import write_report
        stem = Path(a.spec).stem
        r.files.append(write_report(r.network, Path(a.out) / f"{stem}.report.html", data=data, test=test,
                                    source=str(Path(a.out) / f"{stem}.weights.json")))
    for p in r.files:
        print(f"wrote {p}")
    return 0 if r.verified else VERIFY_FAILED


def _train_decomposed(a) -> int:
    """``annc train`` of an ovo ensemble or of batches (annc.decomposition)."""
    from .data import load_data
    from .compiler import with_scale
    from .decomposition import train_batches, train_ovo
    from .executor import check_scheduler, check_workers
    from .progress import Reporter
    from .report import confusion_lines
    from .solvers import DEFAULT, SolveOptions
    from .spec import load_spec
    spec = with_scale(load_spec(a.spec), a.scale)
    kind = "ovo" if a.ensemble == "ovo" else "batches" if a.batches is not None else spec.training
    if kind not in ("ovo", "batches"):
        raise UsageError("--per-class, --workers and --scheduler apply to ovo and batch training: add "
                         "--ensemble ovo or --batches K (or 'training ovo' / 'training batches K' to the spec); "
                         "--workers and --scheduler also apply to --select")
    if a.ensemble and a.batches is not None:
        raise UsageError("give either --ensemble ovo or --batches K, not both")
    if kind == "batches" and a.per_class is not None:
        raise UsageError("--per-class applies to --ensemble ovo")
    other = [f for f, v in (("--greedy", a.greedy), ("--select", a.select), ("--solver-cmd", a.solver_cmd),
                            ("--max-nonzeros", a.max_nonzeros)) if v]
    if other:
        raise UsageError(f"{', '.join(other)} cannot be combined with {kind} training")
    workers, scheduler = check_workers(a.workers), check_scheduler(a.scheduler)
    with Reporter(quiet=a.quiet, phase=f"{kind} training") as rep:  # the MIPs run elsewhere: a heartbeat
        data = load_data(a.data, label=a.label)
        test = load_data(a.test, label=a.label, inputs_of=data) if a.test else None
        opts = SolveOptions(time_limit=a.time_limit, gap=a.gap, threads=a.threads)
        kw = dict(test=test, solver=a.solver or DEFAULT, opts=opts, workers=workers, scheduler=scheduler,
                  out_dir=a.out, stem=Path(a.spec).stem, log=rep.log)
        if kind == "ovo":
            r = train_ovo(spec, data, per_class=a.per_class, **kw)
        else:
            r = train_batches(spec, data, a.batches, **kw)
    print("summary:")
    what = ("one-vs-one ensemble of" if kind == "ovo" else "batch training (a heuristic: no bound) with")
    print(f"  status             {r.status.value} ({what} {len(r.members)} MIPs; the weakest of them)")
    print(f"  train accuracy     {r.train_accuracy:.4f} (forward pass, {len(data.y)} samples)")
    if r.test_accuracy is not None:
        print(f"  test accuracy      {r.test_accuracy:.4f} ({len(test.y)} samples)")
    print(f"  non-zero weights   {r.network.nonzero_weights()}")
    print(f"  wall time          {r.seconds:.1f} s")
    for m in r.members:
        print(f"  {m.name}: {m.describe}, {m.rows} rows, {m.seconds:.1f} s, verification "
              f"{'passed' if m.verified else 'FAILED'}")
    if test is not None:
        _print(confusion_lines(r.network.classes, test.y, r.network.predict_index(test.X)))
    return _finish_train(a, r, data, test)


# -- report -----------------------------------------------------------------------
def cmd_report(a) -> int:
    from .data import load_data
    from .ensemble import load_model
    from .html_report import write_report
    net = load_model(a.weights)
    data, test = (load_data(path, label=a.label, inputs_of=net) if path else None for path in (a.data, a.test))
    out = write_report(net, a.output, data=data, test=test, source=str(a.weights))
    print(f"wrote {out}")
    return 0


# -- data -------------------------------------------------------------------------
def cmd_data(a) -> int:
    from .datasets import check_xor_args, write_csv, xor_data
    from .outputs import check_out_file
    n, noise, seed = check_xor_args(a.n, a.noise, a.seed)
    target = check_out_file(a.output)  # a missing folder is created, as for compile's -o
    X, y = xor_data(n, noise=noise, seed=seed)
    path = write_csv(target, X, y)
    print(f"wrote {path}: {n} samples, label = parity of x1, x3, x5, label noise {noise:g}")
    return 0


def _nonzero_count(text: str) -> int:
    """``--max-nonzeros``: a whole number >= 1 (``50000000``, ``5e7`` or ``50_000_000``)."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 1 and value == int(value)):
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return int(value)


def _max_nonzeros_option(p: argparse.ArgumentParser) -> None:
    from .limits import MAX_NONZEROS
    p.add_argument("--max-nonzeros", type=_nonzero_count, metavar="N", default=None,
                   help=f"refuse a model with more non-zeros than this, before building it "
                        f"(default {MAX_NONZEROS:,}, about 2 GiB to build)")


def _scale_option(p) -> None:
    from .scaling import SCALINGS
    p.add_argument("--scale", choices=SCALINGS, help="input scaling fitted on the training data, "
                   "overriding the spec's 'scale' (default there: minmax)")


def parser() -> argparse.ArgumentParser:
    from .solutions import FORMATS
    from .solvers import DEFAULT, SOLVERS
    from .writers import FORMATS as MODEL_FORMATS
    p = argparse.ArgumentParser(prog="annc", description="Compile neural-network training into a MIP.")
    p.add_argument("--version", action="version", version=f"annc {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("compile", help="spec + data -> MPS/LP model and variable map")
    c.add_argument("spec")
    c.add_argument("data")
    c.add_argument("--label", help="label column (default: the last one)")
    c.add_argument("--format", choices=MODEL_FORMATS, default="mps")
    c.add_argument("--gz", action="store_true", help="gzip the model file")
    c.add_argument("--writer", choices=("annc", "pulp"), default="annc")
    c.add_argument("-o", "--out", default="out", help="output folder (default: out)")
    c.add_argument("--no-merge", action="store_true", help="keep one row per sample (no merging)")
    c.add_argument("--allow-small-m", action="store_true", help="keep a numeric M below the valid bound")
    c.add_argument("--start-budget", type=float, metavar="S", default=None,
                   help="seconds for the MIP start's search (SGD, then fix-and-optimise; default 20)")
    c.add_argument("--no-start", action="store_true",
                   help="write no MIP start files (<stem>.start.mst, .sol, .highs, .slx, .cbc)")
    _max_nonzeros_option(c)
    _scale_option(c)
    c.set_defaults(func=cmd_compile)

    d = sub.add_parser("decode", help="solution file -> weight matrices, verified")
    d.add_argument("solution")
    d.add_argument("--map", help="variable map (default: the one in out/ or beside the solution that matches)")
    d.add_argument("--format", choices=FORMATS, help="solution format (default: sniffed)")
    d.add_argument("--data", help="training data (default: the file recorded in the map; its columns may come "
                   "in another order)")
    d.add_argument("--no-verify", action="store_true")
    d.add_argument("-o", "--out", default="out")
    d.set_defaults(func=cmd_decode)

    e = sub.add_parser("eval", help="accuracy and confusion matrix of a weights file on a CSV")
    e.add_argument("weights")
    e.add_argument("data", help="a CSV; its feature columns are matched by name to those the weights file records")
    e.add_argument("--label", help="label column (default: the one the weights file names, else the last)")
    e.set_defaults(func=cmd_eval)

    x = sub.add_parser("export", help="a weights file -> an ONNX model (same forward pass, input scaling included)")
    x.add_argument("weights", help="a .weights.json or .weights.npz (a network or a one-vs-one ensemble)")
    x.add_argument("--onnx", required=True, metavar="FILE", help="the ONNX file to write (atomically)")
    x.set_defaults(func=cmd_export)

    t = sub.add_parser("train", help="compile, solve, decode and verify in one go")
    t.add_argument("spec")
    t.add_argument("data")
    t.add_argument("--test", help="held-out CSV to report test accuracy on (columns matched by name)")
    t.add_argument("--label")
    t.add_argument("--solver", choices=[s for s in SOLVERS if s != "cmd"],
                   help=f"solver (default: {DEFAULT})")
    t.add_argument("--solver-cmd", metavar="TEMPLATE", help="run this solver command instead, with "
                   "{model} and {sol} replaced by the MPS file and the solution file it must write, "
                   "e.g. 'gurobi_cl ResultFile={sol} {model}'")
    t.add_argument("--time-limit", type=float, metavar="S", help="seconds per MIP (greedy: per layer)")
    t.add_argument("--gap", type=float, metavar="G", help="stop at this relative gap (e.g. 0.01)")
    t.add_argument("--threads", type=int, metavar="N")
    t.add_argument("--greedy", action="store_true", help="greedy layer-wise training "
                   "(as 'training greedy' in the spec)")
    t.add_argument("--no-merge", action="store_true", help="keep one row per sample (no merging)")
    t.add_argument("--no-warm-start", action="store_true",
                   help="do not give HiGHS a MIP start (short SGD runs improved by a fix-and-optimise "
                        "local search; at most 20 s or a quarter of --time-limit)")
    t.add_argument("--no-refine", action="store_true",
                   help="ReLU nets: after the relaxed solve and its exact finish, do not refine the "
                        "McCormick partitions (by default the second half of --time-limit goes to "
                        "alternating refined relaxations, lower bounds, and exact finishes, networks)")
    t.add_argument("-q", "--quiet", action="store_true", help="print only the verdict: no progress, no recipe "
                   "lines, no weight matrices (warnings go to stderr)")
    t.add_argument("--select", action="store_true",
                   help="first choose the penalty weight, hinge margin and hidden widths among a small "
                        "grid around the spec, by accuracy on a held-out part of the training data (ties: "
                        "fewer non-zero weights); then train the chosen spec on all the training data")
    t.add_argument("--select-fraction", type=float, metavar="F", default=0.25,
                   help="--select: the part of each class held out for validation (default 0.25)")
    t.add_argument("--select-seed", type=int, metavar="N", default=0,
                   help="--select: seed of the stratified validation split (default 0)")
    t.add_argument("--ensemble", choices=("ovo",),
                   help="one binary network per pair of classes, each its own MIP, combined by vote "
                        "(as 'training ovo' in the spec)")
    t.add_argument("--batches", type=int, metavar="K",
                   help="one MIP per batch of rows, weights averaged by validation accuracy: a heuristic "
                        "(as 'training batches K' in the spec)")
    t.add_argument("--per-class", type=int, metavar="N", help="--ensemble ovo: at most N rows of each class "
                   "per pair MIP (sampled with seed 0)")
    t.add_argument("--workers", type=int, metavar="N", help="ovo / batches / --select: a local Dask cluster of N "
                   "worker processes (default: one per core; --select without it: one candidate after another)")
    t.add_argument("--scheduler", metavar="ADDRESS", help="ovo / batches / --select: run the MIPs on the Dask "
                   "cluster whose scheduler is at ADDRESS (tcp://host:8786)")
    t.add_argument("--report", action="store_true",
                   help="also write OUT/<spec stem>.report.html (see annc report)")
    _max_nonzeros_option(t)
    _scale_option(t)
    t.add_argument("-o", "--out", default="out", help="output folder (default: out)")
    t.set_defaults(func=cmd_train)

    r = sub.add_parser("report", help="a weights file -> one self-contained HTML page about the network")
    r.add_argument("weights")
    r.add_argument("--data", metavar="CSV", help="training data: accuracy, confusion matrix, activation patterns")
    r.add_argument("--test", metavar="CSV", help="test data: accuracy and confusion matrix")
    r.add_argument("--label", help="label column of the CSVs (default: the one the weights file names, else the "
                   "last); feature columns are matched by name")
    r.add_argument("-o", "--output", required=True, metavar="HTML", help="the page to write")
    r.set_defaults(func=cmd_report)

    g = sub.add_parser("data", help="generate data sets")
    g.add_argument("kind", choices=("xor",))
    g.add_argument("--n", type=int, default=1000)
    g.add_argument("--noise", type=float, default=0.1)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("-o", "--output", required=True)
    g.set_defaults(func=cmd_data)

    from .experiment import add_parser as add_experiment
    add_experiment(sub)
    return p


def _warning_lines(previous):
    """A ``warnings.showwarning`` that prints annc's own warnings as one ``warning:`` line
    on stderr, and leaves the others to ``previous``."""
    def show(message, category, *rest):
        if issubclass(category, AnncWarning):
            print(f"warning: {message}", file=sys.stderr)
        else:
            previous(message, category, *rest)
    return show


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", AnncWarning)  # every run says it, not only the first in a process
            warnings.showwarning = _warning_lines(warnings.showwarning)
            return args.func(args)
    except AnncError as e:
        print(str(e) if isinstance(e, SpecError) else f"annc: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("annc: aborted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except (Exception, RecursionError, MemoryError) as e:  # a bug: one line, no traceback
        if os.environ.get("ANNC_TRACEBACK"):
            raise
        print(f"annc: internal error: {type(e).__name__}: {e} (a bug in annc; "
              "ANNC_TRACEBACK=1 shows the traceback)", file=sys.stderr)
        return INTERNAL_ERROR


if __name__ == "__main__":
    sys.exit(main())
