"""``annc train``: compile, solve, decode and verify in one go; greedy layer-wise training.

Full training solves one MIP for the whole network.  Greedy training (the paper's
Algorithms 1 and 2) solves one MIP per hidden layer: layer ``l`` plus a throw-away
output layer, trained on the forward pass of the decoded layers before it (standard
semantics, not the solver's rounded variables).  When the last hidden layer is ReLU
the output layer is then retrained by the exact output-layer-only MIP (Algorithm 2);
otherwise the output layer of the last MIP is kept (Algorithm 1).  Time limits apply
to each MIP.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from .compiler import Compiled, build
from .data import Dataset
from .decode import decode_network
from .errors import NoSolutionError
from .network import TrainedNetwork
from .solutions import Status
from .solvers import DEFAULT, SolveOptions, SolveResult, solve
from .spec import NetworkSpec
from .varmap import file_digest, save_json
from .verify import Verification, check
from .writers import write_model


@dataclass
class Step:
    """One MIP solved: what it trained, the solve and its verification."""

    name: str
    compiled: Compiled
    result: SolveResult
    verification: Verification | None
    network: TrainedNetwork | None


@dataclass
class TrainResult:
    network: TrainedNetwork
    steps: list[Step]
    train_accuracy: float
    test_accuracy: float | None
    files: list[Path] = field(default_factory=list)

    @property
    def status(self) -> Status:
        """The weakest status over the MIPs solved (optimal only if every one was)."""
        order = [Status.OPTIMAL, Status.FEASIBLE, Status.UNKNOWN]
        return max((s.result.status for s in self.steps), key=order.index)

    @property
    def seconds(self) -> float:
        return sum(s.result.seconds for s in self.steps)

    @property
    def verified(self) -> bool:
        return all(s.verification is not None and s.verification.ok for s in self.steps)


def accuracy(net: TrainedNetwork, data: Dataset) -> float:
    return float(np.mean(net.predict_index(data.X) == data.y))


def _solve_step(name: str, spec: NetworkSpec, data: Dataset, *, solver: str, opts: SolveOptions,
                out_dir: Path | None, merge: bool, log: Callable) -> Step:
    c = build(spec, data, name=name, merge=merge)
    for w in c.model.warnings:
        log(f"warning: {w}")
    st = c.model.stats()
    log(f"[{name}] {st['columns']} columns ({st['binary']} binary), {st['rows']} rows, "
        f"{st['nonzeros']} non-zeros; solving with {solver}")
    if out_dir is not None:
        path = write_model(c.model, out_dir / f"{name}.mps", "mps")
        c.varmap["model"].update({"file": path.name, "format": "mps", "sha256": file_digest(path),
                                  "writer": "annc"})
        save_json(c.varmap, out_dir / f"{name}.map.json")
    res = solve(c.model, solver, opts)
    if res.x is None:
        raise NoSolutionError(f"[{name}] {solver}: {res.describe()}: no network to export"
                              + ("" if res.status != Status.NO_SOLUTION else
                                 " (raise --time-limit, or try another solver)"))
    net = decode_network(c.varmap, res.x)
    ver = check(c, res.x, net, status=res.status.value, solver_objective=res.objective)
    return Step(name, c, res, ver, net)


def _layer_data(X: np.ndarray, like: Dataset, name: str, out_dir: Path | None) -> Dataset:
    """The inputs of the next greedy layer as a Dataset (written as CSV beside the models)."""
    feats = [f"u{k}" for k in range(X.shape[1])]
    path = Path(out_dir / f"{name}.csv") if out_dir else Path(f"<{name}>")
    if out_dir:
        from .datasets import write_csv
        write_csv(path, X, np.asarray(like.classes, dtype=object)[like.y], feats, like.label)
        digest = file_digest(path)
    else:
        digest = hashlib.sha256(X.tobytes()).hexdigest()
    return replace(like, X=X, features=feats, path=str(path), sha256=digest)


def train(spec: NetworkSpec, data: Dataset, *, test: Dataset | None = None, solver: str = DEFAULT,
          opts: SolveOptions | None = None, out_dir: str | Path | None = "out", stem: str | None = None,
          merge: bool = True, greedy: bool | None = None, log: Callable = print) -> TrainResult:
    """Train ``spec`` on ``data`` to (proven) optimality; see the module docstring."""
    opts = opts or SolveOptions()
    stem = stem or Path(spec.source).stem or "net"
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    greedy = spec.training == "greedy" if greedy is None else greedy
    kw = dict(solver=solver, opts=opts, out_dir=out, merge=merge, log=log)

    if not greedy or not spec.hidden:
        steps = [_solve_step(stem, spec, data, **kw)]
        net = steps[0].network
    else:
        steps, layers, X = [], [], data.X
        for i, hidden in enumerate(spec.hidden):
            sub = replace(spec, inputs=X.shape[1], hidden=(hidden,), training="full")
            name = f"{stem}.layer{i}"
            step = _solve_step(name, sub, _layer_data(X, data, name, out) if i else data, **kw)
            steps.append(step)
            layers.append(step.network.layers[0])
            acc = float(np.mean(step.network.predict_index(X) == data.y))
            X = step.network.forward(X)[0]
            log(f"[{name}] {step.result.describe()}, objective {step.result.objective:.6g}, "
                f"{step.result.seconds:.1f}s, training accuracy with its own output layer {acc:.4f}")
        if spec.hidden[-1].activation == "relu":
            sub = replace(spec, inputs=X.shape[1], hidden=(), training="full")
            name = f"{stem}.output"
            step = _solve_step(name, sub, _layer_data(X, data, name, out), **kw)
            steps.append(step)
            layers.append(step.network.layers[0])
        else:
            layers.append(steps[-1].network.layers[1])
        net = TrainedNetwork(list(data.classes), layers, {"spec": spec.source, "training": "greedy"})

    net.meta.update({"solver": solver, "status": steps[-1].result.status.value})
    result = TrainResult(net, steps, accuracy(net, data), accuracy(net, test) if test is not None else None)
    if out is not None:
        result.files.extend(net.save(out / stem))
    return result
