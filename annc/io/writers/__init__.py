"""Model writers: free MPS (:mod:`.mps`), CPLEX LP (:mod:`.lp`) and PuLP (:mod:`.pulp`).

**The registry.**  :data:`MODEL_FORMATS` maps a model format's name (the file's suffix,
``annc compile --format``, the map's ``"format"``) to its :class:`ModelFormat`: annc's
writer of it and how PuLP writes it (``--writer pulp``).  :data:`FORMATS` is its keys
(a live view), which the compiler's checks, the command line's ``--format`` choices and
the PuLP writer read.  A new format is one writer module plus one entry here.

:func:`write_model` is the one entry point the compiler uses.  It writes to a temporary
file in the target's folder (named as :mod:`annc.io.outputs` says) and ``os.replace()``\\ s
it onto the target only when the writer has finished, so a failure (bad model, full
disk, Ctrl-C) never leaves a half-written model behind: the target is either absent, or
still the previous complete file, and the temporary file is removed.  An OS error
(full disk, no permission) is an :class:`~annc.core.errors.OutputError`.

``.mps.gz`` / ``.lp.gz`` are gzip-compressed (level 1: about 4x faster than gzip's
default level 6, files about 25% larger).  Readers that take them directly (checked in
``tests/io/test_writers.py``): highspy, SCIP (pyscipopt), Gurobi, CPLEX, Xpress and
``glpsol`` (``--freemps`` / ``--lp``; GLPK decompresses any name ending in ``.gz``).
**Not** the CBC 2.10.3 binary bundled with PuLP: it was built without zlib
("Cannot read gzip'ed file because zlib was not compiled into COIN") - gunzip first.
"""
from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..outputs import atomic_write, final_name
from . import lp as _lp
from . import mps as _mps
from .text import CHUNK

GZIP_LEVEL = 1  # gzip -1: ~4x faster than -6, files ~25% larger (MPS text compresses well anyway)


@dataclass(frozen=True)
class ModelFormat:
    """A model file format: annc's writer of it, and how PuLP writes it."""

    name: str  # the suffix (<stem>.<name>, .gz after it when compressed) and the map's "format"
    write: Callable  # write(model, text handle), and the keyword chunk where ``chunked``: annc's writer
    pulp_method: str | None = None  # the pulp.LpProblem method that writes it (None: PuLP does not)
    pulp_sorts_rows: bool = False  # PuLP's writer puts the rows in name order (else the model's)
    chunked: bool = False  # the writer takes ``chunk`` (entries assembled at a time); a format added by
    # a user (docs/architecture.md's extension points) writes ``write(model, fh)`` and need not


def write_mps(model, fh, *, chunk: int = CHUNK) -> None:
    """Free MPS to a text file handle (see :mod:`annc.io.writers.mps`)."""
    _mps.write_mps(model, fh, chunk=chunk)  # looked up at call time so that tests can monkeypatch annc.io.writers.mps.write_mps


def write_lp(model, fh, *, chunk: int = CHUNK) -> None:
    """CPLEX LP to a text file handle (see :mod:`annc.io.writers.lp`)."""
    _lp.write_lp(model, fh, chunk=chunk)


MODEL_FORMATS: dict[str, ModelFormat] = {f.name: f for f in (
    ModelFormat("mps", write_mps, "writeMPS", chunked=True),
    ModelFormat("lp", write_lp, "writeLP", pulp_sorts_rows=True, chunked=True),
)}
FORMATS = MODEL_FORMATS.keys()  # the names, in the registry's order (a live view of it)


def format_from_path(path) -> tuple[str, bool]:
    """``(format, gzipped)`` from a file name (``model.mps``, ``model.lp.gz``, ...)."""
    name = Path(path).name.lower()
    gz = name.endswith(".gz")
    if gz:
        name = name[:-3]
    for fmt in FORMATS:
        if name.endswith("." + fmt):
            return fmt, gz
    names = [f".{f}" for f in FORMATS] + [f".{f}.gz" for f in FORMATS]
    raise ValueError(f"cannot tell the model format from {str(path)!r}: use {', '.join(names[:-1])} or {names[-1]}")


