"""annc's naming scheme for solver-visible columns and rows: the one place names are made.

A name is ``<block>`` for a scalar or ``<block>_<i>_<j>...`` for element ``(i, j, ...)``
of a block, where ``<block>`` matches ``[a-z][a-z0-9]*``.  Only ``[A-Za-z0-9_]`` is
used, so no solver or writer ever rewrites a name, and :func:`parse_name` reverses
:func:`element_names` exactly.

Any such name can be written to MPS.  The LP format is stricter: a name starting with
``e``/``E`` (CPLEX reserves them for exponents), ``inf`` or ``nan``, or a scalar block
named like a section keyword is misread by some LP reader, so
:func:`annc.io.writers.lp.check_lp_names` refuses it.  The formulations therefore only use
block names that are safe in both formats (the ``errors`` loss names its indicator
columns ``mis`` and its rows ``win``, not ``e``/``err``); :func:`lp_safe` tells whether a
block name is, :func:`lp_name_problem` why a name is not.

For writing, names are never built one Python string per element: :func:`name_table`
renders a block's names from its index digits straight into a byte table (the same
names as :func:`element_names`); :func:`table_strings` turns a table back into strings.
A block is anything with ``name``, ``shape`` and ``size`` (:class:`annc.core.model.Block`).
"""
from __future__ import annotations

import itertools
import re

import numpy as np

BLOCK_RE = re.compile(r"^[a-z][a-z0-9]*$")
_NAME_RE = re.compile(r"^([a-z][a-z0-9]*)((?:_\d+)*)$")


def check_block_name(block: str) -> str:
    if not BLOCK_RE.match(block):
        raise ValueError(f"invalid block name {block!r}")
    return block


def element_name(block: str, index: tuple[int, ...]) -> str:
    """The name of element ``index`` of ``block``: ``("z1", (3, 0, 2)) -> "z1_3_0_2"``."""
    return "_".join([block] + [str(int(i)) for i in index])


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
    """Inverse of :func:`element_name`: ``"z1_3_0_2" -> ("z1", (3, 0, 2))``."""
    m = _NAME_RE.match(name)
    if not m:
        raise ValueError(f"{name!r} is not an annc name")
    idx = tuple(int(p) for p in m.group(2).split("_")[1:]) if m.group(2) else ()
    return m.group(1), idx


#: Names (compared case-insensitively) that at least one LP reader takes for a keyword
#: (see :mod:`annc.io.writers.lp` for which reader misreads what).
LP_KEYWORDS = frozenset("""
    min max minimize maximize minimise maximise minimum maximum
    st subject such to that s.t. st.
    bound bounds bin binary binaries gen general generals integer integers int
    semi semis semicontinuous semi-continuous sos sos1 sos2 pwl
    end free inf infinity nan
    lazy user constraints cuts
""".split())

_LP_UNSAFE_PREFIX = re.compile(r"^(e|inf|nan)", re.IGNORECASE)


def lp_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be written to an LP file, or None if it can: a keyword, or a
    prefix ``e``/``inf``/``nan`` that some reader takes for part of a number."""
    if name.lower() in LP_KEYWORDS:
        return "is an LP keyword"
    m = _LP_UNSAFE_PREFIX.match(name)
    if m:
        return f"starts with {m.group(1)!r} (read as part of a number)"
    return None


def lp_safe(block: str, scalar: bool = False) -> bool:
    """Whether every LP reader takes the names of ``block`` for names (a scalar block's
    name must also not be a section keyword); see :mod:`annc.io.writers.lp`."""
    return lp_name_problem(block if scalar else f"{block}_0") is None


# ----------------------------------------------------------------------------- byte tables

def _digit_runs(n: int) -> list[tuple[int, int, np.ndarray]]:
    """``0..n-1`` split by number of decimal digits: ``(lo, hi, digits)`` with the ASCII
    digits of ``lo..hi-1`` as a ``(hi - lo) x d`` uint8 array."""
    runs, d = [], 1
    while 10 ** (d - 1) < n or d == 1:
        lo, hi = (0 if d == 1 else 10 ** (d - 1)), min(10 ** d, n)
        if lo < hi:
            i = np.arange(lo, hi)[:, None]
            runs.append((lo, hi, (i // 10 ** np.arange(d - 1, -1, -1) % 10 + ord("0")).astype(np.uint8)))
        d += 1
    return runs


def _fill_names(v: np.ndarray, block, pad: int, prefix: bytes, suffix: bytes) -> None:
    """Write ``prefix + name + blanks up to pad + suffix`` of every element of ``block``
    into ``v`` (zeroed uint8, shaped ``block.shape + (width,)``).

    The elements whose indices have the same number of digits on every axis form a
    rectangular sub-block with the same layout, so each is filled by broadcasting.
    """
    shape = block.shape
    head = np.frombuffer(prefix + block.name.encode("ascii"), dtype=np.uint8)
    tail = np.frombuffer(suffix, dtype=np.uint8)
    for runs in itertools.product(*[_digit_runs(s) for s in shape]):
        g = v[tuple(slice(lo, hi) for lo, hi, _ in runs)]
        g[..., :len(head)] = head
        at = len(head)
        for k, (_, _, dig) in enumerate(runs):
            g[..., at] = ord("_")
            axis = (1,) * k + (len(dig),) + (1,) * (len(shape) - k - 1)
            g[..., at + 1:at + 1 + dig.shape[1]] = dig.reshape(axis + dig.shape[1:])
            at += 1 + dig.shape[1]
        text_end = max(at, len(prefix) + pad)
        g[..., at:text_end] = ord(" ")
        g[..., text_end:text_end + len(tail)] = tail


def name_table(blocks, pad: int = 0, prefix: bytes = b"", suffix: bytes = b"") -> np.ndarray:
    """Names of every element of ``blocks`` (in order) as a 2-D ``uint8`` table.

    Row ``i`` holds the ASCII of ``prefix + name + blanks + suffix`` for the ``i``-th
    name (exactly :func:`element_names`), the name padded with blanks to ``pad``
    characters, then NUL bytes up to the table's width.  Rendered from the index digits
    with numpy, no Python string per element.
    """
    def width(b):
        longest = len(b.name) + sum(1 + len(str(max(s - 1, 0))) for s in b.shape)
        return len(prefix) + max(longest, pad) + len(suffix)

    total = sum(b.size for b in blocks)
    out = np.zeros((total, max([width(b) for b in blocks if b.size] or [1])), dtype=np.uint8)
    at = 0
    for b in blocks:
        if b.size:
            _fill_names(out[at:at + b.size].reshape(b.shape + (out.shape[1],)), b, pad, prefix, suffix)
        at += b.size
    return out


def table_strings(tab: np.ndarray) -> list[str]:
    """The strings of a NUL-padded byte table (:func:`name_table`) as a list."""
    if len(tab) == 0:
        return []
    buf = np.empty((tab.shape[0], tab.shape[1] + 1), dtype=np.uint8)
    buf[:, :-1] = tab
    buf[:, -1] = ord("\n")
    flat = buf.reshape(-1)
    return flat[flat != 0].tobytes().decode("ascii").split("\n")[:-1]
