"""The training chain: the MIPs one training run solves, in order, and the network they give.

Full training solves one MIP for the whole network.  Greedy training (the paper's
Algorithms 1 and 2) solves one MIP per hidden layer: layer ``l`` plus a throw-away
output layer, trained on the forward pass of the decoded layers before it (standard
semantics, not the solver's rounded variables).  When the last hidden layer's products
are relaxed (ReLU: piecewise McCormick) the output layer is then retrained by the exact
output-layer-only MIP (Algorithm 2); otherwise the output layer of the last MIP is kept
(Algorithm 1).

The chain does not solve anything itself: it calls a per-MIP trainer
``solve(name, spec, data) -> Step`` for each MIP (``annc train`` passes one that writes
the MIP's files and gives it a MIP start; ``annc experiment`` one that writes nothing)
and raises what that trainer raises (:class:`~annc.core.errors.NoSolutionError` for a MIP
without a solution).

Ctrl-C (the run's :class:`~annc.solve.solvers.base.Interrupt`): no further MIP is started
after an interrupt.  :func:`run_chain` then keeps what there is: the network is the
layers trained so far plus the output layer of the last MIP that has a solution (a
complete network, maybe shallower than the spec, or without Algorithm 2's exact output
layer; the reason is returned and logged).  :class:`GreedyChain` alone, as the
experiment uses it, just stops and lets its caller decide.

Input scaling (:mod:`annc.core.scaling`): the first MIP scales the raw features as the spec
says and records the fitted :class:`~annc.core.scaling.Scaling`; each step's network is the
*core* network on scaled inputs, later greedy layers see the forward pass of those
(``scale none``), and the network the chain returns carries the first MIP's scaling, so
it takes raw features.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from ...core.errors import NoSolutionError
from ...core.network import Layer, TrainedNetwork
from ...formulations import ACTIVATIONS
from ...io.data import Dataset, array_digest
from ...io.solutions import Status
from ...io.spec import NetworkSpec
from ...solve.compiler import Compiled
from ...solve.solvers import SolveResult
from ...solve.solvers.base import Interrupt
from ...solve.verdict import Verdict
from ...solve.verify import Verification

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
    verdict: Verdict | None = None  # what is proven about this MIP's exported network
    trace: list = field(default_factory=list)  # [seconds, incumbent, bound] as the solver reported them
    times: dict = field(default_factory=dict)  # seconds of each part of this MIP (TIME_PARTS), and "step" in all

    def summary(self) -> str:
        """One line: the verdict on the network, time, accuracy, verification."""
        r = self.result
        if self.verdict is not None and self.verification is not None and self.verification.ok:
            what = self.verdict.describe()
            if self.verdict.ended and self.verdict.ended.startswith("stalled"):
                what += f" ({self.verdict.ended})"
        else:
            what = f"{r.describe()}, objective {'-' if r.objective is None else format(r.objective, '.6g')}"
        acc = "" if self.accuracy is None else f", training accuracy {self.accuracy:.4f}"
        ver = "" if self.verification is None else (", verified" if self.verification.ok
                                                     else ", verification FAILED")
        return f"[{self.name}] {what}, {r.seconds:.1f}s{acc}{ver}"


def accuracy(net: TrainedNetwork, data: Dataset) -> float:
    return float(np.mean(net.predict_index(data.X) == data.y))


# -- the trace of a MIP: its incumbent and bound over time (meta["steps"][k]["trace"]) --
TRACE_EVERY = 0.25  # seconds between trace points that only move the bound
TRACE_MAX = 5000  # points kept per MIP (the final one is always added)


def finite_or_none(v) -> float | None:
    return float(v) if v is not None and np.isfinite(v) else None


def trace_recorder(trace: list, progress: Callable | None) -> Callable:
    """A progress callback that appends ``[seconds, incumbent, bound]`` (None where the
    solver has none, or it is not finite) to ``trace``, then calls ``progress`` if any:
    the incumbent and bound over time that ``meta["steps"][k]["trace"]`` records."""
    def record(p) -> None:
        point = [round(p.elapsed, 3), finite_or_none(p.incumbent), finite_or_none(p.bound)]
        # every new incumbent; a moved bound alone at most every TRACE_EVERY seconds
        if not trace or point[1] != trace[-1][1] or point[0] - trace[-1][0] >= TRACE_EVERY:
            if len(trace) < TRACE_MAX:
                trace.append(point)
        if progress is not None:
            progress(p)
    return record


SolveStep = Callable[[str, NetworkSpec, Dataset], Step]  # (name, spec, data) -> the MIP solved


def weakest(statuses: Iterable[Status]) -> Status:
    """The weakest of the statuses of a run's MIPs (optimal only if every one was)."""
    return max(statuses, key=STATUS_ORDER.index)


def layer_data(X: np.ndarray, like: Dataset, name: str) -> Dataset:
    """The inputs of a greedy layer (the forward pass of the layers below it) as an
    in-memory Dataset with the labels and classes of ``like``; features ``u0, u1, ...``
    (annc's names, not the user's: a map of it records none)."""
    X = np.ascontiguousarray(X, dtype=float)
    return replace(like, X=X, features=[f"u{k}" for k in range(X.shape[1])], path=f"<{name}>",
                   sha256=array_digest(X, like.y), named=False)


