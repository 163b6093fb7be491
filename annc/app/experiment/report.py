"""The report of a sweep: ``table1.md`` (and the plots) from its JSON Lines file.

A cell of Table 1 is the smallest depth (width) whose mean test accuracy, over the
seeds with a result, reaches 85% (:func:`minimum` has the rules for missing runs and
runs without a network).  The detail tables give, per architecture, the mean test
accuracy ± its standard deviation, then the mean train accuracy, seconds and non-zero
weights.  Runs with other settings than those reported are left out and counted.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .definitions import (DEPTH_SWEEP_WIDTH, DEPTHS, METHOD_IDS, METHOD_NAMES, MIP_METHODS, NOISE, PAPER, SWEEPS,
                          TARGET, WIDTH_SWEEP_DEPTH, WIDTHS, Config, arch_label, architectures, settings_for,
                          sweep_axes)
from .jsonl import read_jsonl
from .plots import plot

NOTES = [
    "Test labels carry the same label noise as the training labels, so about 90% is the best "
    "achievable test accuracy (the clean parity rule).",
    "Greedy Binary MIP of depth k is layers 1..k of one greedy chain per width and seed plus the "
    "throw-away output layer trained with layer k: the same MIPs a separate depth-k greedy run solves.",
    "Greedy Binary MIP + SGD fine-tunes that network end to end with binary SGD (straight-through "
    "estimator); its status is that of the MIPs.",
    "Binary MIP with one hidden layer and Greedy Binary MIP with one hidden layer solve the same MIP "
    "(separately, so time-limited runs can differ).",
]
DETAIL_TITLES = {"depth": f"Depth sweep ({DEPTH_SWEEP_WIDTH} units per hidden layer)",
                 "width": f"Width sweep ({WIDTH_SWEEP_DEPTH} hidden layers)"}
TABLE_COLUMNS = {"depth": "Number of Layers | Paper: Layers", "width": "Number of Units | Paper: Units"}


@dataclass
class Cell:
    """The runs of one method and architecture."""

    n: int = 0  # runs in the file
    finished: int = 0  # with a network
    stopped: int = 0  # MIP status feasible (stopped at the time limit)
    optimal: int = 0  # MIP status optimal (proven)
    accs: list = field(default_factory=list)
    train_accs: list = field(default_factory=list)
    seconds: list = field(default_factory=list)
    nonzero: list = field(default_factory=list)

    @property
    def mean(self) -> float | None:
        return float(np.mean(self.accs)) if self.accs else None


def report(jsonl_path, out_dir, *, cfg: Config | None = None, plots: bool = True) -> list[Path]:
    """Write ``table1.md`` (and the plots) from a JSON Lines file of runs.

    With ``cfg`` only its settings, seeds, methods and sweeps are reported (and runs it
    wants but the file lacks are listed as missing); without it, everything in the file
    (per method the settings of its latest record), the seeds found, both sweeps.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records, notes = _select(read_jsonl(jsonl_path), cfg)
    if cfg is not None:
        seeds, methods = list(cfg.seeds), [m for m in METHOD_IDS if m in cfg.methods]
        sweeps, depths, widths = cfg.sweeps, cfg.depths, cfg.widths
        records = [r for r in records if r["seed"] in seeds]
    else:
        seeds = sorted({r["seed"] for r in records})
        methods = [m for m in METHOD_IDS if any(r["method"] == m for r in records)] or list(METHOD_IDS)
        sweeps, depths, widths = SWEEPS, DEPTHS, WIDTHS
    archs = architectures(sweeps, depths, widths)
    records = [r for r in records if tuple(r["hidden"]) in archs and r["method"] in methods]
    cells = _cells(records)
    axes = sweep_axes(sweeps, depths, widths)
    have = {(r["method"], tuple(r["hidden"]), r["seed"]) for r in records}
    missing = [(m, a, s) for m in methods for a in archs for s in seeds if (m, a, s) not in have]

    lines = ["# Table 1: minimum depth and width reaching 85% mean test accuracy", "",
             _introduction(records, seeds, sweeps, depths, widths), ""]
    lines += _table1(cells, methods, axes)
    for sweep, xs, arch_of in axes:
        lines += _details(cells, methods, DETAIL_TITLES[sweep], xs, arch_of, sweep, len(seeds))
    lines += _missing_runs(missing, len(methods) * len(archs) * len(seeds))
    lines += ["## Notes", ""] + [f"- {n}" for n in NOTES + notes] + [""]
    md = out / "table1.md"
    md.write_text("\n".join(lines))
    written = [md]
    if plots:
        written += plot(cells, methods, sweeps, depths, widths, out)
    return written


