"""The ``log`` callbacks: only the command line prints (``annc/app/cli.py`` with its commands,
and ``annc/app/experiment/cli.py``, pass ``print``); every layer below takes a ``log`` callback
whose default is :func:`silent`, defined here once."""
from __future__ import annotations


def silent(*_args) -> None:
    """The default ``log``: says nothing (only the command line prints)."""


__all__ = ["silent"]
