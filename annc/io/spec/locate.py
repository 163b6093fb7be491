"""Pointing at a spec's text from a later stage: a refused number, a data mismatch, a big-M.

Every setting of a parsed spec knows where it was written (``positions``, see
:mod:`.types`).  :func:`locate` makes the located :class:`~annc.core.errors.Diagnostic` for a
:class:`~annc.core.errors.SpecError`; :func:`located` the same text for an error of another
kind (``DataError``, ``ModelError``) whose cause is a setting of the spec.
"""
from __future__ import annotations

from ...core.errors import Diagnostic
from .syntax import diagnostic, source_lines
from .types import NetworkSpec, Position


def where(spec: NetworkSpec, keys, layer: int | None = None) -> Position | None:
    """Where ``spec`` sets the first of ``keys`` (a name or names, tried in order) for
    ``layer`` (an index into ``spec.layers``; None: the network): the layer's own
    ``{ }`` setting or the top-level one; else the layer's own line; else None (a spec
    built in Python)."""
    keys = [keys] if isinstance(keys, str) else list(keys)
    found = [spec.position(key, layer) for key in keys] + [spec.position(None, layer)]
    return next((p for p in found if p is not None), None)


def locate(spec: NetworkSpec, keys, layer: int | None, message: str) -> Diagnostic:
    """``message`` at :func:`where` (at 1:1 if the spec does not say), showing the line."""
    at = where(spec, keys, layer) or Position(1, 1)
    return diagnostic(spec.source, source_lines(spec.text), at.line, at.column, message)


def located(spec: NetworkSpec, keys, layer: int | None, message: str) -> str:
    """``message`` as ``file:line:column: error: message``, the line and a caret, at
    :func:`where`; as ``file: message`` if the spec does not say where."""
    if where(spec, keys, layer) is None:
        return f"{spec.source}: {message}"
    return locate(spec, keys, layer, message).format()
