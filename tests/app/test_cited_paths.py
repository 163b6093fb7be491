"""Every repository path that annc's code, the benchmarks and the docs cite exists.

What counts as a cited path: a word that starts with ``annc/``, ``bench/``, ``docs/`` or
``tests/`` (not preceded by a letter, ``/``, ``.`` or ``-``, so ``site-packages/annc/x`` or
``../docs/x`` are not), in any tracked text file under ``annc/``, ``bench/`` or ``docs/``:
code, comments, docstrings, markdown, templates, specs.  Sentence punctuation at its end
(``.,:;``) is not part of it.

- A concrete path (no ``*``, ``<``, ``{`` or ``[`` in it) must name a tracked file or a folder
  holding one (``bench/real/``, ``bench/results/2026-12-02_d571be1/real``), or a file on disk.
- A pattern or placeholder (``bench/results/<date>_<commit>/real/``, ``bench/suites/*.py``)
  must have a literal part, the text before its first ``*``/``<``/``{``/``[``, that begins
  some tracked path: ``bench/results/<date>`` passes, ``bench/issue36_*`` and
  ``bench/issue37/*`` do not.

Not checked: a line that records where something was moved from (``moved from:``, as
docs/benchmarks.md lists for each result moved in from the old layout),
``docs/benchmarks-history.md`` (the history page records where the old
``bench/`` paths were and where they went, its "moved from" table) and ``bench/results/``
(each run's record of the command it ran, as it was then).
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("annc/", "bench/", "docs/")
NOT_SCANNED = ("docs/benchmarks-history.md", "bench/results/")
TEXT = {".py", ".md", ".j2", ".ann", ".lark", ".yml", ".yaml", ".txt", ".html", ".toml", ".cfg"}
CITED = re.compile(r"(?<![\w./-])((?:annc|bench|docs|tests)/[\w./*<>{}\[\]-]*)")
WILD = re.compile(r"[*<>{}\[]")
RECORD = "moved from:"


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if (ROOT / f).exists()]  # a file deleted but not yet staged is gone


def citations(files) -> list[tuple[str, int, str]]:
    """(file, line, cited path) for every cited path in the scanned files."""
    found = []
    for f in files:
        if not f.startswith(SCANNED) or f.startswith(NOT_SCANNED) or Path(f).suffix not in TEXT:
            continue
        for n, line in enumerate((ROOT / f).read_text(encoding="utf-8").splitlines(), 1):
            if RECORD in line.lower():
                continue
            for m in CITED.finditer(line):
                found.append((f, n, m.group(1).rstrip(".,:;")))
    return found


def exists(path: str, tracked: list[str], folders: set[str]) -> bool:
    """Whether a cited path (or, for a pattern, its literal part) names something in the repository."""
    wild = WILD.search(path)
    if wild:
        literal = path[:wild.start()]
        return any(t.startswith(literal) for t in tracked)
    bare = path.rstrip("/")
    if path.endswith("/"):
        return bare in folders or (ROOT / bare).is_dir()
    return bare in folders or bare in tracked or (ROOT / bare).exists()


def test_the_helpers_tell_a_stale_path_from_a_live_one():
    tracked = ["bench/results/2026-12-02_d571be1/real/log.txt", "bench/real/sets.py"]
    folders = {"bench", "bench/results", "bench/results/2026-12-02_d571be1",
               "bench/results/2026-12-02_d571be1/real", "bench/real"}
    live = ["bench/real/sets.py", "bench/real/", "bench/results/<date>_<commit>/real/",
            "bench/results/2026-12-02_d571be1/real"]
    stale = ["bench/realdata.py", "bench/issue36_*", "bench/issue37/*", "bench/real/sets.py/",
             "bench/issue36_final/runs_least"]
    assert [p for p in live if not exists(p, tracked, folders)] == []
    assert [p for p in stale if exists(p, tracked, folders)] == []
    assert [c for _, _, c in citations([])] == []


def test_no_stale_path_is_cited():
    tracked = _tracked()
    folders = {str(p) for t in tracked for p in Path(t).parents if str(p) != "."}
    stale = [f"{f}:{n}: {path}" for f, n, path in citations(tracked) if not exists(path, tracked, folders)]
    assert not stale, f"{len(stale)} cited paths that do not exist:\n" + "\n".join(stale)
