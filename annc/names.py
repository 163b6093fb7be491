"""annc's naming scheme for solver-visible columns and rows: the one place names are made.

A name is ``<block>`` for a scalar or ``<block>_<i>_<j>...`` for element ``(i, j, ...)``
of a block, where ``<block>`` matches ``[a-z][a-z0-9]*``.  Only ``[A-Za-z0-9_]`` is
used, so no solver or writer ever rewrites a name, and :func:`parse_name` reverses
:func:`element_names` exactly.

Any such name can be written to MPS.  The LP format is stricter: a name starting with
``e``/``E`` (CPLEX reserves them for exponents), ``inf`` or ``nan``, or a scalar block
named like a section keyword is misread by some LP reader, so
:func:`annc.writers.lp.check_lp_names` refuses it.  The formulations therefore only use
block names that are safe in both formats (the ``errors`` loss names its indicator
columns ``mis`` and its rows ``win``, not ``e``/``err``); :func:`lp_safe` tells whether a
block name is.
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


def lp_safe(block: str, scalar: bool = False) -> bool:
    """Whether every LP reader takes the names of ``block`` for names (a scalar block's
    name must also not be a section keyword); see :mod:`annc.writers.lp`."""
    from .writers.lp import lp_name_problem
    return lp_name_problem(block if scalar else f"{block}_0") is None
