"""``annc experiment table1``: reproduce Table 1 of Patil & Mintz.

Two sweeps on the paper's XOR data (:func:`annc.datasets.xor_split`, 1000 training and
250 test samples, 10% label noise on both, one draw per seed shared by every method):

* **depth**: 1 to 5 hidden layers of 5 units;
* **width**: 3 hidden layers of 5, 10, 20, 30, 40 or 50 units

(the 3 x 5 network belongs to both sweeps and is run once), for the nine methods of
Table 1 (:data:`METHODS`).  The MIP methods use :func:`annc.train.train` (HiGHS by
default, one time limit per MIP); the SGD methods use :mod:`annc.sgd` (full batch,
momentum 0.9, lr 0.02, 10,000 epochs, softmax cross-entropy).

Runs are appended to ``table1.jsonl`` (one JSON object per line) by the parent process
as soon as they finish; a run already in the file (same method, architecture, seed and
the settings that method depends on: :func:`settings_for`) is skipped, so an
interrupted sweep resumes where it stopped.  :func:`report` turns the file into
``table1.md`` and the plots ``table1_depth.{png,svg}`` and ``table1_width.{png,svg}``.

How the work is cut into tasks (each task runs in one worker process):

* Binary MIP: one task per architecture and seed (one MIP for the whole network).
* Greedy Binary MIP (Algorithm 1) and Greedy Binary MIP + SGD: one task per hidden
  width and seed, solving the layer MIPs of the deepest network needed; the greedy
  network of depth ``k`` is layers ``1..k`` plus the throw-away output layer trained
  with layer ``k``.  That is exactly what a separate greedy run of depth ``k`` solves
  (layer ``k``'s MIP depends only on the layers below it), so the depth sweep solves 5
  layer MIPs per seed instead of 15; the reported time of depth ``k`` is the time of its
  own ``k`` MIPs.  If layer ``k`` finds no solution, depths ``>= k`` have none.
* Binary / ReLU SGD: one task per architecture, seed and activation.
* Greedy SGD and Greedy SGD + SGD: one task (the fine-tuning starts from the greedy
  network of the same task).

Statuses: ``optimal`` / ``feasible`` (a MIP stopped at its time limit with an
incumbent; for greedy methods the weakest over the layer MIPs), ``no solution`` (a MIP
found no incumbent: accuracies are ``null``), ``trained`` (SGD).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .solvers.base import Interrupt

# -- the experiment's definition ------------------------------------------------------
# (id, name in Table 1, family, hidden activation)
METHODS = (
    ("binary_mip", "Binary MIP"),
    ("greedy_binary_mip", "Greedy Binary MIP"),
    ("greedy_binary_mip_sgd", "Greedy Binary MIP + SGD"),
    ("binary_sgd", "Binary SGD"),
    ("greedy_binary_sgd", "Greedy Binary SGD"),
    ("greedy_binary_sgd_sgd", "Greedy Binary SGD + SGD"),
    ("relu_sgd", "ReLU SGD"),
    ("relu_greedy_sgd", "ReLU Greedy SGD"),
    ("relu_greedy_sgd_sgd", "ReLU Greedy SGD + SGD"),
)
METHOD_IDS = tuple(m for m, _ in METHODS)
METHOD_NAMES = dict(METHODS)
MIP_METHODS = ("binary_mip", "greedy_binary_mip", "greedy_binary_mip_sgd")
SGD_METHODS = ("greedy_binary_mip_sgd", "binary_sgd", "greedy_binary_sgd", "greedy_binary_sgd_sgd",
               "relu_sgd", "relu_greedy_sgd", "relu_greedy_sgd_sgd")

# Table 1 of the paper: (minimum number of layers, minimum number of units) to 85%.
PAPER = {
    "binary_mip": ("1", "NaN"),
    "greedy_binary_mip": ("1", "5"),
    "greedy_binary_mip_sgd": (">5", "10"),
    "binary_sgd": (">5", ">50"),
    "greedy_binary_sgd": (">5", ">50"),
    "greedy_binary_sgd_sgd": (">5", ">50"),
    "relu_sgd": (">5", "50"),
    "relu_greedy_sgd": (">5", ">50"),
    "relu_greedy_sgd_sgd": (">5", ">50"),
}

DEPTHS = (1, 2, 3, 4, 5)
DEPTH_SWEEP_WIDTH = 5
WIDTHS = (5, 10, 20, 30, 40, 50)
WIDTH_SWEEP_DEPTH = 3
SWEEPS = ("depth", "width")
TARGET = 0.85
NOISE = 0.1
STATUS_NO_SOLUTION = "no solution"
STATUS_TRAINED = "trained"
JSONL_NAME = "table1.jsonl"


@dataclass(frozen=True)
class Config:
    """Everything a sweep depends on."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    time_limit: float = 60.0
    epochs: int = 10000
    lr: float = 0.02
    momentum: float = 0.9
    n_train: int = 1000
    n_test: int = 250
    noise: float = NOISE
    solver: str = "highs"
    threads: int | None = 1
    methods: tuple[str, ...] = METHOD_IDS
    sweeps: tuple[str, ...] = SWEEPS
    depths: tuple[int, ...] = DEPTHS
    widths: tuple[int, ...] = WIDTHS

    def architectures(self) -> list[tuple[int, ...]]:
        """Hidden-layer widths of every network in the selected sweeps, without repeats."""
        return _architectures(self.sweeps, self.depths, self.widths)


