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
                    LayerSpec, NetworkSpec, Position)

__all__ = ["parse_spec", "load_spec", "format_spec", "locate", "located", "where",
           "NetworkSpec", "LayerSpec", "Position", "TOP_SETTINGS", "LAYER_SETTINGS",
           "HIDDEN_ACTIVATIONS", "LOSSES", "TRAININGS", "PENALTIES", "SYMMETRIES"]


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
