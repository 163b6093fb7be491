"""The run's deadline: the one clock a training run's steps take their time from.

A time limit ``T`` given at ``t_0`` ends at ``t_0 + T``.  Every step of a training run (the
recipe's eps, the build, annc's own search, the user's solver, the bounds and the finish)
asks the deadline what is left instead of doing its own time arithmetic:

* :meth:`Deadline.left` is ``max(t_0 + T - now, 0)`` (None: no limit);
* :meth:`Deadline.until_finish` is what is left less a reserve for the steps that must still run
  after (decoding, verifying and scoring the network: :data:`FINISH_SHARE` of the limit,
  at least :data:`FINISH_MIN` seconds but never more than :data:`FINISH_MOST_SHARE` of the
  limit), never below :data:`FLOOR` seconds, so that a solver
  asked for a time still gets a positive one (the trainer's search takes ``SEARCH_SHARE`` of
  it, the solver what the search leaves).

Decisions are work limits; the deadline only caps.  A step that cannot be interrupted
must be sized by work so that it fits: the deadline says how much is left, not how much
the step will take.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

FINISH_SHARE = 0.05  # of the limit, kept for what runs after the solver (decode, verify, bounds, scores)
FINISH_MIN = 1.0  # seconds kept for that at least, on a limit of 10 s or more
FINISH_MOST_SHARE = 0.1  # the reserve is at most this share of a short limit (FINISH_MIN of 2 s would be half
# of it: a one-vs-one pair capped at 2 s had 0.1 s left for its search, and no network; its finish takes 0.05 s)
FLOOR = 0.1  # the least a capped step is given: a solver needs a positive time limit


@dataclass(frozen=True)
class Deadline:
    """``limit`` seconds (None: none) from ``start`` (a ``time.perf_counter()`` value)."""

    limit: float | None
    start: float = field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float | None:
        """Seconds left (never negative); None without a limit."""
        return None if self.limit is None else max(self.limit - self.elapsed(), 0.0)

    def cap(self) -> float | None:
        """A solver's time limit: what is left, at least :data:`FLOOR` (None without a limit)."""
        left = self.left()
        return None if left is None else max(left, FLOOR)

    def reserve(self) -> float:
        """Seconds kept for the finish: :data:`FINISH_SHARE` of the limit, at least :data:`FINISH_MIN`
        or :data:`FINISH_MOST_SHARE` of the limit, whichever is less."""
        if self.limit is None:
            return 0.0
        return max(FINISH_SHARE * self.limit, min(FINISH_MIN, FINISH_MOST_SHARE * self.limit))

    def until_finish(self) -> float | None:
        """What is left less :meth:`reserve`, at least :data:`FLOOR` (None without a limit)."""
        left = self.left()
        return None if left is None else max(left - self.reserve(), FLOOR)
