"""The ``annc`` command line: the only place that prints, parses arguments or exits.

This module parses the arguments (:func:`parser`) and runs a command (:func:`main`); the
commands are :mod:`annc.app.cli_commands` and :mod:`annc.app.cli_train` (and
:mod:`annc.app.experiment.cli`).

Exit codes: 0 success; 2 bad input (spec, data, solution file, map, weights file,
options, output folder); 3 no solution (infeasible, unbounded, none found); 4 a
solution that fails verification; 5 an environment limit (a size-limited licence, a
solver not installed); 70 an internal error (a bug in annc: the message
says so, ``ANNC_TRACEBACK=1`` shows the traceback); 130 aborted by a second Ctrl-C.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

from .. import __version__
from ..core.errors import AnncError, AnncWarning, SpecError
from .cli_commands import cmd_compile, cmd_data, cmd_decode, cmd_eval, cmd_export, cmd_predict, cmd_report
from .cli_train import VERIFY_FAILED, cmd_train  # noqa: F401 - VERIFY_FAILED: the exit codes, in one place

INTERNAL_ERROR = 70  # EX_SOFTWARE: an exception that is not an AnncError is a bug in annc


def _nonzero_count(text: str) -> int:
    """``--max-nonzeros``: a whole number >= 1 (``50000000``, ``5e7`` or ``50_000_000``)."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 1 and value == int(value)):
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return int(value)


def _model_options(p: argparse.ArgumentParser) -> None:
    """The options of the model built from the spec and its data, shared by compile and train."""
    _max_nonzeros_option(p)
    _scale_option(p)
    _missing_option(p)


def _max_nonzeros_option(p: argparse.ArgumentParser) -> None:
    from ..core.limits import MAX_NONZEROS
    p.add_argument("--max-nonzeros", type=_nonzero_count, metavar="N", default=None,
                   help=f"refuse a model with more non-zeros than this, before building it "
                        f"(default {MAX_NONZEROS:,}, about 2 GiB to build)")


def _scale_option(p) -> None:
    from ..core.scaling import SCALINGS
    p.add_argument("--scale", choices=SCALINGS, help="input scaling fitted on the training data, "
                   "overriding the spec's 'scale' (default there: minmax)")


def _missing_option(p) -> None:
    from ..core.missing import RULES
    p.add_argument("--missing", choices=RULES, default="error",
                   help="missing cells (empty, NA, NaN) of the training data: error (the default) names them; drop "
                        "leaves their rows out; impute fills each with its column's median (numbers) or most "
                        "frequent category (text) on the training rows, recorded with the network")


def _unknown_option(p, onnx: bool = False, test: bool = False) -> None:
    from ..core.categories import UNKNOWN_RULES
    p.add_argument("--unknown", choices=UNKNOWN_RULES, default="ignore",
                   help=("in the ONNX graph, " if onnx else "in the --test rows, " if test else "")
                   + "a category of a text column not seen in training: ignore (the default) reads it as all zeros, "
                   "as scikit-learn's OneHotEncoder(handle_unknown='ignore')"
                   + ("" if onnx else ", with one warning per column") + "; error refuses it (exit 2"
                   + (": an error of the ONNX runtime)" if onnx else ")"))


def _class_weight_option(p) -> None:
    """``--class-weight``, of ``compile`` and ``train`` (:mod:`annc.core.rowweights`)."""
    p.add_argument("--class-weight", metavar="balanced|LABEL=W,...", default=None,
                   help="weigh each sample in the objective by its class: 'balanced' (n_samples / (n_classes x "
                        "class count), as scikit-learn) or LABEL=WEIGHT pairs, e.g. 1=10,0=1 (default: none)")


