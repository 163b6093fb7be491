"""What Table 1 of Patil & Mintz measures: the nine methods, the two sweeps, the settings.

Two sweeps on the paper's XOR data (:func:`annc.io.datasets.xor_split`, 1000 training and
250 test samples, 10% label noise on both, one draw per seed shared by every method):

* **depth**: 1 to 5 hidden layers of 5 units;
* **width**: 3 hidden layers of 5, 10, 20, 30, 40 or 50 units

(the 3 x 5 network belongs to both sweeps and is run once), for the nine methods of
Table 1 (:data:`METHODS`).  A run is identified by its method, architecture, seed and
the settings that method depends on (:func:`settings_for`, :func:`run_key`): a run
with other settings is a new run.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

# (id, name in Table 1); each SGD method's "paper" twin (--baselines paper: the authors' code
# as written, annc/app/experiment/paper_sgd.py) right after it, so the table shows them side by side
METHODS = (
    ("binary_mip", "Binary MIP"),
    ("greedy_binary_mip", "Greedy Binary MIP"),
    ("greedy_binary_mip_sgd", "Greedy Binary MIP + SGD"),
    ("binary_sgd", "Binary SGD"),
    ("paper_binary_sgd", "Binary SGD (paper's code)"),
    ("greedy_binary_sgd", "Greedy Binary SGD"),
    ("paper_greedy_binary_sgd", "Greedy Binary SGD (paper's code)"),
    ("greedy_binary_sgd_sgd", "Greedy Binary SGD + SGD"),
    ("paper_greedy_binary_sgd_sgd", "Greedy Binary SGD + SGD (paper's code)"),
    ("relu_sgd", "ReLU SGD"),
    ("paper_relu_sgd", "ReLU SGD (paper's code)"),
    ("relu_greedy_sgd", "ReLU Greedy SGD"),
    ("paper_relu_greedy_sgd", "ReLU Greedy SGD (paper's code)"),
    ("relu_greedy_sgd_sgd", "ReLU Greedy SGD + SGD"),
    ("paper_relu_greedy_sgd_sgd", "ReLU Greedy SGD + SGD (paper's code)"),
    ("relu_mip", "ReLU MIP"),  # the paper's ReLU formulation, which it left out ("beyond the scope")
    ("greedy_relu_mip", "Greedy ReLU MIP"),
)
PAPER_CODE = tuple(m for m, _ in METHODS if m.startswith("paper_"))
BASELINES = ("correct", "paper", "both")
METHOD_IDS = tuple(m for m, _ in METHODS)
METHOD_NAMES = dict(METHODS)
MIP_METHODS = ("binary_mip", "greedy_binary_mip", "greedy_binary_mip_sgd", "relu_mip", "greedy_relu_mip")
SGD_METHODS = (*PAPER_CODE, "greedy_binary_mip_sgd", "binary_sgd", "greedy_binary_sgd", "greedy_binary_sgd_sgd",
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
    **{f"paper_{m}": v for m, v in (("binary_sgd", (">5", ">50")), ("greedy_binary_sgd", (">5", ">50")),
                                    ("greedy_binary_sgd_sgd", (">5", ">50")), ("relu_sgd", (">5", "50")),
                                    ("relu_greedy_sgd", (">5", ">50")), ("relu_greedy_sgd_sgd", (">5", ">50")))},
    "relu_mip": ("not run", "not run"),
    "greedy_relu_mip": ("not run", "not run"),
}
# Bumped whenever the code behind a method changes what it computes (MIP start, loss floor,
# honest verdicts, ...): part of every run's settings, so resuming reruns older records.
# 1 (implicit: no "code" setting): 2026-11-21; 2: 2026-11-23.
CODE_VERSION = 2
RELU_P = 4  # the ReLU MIP's McCormick pieces (specs/relu.ann)
# The "paper" fine-tuning (Greedy * SGD + SGD, paper's code): 2 = reloads the greedy network
# as the authors' loop does (``for k in range(k)``: unit K of hidden layer 3 stays fresh).
PAPER_FINETUNE_VERSION = 2

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
        return architectures(self.sweeps, self.depths, self.widths)


def depth_arch(depth: int) -> tuple[int, ...]:
    """The network of the depth sweep with ``depth`` hidden layers."""
    return (DEPTH_SWEEP_WIDTH,) * depth


def width_arch(width: int) -> tuple[int, ...]:
    """The network of the width sweep with ``width`` units per hidden layer."""
    return (width,) * WIDTH_SWEEP_DEPTH


def sweep_axes(sweeps, depths, widths) -> list[tuple[str, list[int], Callable[[int], tuple[int, ...]]]]:
    """``(sweep, its values, the network of a value)`` of each selected sweep, depth first."""
    axes = [("depth", list(depths), depth_arch), ("width", list(widths), width_arch)]
    return [a for a in axes if a[0] in sweeps]


def architectures(sweeps, depths, widths) -> list[tuple[int, ...]]:
    """Hidden-layer widths of every network in ``sweeps``, in sweep order, without repeats."""
    return list(dict.fromkeys(arch_of(x) for _, xs, arch_of in sweep_axes(sweeps, depths, widths) for x in xs))


def settings_for(method: str, cfg: Config) -> dict:
    """The settings a method's result depends on (part of the resume key)."""
    s = {"n_train": cfg.n_train, "n_test": cfg.n_test, "noise": cfg.noise, "code": CODE_VERSION}
    if method in MIP_METHODS:
        s.update(time_limit=cfg.time_limit, solver=cfg.solver)
    if method in ("relu_mip", "greedy_relu_mip"):
        s.update(P=RELU_P)
    if method in SGD_METHODS:
        s.update(epochs=cfg.epochs, lr=cfg.lr, momentum=cfg.momentum)
    if method in PAPER_CODE and method.endswith("_sgd_sgd"):
        s.update(paper_finetune=PAPER_FINETUNE_VERSION)
    return s


def baselines_of(record: dict) -> str | None:
    """The baseline mode of a run: "paper" (the authors' SGD code as written), "correct"
    (annc's SGD; also every SGD record written before modes existed, which has no
    ``baselines`` field), or None for a MIP method without SGD."""
    method = record.get("method")
    if method in PAPER_CODE:
        return "paper"
    return record.get("baselines", "correct") if method in SGD_METHODS else None


def run_key(method: str, hidden, seed: int, settings: dict) -> str:
    """The key of one run in the JSON Lines file (what resuming compares)."""
    return json.dumps([method, list(hidden), int(seed), settings], sort_keys=True)


def arch_label(hidden) -> str:
    """``5x5x5`` for three hidden layers of 5 units; ``0`` for none."""
    return "x".join(str(h) for h in hidden) if hidden else "0"