def _select(records: list[dict], cfg: Config | None) -> tuple[list[dict], list[str]]:
    """Records to report: with ``cfg``, those with its settings; otherwise, per method, those
    with the settings of the method's most recent record.  Later duplicates win."""
    notes = []
    if cfg is not None:
        keep = [r for r in records if r.get("method") in METHOD_NAMES
                and r.get("settings") == settings_for(r["method"], cfg)]
    else:
        latest = {}
        for r in records:
            if r.get("method") in METHOD_NAMES:
                latest[r["method"]] = r.get("settings")
        keep = [r for r in records if r.get("method") in latest and r.get("settings") == latest[r["method"]]]
    if len(keep) < len(records):
        notes.append(f"{len(records) - len(keep)} record(s) in the file with other settings are not shown.")
    by_key = {}
    for r in keep:
        by_key[r["key"]] = r
    return list(by_key.values()), notes


def _cells(records) -> dict:
    cells: dict = defaultdict(Cell)
    for r in records:
        c = cells[(r["method"], tuple(r["hidden"]))]
        c.n += 1
        c.seconds.append(r["seconds"])
        if r.get("test_accuracy") is not None:
            c.finished += 1
            c.accs.append(r["test_accuracy"])
            c.train_accs.append(r["train_accuracy"])
            c.nonzero.append(r["nonzero_weights"])
        if r["status"] == "feasible":
            c.stopped += 1
        elif r["status"] == "optimal":
            c.optimal += 1
    return cells


def _statuses(cells, methods, xs, arch_of, label) -> list[str]:
    """Per MIP method and architecture: runs proven optimal / stopped at the time limit with
    a network (feasible) / with no network."""
    mips = [m for m in methods if m in MIP_METHODS]
    if not mips:
        return []
    lines = ["MIP statuses per cell, optimal / feasible (time limit) / no solution:", "",
             "| Model | " + " | ".join(f"{label} {x}" for x in xs) + " |", "|---|" + "---|" * len(xs)]
    for m in mips:
        parts = []
        for x in xs:
            c = cells.get((m, arch_of(x)))
            parts.append("missing" if c is None or c.n == 0 else f"{c.optimal} / {c.stopped} / {c.n - c.finished}")
        lines.append(f"| {METHOD_NAMES[m]} | " + " | ".join(parts) + " |")
    return lines + [""]


def minimum(cells, method, xs, arch_of, unit) -> tuple[str, str | None]:
    """The Table 1 cell for one method and sweep, and a footnote when it needs one.

    ``x`` if the mean test accuracy at ``x`` reaches the target and at no smaller ``x``
    (marked ``*`` when a smaller ``x`` has no result or no run yet); ``>max`` if every
    architecture has a result and none reaches it; ``NaN`` if no run produced a network;
    ``NaN*`` if some did, none reaches the target and others produced none; ``?`` if
    runs are missing from the file and the answer depends on them.
    """
    name = METHOD_NAMES[method]
    state = []  # (x, mean or None, "ok" | "none" | "missing")
    for x in xs:
        c = cells.get((method, arch_of(x)))
        if c is None or c.n == 0:
            state.append((x, None, "missing"))
        elif c.mean is None:
            state.append((x, None, "none"))
        else:
            state.append((x, c.mean, "ok"))
    missing = [str(x) for x, _, k in state if k == "missing"]
    nores = [str(x) for x, _, k in state if k == "none"]
    for x, m, k in state:
        if k == "ok" and m >= TARGET:
            gaps = [f"{unit} {x2}: {'not run' if k2 == 'missing' else 'no result'}"
                    for x2, _, k2 in state if x2 < x and k2 != "ok"]
            if gaps:
                return f"{x}*", f"{name}: {'; '.join(gaps)}"
            return str(x), None
    if missing:
        return "?", f"{name}: runs missing at {unit} {', '.join(missing)} (see Missing runs)"
    if len(nores) == len(state):
        return "NaN", None
    if nores:
        return "NaN*", f"{name}: no result at {unit} {', '.join(nores)}; the others stay below {TARGET:.0%}"
    return f">{max(xs)}", None


