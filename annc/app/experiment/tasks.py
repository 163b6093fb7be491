"""Running one task of the sweep (in a worker process): the records of its runs.

The MIP methods use :func:`annc.training.trainer.train` (HiGHS by default, one time limit per
MIP); the greedy MIP methods run the greedy chain of ``annc train``
(:class:`annc.training.mip.chain.GreedyChain`, Algorithm 1) with ``train`` as the per-MIP trainer,
writing no files.  The SGD methods use :mod:`annc.training.warmstart.sgd` (full batch, momentum 0.9,
lr 0.02, 10,000 epochs, softmax cross-entropy); their ``paper_`` twins
(``--baselines paper``) the authors' code as written, :mod:`annc.app.experiment.paper_sgd`.

Statuses: ``optimal`` / ``feasible`` (a MIP stopped at its time limit with an
incumbent; for greedy methods the weakest over the layer MIPs), ``no solution`` (a MIP
found no incumbent: accuracies are ``null``), ``trained`` (SGD).  The reported time of
greedy depth ``k`` is the time of its own ``k`` MIPs; if layer ``k`` finds no solution,
depths ``>= k`` have none.

A run stopped by Ctrl-C is not a measurement: the task aborts (``KeyboardInterrupt``)
instead of recording it, and the sweep resumes it later.
"""
from __future__ import annotations

import hashlib
import math
import time
from functools import partial
from typing import Callable

import numpy as np

from ...solve.solvers.base import Interrupt
from .definitions import (METHOD_NAMES, PAPER_CODE, RELU_P, SGD_METHODS, STATUS_NO_SOLUTION, STATUS_TRAINED, Config,
                          arch_label, run_key, settings_for)
from .planning import GREEDY_MIP, MIP_METHOD, Task, sgd_methods


def run_task(task: Task, cfg: Config) -> list[dict]:
    """Run one task; return its records (only those in ``task.records``)."""
    from ...io.datasets import xor_split
    from ...solve.solvers import SolveOptions

    records = _Records(task, cfg, xor_split(cfg.n_train, cfg.n_test, cfg.noise, task.seed))
    if task.kind in ("mip", "greedy_mip"):
        opts = SolveOptions(time_limit=cfg.time_limit, threads=cfg.threads, interrupt=Interrupt())
        (_binary_mip if task.kind == "mip" else _greedy_binary_mip)(task, cfg, opts, records)
    elif task.kind == "sgd":
        _sgd(task, cfg, records)
    elif task.kind == "greedy_sgd":
        _greedy_sgd(task, cfg, records)
    else:
        raise ValueError(f"unknown task kind {task.kind!r}")
    return records.out


