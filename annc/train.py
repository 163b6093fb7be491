"""``annc train``: compile, solve, decode and verify in one go; greedy layer-wise training.

Full training solves one MIP for the whole network.  Greedy training (the paper's
Algorithms 1 and 2) solves one MIP per hidden layer: layer ``l`` plus a throw-away
output layer, trained on the forward pass of the decoded layers before it (standard
semantics, not the solver's rounded variables).  When the last hidden layer is ReLU
the output layer is then retrained by the exact output-layer-only MIP (Algorithm 2);
otherwise the output layer of the last MIP is kept (Algorithm 1).  Time limits apply
to each MIP.

Ctrl-C (one shared :class:`~annc.solvers.base.Interrupt` for the whole run) stops the
running solver, which keeps its incumbent; that incumbent is decoded and verified as
usual.  In greedy training no further layer is trained after an interrupt: the
network is the layers trained so far plus the output layer of the last MIP that has a
solution (a complete, verified network, maybe shallower than the spec, or without
Algorithm 2's exact output layer; ``meta["truncated"]`` says so).  A Ctrl-C before any
solution exists aborts (``KeyboardInterrupt``) unless a solver is running; a solver
stopped before its first incumbent gives :class:`~annc.errors.NoSolutionError`.

This module also holds the Python API behind ``annc.compile`` and ``annc.train``
(:func:`compile_api`, :func:`train_api`), which take paths, spec text, ``NetworkSpec``
and ``Dataset`` objects or ``(X, y)`` arrays.
"""
from __future__ import annotations

import hashlib
import os
import sys
import time
import types
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from .compiler import Compiled, build, write_artifacts
from .data import Dataset, class_index, class_lookup, class_order, load_data
from .decode import decode_network
from .errors import AnncError, DataError, NoSolutionError
from .network import TrainedNetwork
from .solutions import Status
from .solvers import DEFAULT, SolveOptions, SolveResult, solve
from .solvers.base import Interrupt
from .spec import NetworkSpec, load_spec, parse_spec
from .varmap import file_digest
from .verify import Verification, check
from .warmstart import mip_start

WARM_START_SOLVERS = ("highs", "scip", "gurobi", "cplex", "xpress")  # drivers that take SolveOptions.start
START_BUDGET = 20.0  # seconds for the MIP start's local search, at most a quarter of a time limit
MIN_START_BUDGET = 0.5  # below this (a time limit under 2 s) no start is tried

# weakest last: the status of a run is the weakest over its MIPs
STATUS_ORDER = [Status.OPTIMAL, Status.FEASIBLE, Status.UNKNOWN, Status.NO_SOLUTION,
                Status.INFEASIBLE, Status.UNBOUNDED]


@dataclass
class Step:
    """One MIP solved: what it trained, the solve and its verification."""

    name: str
    compiled: Compiled
    result: SolveResult
    verification: Verification | None
    network: TrainedNetwork | None
    files: list[Path] = field(default_factory=list)
    accuracy: float | None = None  # training accuracy of this MIP's own network (on its inputs)

    def summary(self) -> str:
        """One line: what the solver established, objective, time, accuracy, verification."""
        r = self.result
        obj = "-" if r.objective is None else f"{r.objective:.6g}"
        acc = "" if self.accuracy is None else f", training accuracy {self.accuracy:.4f}"
        ver = "" if self.verification is None else (", verified" if self.verification.ok
                                                     else ", verification FAILED")
        return f"[{self.name}] {r.describe()}, objective {obj}, {r.seconds:.1f}s{acc}{ver}"


