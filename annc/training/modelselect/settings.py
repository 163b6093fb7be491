"""The settings of cross-validation and what the folds record of them.

A :class:`Setting` is one point the folds score (a width, an l0 weight, a margin; or a classic
model: an L1 logistic separator or a tree (CART's, or an optimal one), and its thinned twin); a :class:`Plan` the
settings and folds of one selection (:func:`annc.training.modelselect.cvselect.plan_for`).  Each
setting on each fold is a :class:`FoldScore`, unscored with the :class:`Stop` that ended its work;
:class:`FoldState` is what one fold's later groups reuse, :class:`FoldTask` a fold as an executor
task (:mod:`annc.training.modelselect.cvpath`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from ...core.penalties import PENALTY
from ...io.data import Dataset
from ...io.spec import NetworkSpec, penalty_at
from ...solve.solvers import DEFAULT
from ..context import RunContext
from ..warmstart.pool.treemakers import TREE_MAKERS

__all__ = ["FoldScore", "FoldState", "FoldTask", "Plan", "Setting", "Stop", "spec_at"]


@dataclass(frozen=True)
class Setting:
    """One point of the path: the hidden width cap, the l0 weight (0: no penalty) and eps."""

    width: int | None  # None: the spec's widths (no hidden layer, or the width is the spec's)
    penalty: float
    eps: float
    logistic: float | None = None  # C of L1 logistic regression: the setting is its separator (step 3)
    tree: int | None = None  # a depth: the setting is that tree's splits as step units (step 4)
    tree_source: str = "cart"  # the maker of the tree (annc.training.warmstart.pool.treemakers.TREE_MAKERS)
    thinned: bool = False  # a kept setting whose weights that carry no training accuracy are dropped (step 5)

    @property
    def kept(self) -> bool:
        """Whether the setting is a classic model's network (a logistic separator or a tree), kept as
        it is where chosen, rather than a point of the MIP path."""
        return self.logistic is not None or self.tree is not None

    def label(self, spec: NetworkSpec) -> str:
        if self.logistic is not None:
            pen = f"L1 logistic C={self.logistic:g}"
        elif self.tree is not None:
            pen = f"tree depth {self.tree} ({TREE_MAKERS[self.tree_source].name})"
        elif spec.penalty != "l0" and PENALTY[spec.penalty].weighted:
            pen = f"{spec.penalty} {self.penalty:g}"
        else:
            pen = f"l0 {self.penalty:g}" if self.penalty > 0 else "no penalty"
        width = "" if self.width is None else f", width {self.width}"
        return f"{pen}{' thinned' if self.thinned else ''}{width}, eps {self.eps:g}"


@dataclass(frozen=True)
class Plan:
    """What the folds try: ``settings`` in path order (eps, then width, then the l0 weight
    from large to small), ``folds`` (k), which settings were open (``open``), and ``anchor``: the
    setting others must earn their place against when no separator is scored (the spec as written);
    ``large``: the two-way plan above 1,000 rows (:mod:`annc.training.modelselect.cvselect`), whose folds drop
    weights with no LP (step 2 keeps no activations) and score no whole-set part."""

    settings: tuple[Setting, ...]
    folds: int
    open: tuple[str, ...]
    seed: int = 0
    anchor: Setting | None = None
    large: bool = False
    path_groups: int | None = None  # a work limit: at most this many groups of :meth:`groups` are walked
    merge: bool = True  # the folds compiled with duplicate rows merged (the compiler's merge)

    def groups(self):
        """The path's settings grouped by (eps, width): one pool each, its path in order."""
        out: dict = {}
        for s in self.settings:
            if not s.kept:
                out.setdefault((s.eps, s.width), []).append(s)
        return list(out.items())

    @property
    def logistic(self) -> tuple[Setting, ...]:
        """The logistic separators' settings (step 3 of :mod:`annc.training.modelselect.cvpath`), not thinned."""
        return tuple(s for s in self.settings if s.logistic is not None and not s.thinned)

    @property
    def trees(self) -> tuple[Setting, ...]:
        """The trees' settings (step 4 of :mod:`annc.training.modelselect.cvpath`), not thinned."""
        return tuple(s for s in self.settings if s.tree is not None and not s.thinned)

    @property
    def thinned(self) -> tuple[Setting, ...]:
        """The kept settings' thinned twins (step 5 of :mod:`annc.training.modelselect.cvpath`)."""
        return tuple(s for s in self.settings if s.thinned)

    @property
    def kept(self) -> tuple[Setting, ...]:
        """The classic models' settings, logistic separators and trees, and their thinned twins
        (:attr:`Setting.kept`)."""
        return tuple(s for s in self.settings if s.kept)