class _Records:
    """The records a task returns: those of the runs it was asked for, each with the
    settings, the accuracies on the task's data and its resume key."""

    def __init__(self, task: Task, cfg: Config, data):
        self.task, self.cfg, self.data = task, cfg, data
        self.wanted = set((m, tuple(h)) for m, h in task.records)
        self.out: list[dict] = []

    def wants(self, method: str, hidden) -> bool:
        return (method, tuple(hidden)) in self.wanted

    def add(self, method: str, hidden, *, status: str, seconds: float, net=None, **extra) -> None:
        if not self.wants(method, hidden):
            return
        hidden, seed = tuple(hidden), self.task.seed
        Xtr, ytr, Xte, yte = self.data
        rec = {
            "method": method, "name": METHOD_NAMES[method], "hidden": list(hidden),
            "depth": len(hidden), "width": hidden[0] if hidden else 0, "seed": seed,
            "settings": settings_for(method, self.cfg), "status": status, "seconds": round(seconds, 3),
            "train_accuracy": None if net is None else _accuracy(net, Xtr, ytr),
            "test_accuracy": None if net is None else _accuracy(net, Xte, yte),
            "nonzero_weights": None if net is None else net.nonzero_weights(),
        }
        if method in SGD_METHODS:  # the baseline mode; records without it are "correct"
            rec["baselines"] = "paper" if method in PAPER_CODE else "correct"
        rec.update(extra)
        rec["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        rec["key"] = run_key(method, hidden, seed, rec["settings"])
        self.out.append(rec)


def _accuracy(net, X, y) -> float:
    return float(np.mean(net.predict_index(X) == y))


def _sgd_settings(task: Task, cfg: Config) -> dict:
    return dict(epochs=cfg.epochs, lr=cfg.lr, momentum=cfg.momentum, seed=task.seed)


def _trainers(task: Task, cfg: Config) -> tuple[Callable, Callable]:
    """The task's greedy and full SGD trainers (the authors' code or annc's, by ``task.mode``), each
    ``f(X, y, hidden, activation)`` at the run's settings; the full one takes ``init=`` too."""
    kw = _sgd_settings(task, cfg)
    if task.mode == "paper":
        from .paper_sgd import train_paper_greedy_sgd, train_paper_sgd
        return partial(train_paper_greedy_sgd, **kw), partial(train_paper_sgd, **kw)
    from ...training.warmstart.sgd import SgdSettings, train_greedy_sgd, train_sgd
    settings = SgdSettings(**kw)
    return partial(train_greedy_sgd, settings=settings), partial(train_sgd, settings=settings)


# -- the MIP methods ------------------------------------------------------------------------
def _dataset(X, y, name):
    """The task's training data as a :class:`~annc.io.data.Dataset` (classes 0 and 1)."""
    from ...io.data import Dataset
    X = np.ascontiguousarray(X, dtype=float)
    y = np.asarray(y, dtype=int)
    digest = hashlib.sha256(X.tobytes() + y.tobytes()).hexdigest()
    return Dataset(X, y, [0, 1], [f"x{i + 1}" for i in range(X.shape[1])], "label", name, digest)


def _binary_spec(inputs: int, hidden, activation: str = "binary"):
    """The paper's network: weights and biases in [-1, 1], eps 0.01, nll loss; binary
    units, or ReLU units with the McCormick products over ``RELU_P`` pieces
    (``specs/relu.ann``)."""
    from ...io.spec import parse_spec
    text = (f"input {inputs}\n" + "".join(f"hidden {h} {activation}\n" for h in hidden)
            + "output 2\nweights [-1, 1]\nbias [-1, 1]\neps 0.01\nloss nll\n"
            + (f"P {RELU_P}\n" if activation == "relu" else ""))
    return parse_spec(text, f"<table1 {activation} {arch_label(hidden)}>")


def _train_quietly(cfg: Config, opts):
    """:func:`annc.training.trainer.train` as the MIP methods call it: full training of one spec,
    no files, no log; ``solve(spec, data, stem=None) -> TrainResult``."""
    from ...training.trainer import train

    def solve(spec, data, stem=None):
        return train(spec, data, solver=cfg.solver, opts=opts, out_dir=None, greedy=False, stem=stem,
                     log=lambda s: None)
    return solve


def _mip_info(steps) -> dict:
    return {"mip_steps": [{"status": s.verdict.status.value, "seconds": round(s.result.seconds, 3),
                           "objective": s.verdict.objective, "bound": s.verdict.lower_bound,
                           "gap": s.verdict.gap if s.verdict.gap is None or math.isfinite(s.verdict.gap) else "inf",
                           "solver_status": s.result.status.value, "solver_objective": s.result.objective}
                          for s in steps],
            "verified": all(s.verification is not None and s.verification.ok for s in steps)}


def _not_interrupted(intr: Interrupt) -> None:
    """A run stopped by Ctrl-C is not a measurement: abort the task instead of recording it
    (the sweep resumes it later)."""
    if intr.requested:
        raise KeyboardInterrupt


def _binary_mip(task: Task, cfg: Config, opts, records: _Records) -> None:
    """Binary MIP (or ReLU MIP): one MIP for the whole network."""
    from ...core.errors import NoSolutionError
    Xtr, ytr = records.data[:2]
    method = MIP_METHOD[task.activation]
    t0 = time.perf_counter()
    try:
        r = _train_quietly(cfg, opts)(_binary_spec(Xtr.shape[1], task.hidden, task.activation),
                                      _dataset(Xtr, ytr, f"<xor seed {task.seed}>"))
    except NoSolutionError as e:
        _not_interrupted(opts.interrupt)
        records.add(method, task.hidden, status=STATUS_NO_SOLUTION, seconds=time.perf_counter() - t0,
                    error=str(e))
        return
    _not_interrupted(opts.interrupt)
    records.add(method, task.hidden, status=r.status.value, seconds=time.perf_counter() - t0,
                net=r.network, **_mip_info(r.steps))


def _greedy_binary_mip(task: Task, cfg: Config, opts, records: _Records) -> None:
    """Greedy Binary MIP (and + SGD), or Greedy ReLU MIP, at every depth of ``task.depths``:
    one greedy chain of the deepest network, a record after each layer whose depth is wanted."""
    from ...core.errors import NoSolutionError
    from ...training.mip.chain import GreedyChain, weakest
    from ...training.warmstart.sgd import SgdSettings, train_sgd
    Xtr, ytr = records.data[:2]
    width = task.hidden[0]
    greedy = GREEDY_MIP[task.activation][0]
    train_one = _train_quietly(cfg, opts)
    chain = GreedyChain(_binary_spec(Xtr.shape[1], task.hidden, task.activation), _dataset(Xtr, ytr, f"<xor seed {task.seed}>"),
                        f"table1_{arch_label(task.hidden)}",
                        lambda name, spec, data: train_one(spec, data, stem=name).steps[0], opts.interrupt)
    times = []  # seconds of each layer's MIP (build, start, solve, decode, verify)
    t0 = time.perf_counter()
    try:
        for _ in chain.hidden_layers():
            _not_interrupted(opts.interrupt)
            times.append(time.perf_counter() - t0)
            depth = len(chain.layers)
            if depth in task.depths:
                net = chain.network({"training": "greedy", "method": "greedy_mip"})
                status = weakest(s.verdict.status for s in chain.steps).value
                info, mip_seconds = _mip_info(chain.steps), sum(times)
                records.add(greedy, (width,) * depth, status=status, seconds=mip_seconds, net=net,
                            shared_prefix=True, **info)
                if records.wants("greedy_binary_mip_sgd", (width,) * depth):
                    t1 = time.perf_counter()
                    tuned = train_sgd(Xtr, ytr, [width] * depth, "binary", init=net, classes=[0, 1],
                                      settings=SgdSettings(**_sgd_settings(task, cfg)))
                    records.add("greedy_binary_mip_sgd", (width,) * depth, status=status,
                                seconds=mip_seconds + time.perf_counter() - t1, net=tuned,
                                mip_seconds=round(mip_seconds, 3), shared_prefix=True, **info)
            t0 = time.perf_counter()
    except NoSolutionError as e:
        _not_interrupted(opts.interrupt)
        failed, secs = len(chain.layers), time.perf_counter() - t0  # the layer without a solution
        for depth in task.depths:
            if depth > failed:
                for m in GREEDY_MIP[task.activation]:
                    records.add(m, (width,) * depth, status=STATUS_NO_SOLUTION,
                                seconds=sum(times[:depth - 1]) + secs, error=f"layer {failed + 1}: {e}",
                                shared_prefix=True)
    _not_interrupted(opts.interrupt)  # pressed before the first layer: the chain stopped at once


# -- the SGD methods ----------------------------------------------------------------------------
def _sgd(task: Task, cfg: Config, records: _Records) -> None:
    """Binary SGD or ReLU SGD."""
    Xtr, ytr = records.data[:2]
    t0 = time.perf_counter()
    net = _trainers(task, cfg)[1](Xtr, ytr, list(task.hidden), task.activation)
    records.add(sgd_methods(task.activation, task.mode)[0], task.hidden, status=STATUS_TRAINED,
                seconds=time.perf_counter() - t0, net=net, final_loss=net.meta["final_loss"])


def _greedy_sgd(task: Task, cfg: Config, records: _Records) -> None:
    """Greedy SGD, and Greedy SGD + SGD fine-tuning the same greedy network."""
    train_greedy, train_full = _trainers(task, cfg)
    Xtr, ytr = records.data[:2]
    greedy = sgd_methods(task.activation, task.mode)[1]
    t0 = time.perf_counter()
    net = train_greedy(Xtr, ytr, list(task.hidden), task.activation)
    t_greedy = time.perf_counter() - t0
    records.add(greedy, task.hidden, status=STATUS_TRAINED, seconds=t_greedy, net=net,
                final_loss=net.meta["final_loss"])
    if records.wants(greedy + "_sgd", task.hidden):
        t1 = time.perf_counter()
        tuned = train_full(Xtr, ytr, list(task.hidden), task.activation, init=net)
        records.add(greedy + "_sgd", task.hidden, status=STATUS_TRAINED,
                    seconds=t_greedy + time.perf_counter() - t1, net=tuned, final_loss=tuned.meta["final_loss"])
