"""The results layout: ``bench/results/<YYYY-MM-DD>_<short commit>/<suite>/``.

One folder per date and commit of the code measured; in it one folder per suite run that day,
holding what the suite wrote (raw JSON lines or CSV, and the suite's own markdown summary), the
suite's console output (``log.txt``) and a small header, ``run.json``:

    suite, command, argv (the suite's own arguments), date, started, ended (UTC, ISO 8601),
    seconds, exit code, commit, dirty (uncommitted changes in the work tree),
    machine (platform, processor, cpus, memory_gb, python),
    load (1-minute load average before and after, from /proc/loadavg), note (free text),
    earlier (the headers of earlier runs into the same folder: a suite split by its options)

Results recorded before this layout existed were moved in with a header written from what
their files and the git log record: ``commit`` and ``recorded_in_commit`` are the commit that added
the rows (the code measured is that commit's), ``recorded_at`` its time, ``migrated_from`` the old
paths; ``machine`` and ``load`` are what the old notes said in words, or absent (None).
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
from datetime import datetime, timezone
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
HEADER = "run.json"


def git(*args: str, cwd: Path = ROOT) -> str:
    """A git command's output, stripped ('' when git fails: a copy without .git)."""
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def short_commit() -> str:
    return git("rev-parse", "--short", "HEAD") or "nocommit"


def dirty() -> bool:
    return bool(git("status", "--porcelain", "--untracked-files=no"))


def load_average() -> float | None:
    """The 1-minute load average (None where /proc/loadavg is not there)."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def machine() -> dict:
    memory = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(), "memory_gb": memory, "python": platform.python_version()}


def run_folder(suite: str, results: Path = RESULTS, when: datetime | None = None) -> Path:
    """Today's folder for ``suite``: ``<results>/<YYYY-MM-DD>_<short commit>/<suite>`` (made)."""
    when = when or datetime.now(timezone.utc)
    folder = results / f"{when:%Y-%m-%d}_{short_commit()}" / suite
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_header(folder: Path, **fields) -> Path:
    path = folder / HEADER
    path.write_text(json.dumps(fields, indent=2) + "\n")
    return path


def read_header(folder: Path) -> dict:
    path = folder / HEADER
    return json.loads(path.read_text()) if path.exists() else {}


def suite_runs(suite: str, results: Path = RESULTS) -> list[Path]:
    """Every ``<date>_<commit>/<suite>`` folder under ``results``, oldest first: by the folder's
    date, then its header's start time (a moved result's: when its commit recorded it)."""
    folders = [d / suite for d in results.iterdir() if (d / suite).is_dir()] if results.is_dir() else []

    def when(f: Path) -> tuple:
        h = read_header(f)
        return f.parent.name[:10], h.get("started") or h.get("recorded_at") or "", f.parent.name
    return sorted(folders, key=when)


def newest(suite: str, results: Path = RESULTS) -> Path | None:
    runs = suite_runs(suite, results)
    return runs[-1] if runs else None


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def latest_pairs(suite: str, results: Path = RESULTS) -> dict[tuple[str, str], tuple[Path, list[dict]]]:
    """(set, method) -> (the newest run folder of ``suite`` with rows of that pair, those rows)."""
    latest = {}
    for folder in suite_runs(suite, results):  # oldest first: newer folders overwrite
        by_pair: dict = {}
        for path in sorted(folder.rglob("runs.jsonl")):
            for r in read_jsonl(path):
                by_pair.setdefault((r["set"], r["method"]), []).append(r)
        latest.update({pair: (folder, rows) for pair, rows in by_pair.items()})
    return latest
