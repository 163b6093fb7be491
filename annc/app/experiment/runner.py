"""Running (or resuming) a sweep: its tasks in this process or on Dask, its runs in JSON Lines.

Runs are appended to ``table1.jsonl`` (one JSON object per line) by the parent process
as soon as they finish; a run already in the file (same key:
:func:`~annc.app.experiment.definitions.run_key`) is skipped, so an interrupted sweep
resumes where it stopped (:mod:`~annc.app.experiment.jsonl`).  A task that fails is
reported and its runs stay missing; Ctrl-C stops the sweep.

Without ``workers`` or ``scheduler`` the tasks run one after the other in this process;
with them, on :class:`annc.training.large.executor.Executor` (a local cluster of ``workers`` processes,
or the Dask cluster at ``scheduler``): the same tasks, records streamed back to this
process, a task lost with its worker rerun elsewhere.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from ...core.log import silent
from .definitions import JSONL_NAME, Config, arch_label
from .jsonl import append_jsonl, cut_torn_line, read_jsonl
from .planning import plan
from .report import report
from .tasks import run_task


def run_table1(out_dir, cfg: Config = Config(), *, workers: int | None = None, scheduler: str | None = None,
               log: Callable[[str], None] = silent, make_report: bool = True) -> dict:
    """Run (or resume) the sweep; append records to ``out_dir/table1.jsonl``; with
    ``make_report`` also write the report (:func:`~annc.app.experiment.report.report`).

    Returns ``{"added": n, "skipped": n, "errors": [...], "seconds": s}``.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / JSONL_NAME
    cut_torn_line(path)
    done = {r.get("key") for r in read_jsonl(path)}
    tasks = plan(cfg, done)
    wanted = sum(len(t.records) for t in tasks)
    total = len(cfg.seeds) * sum(1 for m in cfg.methods for _ in cfg.architectures())
    log(f"table1: {total} runs in the sweep, {total - wanted} already in {path}, "
        f"{wanted} to run in {len(tasks)} tasks "
        + (f"on the Dask cluster at {scheduler}" if scheduler else
           f"on {workers} Dask worker process(es)" if workers else "in this process"))
    t_start = time.perf_counter()
    added, errors = 0, []

    def finished(task, recs):
        nonlocal added
        append_jsonl(path, recs)
        added += len(recs)
        for r in recs:
            acc = r["test_accuracy"]
            log(f"  {r['name']:<24} {arch_label(r['hidden']):>8} seed {r['seed']}: {r['status']:<11} "
                f"test {'-' if acc is None else format(acc, '.3f')}  {r['seconds']:.1f}s"
                f"  [{added}/{wanted}, {time.perf_counter() - t_start:.0f}s]")

    def failed(task, e):
        errors.append(f"{task.label()}: {type(e).__name__}: {e}")
        log(f"  error in {task.label()}: {type(e).__name__}: {e}")

    if workers is None and scheduler is None:
        for t in tasks:
            try:
                finished(t, run_task(t, cfg))
            except Exception as e:  # noqa: BLE001 - keep the sweep going; the run stays missing
                failed(t, e)
    elif tasks:
        _run_on_dask(tasks, cfg, workers, scheduler, finished, failed, log)
    seconds = time.perf_counter() - t_start
    log(f"table1: added {added} runs in {seconds:.0f}s" + (f", {len(errors)} task(s) failed" if errors else ""))
    if make_report:
        for p in report(path, out, cfg=cfg):
            log(f"wrote {p}")
    return {"added": added, "skipped": total - wanted, "errors": errors, "seconds": seconds}


def run_one(item) -> list[dict]:
    """One task on a Dask worker: ``item = (task, cfg)``; its records."""
    task, cfg = item
    return run_task(task, cfg)


def _run_on_dask(tasks, cfg: Config, workers, scheduler, finished: Callable, failed: Callable,
                 log: Callable) -> None:
    """Run ``tasks`` on the executor; hand each task's records (or its failure) to
    ``finished`` (``failed``) in this process as it comes."""
    from ...training.large.executor import Executor, TaskFailed

    def done(i, res):
        if isinstance(res, TaskFailed):
            failed(tasks[i], RuntimeError(res.message))
        else:
            finished(tasks[i], res)

    with Executor(workers=min(workers, len(tasks)) if workers else None, scheduler=scheduler, log=log) as ex:
        ex.run(run_one, [(t, cfg) for t in tasks], names=[t.label() for t in tasks], retries=0, on_result=done)