def parser() -> argparse.ArgumentParser:
    from ..io.solutions import FORMATS
    from ..io.writers import FORMATS as MODEL_FORMATS
    from ..solve.solvers import DEFAULT, SOLVERS
    from .thresholds import text
    n = text()  # the numbers the help texts state, from the code's constants (annc.app.thresholds)
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
    _class_weight_option(c)
    c.add_argument("--start-budget", type=float, metavar="S", default=None,
                   help=f"seconds for the MIP start's search (SGD, then fix-and-optimise; default {n['start_budget']})")
    c.add_argument("-q", "--quiet", action="store_true", help="print only the summary and the files written: "
                   "no progress, no recipe or build lines (warnings go to stderr)")
    c.add_argument("--select", action="store_true",
                   help=f"first choose what the spec leaves open (its l0 weight, hidden width and eps) by k-fold "
                        f"cross-validation, as annc train does by default ({n['min_distinct']} or more distinct rows), "
                        f"write the chosen spec as <stem>.selected.ann beside the model and compile that")
    c.add_argument("--time-limit", type=float, metavar="S", default=None,
                   help="--select: seconds for model selection (default 60)")
    c.add_argument("--no-start", action="store_true",
                   help="write no MIP start files (<stem>.start.mst, .sol, .scip.sol, .highs, .slx, .cbc)")
    _model_options(c)
    c.set_defaults(func=cmd_compile)

    d = sub.add_parser("decode", help="solution file -> weight matrices, verified")
    d.add_argument("solution")
    d.add_argument("--map", help="variable map (default: the one in out/ or beside the solution that matches)")
    d.add_argument("--format", choices=FORMATS, help="solution format (default: sniffed)")
    d.add_argument("--data", help="training data (default: the file recorded in the map; its columns may come "
                   "in another order)")
    d.add_argument("--no-verify", action="store_true")
    d.add_argument("-o", "--out", default=None, help="folder for the weights (default: the map's folder, "
                   "beside the map used)")
    d.set_defaults(func=cmd_decode)

    e = sub.add_parser("eval", help="accuracy and confusion matrix of a weights file on a CSV")
    e.add_argument("weights")
    e.add_argument("data", help="a CSV; its feature columns are matched by name to those the weights file records")
    e.add_argument("--label", help="label column (default: the one the weights file names, else the last)")
    _unknown_option(e)
    e.set_defaults(func=cmd_eval)

    pr = sub.add_parser("predict", help="the predicted class (and scores) of every row of a CSV, with or without "
                        "a label column")
    pr.add_argument("weights", help="a .weights.json or .weights.npz (a network or a one-vs-one ensemble)")
    pr.add_argument("data", help="a CSV; its feature columns are matched by name to those the weights file records "
                    "(a label column and the columns the network does not read are ignored)")
    pr.add_argument("-o", "--output", required=True, metavar="CSV",
                    help="the predictions to write (atomically): a column prediction, one row per input row; - for stdout")
    pr.add_argument("--scores", action="store_true", help="also a column score:<class> per class: the network's "
                    "output scores (not probabilities)")
    pr.add_argument("--label", help="the label column to ignore (default: the one the weights file names)")
    _unknown_option(pr)
    pr.set_defaults(func=cmd_predict)

    x = sub.add_parser("export", help="a weights file -> an ONNX model (same forward pass, input scaling included)")
    x.add_argument("weights", help="a .weights.json or .weights.npz (a network or a one-vs-one ensemble)")
    x.add_argument("--onnx", required=True, metavar="FILE", help="the ONNX file to write (atomically)")
    _unknown_option(x, onnx=True)
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
    t.add_argument("--time-limit", type=float, metavar="S", help="seconds for the whole run, counted from the command's start "
                   "(starting annc and reading the data count): selection, ovo's pair MIPs and batches share it "
                   "(greedy: per layer)")
    t.add_argument("--gap", type=float, metavar="G", help="stop at this relative gap (e.g. 0.01)")
    t.add_argument("--threads", type=int, metavar="N", help="solver threads, for the full MIP and annc's own sub-MIPs")
    t.add_argument("--stall", default="auto", metavar="auto|off|N",
                   help="end the full MIP once N work checks of its solver (HiGHS, SCIP, Gurobi) move neither its "
                        "incumbent nor its bound: auto (the default) scales N by the model, off never")
    t.add_argument("--solver-option", action="append", default=[], metavar="NAME=VALUE",
                   help="the solver's own option, passed through as it is (repeatable), e.g. "
                        "--solver-option mip_heuristic_effort=0.3 (HiGHS), limits/nodes=1000 (SCIP), "
                        "cuts=off (CBC)")
    t.add_argument("--greedy", action="store_true", help="greedy layer-wise training "
                   "(as 'training greedy' in the spec)")
    t.add_argument("--no-merge", action="store_true", help="keep one row per sample (no merging)")
    _class_weight_option(t)
    t.add_argument("--no-warm-start", action="store_true",
                   help=f"do not give the solver annc's MIP start (the start pool's SGD networks improved by a "
                        f"fix-and-optimise local search and the neighbourhood search; at most {n['search_share']} "
                        f"of what is left of --time-limit)")
    t.add_argument("--no-refine", action="store_true",
                   help="ReLU nets: after the relaxed solve and its exact finish, do not refine the "
                        "McCormick partitions (by default the second half of --time-limit goes to "
                        "alternating refined relaxations, lower bounds, and exact finishes, networks)")
    t.add_argument("-q", "--quiet", action="store_true", help="print only the verdict: no progress, no recipe "
                   "lines, no weight matrices (warnings go to stderr)")
    t.add_argument("--select", action="store_true",
                   help=f"also where cross-validation does not apply (a spec that writes everything, "
                        f"small data): a grid around the spec, by accuracy on a held-out part.  By default, "
                        f"on real data ({n['min_distinct']} or more distinct rows, --time-limit {n['min_limit']} s "
                        f"or more), what the spec leaves open (its l0 weight, hidden width and eps) is chosen by "
                        f"k-fold cross-validation within {n['select_share']} of the time limit, then the chosen "
                        f"setting is trained on all the rows")
    t.add_argument("--no-select", action="store_true",
                   help="train the spec as written: no cross-validation")
    t.add_argument("--select-fraction", type=float, metavar="F", default=float(n['fraction']),
                   help=f"--select: the part of each class held out for validation (default {n['fraction']})")
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
    t.add_argument("--workers", type=int, metavar="N", help="ovo / batches / selection / large data: a local Dask "
                   "cluster of N worker processes (default: one per core; without it: one task after another); "
                   "large data: above 10,000 distinct rows, the clustering and the annealed seeds")
    t.add_argument("--scheduler", metavar="ADDRESS", help="ovo / batches / --select / large data: run the tasks on "
                   "the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786)")
    t.add_argument("--report", action="store_true",
                   help="also write OUT/<spec stem>.report.html (see annc report)")
    _model_options(t)
    _unknown_option(t, test=True)
    t.add_argument("-o", "--out", default="out", help="output folder (default: out)")
    t.set_defaults(func=cmd_train)

    r = sub.add_parser("report", help="a weights file -> one self-contained HTML page about the network")
    r.add_argument("weights")
    r.add_argument("--data", metavar="CSV", help="training data: accuracy, confusion matrix, activation patterns")
    r.add_argument("--test", metavar="CSV", help="test data: accuracy and confusion matrix")
    r.add_argument("--label", help="label column of the CSVs (default: the one the weights file names, else the "
                   "last); feature columns are matched by name")
    r.add_argument("-o", "--output", required=True, metavar="HTML", help="the page to write")
    _unknown_option(r)
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
    started = time.perf_counter()  # a time limit counts from here (annc.training.dispatch)
    args = parser().parse_args(argv)
    args.started = started
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
