"""Run the commands the tutorial, the researcher's page and the README show, and write what they print.

Each output block of a page sits between markers::

    <!-- output: NAME -->
    ```text
    ... what the command printed ...
    ```
    <!-- /output -->

``python docs/gen/pages.py`` reruns every page's commands on this checkout's code (a scratch
folder; ``annc`` is run as ``python -m annc.app.cli`` with this checkout first on the path) and
rewrites the blocks; ``--check`` only compares and exits 1 where a page differs from what the
code prints now; ``--page tutorial`` (or ``researchers``, ``readme``) limits it to one page.
The comparison skips the lines that depend on the machine's speed and load
(:data:`VOLATILE`: wall times, the folds' seconds and how far they got).
``tests/app/test_pages.py`` runs it.  The README's verdict block is the only part of the README
written here.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"tutorial": ROOT / "docs" / "tutorial.md", "researchers": ROOT / "docs" / "researchers.md",
         "readme": ROOT / "README.md"}
BLOCK = re.compile(r"(<!-- output: (\S+) -->\n```text\n)(.*?)(```\n<!-- /output -->)", re.S)
# lines that depend on the machine's speed and load, not on the code: skipped by --check
VOLATILE = [r"^\s*wall time ", r"^model selection: ", r"^rule: ", r"^kept behind", r"^chosen: ",
            r"found in [\d.]+ s", r"^\s*time ", r"^\s*start pool ", r"^\s*sub-MIPs "]
TIME_LIMIT = "60"  # the tutorial's --time-limit (model selection needs 30 s or more: annc.app.thresholds)


def annc(*args, cwd: Path, check: bool = True) -> str:
    """What ``annc ARGS`` prints (stdout) in ``cwd``, run on this checkout's code."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "annc.app.cli", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise RuntimeError(f"annc {' '.join(map(str, args))} exited {proc.returncode}: {proc.stderr}")
    return proc.stdout


def python(code: str, cwd: Path) -> str:
    """Run ``code`` (a page's Python snippet) in ``cwd``; its stdout."""
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"python snippet failed: {proc.stderr[-2000:]}")
    return proc.stdout


def _section(out: str, start: str, end: str | None = None) -> str:
    """The lines of ``out`` from the one that starts with ``start`` up to (not including) ``end``."""
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(start))
    j = next((k for k, line in enumerate(lines[i + 1:], i + 1) if end and line.startswith(end)), len(lines))
    return "\n".join(lines[i:j]) + "\n"


def _without_table(out: str) -> str:
    """``annc train``'s output with the selection's table of settings left out (said so)."""
    lines, kept, cut = out.splitlines(), [], False
    for line in lines:
        if re.match(r"^[ *b] {2}\S", line) or line.startswith("   setting "):
            if not cut:
                kept.append("[... the table of every setting the folds scored ...]")
            cut = True
            continue
        kept.append(line)
    return "\n".join(kept) + "\n"


# -- the pages -------------------------------------------------------------------------------------
BREAST_CANCER = """
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
d = load_breast_cancer(as_frame=True).frame
train, test = train_test_split(d, test_size=0.3, stratify=d['target'], random_state=0)
train.to_csv('data.csv', index=False); test.to_csv('test.csv', index=False)"""


def _tutorial_run(work: Path) -> str:
    """The tutorial's ``annc train`` (run once per scratch folder: the README shows the same run)."""
    saved = work / "train.out"
    if not saved.exists():
        python(BREAST_CANCER, work)
        saved.write_text(annc("train", "specs/realdata.ann", "data.csv", "--test", "test.csv",
                              "--time-limit", TIME_LIMIT, "-q", cwd=work))
    return saved.read_text()


def tutorial(work: Path) -> dict[str, str]:
    out = _tutorial_run(work)
    return {"tutorial-train": _without_table(out),
            "tutorial-eval": annc("eval", "out/realdata.weights.json", "test.csv", cwd=work)}


def readme(work: Path) -> dict[str, str]:
    """The README's abridged verdict: the tutorial's run, its first line and the fields that matter most."""
    out = _tutorial_run(work)
    summary = _section(out, "summary:", "verification").splitlines()
    keep = ("  network:", "  status ", "  objective ", "  lower bound ", "  found by ", "  test accuracy ",
            "  non-zero weights ")
    return {"readme-verdict": "\n".join(line if len(line) < 110 or line.startswith("  network:")
                                        else line[:100].rsplit(" ", 1)[0] + " ..." for line in summary
                                        if line.startswith(keep)) + "\n"}