def _architectures(sweeps, depths, widths) -> list[tuple[int, ...]]:
    archs: list[tuple[int, ...]] = []
    if "depth" in sweeps:
        archs += [(DEPTH_SWEEP_WIDTH,) * d for d in depths]
    if "width" in sweeps:
        archs += [(w,) * WIDTH_SWEEP_DEPTH for w in widths]
    return list(dict.fromkeys(archs))


def settings_for(method: str, cfg: Config) -> dict:
    """The settings a method's result depends on (part of the resume key)."""
    s = {"n_train": cfg.n_train, "n_test": cfg.n_test, "noise": cfg.noise}
    if method in MIP_METHODS:
        s.update(time_limit=cfg.time_limit, solver=cfg.solver)
    if method in SGD_METHODS:
        s.update(epochs=cfg.epochs, lr=cfg.lr, momentum=cfg.momentum)
    return s


def run_key(method: str, hidden, seed: int, settings: dict) -> str:
    return json.dumps([method, list(hidden), int(seed), settings], sort_keys=True)


def arch_label(hidden) -> str:
    return "x".join(str(h) for h in hidden) if hidden else "0"


# -- tasks --------------------------------------------------------------------------------
@dataclass
class Task:
    kind: str  # "mip" | "greedy_mip" | "sgd" | "greedy_sgd"
    seed: int
    hidden: tuple[int, ...]  # the network (for greedy_mip: the deepest one of the chain)
    activation: str = "binary"
    depths: tuple[int, ...] = ()  # greedy_mip: the depths to report
    records: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)  # (method, hidden) wanted
    cost: float = 0.0  # rough seconds, for scheduling the longest tasks first

    def label(self) -> str:
        extra = f" depths {','.join(map(str, self.depths))}" if self.kind == "greedy_mip" else ""
        return f"{self.kind} {self.activation} {arch_label(self.hidden)}{extra} seed {self.seed}"


def _sgd_cost(hidden, epochs, n) -> float:
    """Rough seconds of full-batch SGD (fitted to 10k epochs on 1000 rows: 0.6 s for 5 units,
    1.7 s for 5 x 5, 11 s for 3 x 50)."""
    work = sum(a * b for a, b in zip((5, *hidden), (*hidden, 2)))
    return epochs * (n * 1.9e-10 * work + 3e-8 * n * (len(hidden) + 1))


def plan(cfg: Config, done: set[str] | None = None) -> list[Task]:
    """Tasks still needed (records whose key is in ``done`` are not wanted again)."""
    done = done or set()
    archs = cfg.architectures()
    tasks: list[Task] = []

    def want(method, hidden, seed):
        return method in cfg.methods and run_key(method, hidden, seed, settings_for(method, cfg)) not in done

    tl = cfg.time_limit
    for seed in cfg.seeds:
        for h in archs:
            if want("binary_mip", h, seed):
                tasks.append(Task("mip", seed, h, records=[("binary_mip", h)], cost=tl * 1.05 + 2))
        # greedy MIP: one chain per width
        by_width: dict[int, list[int]] = defaultdict(list)
        for h in archs:
            if any(want(m, h, seed) for m in ("greedy_binary_mip", "greedy_binary_mip_sgd")):
                by_width[h[0]].append(len(h))
        for w, depths in by_width.items():
            depths = tuple(sorted(depths))
            recs = [(m, (w,) * d) for d in depths for m in ("greedy_binary_mip", "greedy_binary_mip_sgd")
                    if want(m, (w,) * d, seed)]
            sgd = sum(_sgd_cost((w,) * d, cfg.epochs, cfg.n_train) for d in depths) \
                if "greedy_binary_mip_sgd" in cfg.methods else 0
            tasks.append(Task("greedy_mip", seed, (w,) * max(depths), depths=depths, records=recs,
                              cost=tl * (1 + 0.5 * (max(depths) - 1)) + sgd))
        for act, prefix in (("binary", "binary"), ("relu", "relu")):
            plain = "binary_sgd" if act == "binary" else "relu_sgd"
            greedy = "greedy_binary_sgd" if act == "binary" else "relu_greedy_sgd"
            for h in archs:
                c = _sgd_cost(h, cfg.epochs, cfg.n_train)
                if want(plain, h, seed):
                    tasks.append(Task("sgd", seed, h, act, records=[(plain, h)], cost=c))
                recs = [(m, h) for m in (greedy, greedy + "_sgd") if want(m, h, seed)]
                if recs:
                    cost = sum(_sgd_cost((k,), cfg.epochs, cfg.n_train) for k in h) + c
                    tasks.append(Task("greedy_sgd", seed, h, act, records=recs, cost=cost))
    tasks.sort(key=lambda t: -t.cost)
    return tasks