@dataclass
class TrainResult:
    network: TrainedNetwork
    steps: list[Step]
    train_accuracy: float
    test_accuracy: float | None
    files: list[Path] = field(default_factory=list)
    greedy: bool = False
    interrupted: bool = False
    truncated: str | None = None  # why a greedy network is shallower than its spec

    @property
    def status(self) -> Status:
        """The weakest status over the MIPs solved (optimal only if every one was)."""
        return max((s.result.status for s in self.steps), key=STATUS_ORDER.index)

    @property
    def seconds(self) -> float:
        return sum(s.result.seconds for s in self.steps)

    @property
    def verified(self) -> bool:
        return all(s.verification is not None and s.verification.ok for s in self.steps)

    # the trained network's interface, for convenience
    def predict(self, X) -> np.ndarray:
        return self.network.predict(X)

    def predict_index(self, X) -> np.ndarray:
        return self.network.predict_index(X)

    def score(self, X, y) -> float:
        """Accuracy on ``(X, y)`` (``y`` as class labels)."""
        return float(np.mean(self.network.predict(X) == np.asarray(y, dtype=object)))


def accuracy(net: TrainedNetwork, data: Dataset) -> float:
    return float(np.mean(net.predict_index(data.X) == data.y))


# -- files ------------------------------------------------------------------------
def _data_file(data: Dataset, out: Path | None, name: str) -> Dataset:
    """``data`` backed by a CSV file: as is if it was read from one, else written to
    ``<out>/<name>.csv`` (so that the map points at data ``annc decode`` can verify)."""
    if out is None or (Path(data.path).is_file() and file_digest(data.path) == data.sha256):
        return data
    from .datasets import write_csv
    path = out / f"{name}.csv"
    write_csv(path, data.X, np.asarray(data.classes, dtype=object)[data.y], data.features, data.label)
    return replace(data, path=str(path), sha256=file_digest(path))


def _layer_data(X: np.ndarray, like: Dataset, name: str) -> Dataset:
    """The inputs of the next greedy layer as an in-memory Dataset (``_solve_step``
    writes it as ``<out>/<name>.csv`` beside the layer's model and map)."""
    X = np.ascontiguousarray(X, dtype=float)
    return replace(like, X=X, features=[f"u{k}" for k in range(X.shape[1])], path=f"<{name}>",
                   sha256=hashlib.sha256(X.tobytes() + like.y.tobytes()).hexdigest())


# -- solving ----------------------------------------------------------------------
def _no_solution(name: str, solver: str, res: SolveResult, opts: SolveOptions) -> NoSolutionError:
    if res.status == Status.INFEASIBLE:
        why = ("the MIP is infeasible: no weights within the spec's bounds satisfy its constraints "
               "on these data (widen 'weights'/'bias', lower 'eps', or check the data)")
    elif res.status == Status.UNBOUNDED:
        why = f"the MIP is unbounded ({res.status_text})"
    elif res.interrupted:
        why = "interrupted before the solver found any solution"
    elif opts.time_limit is not None:
        why = (f"no solution found within the time limit of {opts.time_limit:g} s "
               f"({res.status_text}); raise --time-limit, or try another solver")
    else:
        why = f"no solution found ({res.status_text})"
    return NoSolutionError(f"[{name}] {solver}: {why}: no network to export")


def _solve_step(name: str, spec: NetworkSpec, data: Dataset, *, solver: str, opts: SolveOptions,
                out_dir: Path | None, merge: bool, log: Callable, warm_start: bool = True) -> Step:
    given = data.path
    data = _data_file(data, out_dir, name)  # a greedy layer's inputs: written as <out>/<name>.csv
    c = build(spec, data, name=name, merge=merge)
    for w in c.model.warnings:
        log(f"warning: {w}")
    st = c.model.stats()
    log(f"[{name}] {st['columns']} columns ({st['binary']} binary), {st['rows']} rows, "
        f"{st['nonzeros']} non-zeros; solving with {solver}")
    files: list[Path] = []
    step_opts = opts
    if out_dir is not None:
        files += write_artifacts(c, out_dir, name)
        if data.path != given:
            files.append(Path(data.path))
        # file-based solvers reuse the MPS just written and leave their solution file
        # beside it, where `annc decode` finds the matching map
        step_opts = replace(opts, model_file=str(files[0]), workdir=str(out_dir))
    if warm_start and solver in WARM_START_SOLVERS and step_opts.start is None:
        step_opts = _with_start(name, c, step_opts, log)
    res = solve(c.model, solver, step_opts)
    if res.x is not None and opts.interrupt is not None:
        opts.interrupt.has_solution = True  # from now on a Ctrl-C keeps what there is
    sol_file = res.extra.get("solution_file")
    if out_dir is not None and sol_file and Path(sol_file).exists():
        files.append(Path(sol_file))
    if res.x is None:
        raise _no_solution(name, solver, res, opts)
    net = decode_network(c.varmap, res.x)
    ver = check(c, res.x, net, status=res.status.value, solver_objective=res.objective)
    return Step(name, c, res, ver, net, files, accuracy(net, data))


