"""The JSON Lines file of runs (``table1.jsonl``): one record per line, appended and
synced as runs finish, so that a killed sweep loses at most the line it was writing."""
from __future__ import annotations

import json
import os
from pathlib import Path


def read_jsonl(path) -> list[dict]:
    """Records of a JSON Lines file (a torn last line, from a killed run, is ignored)."""
    path = Path(path)
    if not path.exists():
        return []
    recs = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            recs.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return recs


def append_jsonl(path: Path, records: list[dict]) -> None:
    """Append ``records``, one line each, and sync the file."""
    with path.open("a") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())


def cut_torn_line(path: Path) -> None:
    """A torn last line (killed mid-write) would corrupt the next append: cut it off."""
    if path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
        text = path.read_text()
        path.write_text(text[: text.rfind("\n") + 1])