# -- running one task (in a worker process) ----------------------------------------------
def _dataset(X, y, name):
    from .data import Dataset
    X = np.ascontiguousarray(X, dtype=float)
    y = np.asarray(y, dtype=int)
    digest = hashlib.sha256(X.tobytes() + y.tobytes()).hexdigest()
    return Dataset(X, y, [0, 1], [f"x{i + 1}" for i in range(X.shape[1])], "label", name, digest)


def _binary_spec(inputs: int, hidden):
    from .spec import parse_spec
    text = (f"input {inputs}\n" + "".join(f"hidden {h} binary\n" for h in hidden)
            + "output 2\nweights [-1, 1]\nbias [-1, 1]\neps 0.01\n")
    return parse_spec(text, f"<table1 {arch_label(hidden)}>")


def _acc(net, X, y) -> float:
    return float(np.mean(net.predict_index(X) == y))


def _record(method, hidden, seed, cfg, *, status, seconds, net=None, data=None, **extra) -> dict:
    Xtr, ytr, Xte, yte = data
    rec = {
        "method": method, "name": METHOD_NAMES[method], "hidden": list(hidden),
        "depth": len(hidden), "width": hidden[0] if hidden else 0, "seed": seed,
        "settings": settings_for(method, cfg), "status": status, "seconds": round(seconds, 3),
        "train_accuracy": None if net is None else _acc(net, Xtr, ytr),
        "test_accuracy": None if net is None else _acc(net, Xte, yte),
        "nonzero_weights": None if net is None else net.nonzero_weights(),
    }
    rec.update(extra)
    rec["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    rec["key"] = run_key(method, hidden, seed, rec["settings"])
    return rec


def _mip_info(steps) -> dict:
    return {"mip_steps": [{"status": s.result.status.value, "seconds": round(s.result.seconds, 3),
                           "objective": s.result.objective, "bound": s.result.bound,
                           "gap": s.result.gap if s.result.gap is None or math.isfinite(s.result.gap) else "inf"}
                          for s in steps],
            "verified": all(s.verification is not None and s.verification.ok for s in steps)}


def _weakest(statuses) -> str:
    order = ["optimal", "feasible", "unknown"]
    return max(statuses, key=lambda s: order.index(s) if s in order else len(order))


def run_task(task: Task, cfg: Config) -> list[dict]:
    """Run one task; return its records (only those in ``task.records``)."""
    from .datasets import xor_split
    from .errors import NoSolutionError
    from .network import TrainedNetwork
    from .sgd import train_greedy_sgd, train_sgd
    from .solvers import SolveOptions
    from .train import train

    data = xor_split(cfg.n_train, cfg.n_test, cfg.noise, task.seed)
    Xtr, ytr, Xte, yte = data
    wanted = set((m, tuple(h)) for m, h in task.records)
    out: list[dict] = []
    kw = dict(epochs=cfg.epochs, lr=cfg.lr, momentum=cfg.momentum, seed=task.seed)

    def emit(method, hidden, **k):
        if (method, tuple(hidden)) in wanted:
            out.append(_record(method, tuple(hidden), task.seed, cfg, data=data, **k))

    opts = SolveOptions(time_limit=cfg.time_limit, threads=cfg.threads, interrupt=Interrupt())
    quiet = lambda s: None  # noqa: E731

    if task.kind == "mip":
        t0 = time.perf_counter()
        try:
            r = train(_binary_spec(Xtr.shape[1], task.hidden), _dataset(Xtr, ytr, f"<xor seed {task.seed}>"),
                      solver=cfg.solver, opts=opts, out_dir=None, greedy=False, log=quiet)
        except NoSolutionError as e:
            _not_interrupted(opts.interrupt)
            emit("binary_mip", task.hidden, status=STATUS_NO_SOLUTION, seconds=time.perf_counter() - t0,
                 error=str(e))
            return out
        _not_interrupted(opts.interrupt)
        emit("binary_mip", task.hidden, status=r.status.value, seconds=time.perf_counter() - t0,
             net=r.network, **_mip_info(r.steps))
        return out

    if task.kind == "greedy_mip":
        width = task.hidden[0]
        X = Xtr
        layers, steps, times = [], [], []
        failed = None
        for i in range(max(task.depths)):
            t0 = time.perf_counter()
            try:
                name = f"<xor seed {task.seed}>" if i == 0 else f"<xor seed {task.seed} layer{i}>"
                d = _dataset(X, ytr, name)
                if i:
                    d.features = [f"u{k}" for k in range(X.shape[1])]
                r = train(_binary_spec(X.shape[1], (width,)), d, solver=cfg.solver, opts=opts,
                          out_dir=None, greedy=False, log=quiet)
            except NoSolutionError as e:
                _not_interrupted(opts.interrupt)
                failed = (i, str(e), time.perf_counter() - t0)
                break
            _not_interrupted(opts.interrupt)
            times.append(time.perf_counter() - t0)
            steps.append(r.steps[0])
            layers.append(r.network.layers[0])
            X = r.network.forward(X)[0]
            depth = i + 1
            if depth not in task.depths:
                continue
            net = TrainedNetwork([0, 1], layers + [r.network.layers[1]],
                                 {"training": "greedy", "method": "greedy_mip"})
            status = _weakest([s.result.status.value for s in steps])
            info = _mip_info(steps)
            mip_seconds = sum(times)
            emit("greedy_binary_mip", (width,) * depth, status=status, seconds=mip_seconds, net=net,
                 shared_prefix=True, **info)
            if ("greedy_binary_mip_sgd", (width,) * depth) in wanted:
                t1 = time.perf_counter()
                tuned = train_sgd(Xtr, ytr, [width] * depth, "binary", init=net, classes=[0, 1], **kw)
                emit("greedy_binary_mip_sgd", (width,) * depth, status=status,
                     seconds=mip_seconds + time.perf_counter() - t1, net=tuned, mip_seconds=round(mip_seconds, 3),
                     shared_prefix=True, **info)
        if failed is not None:
            i, msg, secs = failed
            for depth in task.depths:
                if depth > i:
                    for m in ("greedy_binary_mip", "greedy_binary_mip_sgd"):
                        emit(m, (width,) * depth, status=STATUS_NO_SOLUTION, seconds=sum(times[:depth - 1]) + secs,
                             error=f"layer {i + 1}: {msg}", shared_prefix=True)
        return out

    act = task.activation
    if task.kind == "sgd":
        t0 = time.perf_counter()
        net = train_sgd(Xtr, ytr, list(task.hidden), act, **kw)
        method = "binary_sgd" if act == "binary" else "relu_sgd"
        emit(method, task.hidden, status=STATUS_TRAINED, seconds=time.perf_counter() - t0, net=net,
             final_loss=net.meta["final_loss"])
        return out

    if task.kind == "greedy_sgd":
        greedy = "greedy_binary_sgd" if act == "binary" else "relu_greedy_sgd"
        t0 = time.perf_counter()
        net = train_greedy_sgd(Xtr, ytr, list(task.hidden), act, **kw)
        t_greedy = time.perf_counter() - t0
        emit(greedy, task.hidden, status=STATUS_TRAINED, seconds=t_greedy, net=net,
             final_loss=net.meta["final_loss"])
        if (greedy + "_sgd", tuple(task.hidden)) in wanted:
            t1 = time.perf_counter()
            tuned = train_sgd(Xtr, ytr, list(task.hidden), act, init=net, **kw)
            emit(greedy + "_sgd", task.hidden, status=STATUS_TRAINED,
                 seconds=t_greedy + time.perf_counter() - t1, net=tuned, final_loss=tuned.meta["final_loss"])
        return out
    raise ValueError(f"unknown task kind {task.kind!r}")


def _not_interrupted(intr) -> None:
    """A run stopped by Ctrl-C is not a measurement: abort the task instead of recording it
    (the sweep resumes it later)."""
    if intr.requested:
        raise KeyboardInterrupt


def _worker_init():
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


# -- the sweep ------------------------------------------------------------------------------
def read_jsonl(path) -> list[dict]:
    """Records of a JSON Lines file (a torn last line, from a killed run, is ignored)."""
    path = Path(path)
    if not path.exists():
        return []
    recs = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            recs.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return recs


def _append(path: Path, records: list[dict]) -> None:
    with path.open("a") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())


