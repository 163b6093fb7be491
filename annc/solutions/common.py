"""What every solution reader returns, and the error helpers they share."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property

from ..errors import SolutionError


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

    @property
    def has_values(self) -> bool:
        return bool(self.values or self.index_values)


@dataclass
class Source:
    """A solution file's text; ``path`` is the name used in messages."""

    path: str
    text: str

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def error(self, lineno: int, message: str) -> SolutionError:
        return SolutionError(f"{self.path}:{lineno}: {message}")

    def expected(self, lineno: int, what: str, fmt: str) -> SolutionError:
        """``file:line: expected <what> in a <fmt> solution, got '<line>'``."""
        if lineno > len(self.lines):
            got = "the end of the file"
        else:
            text = self.lines[lineno - 1].strip()
            got = repr(text if len(text) <= 80 else text[:77] + "...")
        article = "an" if fmt[0] in "AEIOX" else "a"
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