class GreedyChain:
    """Greedy layer-wise training of ``spec`` on ``data``, one MIP at a time.

    The MIPs are named ``<stem>.layer<i>`` and ``<stem>.output``.  After each MIP the
    chain holds the steps so far, the hidden layers trained (:attr:`layers`), the output
    layer of the last MIP (:attr:`output`) and the next layer's inputs (:attr:`X`), so
    :meth:`network` is a complete network at any point, also after a failed MIP.
    """

    def __init__(self, spec: NetworkSpec, data: Dataset, stem: str, solve: SolveStep, interrupt: Interrupt):
        self.spec, self.data, self.stem, self.solve, self.interrupt = spec, data, stem, solve, interrupt
        self.steps: list[Step] = []
        self.layers: list[Layer] = []  # the hidden layers trained so far
        self.output: Layer | None = None  # the output layer of the last MIP that trained one
        self.X = data.X  # the inputs of the next hidden layer

    def hidden_layers(self) -> Iterator[Step]:
        """Train the spec's hidden layers in order, yielding each layer's step.

        Layer ``i``'s MIP is the spec with only hidden layer ``i`` (and full training) on
        :attr:`X`.  Returns early, before starting a MIP, once Ctrl-C was pressed.
        """
        for i, hidden in enumerate(self.spec.hidden):
            if self.interrupt.requested:  # Ctrl-C after layer i-1 was trained
                return
            sub = replace(self.spec, inputs=self.X.shape[1], hidden=(hidden,), training="full",
                          scale=self.spec.scale if i == 0 else "none")
            name = f"{self.stem}.layer{i}"
            step = self.solve(name, sub, layer_data(self.X, self.data, name) if i else self.data)
            self.steps.append(step)
            self.layers.append(step.network.layers[0])
            self.output = step.network.layers[1]
            inputs = step.compiled.scaled_data.X if i == 0 else self.X
            self.X = step.network.forward(inputs)[0]
            yield step

    def exact_output(self) -> Step:
        """Algorithm 2: retrain the output layer alone on the last hidden layer's outputs
        (the output-layer-only MIP, exact also after ReLU layers)."""
        sub = replace(self.spec, inputs=self.X.shape[1], hidden=(), training="full", scale="none")
        name = f"{self.stem}.output"
        step = self.solve(name, sub, layer_data(self.X, self.data, name))
        self.steps.append(step)
        self.output = step.network.layers[0]
        return step

    def network(self, meta: dict) -> TrainedNetwork:
        """The hidden layers trained so far and the output layer of the last MIP, behind
        the first MIP's input scaling."""
        net = TrainedNetwork(list(self.data.classes), self.layers + [self.output], meta)
        return net.with_scaling(self.steps[0].compiled.scaling if self.steps else None)


def run_chain(spec: NetworkSpec, data: Dataset, stem: str, *, greedy: bool, solve: SolveStep,
              interrupt: Interrupt, log: Callable[[str], None]) -> tuple[list[Step], TrainedNetwork, str | None]:
    """Solve the MIP of full training, or those of greedy training (see the module
    docstring): ``(steps, network, why the network is truncated or None)``.

    A MIP without a solution raises :class:`~annc.core.errors.NoSolutionError`, unless Ctrl-C
    stopped it and a layer before it has one: the chain then ends there.
    """
    if not greedy:
        step = solve(stem, spec, data)
        step.network.meta.update({"spec": spec.source, "spec_text": spec.text, "training": "full"})
        return [step], step.network.with_scaling(step.compiled.scaling), None
    chain = GreedyChain(spec, data, stem, solve, interrupt)
    try:
        for step in chain.hidden_layers():
            log(step.summary() + " (with its own output layer)")
    except NoSolutionError:
        if not (interrupt.requested and chain.steps):  # not: interrupted before this layer had a solution
            raise
    n, k = len(spec.hidden), len(chain.layers)
    if not k:
        raise NoSolutionError(f"[{stem}] interrupted before any layer was trained: no network to export")
    truncated = None
    if k < n:
        truncated = (f"interrupted: the network keeps {k} of the spec's {n} hidden "
                     f"layers and the output layer trained with hidden layer {k - 1}")
    elif ACTIVATIONS[spec.hidden[-1].activation].RELAXES_PRODUCTS:
        truncated = _exact_output(chain, interrupt, log)
    if truncated:
        log(f"[{stem}] {truncated}")
    net = chain.network({"spec": spec.source, "spec_text": spec.text, "training": "greedy"})
    if truncated:
        net.meta["truncated"] = truncated
    return chain.steps, net, truncated


def _exact_output(chain: GreedyChain, interrupt: Interrupt, log: Callable[[str], None]) -> str | None:
    """Algorithm 2's last MIP, unless Ctrl-C comes first: None, or why it is missing."""
    step = None
    if not interrupt.requested:
        try:
            step = chain.exact_output()
        except NoSolutionError:
            if not interrupt.requested:
                raise
    if step is None:
        return ("interrupted before the exact output-layer MIP (Algorithm 2): the "
                "output layer is the one trained with the last hidden layer")
    log(step.summary() + " (output layer only, exact)")
    return None