def _with_start(name: str, c: Compiled, opts: SolveOptions, log: Callable) -> SolveOptions:
    """``opts`` with the MIP start of :func:`~annc.warmstart.mip_start`; the time it
    took comes off the time limit (which then still leaves the solver half of it)."""
    limit = opts.time_limit
    budget = START_BUDGET if limit is None else min(START_BUDGET, limit / 4)
    if budget < MIN_START_BUDGET:  # not even time for one SGD run
        log(f"[{name}] no MIP start: the time limit is too short")
        return opts
    t0 = time.perf_counter()
    start = mip_start(c.model, c.problem, budget=budget, interrupt=opts.interrupt)
    took = time.perf_counter() - t0
    if start is None:
        log(f"[{name}] no MIP start ({took:.1f}s)")
        return opts
    log(f"[{name}] MIP start from SGD and local search: objective "
        f"{c.model.objective(start):.6g} ({took:.1f}s)")
    left = None if limit is None else max(limit - took, limit / 2)
    return replace(opts, start=start, time_limit=left)


def train(spec: NetworkSpec, data: Dataset, *, test: Dataset | None = None, solver: str = DEFAULT,
          opts: SolveOptions | None = None, out_dir: str | Path | None = "out", stem: str | None = None,
          merge: bool = True, greedy: bool | None = None, log: Callable = print,
          warm_start: bool = True) -> TrainResult:
    """Train ``spec`` on ``data``; see the module docstring.

    Raises :class:`~annc.errors.NoSolutionError` when a MIP ends without a solution
    (infeasible, or stopped before an incumbent was found).
    """
    opts = replace(opts) if opts is not None else SolveOptions()  # a copy: the caller's stays as it was
    if opts.interrupt is None:
        opts.interrupt = Interrupt()
    intr = opts.interrupt
    stem = stem or Path(spec.source).stem.strip("<>").replace(" ", "_") or "net"
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    greedy = spec.training == "greedy" if greedy is None else greedy
    greedy = bool(greedy and spec.hidden)
    kw = dict(solver=solver, opts=opts, out_dir=out, merge=merge, log=log, warm_start=warm_start)
    truncated = None

    with intr.armed():
        if not greedy:
            steps = [_solve_step(stem, spec, data, **kw)]
            net = steps[0].network
            net.meta.update({"spec": spec.source, "training": "full"})
        else:
            steps, layers, X = [], [], data.X
            final_output = None  # the output layer of the network: of the last MIP that trained one
            n = len(spec.hidden)
            for i, hidden in enumerate(spec.hidden):
                if intr.requested:  # Ctrl-C after layer i-1 was trained
                    break
                sub = replace(spec, inputs=X.shape[1], hidden=(hidden,), training="full")
                name = f"{stem}.layer{i}"
                try:
                    step = _solve_step(name, sub, _layer_data(X, data, name) if i else data, **kw)
                except NoSolutionError:
                    if intr.requested and steps:  # interrupted before this layer had a solution
                        break
                    raise
                steps.append(step)
                log(step.summary() + " (with its own output layer)")
                layers.append(step.network.layers[0])
                X = step.network.forward(X)[0]
                final_output = step.network.layers[1]
            if not layers:
                raise NoSolutionError(f"[{stem}] interrupted before any layer was trained: no network to export")
            if len(layers) < n:
                truncated = (f"interrupted: the network keeps {len(layers)} of the spec's {n} hidden "
                             f"layers and the output layer trained with hidden layer {len(layers) - 1}")
            elif spec.hidden[-1].activation == "relu":
                # Algorithm 2: the exact output-layer-only MIP on the last ReLU layer's outputs
                step = None
                if not intr.requested:
                    sub = replace(spec, inputs=X.shape[1], hidden=(), training="full")
                    name = f"{stem}.output"
                    try:
                        step = _solve_step(name, sub, _layer_data(X, data, name), **kw)
                    except NoSolutionError:
                        if not intr.requested:
                            raise
                if step is not None:
                    steps.append(step)
                    log(step.summary() + " (output layer only, exact)")
                    final_output = step.network.layers[0]
                else:
                    truncated = ("interrupted before the exact output-layer MIP (Algorithm 2): the "
                                 "output layer is the one trained with the last hidden layer")
            if truncated:
                log(f"[{stem}] {truncated}")
            layers.append(final_output)
            net = TrainedNetwork(list(data.classes), layers, {"spec": spec.source, "training": "greedy"})
            if truncated:
                net.meta["truncated"] = truncated

    result = TrainResult(net, steps, accuracy(net, data),
                         accuracy(net, test) if test is not None else None,
                         greedy=greedy, interrupted=intr.requested, truncated=truncated)
    net.meta.update({"solver": solver, "status": result.status.value,
                     "steps": [{"name": s.name, "status": s.result.status.value, "describe": s.result.describe(),
                                "objective": s.result.objective, "bound": s.result.bound,
                                "seconds": round(s.result.seconds, 3),
                                "verified": bool(s.verification and s.verification.ok)} for s in steps]})
    if result.interrupted:
        net.meta["interrupted"] = True
    for s in steps:
        result.files.extend(s.files)
    if out is not None:
        result.files.extend(net.export(out / stem))
    return result