def _fmt_acc(c: Cell | None, expected: int) -> str:
    if c is None or c.n == 0:
        return "missing"
    if not c.accs:
        return f"NaN (0/{expected})"
    s = f"{100 * c.mean:.1f}"
    if len(c.accs) > 1:
        s += f" ± {100 * float(np.std(c.accs)):.1f}"
    s += f" ({c.finished}/{expected}"
    if c.stopped:
        s += f", {c.stopped} TL"
    return s + ")"


def _introduction(records, seeds, sweeps, depths, widths) -> str:
    """The paragraph that says what was run, with the settings found in the records."""
    settings = {}
    for r in records:
        settings.update(r["settings"])
    return (
        f"XOR data (parity of x1, x3, x5), {settings.get('n_train', '?')} training / "
        f"{settings.get('n_test', '?')} test samples, {settings.get('noise', NOISE):.0%} label noise; "
        f"{len(seeds)} seed(s) ({', '.join(map(str, seeds))}), one data draw per seed shared by all methods. "
        + (f"Depth sweep: {', '.join(map(str, depths))} hidden layers of {DEPTH_SWEEP_WIDTH} units. "
           if "depth" in sweeps else "")
        + (f"Width sweep: {WIDTH_SWEEP_DEPTH} hidden layers of {', '.join(map(str, widths))} units. "
           if "width" in sweeps else "")
        + f"MIP: {settings.get('solver', 'highs')}, time limit "
        f"{settings.get('time_limit', '?')} s per MIP; SGD: full batch, lr {settings.get('lr', '?')}, momentum "
        f"{settings.get('momentum', '?')}, {settings.get('epochs', '?')} epochs. A cell is the smallest depth "
        f"(width) whose mean test accuracy over the seeds with a result reaches {TARGET:.0%}.")


def _table1(cells, methods, axes) -> list[str]:
    """Table 1 itself, ours beside the paper's, with its footnotes."""
    lines = ["| Model |" + "".join(f" {TABLE_COLUMNS[sweep]} |" for sweep, _, _ in axes),
             "|---|" + "---|---|" * len(axes)]
    footnotes = []
    for m in methods:
        row = f"| {METHOD_NAMES[m]} |"
        for sweep, xs, arch_of in axes:
            v, note = minimum(cells, m, xs, arch_of, sweep)
            row += f" {v} | {PAPER[m][0 if sweep == 'depth' else 1]} |"
            footnotes += [note] if note else []
        lines.append(row)
    lines.append("")
    if footnotes:
        lines += [f"\\* {n}" for n in footnotes] + [""]
    return lines


def _details(cells, methods, title, xs, arch_of, label, n_seeds) -> list[str]:
    """The detail tables of one sweep."""
    head = ["| Model | " + " | ".join(f"{label} {x}" for x in xs) + " |", "|---|" + "---|" * len(xs)]
    lines = [f"## {title}", "",
             "Mean test accuracy in % ± standard deviation over seeds (seeds with a result / seeds; "
             "TL = MIP runs stopped at the time limit, status feasible).", ""] + head
    for m in methods:
        lines.append(f"| {METHOD_NAMES[m]} | "
                     + " | ".join(_fmt_acc(cells.get((m, arch_of(x))), n_seeds) for x in xs) + " |")
    lines += ["", "Mean train accuracy %, mean seconds per run and mean non-zero weights:", ""] + head
    for m in methods:
        parts = []
        for x in xs:
            c = cells.get((m, arch_of(x)))
            if c is None or c.n == 0:
                parts.append("missing")
                continue
            tr = f"{100 * np.mean(c.train_accs):.1f}" if c.train_accs else "NaN"
            nz = f"{np.mean(c.nonzero):.0f}" if c.nonzero else "-"
            parts.append(f"{tr} / {np.mean(c.seconds):.0f}s / {nz}")
        lines.append(f"| {METHOD_NAMES[m]} | " + " | ".join(parts) + " |")
    return lines + [""] + _statuses(cells, methods, xs, arch_of, label)


def _missing_runs(missing, total: int) -> list[str]:
    """The runs the sweep wants that the file lacks, grouped by method and architecture."""
    lines = ["## Missing runs", ""]
    if missing:
        lines.append(f"{len(missing)} of {total} runs are not in the file "
                     "(not run yet, interrupted, or failed):")
        lines.append("")
        grouped = defaultdict(list)
        for m, a, s in missing:
            grouped[(m, a)].append(s)
        for (m, a), ss in grouped.items():
            lines.append(f"- {METHOD_NAMES[m]}, {arch_label(a)}: seed(s) {', '.join(map(str, ss))}")
    else:
        lines.append("None: every run of the sweep is in the file.")
    return lines + [""]
