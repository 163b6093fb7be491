"""User-facing errors.

Every mistake a user can make (a bad spec, a bad CSV, a solution file from another
model) raises a subclass of :class:`AnncError`.  The command-line layer prints its
message and exits with its ``exit_code``; it never shows a traceback for these.
"""
from __future__ import annotations

from dataclasses import dataclass


class AnncError(Exception):
    """A problem with the user's input; ``str(err)`` is the full message."""

    exit_code = 2


@dataclass(frozen=True)
class Diagnostic:
    """One located problem: ``file:line:column: message``, the line and a caret."""

    file: str
    line: int
    column: int
    message: str
    source_line: str = ""

    WIDTH = 120  # a longer source line is shown as a window of this many characters

    def format(self) -> str:
        head = f"{self.file}:{self.line}:{self.column}: error: {self.message}"
        if not self.source_line:
            return head
        text, column = self.source_line.rstrip(), max(self.column, 1)
        if len(text) > self.WIDTH:  # a window around the caret, '...' where it cuts
            start = max(0, min(column - 1 - self.WIDTH // 2, len(text) - self.WIDTH))
            end = start + self.WIDTH
            head_cut, tail_cut = ("..." if start else ""), ("..." if end < len(text) else "")
            text, column = head_cut + text[start:end] + tail_cut, column - start + len(head_cut)
        caret = " " * (column - 1) + "^"
        return f"{head}\n    {text}\n    {caret}"


class SpecError(AnncError):
    """One or more problems in a network spec, all reported together."""

    MAX_SHOWN = 20  # the message shows the first 20; ``diagnostics`` keeps them all

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        n = len(self.diagnostics)
        shown = [d.format() for d in self.diagnostics[:self.MAX_SHOWN]]
        if n > self.MAX_SHOWN:
            shown.append(f"... and {n - self.MAX_SHOWN} more error{'s' if n - self.MAX_SHOWN != 1 else ''}")
        summary = f"{n} error{'s' if n != 1 else ''} in spec"
        super().__init__("\n".join(shown) + f"\n{summary}")


class DataError(AnncError):
    """A problem in a CSV data file (the message names the file, row and column)."""


class MissingValuesError(DataError, ValueError):
    """Missing cells (empty, NA, NaN) where annc has no rule to fill them
    (:mod:`annc.core.missing`): the message names the columns, how many rows have one, and
    ``--missing drop|impute``.  Also a ``ValueError``, which is what scikit-learn's estimator
    checks expect of an estimator given NaN (``MIPNetClassifier``)."""


class SolutionError(AnncError):
    """A solution file that cannot be read, or that belongs to another model."""


class NoSolutionError(AnncError):
    """The solver finished without a usable solution (infeasible, unbounded, none found)."""

    exit_code = 3


class ModelError(AnncError):
    """A model that cannot be built as asked (e.g. a big-M below its valid bound)."""


class MapError(AnncError):
    """A variable map that is missing, unreadable, edited or corrupt (the message names the map)."""


class WeightsError(AnncError):
    """A weights file (``.weights.json`` / ``.weights.npz``) that cannot be used as a network."""


class UsageError(AnncError):
    """Bad options or arguments: command-line flags or Python API parameters."""


class OutputError(AnncError):
    """The output folder cannot take annc's files (a regular file, not writable, ...)."""


class SizeError(ModelError):
    """A model that would pass a size limit; the message names the size it would have."""


class EnvironmentLimitError(AnncError):
    """A limit of the machine or of a solver's installation, not of the input and not a bug
    in annc (exit 5): a size-limited licence that refuses the model, a solver that refuses
    it for its size, a solver package or program that is not installed.  The message names
    the limit and what to use instead (HiGHS, bundled and without a size limit)."""

    exit_code = 5


class VerificationError(AnncError):
    """A solution that fails verification (exit 4): nothing is written for it."""

    exit_code = 4


class TruncatedSolutionError(SolutionError, VerificationError):
    """A solution file that stops short: cut mid-line, before the end its format marks, or
    before the count of lines it announces (exit 4, like any solution that fails
    verification; still a :class:`SolutionError` for code that catches those)."""

    exit_code = 4


class AnncWarning(UserWarning):
    """Something annc did that the user should know of, but that is not an error (the
    command line prints it as one ``warning:`` line on stderr)."""


def weights_field(d: dict, key: str, parse, source: str):
    """``parse(d[key])`` for an optional field of a parsed weights file (None when it is absent:
    an older file), a :class:`UsageError` of ``parse`` re-raised as the :class:`WeightsError`
    that names ``source`` and the field."""
    if key not in d:
        return None
    try:
        return parse(d[key])
    except UsageError as e:
        raise WeightsError(f"{source}: field {key}: {e}") from None


class UnknownCategoryWarning(AnncWarning):
    """A category of a text column that the network did not see in training, read as all
    zeros (no one-hot input set: scikit-learn's ``OneHotEncoder(handle_unknown="ignore")``);
    one warning per column, naming it, each such category and its count of rows
    (:func:`annc.core.encoding.warn_unseen`).  ``--unknown error`` (``unknown="error"``) makes
    such a category a :class:`DataError` instead."""