def run_table1(out_dir, cfg: Config = Config(), *, jobs: int = 1, log: Callable[[str], None] = print,
               make_report: bool = True) -> dict:
    """Run (or resume) the sweep; append records to ``out_dir/table1.jsonl``.

    Returns ``{"added": n, "skipped": n, "errors": [...], "seconds": s}``.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / JSONL_NAME
    # a torn last line (killed mid-write) would corrupt the next append: cut it off
    if path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
        text = path.read_text()
        path.write_text(text[: text.rfind("\n") + 1])
    done = {r.get("key") for r in read_jsonl(path)}
    tasks = plan(cfg, done)
    wanted = sum(len(t.records) for t in tasks)
    total = len(cfg.seeds) * sum(1 for m in cfg.methods for _ in cfg.architectures())
    log(f"table1: {total} runs in the sweep, {total - wanted} already in {path}, "
        f"{wanted} to run in {len(tasks)} tasks on {jobs} process(es)")
    t_start = time.perf_counter()
    added, errors = 0, []

    def finished(task, recs):
        nonlocal added
        _append(path, recs)
        added += len(recs)
        for r in recs:
            acc = r["test_accuracy"]
            log(f"  {r['name']:<24} {arch_label(r['hidden']):>8} seed {r['seed']}: {r['status']:<11} "
                f"test {'-' if acc is None else format(acc, '.3f')}  {r['seconds']:.1f}s"
                f"  [{added}/{wanted}, {time.perf_counter() - t_start:.0f}s]")

    if jobs <= 1:
        for t in tasks:
            try:
                finished(t, run_task(t, cfg))
            except Exception as e:  # noqa: BLE001 - keep the sweep going; the run stays missing
                errors.append(f"{t.label()}: {type(e).__name__}: {e}")
                log(f"  error in {t.label()}: {type(e).__name__}: {e}")
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init) as pool:
            futures = {pool.submit(run_task, t, cfg): t for t in tasks}
            try:
                for fut in as_completed(futures):
                    t = futures[fut]
                    try:
                        recs = fut.result()
                    except Exception as e:  # noqa: BLE001
                        errors.append(f"{t.label()}: {type(e).__name__}: {e}")
                        log(f"  error in {t.label()}: {type(e).__name__}: {e}")
                        continue
                    finished(t, recs)
            except KeyboardInterrupt:
                for f in futures:
                    f.cancel()
                raise
    seconds = time.perf_counter() - t_start
    log(f"table1: added {added} runs in {seconds:.0f}s" + (f", {len(errors)} task(s) failed" if errors else ""))
    if make_report:
        for p in report(path, out, cfg=cfg):
            log(f"wrote {p}")
    return {"added": added, "skipped": total - wanted, "errors": errors, "seconds": seconds}


# -- the report -------------------------------------------------------------------------------
def _select(records: list[dict], cfg: Config | None) -> tuple[list[dict], list[str]]:
    """Records to report: with ``cfg``, those with its settings; otherwise, per method, those
    with the settings of the method's most recent record.  Later duplicates win."""
    notes = []
    if cfg is not None:
        keep = [r for r in records if r.get("method") in METHOD_NAMES
                and r.get("settings") == settings_for(r["method"], cfg)]
    else:
        latest = {}
        for r in records:
            if r.get("method") in METHOD_NAMES:
                latest[r["method"]] = r.get("settings")
        keep = [r for r in records if r.get("method") in latest and r.get("settings") == latest[r["method"]]]
    if len(keep) < len(records):
        notes.append(f"{len(records) - len(keep)} record(s) in the file with other settings are not shown.")
    by_key = {}
    for r in keep:
        by_key[r["key"]] = r
    return list(by_key.values()), notes


