"""What model selection does at which size and time limit: :class:`SelectionPolicy`.

Every number that decides the plan of cross-validation (how many folds, which settings, when it
runs at all, how much of the time limit the folds take) and the selection rule lives in one frozen
policy, passed down from :func:`annc.training.modelselect.cvselect.cross_validate` (default
:data:`DEFAULT_POLICY`).  A test or a benchmark that wants another rule or another size passes a
policy (``dataclasses.replace(DEFAULT_POLICY, many_rows=100)``); nothing patches module constants.
Each field's ``metadata["doc"]`` (:meth:`SelectionPolicy.rows`) is one line that a table of "what
annc does at which size and time limit" can quote; the figures that chose the values are in
docs/decisions.md.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from ...core.errors import UsageError

__all__ = ["DEFAULT_POLICY", "SelectionPolicy"]


def _field(default, doc: str):
    """A policy field: its default and its one line for the docs (``metadata["doc"]``)."""
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True)
class SelectionPolicy:
    """The numbers of model selection by cross-validation (module docstring)."""

    # -- when it runs --------------------------------------------------------------------------
    by_default: bool = _field(True, "cross-validation chooses the open settings unless --no-select is given")
    min_limit: float = _field(30.0, "under a shorter --time-limit (seconds) the spec is trained as written")
    min_distinct: int = _field(64, "fewer distinct rows than this: the data merge, the spec is trained as written")
    # -- the plan --------------------------------------------------------------------------------
    folds: int = _field(3, "k of k-fold cross-validation, at every size and time limit (more time scores "
                           "more of the same plan, never another one)")
    many_rows: int = _field(1000, "more training rows: the two-way plan (the spec as written against "
                                  "separators and trees)")
    max_cv_rows: int = _field(2000, "the folds are cut from a stratified sample of at most this many rows")
    penalty_path: tuple[float, ...] = _field((4.0, 2.0, 1.0, 0.5, 0.25, 0.125),
                                             "l0 weights the path walks, large to small")
    logistic_path: tuple[float, ...] = _field((0.01, 0.1, 0.3, 1.0, 3.0, 10.0),
                                              "C of the folds' L1 logistic separators")
    path_groups: int | None = _field(None, "a work limit: at most this many (eps, width) groups of the path are walked")
    tree_makers: Mapping | None = _field(None, "the optimal-tree makers scored beside CART's trees (None: those "
                                               "installed of annc.training.warmstart.pool.treemakers; {}: none)")
    tree_depths: tuple[int, ...] | None = _field(None, "the depths of the trees scored beside the path (None: the "
                                                       "start pool's, annc.training.warmstart.pool.trees.DEPTHS; "
                                                       "(): none)")
    # -- time --------------------------------------------------------------------------------------
    select_share: float = _field(0.6, "of the time limit, at most, for selection; the final training gets the rest")
    folds_share: float = _field(0.85, "of selection's share, at most, for the folds; the rest: the network on all rows")
    # -- the rule ------------------------------------------------------------------------------------
    se_rule: float = _field(0.5, "standard errors below the best CV accuracy that count as good as the best")
    resolution: float = _field(0.75, "validation rows a fold under which a CV difference is no evidence")
    paired_se: float = _field(0.5, "paired standard errors by which a path setting must beat a separator to go "
                                   "first")
    seed_slack: float = _field(0.05, "a setting's network on all rows may fit them this much below its CV accuracy")

    def __post_init__(self):
        if self.folds < 2:
            raise UsageError("a selection policy needs at least 2 folds")
        if not (0 < self.select_share <= 1 and 0 < self.folds_share <= 1):
            raise UsageError("a selection policy's shares are fractions in (0, 1]")

    def rows(self) -> list[tuple[str, object, str]]:
        """``(name, value, one line)`` of every field, in order: the docs' table of what annc does at
        which size and time limit."""
        return [(f.name, getattr(self, f.name), f.metadata["doc"]) for f in fields(self)]


DEFAULT_POLICY = SelectionPolicy()
