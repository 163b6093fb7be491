"""Network specs: the ``.ann`` language parsed and checked into a :class:`NetworkSpec`.

The pipeline of this package, one module per step::

    text --syntax--> located statements --checks (values)--> NetworkSpec --format--> text

:mod:`.types` holds the spec's dataclasses (every default written once, a source
position on every node) and the settings the language knows; :mod:`.syntax` the lark
grammar (``grammar.lark``) and the syntax messages; :mod:`.checks` and :mod:`.values`
the meaning of each setting, collecting *every* problem before one
:class:`~annc.core.errors.SpecError` is raised; :mod:`.format` the canonical text;
:mod:`.locate` the messages later stages give at a setting's line.

Public API: :func:`parse_spec`, :func:`load_spec`, :func:`format_spec`, and
:func:`where`, :func:`locate` and :func:`located` for later stages.
"""
from __future__ import annotations

from ...core.errors import SpecError, UsageError
from ...core.inputs import read_bytes
from .checks import check
from .format import format_spec
from .locate import locate, located, where
from .syntax import read_statements, too_long, undecodable
from .types import (HIDDEN_ACTIVATIONS, LAYER_SETTINGS, LOSSES, PENALTIES, SYMMETRIES, TOP_SETTINGS, TRAININGS,
                    LayerSpec, NetworkSpec, Position, penalty_at)

__all__ = ["parse_spec", "load_spec", "load_spec_of", "format_spec", "locate", "located", "where",
           "NetworkSpec", "LayerSpec", "Position", "TOP_SETTINGS", "LAYER_SETTINGS",
           "HIDDEN_ACTIVATIONS", "LOSSES", "TRAININGS", "PENALTIES", "SYMMETRIES", "penalty_at"]


def parse_spec(text: str, filename: str = "<spec>") -> NetworkSpec:
    """Parse and check ``.ann`` source; raises :class:`SpecError` listing all problems."""
    if not isinstance(text, str):
        raise UsageError(f"parse_spec takes the spec's text as a str, got {type(text).__name__}")
    long = too_long(text, filename)
    if long is not None:
        raise SpecError([long])
    statements, syntax = read_statements(text, filename)  # after a syntax error: those that parse
    spec, problems = check(statements, text, filename, across=not syntax)
    if syntax or spec is None:
        raise SpecError(sorted(syntax + problems, key=lambda d: (d.line, d.column)))
    return spec


def load_spec(path) -> NetworkSpec:
    """Read and parse a ``.ann`` file (the spec keeps ``source=str(path)`` and its text)."""
    raw = read_bytes(path, "spec file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SpecError([undecodable(raw, err, str(path))]) from None
    return parse_spec(text, str(path))


def load_spec_of(path, data) -> NetworkSpec:
    """:func:`load_spec` for a command that takes ``SPEC DATA``: a spec that does not parse
    while it looks like a CSV file (named ``.csv``, or a first line with commas) is one short
    :class:`~annc.core.errors.UsageError` saying the arguments look swapped, instead of
    one spec error per line of the CSV."""
    try:
        return load_spec(path)
    except SpecError as e:
        message = _swapped(path, data)
        if message is None:
            raise
        raise UsageError(message) from e


_KEYS = ("input", "hidden", "output")


def _head(path, size: int = 4096) -> list[str]:
    """The first lines of a file that are neither blank nor ``#`` comments ([] if unreadable)."""
    try:
        with open(path, "rb") as f:
            text = f.read(size).decode("utf-8", "replace")
    except (OSError, TypeError, ValueError):
        return []
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _swapped(spec, data) -> str | None:
    spec_lines, data_lines = _head(spec), ([] if data is None else _head(data))
    spec_csv = str(spec).lower().endswith((".csv", ".csv.gz")) or (
        bool(spec_lines) and "," in spec_lines[0] and not spec_lines[0].startswith(_KEYS))
    data_spec = data is not None and (str(data).lower().endswith(".ann") or (
        bool(data_lines) and data_lines[0].split(maxsplit=1)[0] in _KEYS))
    if not spec_csv:  # a spec with mistakes of its own: its errors say more
        return None
    also = f" and {data} like a .ann spec" if data_spec else ""
    order = f" (give {data} {spec})" if data_spec else ""
    return (f"{spec} looks like a CSV data file{also}: the arguments look swapped; the spec comes first, "
            f"then the data: SPEC DATA{order}")