@dataclass
class Cell:
    n: int = 0  # runs in the file
    finished: int = 0  # with a network
    stopped: int = 0  # MIP status feasible (stopped at the time limit)
    accs: list = field(default_factory=list)
    train_accs: list = field(default_factory=list)
    seconds: list = field(default_factory=list)
    nonzero: list = field(default_factory=list)

    @property
    def mean(self) -> float | None:
        return float(np.mean(self.accs)) if self.accs else None


def _cells(records) -> dict:
    cells: dict = defaultdict(Cell)
    for r in records:
        c = cells[(r["method"], tuple(r["hidden"]))]
        c.n += 1
        c.seconds.append(r["seconds"])
        if r.get("test_accuracy") is not None:
            c.finished += 1
            c.accs.append(r["test_accuracy"])
            c.train_accs.append(r["train_accuracy"])
            c.nonzero.append(r["nonzero_weights"])
        if r["status"] == "feasible":
            c.stopped += 1
    return cells


def _minimum(cells, method, xs, arch_of, unit) -> tuple[str, str | None]:
    """The Table 1 cell for one method and sweep, and a footnote when it needs one.

    ``x`` if the mean test accuracy at ``x`` reaches the target and at no smaller ``x``
    (marked ``*`` when a smaller ``x`` has no result or no run yet); ``>max`` if every
    architecture has a result and none reaches it; ``NaN`` if no run produced a network;
    ``NaN*`` if some did, none reaches the target and others produced none; ``?`` if
    runs are missing from the file and the answer depends on them.
    """
    name = METHOD_NAMES[method]
    state = []  # (x, mean or None, "ok" | "none" | "missing")
    for x in xs:
        c = cells.get((method, arch_of(x)))
        if c is None or c.n == 0:
            state.append((x, None, "missing"))
        elif c.mean is None:
            state.append((x, None, "none"))
        else:
            state.append((x, c.mean, "ok"))
    missing = [str(x) for x, _, k in state if k == "missing"]
    nores = [str(x) for x, _, k in state if k == "none"]
    for x, m, k in state:
        if k == "ok" and m >= TARGET:
            gaps = [f"{unit} {x2}: {'not run' if k2 == 'missing' else 'no result'}"
                    for x2, _, k2 in state if x2 < x and k2 != "ok"]
            if gaps:
                return f"{x}*", f"{name}: {'; '.join(gaps)}"
            return str(x), None
    if missing:
        return "?", f"{name}: runs missing at {unit} {', '.join(missing)} (see Missing runs)"
    if len(nores) == len(state):
        return "NaN", None
    if nores:
        return "NaN*", f"{name}: no result at {unit} {', '.join(nores)}; the others stay below {TARGET:.0%}"
    return f">{max(xs)}", None


