"""The commands of ``annc`` but ``train`` (:mod:`annc.app.cli_train`) and ``experiment``:
``compile``, ``decode``, ``eval``, ``predict``, ``export``, ``report`` and ``data``.  Each takes the
parsed arguments (:func:`annc.app.cli.parser`), prints what it did and returns the exit
code; errors are raised (annc's own, :mod:`annc.core.errors`) and :func:`annc.app.cli.main`
turns them into a message and an exit code."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np


def print_lines(lines):
    for line in lines:
        print(line)


# -- compile ----------------------------------------------------------------------
def cmd_compile(a) -> int:
    from ..export.report import stats_lines
    from ..formulations import floor
    from ..core.rowweights import parse_class_weight
    from ..io.writers.startfiles import GLPK_NOTE, START_FILES, start_readers
    from ..solve.solvers import SOLVERS
    from ..solve.solvers.base import Progress
    from ..training.mip.compiling import CompileOptions, Reading, compile_files
    from .progress import Reporter

    class_weight = parse_class_weight(a.class_weight)
    if a.time_limit is not None and not a.select:
        from ..core.errors import UsageError
        raise UsageError("annc compile: --time-limit is the time for --select's model selection: give --select too")
    if a.select:  # model selection as annc train runs it; the chosen spec is written and compiled
        a.time_limit = SELECT_LIMIT if a.time_limit is None else a.time_limit
        a.spec = _selected_spec(a)
    budget = None  # the progress line's time left: the start search's budget, with a start
    if not a.no_start:  # with the start search's modules (scikit-learn: annc.training.mip.compiling, "Imports")
        from ..training.search.start import START_BUDGET
        budget = a.start_budget or START_BUDGET
    with Reporter(quiet=a.quiet, time_limit=budget, phase="build") as rep:
        rep.progress(Progress(0.0, None, None, phase="build"))
        options = CompileOptions(fmt=a.format, gzip=a.gz, writer=a.writer, merge=not a.no_merge,
                                 allow_small_m=a.allow_small_m, max_nonzeros=a.max_nonzeros, start=not a.no_start,
                                 start_budget=a.start_budget)
        reading = Reading(label=a.label, scale=a.scale, missing=a.missing, class_weight=class_weight)
        c = compile_files(a.spec, a.data, out_dir=a.out, options=options, reading=reading, progress=rep.progress,
                          log=rep.log)
    for w in c.model.warnings:
        print(f"warning: {w}", file=sys.stderr)
    p = c.problem
    print(f"compiled {a.spec} on {a.data}: {p.num_samples} samples"
          + (f" merged into {p.num_rows} distinct inputs" if p.merged else ""))
    if c.data.missing_note:
        print(f"missing cells: {c.data.missing_note}")
    print_lines(stats_lines(c.model.stats()))
    if c.start is not None:
        obj, low = c.model.objective(c.start), floor(c.problem)
        proof = " (= the lower bound: optimal)" if obj <= low + 1e-9 * max(1.0, abs(low)) else ""
        print(f"  MIP start objective {obj:.9g}{proof}, lower bound {low:.9g}, found in {c.start_seconds:.1f} s")
    else:
        print(f"  MIP start none: {c.start_message.removeprefix('no MIP start: ')}")
    print(f"wrote {c.model_path}")
    readers = {f".start.{f.suffix}": start_readers(f, SOLVERS.values()) for f in START_FILES}
    for path in c.start_paths:  # by the whole ending: .start.sol is Gurobi's, .start.scip.sol SCIP's
        print(f"wrote {path} (MIP start for {readers[next(e for e in readers if path.name.endswith(e))]})")
    print(f"wrote {c.map_path}")
    if c.start_paths:
        print(GLPK_NOTE)
    return 0


# -- decode -----------------------------------------------------------------------
SELECT_LIMIT = 60.0  # seconds for annc compile --select's model selection, unless --time-limit says


def _selected_spec(a) -> str:
    """``annc compile --select``: k-fold cross-validation of what the spec leaves open (as ``annc
    train`` runs it by default, within ``--time-limit``), its path printed; the chosen spec is
    written as ``<out>/<stem>.selected.ann`` (canonical ``.ann`` text), whose path is returned."""
    from ..core.errors import UsageError
    from ..io.data import load_data
    from ..io.datacheck import resolve_inputs
    from ..io.outputs import atomic_write_text, check_out_dir
    from ..io.spec import load_spec_of
    from ..io.spec.format import format_spec
    from ..solve.compiler import with_scale
    from ..solve.solvers import SolveOptions
    from ..training.context import RunContext
    from ..training.modelselect.cvselect import applies, cross_validate
    from .progress import Reporter
    from .thresholds import values

    out = check_out_dir(a.out)
    spec = with_scale(load_spec_of(a.spec, a.data), a.scale)
    data = load_data(a.data, label=a.label, missing=a.missing)
    spec = resolve_inputs(spec, data)  # 'input auto': the data's width, as training resolves it
    if not applies(spec, data, a.time_limit):
        v = values()
        raise UsageError(f"--select: model selection does not apply to {a.spec} on {a.data}: it needs a spec that "
                         f"leaves its l0 weight, width or eps open (the default recipe), at least "
                         f"{v['MIN_DISTINCT']} distinct rows and --time-limit {v['MIN_LIMIT']:g} s or more; "
                         f"compile without --select")
    with Reporter(quiet=a.quiet, time_limit=a.time_limit, phase="select") as rep:
        ctx = RunContext.create(options=SolveOptions(time_limit=a.time_limit))
        chosen = cross_validate(spec, data, ctx=ctx, merge=not a.no_merge, log=rep.log)
    if chosen is None:
        raise UsageError(f"--select: the time limit of {a.time_limit:g} s left no setting scored on every fold; "
                         "give a longer --time-limit")
    print("selection:")
    print_lines(chosen.table_lines())
    path = atomic_write_text(out / f"{Path(a.spec).stem}.selected.ann",
                             f"# {a.spec} with the setting model selection chose on {a.data}: {chosen.label}\n"
                             + format_spec(chosen.spec))
    print(f"wrote {path} (the chosen spec, compiled below)")
    return str(path)


def cmd_decode(a) -> int:
    from ..core.errors import NoSolutionError, VerificationError
    from ..export.report import decoded_verdict_lines, headline, network_lines, verification_lines
    from ..io.solutions import Status, read_solution
    from ..io.solutions.align import check_finite, solution_vector
    from ..solve.decode import check_same_model, decode_network, decode_record, find_map
    from ..solve.verdict import judge, sourced_bound
    NO_POINT = (Status.INFEASIBLE, Status.UNBOUNDED, Status.NO_SOLUTION)
    from ..io.outputs import check_out_dir, export_atomically, prepare_out_dir
    from ..io.mapfile import load_map
    from ..io.varmap import column_names, scaling_of
    from ..solve.verify import verify

    if a.out is not None:
        check_out_dir(a.out)  # before any work: a folder that cannot take the weights is an error now
    sol = read_solution(a.solution, a.format)
    if a.map:
        vmap, map_path = load_map(a.map), Path(a.map)
    else:
        vmap, map_path = find_map(sol, a.solution, [Path("out")] + ([Path(a.out)] if a.out else [])
                                  + [Path(a.solution).parent])
        print(f"using map {map_path}")
    if a.out is None:  # the weights go beside the map they are decoded with
        a.out = str(map_path.parent)
        check_out_dir(a.out)
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
    print_lines(network_lines(net))
    if not a.no_verify:
        bound, source = sourced_bound(solver_status=sol.status, solver_objective=sol.objective,
                                      solver_bound=sol.usable_bound(), floor=v.floor)
        verdict = judge(v.network_loss, bound, relaxed=v.relaxed, source="solver", solver_objective=sol.objective,
                        verified=v.ok, bound_source=source)
        net.meta.update(decode_record(sol, a.solution, verdict, v, vmap["spec"]["text"]))
        if isinstance(vmap.get("weights"), dict):  # the objective's weights, as annc train records them
            net.meta["weights"] = {"class_weight": vmap["weights"].get("class_weight"),
                                   "sample_weight": vmap["weights"].get("sample_weight") is not None}
        print("verdict on the decoded network:")
        print("  " + headline(verdict, train=(v.train_accuracy, v.samples), test=None,
                              weights=net.nonzero_weights(), verified=v.ok))
        lines = decoded_verdict_lines(verdict, sol, v.ok)
        if "recipe" in vmap:  # after the status: the loss, penalty and eps the model was built with
            from ..io.recipe import Recipe, summary_lines
            from ..io.varmap import map_spec
            lines[1:1] = summary_lines([("", Recipe.from_record(vmap["recipe"], map_spec(vmap)))])
        print_lines(lines)
        print("verification:")
        print_lines(verification_lines(v))
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
    ``.gz``): ``xor.sol`` -> ``xor``, ``xor.start.sol`` and ``xor.start.scip.sol`` ->
    ``xor.start`` (a start never overwrites the trained network's weights)."""
    name = Path(solution).name.removesuffix(".gz")
    name = name.removesuffix(".scip.sol") + ".sol" if name.endswith(".scip.sol") else name
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return stem or "solution"


