"""What one MIP's run takes in and what each of its stages adds (:mod:`annc.training.mip.stages`):
frozen dataclasses, from the :class:`MipJob` in to the :class:`StepTimes` out."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ...core.network import TrainedNetwork
from ...io.data import Dataset
from ...io.spec import NetworkSpec
from ...solve.compiler import Compiled
from ...solve.solvers import SolveResult
from ...solve.verify import Verification
from ..bounds.proof import Bound, Proof
from ..context import RunContext
from ..large.compress import Compression, LargeData
from ..search.incumbent import SearchRecord
from ..warmstart.pool.candidates import SEED_NAME
from .runfiles import RunFiles

SETUP_NONZEROS_PER_SECOND = 1e5  # a solver's setup before it checks its clock: measured with HiGHS 1.16 on
# moons10k's model (889k non-zeros), 2 to 20 s before its first callback on this 2-core machine
SETUP_MIN_NONZEROS = 5e5  # below this the setup is short (breast_cancer's 199k: well under a second): always run


# -- what goes in ------------------------------------------------------------------------
@dataclass(frozen=True)
class SolverSetup:
    """How long a solver's setup takes before it first looks at its clock: ``nonzeros_per_second``
    of the model, on a model of ``min_nonzeros`` non-zeros or more (below that it is short, and the
    full MIP always runs; :func:`annc.training.mip.stages.too_short`)."""

    nonzeros_per_second: float = SETUP_NONZEROS_PER_SECOND
    min_nonzeros: float = SETUP_MIN_NONZEROS


@dataclass(frozen=True)
class MipSettings:
    """What every MIP of one training run shares: where its files go, how it is built and started."""

    out_dir: Path | None
    files: RunFiles
    log: Callable[[str], None]
    merge: bool = True
    warm_start: bool = True
    max_nonzeros: int | None = None
    refine: bool = True
    start_network: TrainedNetwork | None = None  # cross-validation's network: a candidate of the start pool
    start_name: str = SEED_NAME  # what the pool calls it (a decomposition's member: its separator)
    keep: tuple[str, str] | None = None  # (label, reason): model selection's network is kept, no full MIP
    workers: int | None = None
    scheduler: str | None = None
    large: LargeData = LargeData()  # where the large-data path begins, how far it compresses
    setup: SolverSetup = SolverSetup()  # the solver's setup time, which a budget must leave


@dataclass(frozen=True)
class MipJob:
    """One MIP: its name, spec and data, its run context (time, solver, settings) and the run's settings."""

    name: str
    spec: NetworkSpec
    data: Dataset
    ctx: RunContext
    settings: MipSettings

    def say(self, line: str) -> None:
        """A line of this MIP's log, behind its name."""
        self.settings.log(f"[{self.name}] {line}")


# -- what each stage adds --------------------------------------------------------------------
@dataclass(frozen=True)
class Built:
    c: Compiled
    full: Dataset  # the data as given (the MIP may be built on representatives of it)
    compression: Compression | None
    files: tuple[Path, ...]  # the model and map written (and a greedy layer's CSV)
    workdir: Path | None
    seconds: float

    @property
    def provable(self) -> bool:
        """annc's bounds speak of this MIP: the full rows, exact products, a hidden layer."""
        return self.compression is None and not self.c.model.layout.relaxed and bool(self.c.problem.spec.hidden)


@dataclass(frozen=True)
class Started:
    record: SearchRecord | None = None
    kept: bool = False  # model selection's network kept as it is
    known: dict = field(default_factory=dict)  # bounds that need no incumbent, computed once (the pool's test)
    pool_seconds: float | None = None
    search_seconds: float | None = None

    @property
    def x(self) -> np.ndarray | None:
        return None if self.record is None else self.record.x


@dataclass(frozen=True)
class Bounded:
    pre: Bound | None = None  # annc's best bound aimed at the start
    proof: Proof | None = None  # ... when it meets the start's objective
    seconds: float | None = None


@dataclass(frozen=True)
class Solved:
    result: SolveResult
    skipped: str | None  # why the full MIP was not run (None: it ran, or a proof made it needless)
    files: tuple[Path, ...]  # what the solver wrote
    trace: list
    seconds: float


@dataclass(frozen=True)
class Finished:
    net: TrainedNetwork
    ver: Verification
    source: str
    bound: float | None
    bound_source: str | None
    found_loss: float  # the network found, before its dead weights were dropped
    bounds_seconds: float | None
    seconds: float


@dataclass(frozen=True)
class StepTimes:
    """Seconds of each part of one MIP (:data:`annc.training.results.TIME_PARTS`; None: the part did not
    run) and of the whole step."""

    build: float
    full_mip: float
    finish: float
    step: float
    start_pool: float | None = None
    search: float | None = None
    bounds: float | None = None

    def get(self, part: str, default: float = 0.0) -> float:
        """The seconds of ``part`` as :data:`~annc.training.results.TIME_PARTS` names it."""
        value = self.as_dict().get(part)
        return default if value is None else value

    def as_dict(self) -> dict[str, float]:
        """The parts that ran, by their names, then ``"step"``."""
        parts = {"build": self.build, "start pool": self.start_pool, "search": self.search,
                 "full MIP": self.full_mip, "bounds": self.bounds, "finish": self.finish, "step": self.step}
        return {k: v for k, v in parts.items() if v is not None}

    def items(self):
        return self.as_dict().items()
