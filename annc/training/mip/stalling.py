"""How long a training run's full MIP may go without gaining anything: the stall rule's size.

After annc's search and its proof attempt (:mod:`annc.training.bounds.proof`), the full MIP runs from
the search's network.  The stall rule (:mod:`annc.solve.solvers.stall`) ends it once ``N``
consecutive work checks of its solver (HiGHS: its limit checks, at least one per node and several
per root separation round; SCIP: its LP solves and nodes; Gurobi: its MIPNODE callbacks) have
moved neither its incumbent nor its bound.  Here ``N`` is chosen, from the user's setting ``SolveOptions.stall``:

* ``True`` (the default): ``N = max(STALL_MIN, ceil(STALL_WORK / Z))`` for a model of ``Z``
  non-zeros: the same amount of work, about :data:`STALL_WORK` = 5e7 non-zero visits (each check
  follows at least one LP solve or node, which reads the matrix), in at least :data:`STALL_MIN` =
  1,500 checks.  A small model's checks are cheap, so it gets many: a 16-row XOR-like model (684
  non-zeros) gets 73,100, and HiGHS proves it optimal at check 2,829, its bound moving only then (a
  rule of 1,500 checks stopped it at 20% gap: ``tests/training/test_repeatable.py``).  Work, not a count of
  binaries: a rule of ``max(100, binaries / 8)`` checks stopped a real set's full MIP before its one
  late improvement (docs/decisions.md, "Search and bounds");
* ``False``: no rule (None);
* a whole number: that many checks.

Only a driver that observes its solver's checks applies it
(:attr:`~annc.solve.solvers.driver.Driver.stall`); for the others this is None, and no verdict
speaks of a stall.  The rule counts work only: the same run on a loaded machine stops at the same
check, later.
"""
from __future__ import annotations

import math

from ...core.model import Model
from ...solve.solvers.driver import Driver

STALL_MIN = 1500  # work checks, at least (above the 1,028 of the longest stretch measured before a move)
STALL_WORK = 5e7  # non-zero visits: N * non-zeros, at least


def stall_checks(model: Model, driver: Driver, setting: bool | int = True) -> int | None:
    """The stall rule's ``N`` for the full MIP ``model`` on ``driver``'s solver under ``setting`` (module
    docstring), or None when no rule applies."""
    if setting is False or not driver.stall:
        return None
    if setting is True:
        return max(STALL_MIN, math.ceil(STALL_WORK / max(int(model.A.nnz), 1)))
    return int(setting)