# -- eval -------------------------------------------------------------------------
def cmd_eval(a) -> int:
    from ..core.ensemble import load_model
    from ..core.rowweights import accuracy_text
    from ..export.report import confusion_lines
    from ..io.data import load_data
    net = load_model(a.weights)
    data = load_data(a.data, label=a.label, inputs_of=net, unknown=a.unknown)  # columns by name, in any order
    pred = net.predict_index(data.X)
    print(f"{a.data}: {len(data.y)} samples, {accuracy_text(data.y, pred, len(net.classes))}")
    if data.missing_note:  # filled with the fills the weights file records (annc.core.missing)
        print(f"missing cells: {data.missing_note}")
    print_lines(confusion_lines(net.classes, data.y, pred))
    return 0


# -- predict ----------------------------------------------------------------------
def cmd_predict(a) -> int:
    from ..core.ensemble import load_model
    from ..io.outputs import atomic_write_text, check_out_file
    from .prediction import predict_rows, predictions_csv, summary
    to_stdout = a.output == "-"
    target = None if to_stdout else check_out_file(a.output)  # before any work
    p = predict_rows(load_model(a.weights), a.data, label=a.label, unknown=a.unknown)
    text = predictions_csv(p, scores=a.scores)  # all of it before anything is written
    said = sys.stderr if to_stdout else sys.stdout
    if p.missing_note:
        print(f"missing cells: {p.missing_note}", file=said)
    if to_stdout:
        sys.stdout.write(text)
    else:
        atomic_write_text(target, text)
    print(summary(p, a.data) + ("" if to_stdout else f"; wrote {target}"), file=said)
    return 0


