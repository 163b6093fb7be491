"""Output folders and atomic files: what every annc command that writes files relies on.

* :func:`check_out_dir` says, before anything is written, whether a folder can take
  annc's files (it exists as a writable folder, or can be created: its nearest existing
  ancestor is a writable folder); :func:`prepare_out_dir` then creates it.  Both raise
  :class:`~annc.core.errors.OutputError` naming the folder.
* Temporary files are named ``.annc-tmp-<pid>-<8 hex>.<final name>`` (hidden, and the
  final name's suffix kept, so a writer that looks at the suffix sees the right
  format).  A run killed with SIGKILL leaves one behind; :func:`remove_stale_temps`,
  which :func:`prepare_out_dir` (and so every write) calls, removes the stale ones:
  those of a process that no longer exists, untouched for :data:`DEAD_AFTER` seconds,
  and any untouched for :data:`STALE_AFTER` seconds (a temporary file that is being
  written is touched all the time; the grace period spares the files of a live writer
  whose process id this machine cannot see, as in another container sharing the
  folder).  Only names of that exact pattern are
  touched, and the legacy ``.<name>.<pid>.<8 hex>.tmp`` of older annc versions.
* :func:`atomic_write` writes one file through a temporary file and ``os.replace``;
  :class:`Staging` writes several (a model and its map) to temporary files and then
  renames them back to back, so that they appear together or not at all.
* :func:`export_atomically` does the same for a writer that takes a file *stem* and
  writes several files (``TrainedNetwork.export``).
"""
from __future__ import annotations

import os
import re
import secrets
import time
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

from ..core.errors import OutputError, UsageError

TEMP_PREFIX = ".annc-tmp-"
TEMP_PATTERN = re.compile(r"^\.annc-tmp-(\d+)-[0-9a-f]{8}\.")
LEGACY_TEMP_PATTERN = re.compile(r"^\..+\.(\d+)\.[0-9a-f]{8}\.(?:tmp|pulp\.(?:mps|lp))$")
STALE_AFTER = 15 * 60  # seconds without a change after which any annc temporary file is stale
DEAD_AFTER = 10  # ... or this many, if the process that wrote it is gone


# -- output folders -----------------------------------------------------------------
def _reason(err: OSError) -> str:
    return err.strerror or str(err)


def check_out_dir(path) -> Path:
    """``path`` as a Path if annc can write its files there; else :class:`OutputError`.

    Writes nothing: a missing folder is fine when its nearest existing ancestor is a
    writable folder (it is created later by :func:`prepare_out_dir`).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise UsageError(f"the output folder must be a path, not {type(path).__name__} {path!r}")
    folder = Path(path)
    if "\0" in str(folder):
        raise OutputError(f"output folder {str(folder)!r}: the name has a NUL character")
    probe = folder
    while True:
        try:
            is_dir = probe.is_dir()
            exists = is_dir or probe.exists() or probe.is_symlink()
        except OSError as e:  # e.g. a name too long
            raise OutputError(f"output folder {folder}: {_reason(e)}") from None
        if exists:
            break
        if probe.parent == probe:
            break
        probe = probe.parent
    if not is_dir:
        kind = "a file" if probe.is_file() else "not a folder"
        what = "" if probe == folder else f"cannot create output folder {folder}: "
        raise OutputError(f"{what or 'output folder '}{probe} is {kind}"
                          + (", not a folder" if kind == "a file" else ""))
    if not os.access(probe, os.W_OK | os.X_OK):
        what = "" if probe == folder else f"cannot create output folder {folder}: folder "
        raise OutputError(f"{what or 'output folder '}{probe} is not writable")
    return folder


def prepare_out_dir(path) -> Path:
    """Check ``path`` (:func:`check_out_dir`), create it, and remove stale temporary
    files left there by a killed run; return it.  Raises :class:`OutputError`."""
    folder = check_out_dir(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create output folder {folder}: {_reason(e)}") from None
    remove_stale_temps(folder)
    return folder


def check_out_file(path) -> Path:
    """``path`` as a Path if annc can write a file of that name (its folder passes
    :func:`check_out_dir`; ``path`` itself is not a folder); else :class:`OutputError`."""
    path = Path(path)
    try:
        check_out_dir(path.parent)
    except OutputError as e:
        raise OutputError(f"cannot write {path}: {e}") from None
    if path.is_dir():
        raise OutputError(f"{path} is a folder: give the name of the file to write")
    return path


# -- temporary files ----------------------------------------------------------------
def temp_path(target) -> Path:
    """A fresh temporary name for ``target``, in the same folder (see the module docstring)."""
    target = Path(target)
    return target.with_name(f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.{target.name}")


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError, OSError):
        return True  # another user's process (or not ours to judge): keep its files
    return True


def is_stale_temp(path: Path, now: float | None = None) -> bool:
    """True for an annc temporary file whose process is gone or that is long untouched."""
    m = TEMP_PATTERN.match(path.name) or LEGACY_TEMP_PATTERN.match(path.name)
    if not m:
        return False
    try:
        age = (time.time() if now is None else now) - path.lstat().st_mtime
    except OSError:
        return False
    return age > STALE_AFTER or (age > DEAD_AFTER and not _pid_alive(int(m.group(1))))


def remove_stale_temps(folder) -> list[Path]:
    """Remove the stale annc temporary files directly in ``folder``; return them."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        path = Path(entry.path)
        if entry.name.startswith(".") and is_stale_temp(path, now):
            try:
                if entry.is_file(follow_symlinks=False):
                    path.unlink()
                    removed.append(path)
            except OSError:
                pass
    return removed


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError:
        pass


