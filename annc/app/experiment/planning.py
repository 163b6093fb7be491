"""How the runs of a sweep are cut into tasks, each run by one worker process.

* Binary MIP: one task per architecture and seed (one MIP for the whole network).
* Greedy Binary MIP (Algorithm 1) and Greedy Binary MIP + SGD: one task per hidden
  width and seed, solving the layer MIPs of the deepest network needed; the greedy
  network of depth ``k`` is layers ``1..k`` plus the throw-away output layer trained
  with layer ``k``.  That is exactly what a separate greedy run of depth ``k`` solves
  (layer ``k``'s MIP depends only on the layers below it), so the depth sweep solves 5
  layer MIPs per seed instead of 15.
* Binary / ReLU SGD: one task per architecture, seed and activation.
* Greedy SGD and Greedy SGD + SGD: one task (the fine-tuning starts from the greedy
  network of the same task).

Tasks are sorted longest first (by a rough cost in seconds), so that a pool of workers
does not end waiting for one long task started last.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from .definitions import Config, arch_label, run_key, settings_for
from .paper_sgd import MODES

GREEDY_MIP_METHODS = ("greedy_binary_mip", "greedy_binary_mip_sgd")
MIP_METHOD = {"binary": "binary_mip", "relu": "relu_mip"}  # a hidden activation's full-training MIP method
GREEDY_MIP = {"binary": GREEDY_MIP_METHODS, "relu": ("greedy_relu_mip",)}  # its greedy ones


@dataclass
class Task:
    kind: str  # "mip" | "greedy_mip" | "sgd" | "greedy_sgd"
    seed: int
    hidden: tuple[int, ...]  # the network (for greedy_mip: the deepest one of the chain)
    activation: str = "binary"
    depths: tuple[int, ...] = ()  # greedy_mip: the depths to report
    records: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)  # (method, hidden) wanted
    cost: float = 0.0  # rough seconds, for scheduling the longest tasks first
    # SGD tasks: "correct" (annc.training.warmstart.sgd) or "paper" (the authors' code as written)
    mode: str = "correct"

    def label(self) -> str:
        extra = f" depths {','.join(map(str, self.depths))}" if self.kind == "greedy_mip" else ""
        mode = " (paper's code)" if self.mode == "paper" else ""
        return f"{self.kind}{mode} {self.activation} {arch_label(self.hidden)}{extra} seed {self.seed}"


def sgd_cost(hidden, epochs, n) -> float:
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
        for act, full in MIP_METHOD.items():
            for h in archs:
                if want(full, h, seed):
                    tasks.append(Task("mip", seed, h, act, records=[(full, h)], cost=tl * 1.05 + 2))
            # greedy MIP: one chain per width
            by_width: dict[int, list[int]] = defaultdict(list)
            for h in archs:
                if any(want(m, h, seed) for m in GREEDY_MIP[act]):
                    by_width[h[0]].append(len(h))
            for w, depths in by_width.items():
                depths = tuple(sorted(depths))
                recs = [(m, (w,) * d) for d in depths for m in GREEDY_MIP[act] if want(m, (w,) * d, seed)]
                sgd = sum(sgd_cost((w,) * d, cfg.epochs, cfg.n_train) for d in depths) \
                    if "greedy_binary_mip_sgd" in cfg.methods and act == "binary" else 0
                tasks.append(Task("greedy_mip", seed, (w,) * max(depths), act, depths=depths, records=recs,
                                  cost=tl * (1 + 0.5 * (max(depths) - 1)) + sgd))
        for mode, act in ((m, a) for m in MODES for a in ("binary", "relu")):
            plain, greedy = sgd_methods(act, mode)
            for h in archs:
                c = sgd_cost(h, cfg.epochs, cfg.n_train)
                if want(plain, h, seed):
                    tasks.append(Task("sgd", seed, h, act, records=[(plain, h)], cost=c, mode=mode))
                recs = [(m, h) for m in (greedy, greedy + "_sgd") if want(m, h, seed)]
                if recs:
                    cost = sum(sgd_cost((k,), cfg.epochs, cfg.n_train) for k in h) + c
                    tasks.append(Task("greedy_sgd", seed, h, act, records=recs, cost=cost, mode=mode))
    tasks.sort(key=lambda t: -t.cost)
    return tasks


def sgd_methods(activation: str, mode: str = "correct") -> tuple[str, str]:
    """The plain and the greedy SGD method of a hidden activation (the greedy one's
    fine-tuned variant is its id plus ``_sgd``); ``mode`` "paper": the authors' code as
    written (:mod:`~annc.app.experiment.paper_sgd`)."""
    prefix = "paper_" if mode == "paper" else ""
    if activation == "binary":
        return f"{prefix}binary_sgd", f"{prefix}greedy_binary_sgd"
    return f"{prefix}relu_sgd", f"{prefix}relu_greedy_sgd"