class Stop(Enum):
    """Why a setting's work on a fold ended: scored (``DONE``), or not scored because the run
    context's deadline passed (``TIME_LIMIT``), Ctrl-C was pressed (``INTERRUPTED``), the plan's
    work limit ended the path first (``WORK_LIMIT``), the work found no network or its task failed
    (``FAILED``), or the plan does not score it on that part (``SKIPPED``)."""

    DONE = "done"
    TIME_LIMIT = "time limit"
    INTERRUPTED = "interrupted"
    WORK_LIMIT = "work limit"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass
class FoldScore:
    """One setting on one fold: validation and fit accuracy, non-zero weights; or None when it was
    not scored, ``stop`` saying why (and ``why`` in words)."""

    accuracy: float | None = None
    fit_accuracy: float | None = None
    nonzero_weights: int | None = None
    why: str | None = None
    stop: Stop = Stop.DONE

    def to_dict(self) -> dict:
        """JSON-able: the fields, the stop as its value."""
        return {**self.__dict__, "stop": self.stop.value}

    @classmethod
    def unscored(cls, stop: Stop, why: str) -> "FoldScore":
        return cls(why=why, stop=stop)

    @classmethod
    def cut(cls, ctx: RunContext) -> "FoldScore":
        """A setting the run context ``ctx`` stopped before it was scored (the deadline, or Ctrl-C)."""
        if ctx.interrupted:
            return cls.unscored(Stop.INTERRUPTED, "not reached: interrupted")
        return cls.unscored(Stop.TIME_LIMIT, "not reached: the time limit")


@dataclass
class FoldState:
    """What a later group of the same fold reuses (:func:`fold_path`): the groups are walked eps by
    eps, widths increasing, so one eps's values are held at a time."""

    eps: float | None = None  # the margin of the values below
    narrower: list = field(default_factory=list)  # the last width's path's networks, (W, b) per layer
    wide: list | None = None  # the spec-width networks of :func:`_wide_layers`, once per eps
    networks: dict = field(default_factory=dict)  # Setting: ((W, b), scaling) of its network on the fold
    groups_walked: int = 0  # groups of the path walked, for the plan's work limit
    compiled: dict = field(default_factory=dict)  # (width, eps): the fold compiled for the classic models
    placed: dict = field(default_factory=dict)  # a classic model's Setting: its point (its thinned twin thins it)

    def at(self, eps: float) -> "FoldState":
        """This state for the margin ``eps``: the narrower and spec-width networks forgotten on a new one."""
        if self.eps != eps:
            self.eps, self.narrower, self.wide = eps, [], None
        return self


@dataclass(frozen=True)
class FoldTask:
    """One fold as an executor task (:func:`fold_task`): its parts, the plan, the cap ``until`` in
    seconds from when it starts (None: none), the sub-MIPs' ``solver`` and whether its networks go back
    (``keep``: the whole set's part, whose networks seed the final training)."""

    spec: NetworkSpec
    fit: Dataset
    val: Dataset
    plan: Plan
    until: float | None = None
    solver: str = DEFAULT
    keep: bool = False


def spec_at(spec: NetworkSpec, s: Setting) -> NetworkSpec:
    """``spec`` with the setting ``s`` written: every hidden layer at most ``s.width`` units,
    the l0 weight (:func:`annc.io.spec.penalty_at`: the spec's own kind if it is weighted; none at
    weight 0 unless the spec has a weight budget) and eps."""
    hidden = spec.hidden if s.width is None else tuple(replace(h, units=min(h.units, s.width)) for h in spec.hidden)
    penalty = penalty_at(spec, s.penalty)
    return replace(spec, hidden=hidden, penalty=penalty[0], penalty_weight=penalty[1], eps=float(s.eps),
                   eps_auto=False)
