"""A run's header (``run.json``, ``bench/results.py``) as the benchmark pages' lines: the folder
(relative to the repository), date, commit, command, machine, load, note, earlier runs into it and
where a moved run came from.  ``bench/render.py`` and ``bench/real/render.py`` list their sources so.
"""
from __future__ import annotations

from pathlib import Path

from bench import results as layout


def rel(path: Path) -> str:
    """``path`` relative to the repository root (as given when it lies outside)."""
    try:
        return str(path.relative_to(layout.ROOT))
    except ValueError:
        return str(path)


def header_lines(folder: Path) -> list[str]:
    """The run folder's header as a markdown list item with its command, machine and load beneath."""
    h = layout.read_header(folder)
    machine = h.get("machine")
    if isinstance(machine, dict):
        machine = (f"{machine.get('processor')}, {machine.get('cpus')} CPUs, {machine.get('memory_gb')} GiB, "
                   f"Python {machine.get('python')}, {machine.get('platform')}")
    load = h.get("load")
    if isinstance(load, dict):
        load = "1-min load average " + ", ".join(f"{k} {v}" for k, v in load.items() if v is not None)
    out = [f"- `{rel(folder)}`: {h.get('date', folder.parent.name[:10])}, commit {h.get('commit', '?')}"
           + (" (uncommitted changes)" if h.get("dirty") else "")
           + (f", {h['seconds']:.0f} s" if h.get("seconds") is not None else "")]
    out.append(f"    - command: `{h.get('command', '(not recorded)')}`")
    out.append(f"    - machine: {machine or '(not recorded)'}")
    out.append(f"    - load: {load or '(not recorded)'}")
    if h.get("note"):
        out.append(f"    - note: {h['note']}")
    for e in h.get("earlier", []):
        out.append(f"    - an earlier run into this folder: `{e.get('command')}` ({e.get('started')}, "
                   f"load {e.get('load')})")
    if h.get("migrated_from"):
        out.append(f"    - moved from: {', '.join(f'`{p}`' for p in h['migrated_from'])}")
    return out
