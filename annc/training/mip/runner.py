"""The runner of one MIP: its stages (:mod:`annc.training.mip.stages`) composed in order.

``build -> start -> bound -> solve -> finish -> judge``: :func:`run_mip` passes each stage the
:class:`~annc.training.mip.stages.MipJob` and the outputs of the stages before it.  The large-data
path's Dask cluster (if any) is open for the build and the start only: it is closed before the
solver's budget is taken, and when a stage fails.

Every MIP of a training run comes here: full and greedy training (:func:`annc.training.trainer.fit`,
through :func:`~annc.training.mip.chain.run_chain`), and so the command line, the Python API, the
estimator, model selection's final training and the decompositions' sub-MIPs
(:func:`annc.training.trainer.train`).
"""
from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace

from ...io.data import Dataset
from ...io.spec import NetworkSpec
from ..context import RunContext
from . import stages
from .chain import Step
from .job import MipJob, MipSettings


def run_mip(name: str, spec: NetworkSpec, data: Dataset, ctx: RunContext, settings: MipSettings) -> Step:
    """Train one MIP ``name`` of ``spec`` on ``data`` within ``ctx`` (this MIP's context: its budget,
    solver and settings); see the module docstring.  Raises
    :class:`~annc.core.errors.NoSolutionError` when the MIP ends without a network."""
    job = MipJob(name, spec, data, ctx, settings)
    with ExitStack() as tasks:
        built, ctx = stages.build(job, tasks)
        started = stages.start(job, built, ctx)
    ctx = replace(ctx, executor=None)  # the large-data path's cluster is closed
    bounded = stages.bound(job, built, started, ctx)
    solved = stages.solve(job, built, started, bounded, ctx)
    if solved.result.x is None:
        raise stages.no_solution(job, solved.result, ctx)
    if ctx.interrupt is not None:
        ctx.interrupt.has_solution = True  # from now on a Ctrl-C keeps what there is
    finished = stages.finish(job, built, started, bounded, solved, ctx)
    return stages.judge(job, built, started, bounded, solved, finished, ctx)