def _fmt_acc(c: Cell | None, expected: int) -> str:
    if c is None or c.n == 0:
        return "missing"
    if not c.accs:
        return f"NaN (0/{expected})"
    s = f"{100 * c.mean:.1f}"
    if len(c.accs) > 1:
        s += f" ± {100 * float(np.std(c.accs)):.1f}"
    s += f" ({c.finished}/{expected}"
    if c.stopped:
        s += f", {c.stopped} TL"
    return s + ")"


def report(jsonl_path, out_dir, *, cfg: Config | None = None, plots: bool = True) -> list[Path]:
    """Write ``table1.md`` (and the plots) from a JSON Lines file of runs.

    With ``cfg`` only its settings, seeds, methods and sweeps are reported (and runs it
    wants but the file lacks are listed as missing); without it, everything in the file
    (per method the settings of its latest record), the seeds found, both sweeps.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    raw = read_jsonl(jsonl_path)
    records, notes = _select(raw, cfg)
    if cfg is not None:
        seeds, methods = list(cfg.seeds), [m for m in METHOD_IDS if m in cfg.methods]
        sweeps, depths, widths = cfg.sweeps, cfg.depths, cfg.widths
        records = [r for r in records if r["seed"] in seeds]
    else:
        seeds = sorted({r["seed"] for r in records})
        methods = [m for m in METHOD_IDS if any(r["method"] == m for r in records)] or list(METHOD_IDS)
        sweeps, depths, widths = SWEEPS, DEPTHS, WIDTHS
    archs = _architectures(sweeps, depths, widths)
    records = [r for r in records if tuple(r["hidden"]) in archs and r["method"] in methods]
    cells = _cells(records)
    have = {(r["method"], tuple(r["hidden"]), r["seed"]) for r in records}
    missing = [(m, a, s) for m in methods for a in archs for s in seeds if (m, a, s) not in have]
    n_seeds = len(seeds)

    def depth_arch(d):
        return (DEPTH_SWEEP_WIDTH,) * d

    def width_arch(w):
        return (w,) * WIDTH_SWEEP_DEPTH

    settings = {}
    for r in records:
        settings.update(r["settings"])
    lines = ["# Table 1: minimum depth and width reaching 85% mean test accuracy", ""]
    lines.append(
        f"XOR data (parity of x1, x3, x5), {settings.get('n_train', '?')} training / "
        f"{settings.get('n_test', '?')} test samples, {settings.get('noise', NOISE):.0%} label noise; "
        f"{n_seeds} seed(s) ({', '.join(map(str, seeds))}), one data draw per seed shared by all methods. "
        + (f"Depth sweep: {', '.join(map(str, depths))} hidden layers of {DEPTH_SWEEP_WIDTH} units. "
           if "depth" in sweeps else "")
        + (f"Width sweep: {WIDTH_SWEEP_DEPTH} hidden layers of {', '.join(map(str, widths))} units. "
           if "width" in sweeps else "")
        + f"MIP: {settings.get('solver', 'highs')}, time limit "
        f"{settings.get('time_limit', '?')} s per MIP; SGD: full batch, lr {settings.get('lr', '?')}, momentum "
        f"{settings.get('momentum', '?')}, {settings.get('epochs', '?')} epochs. A cell is the smallest depth "
        f"(width) whose mean test accuracy over the seeds with a result reaches {TARGET:.0%}.")
    lines.append("")
    footnotes = []
    head = "| Model |"
    rule = "|---|"
    if "depth" in sweeps:
        head += " Number of Layers | Paper: Layers |"
        rule += "---|---|"
    if "width" in sweeps:
        head += " Number of Units | Paper: Units |"
        rule += "---|---|"
    lines += [head, rule]
    for m in methods:
        row = f"| {METHOD_NAMES[m]} |"
        if "depth" in sweeps:
            v, note = _minimum(cells, m, list(depths), depth_arch, "depth")
            row += f" {v} | {PAPER[m][0]} |"
            footnotes += [note] if note else []
        if "width" in sweeps:
            v, note = _minimum(cells, m, list(widths), width_arch, "width")
            row += f" {v} | {PAPER[m][1]} |"
            footnotes += [note] if note else []
        lines.append(row)
    lines.append("")
    if footnotes:
        lines += [f"\\* {n}" for n in footnotes] + [""]

    def detail(title, xs, arch_of, label):
        nonlocal lines
        lines += [f"## {title}", "",
                  "Mean test accuracy in % ± standard deviation over seeds (seeds with a result / seeds; "
                  "TL = MIP runs stopped at the time limit, status feasible).", ""]
        lines.append("| Model | " + " | ".join(f"{label} {x}" for x in xs) + " |")
        lines.append("|---|" + "---|" * len(xs))
        for m in methods:
            lines.append(f"| {METHOD_NAMES[m]} | "
                         + " | ".join(_fmt_acc(cells.get((m, arch_of(x))), n_seeds) for x in xs) + " |")
        lines += ["", "Mean train accuracy %, mean seconds per run and mean non-zero weights:", ""]
        lines.append("| Model | " + " | ".join(f"{label} {x}" for x in xs) + " |")
        lines.append("|---|" + "---|" * len(xs))
        for m in methods:
            parts = []
            for x in xs:
                c = cells.get((m, arch_of(x)))
                if c is None or c.n == 0:
                    parts.append("missing")
                    continue
                tr = f"{100 * np.mean(c.train_accs):.1f}" if c.train_accs else "NaN"
                nz = f"{np.mean(c.nonzero):.0f}" if c.nonzero else "-"
                parts.append(f"{tr} / {np.mean(c.seconds):.0f}s / {nz}")
            lines.append(f"| {METHOD_NAMES[m]} | " + " | ".join(parts) + " |")
        lines.append("")

    if "depth" in sweeps:
        detail(f"Depth sweep ({DEPTH_SWEEP_WIDTH} units per hidden layer)", list(depths), depth_arch, "depth")
    if "width" in sweeps:
        detail(f"Width sweep ({WIDTH_SWEEP_DEPTH} hidden layers)", list(widths), width_arch, "width")

    lines += ["## Missing runs", ""]
    if missing:
        lines.append(f"{len(missing)} of {len(methods) * len(archs) * n_seeds} runs are not in the file "
                     "(not run yet, interrupted, or failed):")
        lines.append("")
        grouped = defaultdict(list)
        for m, a, s in missing:
            grouped[(m, a)].append(s)
        for (m, a), ss in grouped.items():
            lines.append(f"- {METHOD_NAMES[m]}, {arch_label(a)}: seed(s) {', '.join(map(str, ss))}")
    else:
        lines.append("None: every run of the sweep is in the file.")
    lines.append("")
    notes = [
        "Test labels carry the same label noise as the training labels, so about 90% is the best "
        "achievable test accuracy (the clean parity rule).",
        "Greedy Binary MIP of depth k is layers 1..k of one greedy chain per width and seed plus the "
        "throw-away output layer trained with layer k: the same MIPs a separate depth-k greedy run solves.",
        "Greedy Binary MIP + SGD fine-tunes that network end to end with binary SGD (straight-through "
        "estimator); its status is that of the MIPs.",
        "Binary MIP with one hidden layer and Greedy Binary MIP with one hidden layer solve the same MIP "
        "(separately, so time-limited runs can differ).",
    ] + notes
    lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    md = out / "table1.md"
    md.write_text("\n".join(lines))
    written = [md]
    if plots:
        written += plot(cells, methods, sweeps, depths, widths, out)
    return written


def plot(cells, methods, sweeps, depths, widths, out_dir) -> list[Path]:
    """Mean test accuracy against depth and against width (PNG and SVG)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError("plotting needs matplotlib: pip install 'annc[plot]' "
                           "(or pass --no-plot)") from None
    out = Path(out_dir)
    written = []
    styles = {
        "binary_mip": ("tab:red", "-", "s"), "greedy_binary_mip": ("tab:orange", "-", "D"),
        "greedy_binary_mip_sgd": ("tab:brown", "-", "^"), "binary_sgd": ("tab:blue", "--", "o"),
        "greedy_binary_sgd": ("tab:cyan", "--", "v"), "greedy_binary_sgd_sgd": ("tab:purple", "--", "<"),
        "relu_sgd": ("tab:green", ":", "o"), "relu_greedy_sgd": ("tab:olive", ":", "v"),
        "relu_greedy_sgd_sgd": ("tab:gray", ":", "<"),
    }
    for sweep, xs, arch_of, xlabel in (
            ("depth", list(depths), lambda d: (DEPTH_SWEEP_WIDTH,) * d,
             f"hidden layers ({DEPTH_SWEEP_WIDTH} units each)"),
            ("width", list(widths), lambda w: (w,) * WIDTH_SWEEP_DEPTH,
             f"units per hidden layer ({WIDTH_SWEEP_DEPTH} hidden layers)")):
        if sweep not in sweeps:
            continue
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for m in methods:
            ys = [cells[(m, arch_of(x))].mean if (m, arch_of(x)) in cells else None for x in xs]
            ys = [np.nan if y is None else 100 * y for y in ys]
            if all(np.isnan(ys)):
                continue
            color, ls, marker = styles[m]
            ax.plot(xs, ys, ls, color=color, marker=marker, label=METHOD_NAMES[m])
        ax.axhline(100 * TARGET, color="black", lw=1, ls="-.", label="85% target")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("mean test accuracy (%)")
        ax.set_xticks(xs)
        ax.set_title(f"Table 1, {sweep} sweep")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best")
        fig.tight_layout()
        for ext in ("png", "svg"):
            p = out / f"table1_{sweep}.{ext}"
            fig.savefig(p, dpi=130)
            written.append(p)
        plt.close(fig)
    return written