# -- export -----------------------------------------------------------------------
def cmd_export(a) -> int:
    from ..core.ensemble import load_model
    from ..core.columns import listed
    from ..export.onnx_export import OPSET, save_onnx
    net = load_model(a.weights)
    path = save_onnx(net, a.onnx, unknown=a.unknown)
    scaled = "" if net.scaling is None else f", input scaling {net.scaling.kind}"
    order = "" if net.columns is None else f" (columns in this order: {listed(net.columns.features)})"
    inputs = f"input X [N, {net.inputs}] doubles{order}"
    if net.columns is not None and net.columns.categories:  # text columns: string inputs, one-hot encoded in the graph
        numeric = [name for name, cats in net.columns.sources if cats is None]
        inputs = (f"inputs X [N, {len(numeric)}] doubles (columns in this order: {listed(numeric)}) and "
                  + ", ".join(f"{c} [N] strings" for c, _ in net.columns.categories) + " (one-hot encoded in the graph; an unseen "
                  + ("category all zeros)" if a.unknown == "ignore" else "category an error of the runtime)"))
    if net.columns is not None and net.columns.imputed:
        scaled += ", missing cells (NaN; empty, NA or NaN text) imputed in the graph"
    print(f"wrote {path} (ONNX opset {OPSET}: {inputs}{scaled}; outputs scores, label, class; "
          f"classes {', '.join(map(str, net.classes))})")
    return 0


# -- report -----------------------------------------------------------------------
def cmd_report(a) -> int:
    from ..core.ensemble import load_model
    from ..export.html_report import write_report
    from ..io.data import load_data
    net = load_model(a.weights)
    data, test = (load_data(path, label=a.label, inputs_of=net, unknown=a.unknown) if path else None
                  for path in (a.data, a.test))
    out = write_report(net, a.output, data=data, test=test, source=str(a.weights))
    print(f"wrote {out}")
    return 0


# -- data -------------------------------------------------------------------------
def cmd_data(a) -> int:
    from ..io.datasets import check_xor_args, write_csv, xor_data
    from ..io.outputs import check_out_file
    n, noise, seed = check_xor_args(a.n, a.noise, a.seed)
    target = check_out_file(a.output)  # a missing folder is created, as for compile's -o
    X, y = xor_data(n, noise=noise, seed=seed)
    path = write_csv(target, X, y)
    print(f"wrote {path}: {n} samples, label = parity of x1, x3, x5, label noise {noise:g}")
    return 0
