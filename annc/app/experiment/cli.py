"""``annc experiment table1``: the command line of the sweep (the only part of
:mod:`annc.app.experiment` that prints)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ...core.errors import AnncError
from .definitions import BASELINES, DEPTHS, JSONL_NAME, METHOD_IDS, PAPER_CODE, SGD_METHODS, SWEEPS, WIDTHS, Config
from .report import report
from .runner import run_table1


def _int_list(text: str) -> tuple[int, ...]:
    try:
        vals = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not vals or any(v < 1 for v in vals):
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return vals


def _choices(allowed, what):
    def parse(text: str) -> tuple[str, ...]:
        vals = tuple(v.strip() for v in text.split(",") if v.strip())
        bad = [v for v in vals if v not in allowed]
        if bad or not vals:
            raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(bad) or text!r}; "
                                             f"choose from {', '.join(allowed)}")
        return vals
    return parse


def _in_baselines(method: str, baselines: str) -> bool:
    """Whether ``--baselines`` keeps ``method``: the MIP methods always; the SGD methods of
    annc (correct), of the authors' code as written (paper), or both."""
    if method in PAPER_CODE:
        return baselines in ("paper", "both")
    return method not in SGD_METHODS or method == "greedy_binary_mip_sgd" or baselines in ("correct", "both")


def cmd_table1(a) -> int:
    """Run (or resume) the sweep, then write the report; exit code 1 if a task failed."""
    from ...training.large.executor import check_scheduler, check_workers
    if a.seeds < 1 or a.epochs < 0 or a.time_limit <= 0:
        raise AnncError("--seeds must be >= 1, --epochs >= 0 and --time-limit > 0")
    if a.jobs is not None:  # the old name of --workers
        if a.workers is not None:
            raise AnncError("--jobs is the old name of --workers: give one of them")
        a.workers = None if a.jobs == 1 else check_workers(a.jobs)
    workers, scheduler = check_workers(a.workers), check_scheduler(a.scheduler)
    cfg = Config(seeds=tuple(range(a.seed0, a.seed0 + a.seeds)), time_limit=a.time_limit, epochs=a.epochs,
                 n_train=a.n_train, n_test=a.n_test, solver=a.solver, threads=a.threads,
                 methods=tuple(m for m in METHOD_IDS if m in a.methods and _in_baselines(m, a.baselines)),
                 sweeps=a.sweeps,
                 depths=a.depths, widths=a.widths)
    out = Path(a.out)
    errors = []
    if not a.report_only:
        errors = run_table1(out, cfg, workers=workers, scheduler=scheduler, log=lambda s: print(s, flush=True),
                            make_report=False)["errors"]
    for p in report(out / JSONL_NAME, out, cfg=cfg, plots=not a.no_plot):
        print(f"wrote {p}")
    return 1 if errors else 0


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``annc experiment table1`` on the annc subparsers."""
    e = subparsers.add_parser("experiment", help="reproduce the paper's experiments")
    esub = e.add_subparsers(dest="experiment", required=True)
    t = esub.add_parser(
        "table1", help="Table 1: depth and width sweeps of the nine methods",
        description="Run (or resume) the paper's Table 1 sweeps; runs are appended to DIR/table1.jsonl "
                    "and summarised in DIR/table1.md and DIR/table1_{depth,width}.{png,svg}.")
    t.add_argument("--seeds", type=int, default=5, help="number of seeds (default 5: seeds 0..4)")
    t.add_argument("--time-limit", type=float, default=60.0, help="seconds per MIP (default 60)")
    t.add_argument("--workers", type=int, metavar="N",
                   help="run the tasks on a local Dask cluster of N worker processes (default: one after "
                        "the other in this process)")
    t.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the tasks on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786)")
    t.add_argument("--jobs", type=int, help="old name of --workers")
    t.add_argument("--epochs", type=int, default=10000, help="SGD epochs (default 10000)")
    t.add_argument("--baselines", choices=BASELINES, default="correct",
                   help="SGD baselines: annc's (correct: straight-through binary units, softmax over classes), "
                        "the authors' code as written (paper: no gradient through sign units, LogSoftmax over "
                        "samples), or both (default correct)")
    t.add_argument("--methods", type=_choices(METHOD_IDS, "method"), default=METHOD_IDS,
                   help="comma-separated subset of " + ", ".join(METHOD_IDS))
    t.add_argument("--sweeps", type=_choices(SWEEPS, "sweep"), default=SWEEPS, help="depth, width or both")
    t.add_argument("--depths", type=_int_list, default=DEPTHS, help="depth sweep (default 1,2,3,4,5)")
    t.add_argument("--widths", type=_int_list, default=WIDTHS, help="width sweep (default 5,10,20,30,40,50)")
    t.add_argument("--solver", default="highs", help="MIP solver (default highs)")
    t.add_argument("--threads", type=int, default=1, help="solver threads per MIP (default 1)")
    t.add_argument("--report-only", action="store_true", help="only rewrite the table and plots from the JSONL")
    t.add_argument("--no-plot", action="store_true", help="skip the plots (no matplotlib needed)")
    t.add_argument("-o", "--out", default="results", help="output folder (default results)")
    # for quick tests: smaller data, other seeds
    t.add_argument("--n-train", type=int, default=1000, help=argparse.SUPPRESS)
    t.add_argument("--n-test", type=int, default=250, help=argparse.SUPPRESS)
    t.add_argument("--seed0", type=int, default=0, help=argparse.SUPPRESS)
    t.set_defaults(func=cmd_table1)
    return e
