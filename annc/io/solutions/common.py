"""What every solution reader returns, and the error helpers they share.

Truncation: a file that stops short raises :class:`~annc.core.errors.TruncatedSolutionError`
(exit 4).  :meth:`Source.expected` raises it whenever a reader needs a line past the last
one (a block shorter than its count, a missing end marker or section); a line-based file
whose last line has no newline was cut mid-line (:attr:`Source.ends_mid_line`, checked
by :func:`annc.io.solutions.read_solution`).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from functools import cached_property

from ...core.errors import SolutionError, TruncatedSolutionError


class Status(str, enum.Enum):
    """What a solution file says about the solve, reduced to what annc acts on."""

    OPTIMAL = "optimal"            # proven optimal
    FEASIBLE = "feasible"          # an incumbent, but stopped at a limit (or "feasible")
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    NO_SOLUTION = "no solution"    # stopped (or gave up) without an incumbent
    UNKNOWN = "unknown"            # no status in the file, or "infeasible or unbounded"


@dataclass
class RawSolution:
    """A solution file's content, before it is matched to a model."""

    format: str
    status: Status
    status_text: str                 # the solver's own words, for messages
    objective: float | None          # as the solver reported it
    values: dict[str, float] = field(default_factory=dict)        # by column name
    index_values: dict[int, float] = field(default_factory=dict)  # by 0-based column index
    num_columns: int | None = None   # the model's column count, when the file says it
    omits_zeros: bool = False        # a missing column means 0
    positions: dict[str, int] = field(default_factory=dict)  # 0-based column index by name, when given
    bound: float | None = None       # the solver's dual bound on the objective, when the file states
    #                                  one; as read (may be infinite or NaN): use it only if finite
    gap: float | None = None         # the relative gap the file states (HiGHS's MIP_rel_gap), as read

    @property
    def has_values(self) -> bool:
        return bool(self.values or self.index_values)

    def usable_bound(self) -> float | None:
        """:attr:`bound` where it can bound the objective: finite (NaN never passes) and not
        above the stated objective (a minimisation's dual bound never is; within rounding
        it is the objective); else None."""
        bound, objective = self.bound, self.objective
        if bound is None or not math.isfinite(bound):
            return None
        if objective is None or not math.isfinite(objective) or bound <= objective:
            return bound
        return objective if bound - objective <= 1e-9 * max(1.0, abs(objective)) else None


@dataclass
class Source:
    """A solution file's text; ``path`` is the name used in messages."""

    path: str
    text: str

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached_property
    def ends_mid_line(self) -> bool:
        """The last line has no newline: every solver ends its lines with one, so a
        line-based file like this was cut in the middle of a line."""
        return not self.text.endswith(("\n", "\r"))

    def error(self, lineno: int, message: str, kind: type[SolutionError] = SolutionError) -> SolutionError:
        err = kind(f"{self.path}:{lineno}: {message}")
        err.lineno = lineno
        return err

    def expected(self, lineno: int, what: str, fmt: str) -> SolutionError:
        """``file:line: expected <what> in a <fmt> solution, got '<line>'``; past the last
        line, ``got the end of the file: it is truncated`` (a :class:`TruncatedSolutionError`)."""
        article = "an" if fmt[0] in "AEIOX" else "a"
        if lineno > len(self.lines):
            return self.error(lineno, f"expected {what} in {article} {fmt} solution, got the end of "
                                      "the file: it is truncated", TruncatedSolutionError)
        text = self.lines[lineno - 1].strip()
        got = repr(text if len(text) <= 80 else text[:77] + "...")
        return self.error(lineno, f"expected {what} in {article} {fmt} solution, got {got}")

    def number(self, text: str, lineno: int, what: str, fmt: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise self.expected(lineno, what, fmt) from None

    def count(self, text: str, lineno: int, what: str, fmt: str) -> int:
        """An integer such as a column count: ASCII digits with an optional sign, at most
        18 of them (``nan``, ``1e3`` or 5,000 digits are a located error, not a crash)."""
        t = text.strip()
        digits = t[1:] if t[:1] in "+-" else t
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 18):
            raise self.expected(lineno, what, fmt)
        return int(t)

    def duplicate(self, lineno: int, name: str) -> SolutionError:
        return self.error(lineno, f"column {name!r} appears twice")
