"""annc's naming scheme for solver-visible columns and rows: the one place names are made.

A name is ``<block>`` for a scalar or ``<block>_<i>_<j>...`` for element ``(i, j, ...)``
of a block, where ``<block>`` matches ``[a-z][a-z0-9]*``.  Only ``[A-Za-z0-9_]`` is
used, so no solver or writer ever rewrites a name, and :func:`parse_name` reverses
:func:`element_names` exactly.
"""
from __future__ import annotations

import re

import numpy as np

BLOCK_RE = re.compile(r"^[a-z][a-z0-9]*$")
_NAME_RE = re.compile(r"^([a-z][a-z0-9]*)((?:_\d+)*)$")


def check_block_name(block: str) -> str:
    if not BLOCK_RE.match(block):
        raise ValueError(f"invalid block name {block!r}")
    return block


def element_names(block: str, shape: tuple[int, ...]) -> list[str]:
    """Names of every element of ``block`` in C order."""
    if len(shape) == 0:
        return [block]
    if int(np.prod(shape)) == 0:
        return []
    grids = np.indices(shape).reshape(len(shape), -1).astype(str)
    out = np.full(grids.shape[1], block, dtype=object)
    for g in grids:
        out = out + "_" + g.astype(object)
    return out.tolist()


def parse_name(name: str) -> tuple[str, tuple[int, ...]]:
    """Inverse of :func:`element_names`: ``"z1_3_0_2" -> ("z1", (3, 0, 2))``."""
    m = _NAME_RE.match(name)
    if not m:
        raise ValueError(f"{name!r} is not an annc name")
    idx = tuple(int(p) for p in m.group(2).split("_")[1:]) if m.group(2) else ()
    return m.group(1), idx