def remove_files(paths: Iterable) -> None:
    """Remove each of ``paths`` that exists (errors ignored: this runs while failing)."""
    for p in paths:
        _unlink(Path(p))


# -- atomic writes --------------------------------------------------------------------
def write_to(path: Path, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write(binary_handle)`` on a new file ``path`` (``"x"``: never clobbers);
    on any failure remove the partial file.  OS errors become :class:`OutputError`."""
    try:
        with open(path, "xb") as fh:
            write(fh)
    except BaseException as e:
        _unlink(path)
        if isinstance(e, OSError):
            raise OutputError(f"cannot write {path.with_name(final_name(path))}: {_reason(e)}") from None
        raise


def final_name(path) -> str:
    """The name ``path`` will have: its own, without a temporary prefix."""
    name = Path(path).name
    while (m := TEMP_PATTERN.match(name)):
        name = name[m.end():]
    return name


def atomic_write(path, write: Callable[[BinaryIO], None]) -> Path:
    """Write ``path`` through a temporary file: it appears complete, or stays as it was."""
    path = prepare_out_dir(Path(path).parent) / Path(path).name
    with Staging() as s:
        write_to(s.temp_for(path), write)
        s.commit()
    return path


def atomic_write_text(path, text: str, encoding: str = "utf-8") -> Path:
    """:func:`atomic_write` of a text."""
    data = text.encode(encoding)
    return atomic_write(path, lambda fh: fh.write(data))


class Staging:
    """Files written under temporary names, then renamed to their names together.

    ``with Staging() as s: write(s.temp_for(a)); write(s.temp_for(b)); s.commit()``
    renames ``a`` then ``b`` back to back (in that order).  If a rename fails, the
    files already renamed by this commit are removed, so that ``a`` never stays without
    ``b``.  Leaving the block without ``commit`` (an exception) removes the temporary
    files.
    """

    def __init__(self):
        self.pending: list[tuple[Path, Path]] = []  # (temporary, final)

    def __enter__(self) -> "Staging":
        return self

    def __exit__(self, *exc) -> None:
        remove_files(tmp for tmp, _ in self.pending)
        self.pending.clear()

    def temp_for(self, target) -> Path:
        """The temporary name under which to write ``target`` (removed if not committed)."""
        target = Path(target)
        tmp = temp_path(target)
        self.pending.append((tmp, target))
        return tmp

    def commit(self) -> list[Path]:
        """Rename every temporary file onto its target, in order; return the targets."""
        done: list[Path] = []
        try:
            for tmp, target in self.pending:
                os.replace(tmp, target)
                done.append(target)
        except OSError as e:
            remove_files(done)
            raise OutputError(f"cannot write {target}: {_reason(e)}") from None
        except BaseException:
            remove_files(done)
            raise
        self.pending.clear()
        return done


def export_atomically(export: Callable[[Path], list], stem) -> list[Path]:
    """Run ``export(temporary_stem)`` (a writer of ``<stem>.*`` files, such as
    ``TrainedNetwork.export``), then rename what it wrote to ``<stem>.*`` together."""
    stem = Path(stem)
    tmp_stem = temp_path(stem)
    with Staging() as s:
        try:
            written = [Path(p) for p in export(tmp_stem)]
        except BaseException as e:
            remove_files(tmp_stem.parent.glob(tmp_stem.name + "*"))
            if isinstance(e, OSError):
                raise OutputError(f"cannot write {stem}.*: {_reason(e)}") from None
            raise
        prefix_len = len(tmp_stem.name) - len(stem.name)
        s.pending = [(p, p.with_name(p.name[prefix_len:])) for p in written]
        return s.commit()


__all__ = ["check_out_dir", "check_out_file", "prepare_out_dir", "temp_path", "remove_stale_temps", "is_stale_temp",
           "remove_files", "final_name", "atomic_write", "atomic_write_text", "Staging", "export_atomically",
           "TEMP_PREFIX", "STALE_AFTER", "DEAD_AFTER"]
