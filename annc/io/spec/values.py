"""Checks of single values: counts, integers, positive numbers, intervals, words.

:class:`ValueChecker` records every problem as a located
:class:`~annc.core.errors.Diagnostic` and returns :data:`INVALID` for a wrong value, so
that checking goes on and every problem of a spec is reported at once.  The settings
and the whole spec are checked in :mod:`.checks`.
"""
from __future__ import annotations

import difflib
import math

from ...core.errors import Diagnostic
from ...core.limits import LARGEST
from .syntax import Statement, Value, as_float, diagnostic, short, source_lines

INVALID = object()  # a value that is wrong (and already reported)


def suggest(word: str, choices) -> str | None:
    for choice in choices:
        if choice.lower() == word.lower():
            return choice
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def one_of(choices) -> str:
    choices = list(choices)
    return ", ".join(choices[:-1]) + " or " + choices[-1]


def plural(n: int, what: str = "value") -> str:
    return f"no {what}" if n == 0 else f"{n} {what}{'s' if n != 1 else ''}"


class ValueChecker:
    """Checks values of statements of one spec, collecting located diagnostics."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        self.lines = source_lines(text)
        self.diagnostics: list[Diagnostic] = []

    def error(self, at, message: str) -> None:
        """Record an error at ``at`` (a Value or Statement, or a (line, column))."""
        line, column = at if isinstance(at, tuple) else (at.line, at.column)
        self.diagnostics.append(diagnostic(self.filename, self.lines, line, column, message))

    # -- single values -------------------------------------------------------

    def count(self, st: Statement, n: int, takes: str) -> bool:
        """Check ``st`` has exactly ``n`` values; point at the first extra one."""
        got = len(st.values)
        if got == n:
            return True
        at = st.values[n] if got > n else st
        self.error(at, f"'{st.key}' takes {takes}, got {plural(got)}")
        return False

    def finite(self, v: Value) -> bool:
        """Every number of ``v`` is below :data:`~annc.core.limits.LARGEST` in magnitude (it
        becomes a coefficient or bound of the model; a double overflows past 1.8e308)."""
        for part in (v.lo, v.hi) if v.kind == "interval" else (v,):
            x = abs(as_float(part.value))
            if not math.isfinite(x):
                self.error(part, f"number {short(part.text)} is too large")
                return False
            if x >= LARGEST:
                self.error(part, f"number {short(part.text)} is too large: every number of "
                           f"the model stays below {LARGEST:g} (solvers refuse larger values "
                           "or read them as infinite)")
                return False
        return True

    def integer(self, st: Statement, v: Value, minimum: int, what: str = "",
                why: str = "", maximum: int | None = None, limit_why: str = ""):
        """An integer literal in ``[minimum, maximum]``; ``what`` names it ("width"),
        ``why`` explains the minimum and ``limit_why`` the maximum."""
        name = f"'{st.key}' {what}".rstrip()
        if v.kind != "int":
            self.error(v, f"{name} must be an integer, got {v.shown}")
            return INVALID
        if v.value < minimum:
            self.error(v, f"{name} must be at least {minimum}{why}, got {v.shown}")
            return INVALID
        if maximum is not None and v.value > maximum:
            self.error(v, f"{name} must be at most {maximum:,}{limit_why}, got {v.shown}")
            return INVALID
        return v.value

    def positive(self, v: Value, what: str, zero_ok: bool = False):
        """A finite number > 0 (>= 0 with ``zero_ok``); ``what`` names it."""
        if v.kind not in ("int", "float"):
            self.error(v, f"{what} must be a number, got {v.shown}")
            return INVALID
        if not self.finite(v):
            return INVALID
        if v.value < 0 or (v.value == 0 and not zero_ok):
            zero = " (0 in double precision)" if v.value == 0 and v.kind == "float" else ""
            self.error(v, f"{what} must be {'>= 0' if zero_ok else '> 0'}, got {v.shown}{zero}")
            return INVALID
        return float(v.value)

    def word(self, st: Statement, v: Value, choices, what: str):
        if v.kind == "word" and v.value in choices:
            return v.value
        if v.kind == "word":
            hint = suggest(v.value, choices)
            extra = f"did you mean '{hint}'?" if hint else f"expected {one_of(choices)}"
            self.error(v, f"unknown {what} {v.shown} ({extra})")
        else:
            self.error(v, f"'{st.key}' takes {one_of(choices)}, got {v.shown}")
        return INVALID

    def single_integer(self, st: Statement, minimum: int, maximum: int, limit_why: str):
        if not self.count(st, 1, "one integer"):
            return INVALID
        return self.integer(st, st.values[0], minimum, maximum=maximum, limit_why=limit_why)

    def single_word(self, st: Statement, choices, what: str):
        if not self.count(st, 1, one_of(choices)):
            return INVALID
        return self.word(st, st.values[0], choices, what)

    def bounds(self, st: Statement):
        """``[lo, hi]`` -> (lo, hi)."""
        if not self.count(st, 1, "one interval [lo, hi]"):
            return INVALID
        return self.interval(st, st.values[0])

    def interval(self, st: Statement, v: Value):
        """The interval value ``v`` of ``st`` -> (lo, hi)."""
        if v.kind != "interval":
            self.error(v, f"'{st.key}' takes an interval [lo, hi], got {v.shown}")
            return INVALID
        if not self.finite(v):
            return INVALID
        lo, hi = v.value
        if lo > hi:
            self.error(v.lo, f"lower bound {v.lo.shown} is above upper bound {v.hi.shown}")
            return INVALID
        return lo, hi

    def big_m(self, st: Statement):
        """``M auto`` -> None, ``M 50`` -> 50.0."""
        if not self.count(st, 1, "'auto' or one number"):
            return INVALID
        v = st.values[0]
        if v.kind == "word":
            if v.value == "auto":
                return None
            hint = suggest(v.value, ["auto"])
            self.error(v, f"'M' takes 'auto' or a number > 0, got {v.shown}"
                       + (" (did you mean 'auto'?)" if hint else ""))
            return INVALID
        return self.positive(v, "'M'")