# -- the Python API ---------------------------------------------------------------------
def as_spec(spec) -> NetworkSpec:
    """A :class:`NetworkSpec` from a spec, a ``.ann`` path, or ``.ann`` source text."""
    if isinstance(spec, NetworkSpec):
        return spec
    if isinstance(spec, os.PathLike):
        return load_spec(spec)
    if isinstance(spec, str):
        if "\n" in spec or (not os.path.exists(spec) and spec.lstrip().startswith(("input", "#"))):
            return parse_spec(spec, "<spec>")
        return load_spec(spec)
    raise TypeError(f"spec must be a NetworkSpec, a path or .ann text, not {type(spec).__name__}")


def as_data(data, *, label: str | None = None, classes: list | None = None, name: str = "<arrays>") -> Dataset:
    """A :class:`Dataset` from a Dataset, a CSV path, or a pair ``(X, y)`` of arrays
    (``y``: class labels; the classes are the sorted labels, or ``classes``)."""
    if isinstance(data, Dataset):
        if classes is None or list(data.classes) == list(classes):
            return data
        return as_data((data.X, np.asarray(data.classes, dtype=object)[data.y]), classes=classes, name=data.path)
    if isinstance(data, (str, os.PathLike)):
        return load_data(data, label=label, classes=classes)
    if isinstance(data, tuple) and len(data) == 2:
        X = np.asarray(data[0], dtype=float)
        y = np.asarray(data[1])
        if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
            raise DataError(f"{name}: X must be 2-D and y 1-D with one label per row of X "
                            f"(got shapes {X.shape} and {y.shape})")
        if not np.all(np.isfinite(X)):
            raise DataError(f"{name}: X has values that are not finite numbers")
        # labels as the CSV loader sees them: integer-valued numbers as integers
        texts = [str(int(v)) if isinstance(v, (int, float, np.number)) and float(v).is_integer()
                 else str(v) for v in y.tolist()]
        if classes is None:
            classes = class_order(texts)
            if len(classes) < 2:
                raise DataError(f"{name}: every label is {classes[0]}; training needs at least two classes")
        classes = list(classes)
        lookup = class_lookup(classes)
        found = [class_index(t, lookup) for t in texts]
        bad = sorted({t for t, i in zip(texts, found) if i is None})
        if bad:
            raise DataError(f"{name}: labels {', '.join(bad[:5])} are not among the classes "
                            + ", ".join(map(str, classes)))
        idx = np.array(found, dtype=np.int64)
        digest = hashlib.sha256(np.ascontiguousarray(X).tobytes() + idx.tobytes()).hexdigest()
        return Dataset(X, idx, classes, [f"x{i + 1}" for i in range(X.shape[1])], label or "label", name, digest)
    raise TypeError("data must be a Dataset, a CSV path or a pair (X, y), "
                    f"not {type(data).__name__}")