GUROBI = """
import gurobipy as gp
m = gp.read("out/xor.mps")          # the model annc compile wrote
m.read("out/xor.start.sol")         # annc's MIP start (Gurobi's .sol)
m.Params.TimeLimit = 60
m.optimize()
m.write("xor.json")                 # Gurobi's JSON result: status, objective, bound (ObjBound), values
"""
SCIP = """
import pyscipopt
m = pyscipopt.Model()
m.readProblem("out/xor.mps")
m.readSol("out/xor.start.scip.sol")  # annc's MIP start (SCIP's format)
m.setParam("limits/time", 60)
m.optimize()
m.writeBestSol("xor.scip.sol")       # objective and values; no status, no bound
"""


def researchers(work: Path) -> dict[str, str]:
    out = {"researchers-data": annc("data", "xor", "--n", "200", "--noise", "0.1", "--seed", "0", "-o", "xor.csv",
                                    cwd=work)}
    out["researchers-compile"] = annc("compile", "specs/xor.ann", "xor.csv", "--start-budget", "120", "-q",
                                      cwd=work)
    python(GUROBI.replace("m.optimize()", "m.Params.OutputFlag = 0\nm.optimize()"), work)
    out["researchers-gurobi"] = _section(annc("decode", "xor.json", cwd=work), "verdict on the decoded network:",
                                         "verification:")
    python(SCIP.replace("m.optimize()", "m.hideOutput()\nm.optimize()"), work)
    out["researchers-scip"] = _section(annc("decode", "xor.scip.sol", cwd=work), "verdict on the decoded network:",
                                       "verification:")
    import cbcbox
    subprocess.run([cbcbox.cbc_bin_path(), "out/xor.mps", "-mips", "out/xor.start.cbc", "-sec", "60", "-solve",
                    "-solu", "xor.cbc.sol"], cwd=work, capture_output=True, check=True, timeout=600)
    out["researchers-cbc"] = _section(annc("decode", "xor.cbc.sol", cwd=work), "verdict on the decoded network:",
                                      "verification:")
    return out


MAKERS = {"tutorial": tutorial, "researchers": researchers, "readme": readme}


# -- the blocks ------------------------------------------------------------------------------------
def blocks_of(text: str) -> dict[str, str]:
    """A page's output blocks, by name."""
    return {m.group(2): m.group(3) for m in BLOCK.finditer(text)}


def fill(text: str, blocks: dict[str, str]) -> str:
    """``text`` with each named block replaced by ``blocks[name]`` (blocks not given kept)."""
    return BLOCK.sub(lambda m: m.group(1) + blocks.get(m.group(2), m.group(3)) + m.group(4), text)


def stable(block: str) -> list[str]:
    """The lines of a block that do not depend on the machine's speed and load."""
    return [line.rstrip() for line in block.splitlines() if not any(re.search(p, line) for p in VOLATILE)]


def differences(text: str, blocks: dict[str, str]) -> list[str]:
    """Where the page's blocks differ from ``blocks`` (stable lines only)."""
    shown, out = blocks_of(text), []
    for name, new in blocks.items():
        if name not in shown:
            out.append(f"{name}: the page has no such block")
        elif stable(shown[name]) != stable(new):
            old_lines, new_lines = stable(shown[name]), stable(new)
            first = next((i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b),
                         min(len(old_lines), len(new_lines)))
            out.append(f"{name}: line {first + 1}: the page shows "
                       f"{old_lines[first] if first < len(old_lines) else '(nothing)'!r}, annc prints "
                       f"{new_lines[first] if first < len(new_lines) else '(nothing)'!r}")
    return out


def run(pages: list[str], check: bool, work: Path | None = None) -> list[str]:
    """Rerun the pages' commands; rewrite their blocks, or (``check``) return the differences."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="annc-pages-") as tmp:
        work = Path(tmp) if work is None else work
        if not (work / "specs").exists():  # the pages' commands name specs/*.ann, as from the repository's root
            shutil.copytree(ROOT / "specs", work / "specs")
        for name in pages:
            page = PAGES[name]
            blocks = MAKERS[name](work)
            text = page.read_text()
            if check:
                problems += [f"{page.relative_to(ROOT)}: {d}" for d in differences(text, blocks)]
            else:
                page.write_text(fill(text, blocks))
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--page", choices=sorted(PAGES), action="append", help="only this page (repeatable)")
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 where a page differs")
    a = ap.parse_args(argv)
    problems = run(a.page or list(PAGES), a.check)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