# -- command line ------------------------------------------------------------------------------
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


def cmd_table1(a) -> int:
    from .errors import AnncError
    if a.seeds < 1 or a.jobs < 1 or a.epochs < 0 or a.time_limit <= 0:
        raise AnncError("--seeds and --jobs must be >= 1, --epochs >= 0 and --time-limit > 0")
    cfg = Config(seeds=tuple(range(a.seed0, a.seed0 + a.seeds)), time_limit=a.time_limit, epochs=a.epochs,
                 n_train=a.n_train, n_test=a.n_test, solver=a.solver, threads=a.threads,
                 methods=tuple(m for m in METHOD_IDS if m in a.methods), sweeps=a.sweeps,
                 depths=a.depths, widths=a.widths)
    out = Path(a.out)
    if a.report_only:
        for p in report(out / JSONL_NAME, out, cfg=cfg, plots=not a.no_plot):
            print(f"wrote {p}")
        return 0
    res = run_table1(out, cfg, jobs=a.jobs, log=lambda s: print(s, flush=True), make_report=False)
    for p in report(out / JSONL_NAME, out, cfg=cfg, plots=not a.no_plot):
        print(f"wrote {p}")
    return 1 if res["errors"] else 0


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
    t.add_argument("--jobs", type=int, default=1, help="parallel worker processes (default 1)")
    t.add_argument("--epochs", type=int, default=10000, help="SGD epochs (default 10000)")
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


def main(argv=None) -> int:
    """``python -m annc.experiment table1 ...`` (before the command is wired into annc.cli)."""
    p = argparse.ArgumentParser(prog="annc")
    add_parser(p.add_subparsers(dest="command", required=True))
    a = p.parse_args(["experiment", *(argv if argv is not None else sys.argv[1:])])
    return a.func(a)


if __name__ == "__main__":
    sys.exit(main())