def _stem_of(spec_arg, spec: NetworkSpec) -> str:
    if isinstance(spec_arg, (str, os.PathLike)) and os.path.exists(spec_arg):
        return Path(spec_arg).stem
    return Path(spec.source).stem.strip("<>").replace(" ", "_") or "net"


def compile_api(spec, data, *, out_dir=None, fmt: str = "mps", label: str | None = None, merge: bool = True,
                allow_small_m: bool = False, gzip: bool = False, writer: str = "annc",
                name: str | None = None) -> Compiled:
    """``annc compile`` as a function: the built model and its map; with ``out_dir`` also
    the files ``<out_dir>/<name>.<fmt>`` and ``<out_dir>/<name>.map.json``."""
    s = as_spec(spec)
    stem = name or _stem_of(spec, s)
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    d = _data_file(as_data(data, label=label), out, f"{stem}.data")
    c = build(s, d, name=stem, merge=merge, allow_small_m=allow_small_m)
    if out is not None:
        write_artifacts(c, out, stem, fmt=fmt, gzip=gzip, writer=writer)
    return c


def train_api(spec, data, test=None, *, solver: str | None = None, solver_cmd: str | None = None,
              time_limit: float | None = None, gap: float | None = None, threads: int | None = None,
              greedy: bool | None = None, out_dir=None, label: str | None = None, merge: bool = True,
              progress: Callable | None = None, verbose: bool = False, name: str | None = None,
              warm_start: bool = True) -> TrainResult:
    """``annc train`` as a function; returns a :class:`TrainResult` (``.network``,
    ``.predict(X)``, ``.status``, ``.steps``, accuracies).  Writes files only with ``out_dir``.

    ``spec``: a NetworkSpec, a ``.ann`` path or ``.ann`` text; ``data`` and ``test``: a
    Dataset, a CSV path or ``(X, y)``.  ``verbose=True`` prints what the CLI prints while
    solving; ``progress`` receives :class:`~annc.solvers.Progress` objects.
    """
    if solver_cmd and solver not in (None, "cmd"):
        raise AnncError("give either solver or solver_cmd, not both")
    s = as_spec(spec)
    d = as_data(data, label=label)
    t = None if test is None else as_data(test, label=label, classes=d.classes, name="<test arrays>")
    if progress is None and verbose:
        progress = lambda p: print(p.line(), flush=True)  # noqa: E731
    opts = SolveOptions(time_limit=time_limit, gap=gap, threads=threads, progress=progress, command=solver_cmd)
    return train(s, d, test=t, solver="cmd" if solver_cmd else (solver or DEFAULT), opts=opts,
                 out_dir=out_dir, stem=name or _stem_of(spec, s), merge=merge, greedy=greedy,
                 warm_start=warm_start, log=print if verbose else (lambda *_: None))


class _CallableModule(types.ModuleType):
    """``annc.train`` is both this module and the API function: importing the submodule
    ``annc.train`` (as the CLI does) rebinds the package attribute ``annc.train`` to the
    module, so the module itself answers calls with :func:`train_api`."""

    def __call__(self, spec, data, test=None, **kw) -> TrainResult:
        return train_api(spec, data, test, **kw)


sys.modules[__name__].__class__ = _CallableModule
