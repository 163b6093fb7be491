"""The files of one training run: the data CSV a map names, and what stays when a run fails.

A run writes, in its output folder, each MIP's model and map (and the CSV of a greedy
layer's inputs, or of data given as arrays, which the map names) together, any file a
file-based solver leaves there, and at the end the weights.  When a run fails only the
model and map (and the CSV their map names) of the MIP that failed stay
(:class:`RunFiles`; the rules are in :mod:`annc.training.trainer`).
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path

import numpy as np

from ...io.data import Dataset
from ...io.outputs import remove_files
from ...io.varmap import file_digest


def csv_backing(data: Dataset, out: Path | None, name: str) -> tuple[Dataset, bytes | None]:
    """``data`` backed by a CSV file, and the bytes still to write for it: as is (None)
    if it was read from one, else ``<out>/<name>.csv`` (so that the map points at data
    ``annc decode`` can verify), written with the model and its map."""
    if out is None or (Path(data.path).is_file() and file_digest(data.path) == data.sha256):
        return data, None
    from ...io.datasets import csv_bytes
    raw = csv_bytes(data.X, np.asarray(data.classes, dtype=object)[data.y], data.features, data.label)
    return replace(data, path=str(out / f"{name}.csv"), sha256=hashlib.sha256(raw).hexdigest()), raw


class RunFiles:
    """The files one training run writes in its output folder, and what stays of them
    when it fails (see the module docstring): the model and map (and the data CSV the
    map names) of the MIP that failed, and nothing else."""

    def __init__(self):
        self.paths: list[Path] = []
        self.artifacts: dict[str, list[Path]] = {}  # MIP name -> [data CSV,] model, map

    def add(self, paths, artifacts_of: str | None = None) -> None:
        paths = [Path(p) for p in paths]
        self.paths += [p for p in paths if p not in self.paths]
        if artifacts_of is not None:
            self.artifacts[artifacts_of] = paths

    def keep_only(self, name: str | None) -> list[Path]:
        """Remove every file of the run but the artifacts of MIP ``name``; return those."""
        keep = self.artifacts.get(name, []) if name is not None else []
        remove_files(p for p in self.paths if p not in keep)
        self.paths = list(keep)
        return list(keep)

    @property
    def latest(self) -> str | None:
        """The MIP whose model and map were written last."""
        return next(reversed(self.artifacts), None)


def changed_files(folder: Path | None, prefix: str, before: dict | None = None) -> dict:
    """The files ``<folder>/<prefix>*`` with their (inode, size, mtime); with ``before``,
    only those that are new or changed since."""
    if folder is None:
        return {}
    now = {}
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return {}
    for e in entries:
        if e.name.startswith(prefix):
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            now[Path(e.path)] = (st.st_ino, st.st_size, st.st_mtime_ns)
    if before is None:
        return now
    return {p: v for p, v in now.items() if before.get(p) != v}