def resolve_format(path: Path, fmt: str | None) -> tuple[str, bool]:
    """``(format, gzipped)`` for writing ``path``: ``fmt`` if given, else from the suffix."""
    try:
        sfmt, gz = format_from_path(path)
    except ValueError:
        if fmt is None:
            raise
        sfmt, gz = fmt, path.name.lower().endswith(".gz")
    fmt = (fmt or sfmt).lower()
    if fmt not in FORMATS:
        raise ValueError(f"unknown model format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return fmt, gz


def write_model(model, path, fmt: str | None = None, *, chunk: int = CHUNK) -> Path:
    """Write ``model`` to ``path`` as ``fmt`` (a name of :data:`MODEL_FORMATS`; by default from the suffix),
    ``chunk`` entries at a time (:data:`~annc.io.writers.text.CHUNK`; the bytes do not depend on it).

    A name ending in ``.gz`` is gzip-compressed.  The file appears atomically (see the
    module docstring).  Returns the path written.
    """
    path = Path(path)
    fmt, gz = resolve_format(path, fmt)
    form = MODEL_FORMATS[fmt]
    keywords = {"chunk": chunk} if form.chunked else {}
    return _atomic_write(path, gz, lambda fh: form.write(model, fh, **keywords))


def _atomic_write(path: Path, gz: bool, write_text) -> Path:
    """Call ``write_text(text_handle)`` on a temporary file, then move it onto ``path``
    (:func:`annc.io.outputs.atomic_write`: a recognisable temporary name, removed on failure)."""
    def write(raw) -> None:
        if gz:
            inner_name = final_name(path)
            inner_name = inner_name[:-3] if inner_name.lower().endswith(".gz") else inner_name
            with gzip.GzipFile(filename=inner_name, mode="wb", fileobj=raw,
                               compresslevel=GZIP_LEVEL, mtime=0) as z:
                _write_text(z, write_text)
        else:
            _write_text(raw, write_text)

    return atomic_write(path, write)


class _AsciiWriter:
    """Minimal text handle over a binary file (the writers only call ``write``).

    Unlike ``io.TextIOWrapper`` it owns no buffer and never closes the binary file, so
    an exception in a writer cannot trigger a late flush/close of a gzip stream.
    """

    def __init__(self, binary):
        self._write = binary.write

    def write(self, s: str) -> int:
        self._write(s.encode("ascii"))
        return len(s)

    def write_bytes(self, b: bytes) -> None:  # fast path used by the writers (ASCII only)
        self._write(b)


def _write_text(binary, write_text) -> None:
    write_text(_AsciiWriter(binary))


def benchmark(nnz: int = 2_000_000, distinct: int | None = None, folder=None,
              names=("bench.mps", "bench.lp", "bench.mps.gz"), seed: int = 0,
              log: Callable[[str], None] | None = None) -> dict:
    """Time :func:`write_model` on a random model with ``nnz`` non-zeros; return
    non-zeros per second per file, and pass one line per file to ``log`` (if given).
    ``distinct=None``: every coefficient distinct (worst case: each value is formatted
    with ``repr``); ``distinct=k``: k coefficient values.

    ``python -c "import annc.io.writers as w; w.benchmark(log=print)"``
    """
    import tempfile
    import time

    import numpy as np
    import scipy.sparse as sp

    from ...core.model import Block, Model

    rng = np.random.default_rng(seed)
    n, m = max(1, nnz // 10), max(1, nnz // 20)
    vals = rng.standard_normal(nnz) if distinct is None else rng.integers(1, distinct + 1, nnz) / 4
    A = sp.coo_matrix((vals, (rng.integers(0, m, nnz), rng.integers(0, n, nnz))), shape=(m, n)).tocsr()
    A.sum_duplicates()
    A.eliminate_zeros()
    integer = rng.random(n) < 0.5
    lb = np.where(rng.random(n) < 0.3, -np.inf, np.where(integer, 0.0, -1.0))
    ub = np.where(integer, 1.0, np.inf)
    model = Model("bench", [Block("x", "", None, (n,), 0)], [Block("r", "", None, (m,), 0)],
                  lb, ub, integer, rng.standard_normal(n), 0.0,
                  rng.choice(np.array(["L", "G", "E"]), m), rng.standard_normal(m), A)
    out = {}
    with tempfile.TemporaryDirectory(dir=folder) as d:
        for name in names:
            t = time.perf_counter()
            path = write_model(model, Path(d) / name)
            dt = time.perf_counter() - t
            out[name] = A.nnz / dt
            if log:
                log(f"{name}: {A.nnz} non-zeros in {dt:.2f} s = {A.nnz / dt / 1e6:.2f} M/s, "
                    f"{path.stat().st_size / 1e6:.1f} MB")
    return out


__all__ = ["write_model", "write_mps", "write_lp", "format_from_path", "FORMATS", "MODEL_FORMATS", "ModelFormat",
           "benchmark"]
