"""What a training run returns: :class:`TrainResult`, and what it records in ``net.meta``.

The status of a run is the weakest verdict over its MIPs (:mod:`annc.solve.verdict`); the
accuracies are annc's own forward pass (:func:`accuracy`), never the solver's rounded
variables.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..core.network import TrainedNetwork
from ..io.data import Dataset
from ..io.solutions import Status
from ..solve.verdict import Verdict, verdict_record
from .mip.chain import Step, accuracy, weakest  # noqa: F401 - accuracy re-exported

if TYPE_CHECKING:  # the type only: modelselect sits above this module
    from .modelselect.chosen import Chosen


# the parts of a MIP's wall time (Step.times): the build (with the eps rule's SGD run and the
# files), annc's start pool (with its local search), the neighbourhood search, the solver on
# the full MIP, annc's lower bounds, and the finish (decode, verify, a relaxed model's
# exact finish, dead weights)
TIME_PARTS = ("build", "start pool", "search", "full MIP", "bounds", "finish")


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
    selection: Chosen | None = None  # with selection: what chose the spec (annc.training.modelselect.chosen)
    wall: float | None = None  # seconds of the whole run (fit: every MIP, its files and the export)

    @property
    def status(self) -> Status:
        """The weakest verdict over the MIPs solved (optimal only if every one's network
        was proven optimal: :mod:`annc.solve.verdict`)."""
        return weakest(s.verdict.status for s in self.steps)

    @property
    def verdict(self) -> Verdict | None:
        """The verdict on the exported network (full training; None for greedy training,
        whose network no single MIP describes)."""
        return None if self.greedy else self.steps[0].verdict

    @property
    def seconds(self) -> float:
        """The solver's seconds, over every MIP (the full MIPs only: see :meth:`times`)."""
        return sum(s.result.seconds for s in self.steps)

    def times(self) -> dict:
        """Seconds of each part of the run, summed over its MIPs (:data:`TIME_PARTS`), in that order."""
        return {part: sum(s.times.get(part, 0.0) for s in self.steps) for part in TIME_PARTS}

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


def result_of(net: TrainedNetwork, steps: list[Step], data: Dataset, test: Dataset | None, *, solver: str,
              greedy: bool, truncated: str | None, interrupted: bool) -> TrainResult:
    """The :class:`TrainResult` of a run; records the run in ``net.meta``."""
    net.columns = data.columns  # the names of the training columns, which every weights file records
    result = TrainResult(net, steps, accuracy(net, data), accuracy(net, test) if test is not None else None,
                         greedy=greedy, interrupted=interrupted, truncated=truncated)
    net.meta.update({"solver": solver, "status": result.status.value,
                     "steps": [step_meta(s) for s in steps]})
    if interrupted:
        net.meta["interrupted"] = True
    if data.weights is not None:  # each sample's weight in the objective (annc.core.rowweights); absent: none
        cw = data.class_weight
        net.meta["weights"] = {"class_weight": None if cw is None else [float(w) for w in cw],
                               "sample_weight": not bool(np.array_equal(data.weights, np.ones(len(data.y)) if cw is None
                                                                        else np.asarray(cw)[data.y]))}
    return result


def step_meta(s: Step) -> dict:
    """What ``net.meta`` records of one MIP: the verdict on its network and the solver's own claim."""
    return {"name": s.name, **verdict_record(s.verdict),
            "solver": {"status": s.result.status.value, "describe": s.result.describe(),
                       "objective": s.result.objective, "bound": s.result.bound,
                       # the stall rule's record (annc.solve.solvers.stall), where the driver applies it
                       **({"stall": s.result.extra["stall"]} if isinstance(s.result.extra.get("stall"), dict) else {})},
            "seconds": round(s.result.seconds, 3), "times": {k: round(v, 3) for k, v in s.times.items()},
            "verified": bool(s.verification and s.verification.ok),
            "trace": s.trace}
