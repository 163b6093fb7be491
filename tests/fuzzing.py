"""Generators of bad and odd inputs, and the one rule every outcome must follow.

Used by ``tests/app/test_fuzz.py`` (a few dozen examples per target, in CI) and by
``bench/suites/fuzz.py`` (thousands, with a tally).  Hypothesis draws the inputs: it is the
Python standard for property-based testing, it mixes structured generation (valid specs,
CSV tables) with mutation of real files (solver outputs, maps, weights), and it shrinks a
failure to a small reproducer.

The rule (:func:`judge`): ``annc`` run on any input ends with a documented exit code
(0 success, 2 bad input, 3 no solution, 4 verification failed), never with an internal
error (exit 70) or a traceback; on failure it leaves nothing behind in its output folder
(``annc train`` keeps the complete model and map of a MIP whose solve fails, exit 3, or
whose solution fails verification, exit 4), and it never leaves a temporary file.
"""
from __future__ import annotations

import copy
import io
import json
import math
import shutil
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
FIXTURES = Path(__file__).parent / "fixtures" / "solver-outputs"
DOCUMENTED = {0, 2, 3, 4}
SMALL_MODEL = "200000"  # --max-nonzeros for fuzzed compiles: the size guard is tested on its own


# -- running the CLI ----------------------------------------------------------------
@dataclass
class Run:
    code: int
    out: str
    err: str


def run(*args) -> Run:
    """``annc ARGS`` in-process; argparse's own exits are returned as their code."""
    from annc.app.cli import main
    o, e = io.StringIO(), io.StringIO()
    with redirect_stdout(o), redirect_stderr(e):
        try:
            code = main([str(a) for a in args])
        except SystemExit as x:  # argparse: usage errors exit 2
            code = x.code if isinstance(x.code, int) else 2
    return Run(code, o.getvalue(), e.getvalue())


def files_in(folder: Path) -> set[str]:
    """Every file below ``folder`` (relative names; hidden ones included)."""
    if not folder.exists():
        return set()
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def judge(r: Run, out_dir: Path, before: set[str] = frozenset(), *, kept_on_failure=()) -> str | None:
    """``None`` if ``r`` follows the rule of the module docstring, else what broke it."""
    if r.code not in DOCUMENTED:
        if r.code == 70 or "internal error" in r.err:
            return f"internal error: {r.err.strip().splitlines()[-1] if r.err.strip() else r.code}"
        return f"undocumented exit code {r.code}: {r.err.strip()[:200]}"
    if "Traceback (most recent call last)" in r.err + r.out:
        return "traceback printed"
    now = files_in(out_dir)
    temps = sorted(f for f in now if f.endswith(".tmp") or "annc-tmp" in f)
    if temps:
        return f"temporary files left: {temps[:3]}"
    if r.code != 0:
        new = now - set(before)
        if r.code in (3, 4):
            new = {f for f in new if not any(f.endswith(k) for k in kept_on_failure)}
        if new:
            return f"exit {r.code} but wrote {sorted(new)[:4]}"
        if not r.err.strip():
            return f"exit {r.code} without a message on stderr"
    return None


# -- strategies: numbers and words as a user might type them --------------------------
ODD_NUMBERS = ["0", "-0", "1", "-1", "2", "3", "5", "0.5", "1e-9", "1e-320", "1e308", "-1e308", "1e309",
               "nan", "NaN", "inf", "-inf", "Infinity", "1_000", "0x10", "1e", ".", "+", "--1", "1.2.3",
               "9" * 310, "1" + "0" * 5000, "-" + "9" * 4400, "0." + "0" * 400 + "1", "1e-400", "7e99999"]


def number() -> st.SearchStrategy[str]:
    """A number as text: mostly small and sensible, sometimes very odd."""
    return st.one_of(st.integers(-3, 12).map(str),
                     st.floats(-5, 5, allow_nan=False).map(lambda v: f"{v:.3g}"),
                     st.sampled_from(ODD_NUMBERS))


SEPARATORS = ["\n", "\n", "\n", "; ", "\r\n", "\f", "\v", "\r", "\t\n", " \u00a0\n"]


SENSIBLE = {"units": st.integers(1, 4).map(str), "bound": st.sampled_from(["-2", "-1", "-0.5", "0", "0.5", "1", "2"]),
            "eps": st.sampled_from(["0.01", "0.1", "0.001", "1"]), "M": st.sampled_from(["auto", "10", "50"]),
            "P": st.integers(1, 6).map(str), "weight": st.sampled_from(["0.01", "0.1", "0"])}


@st.composite
def spec_text(draw) -> str:
    """A ``.ann`` text: half the time a valid spec for the 5-feature XOR sample, else one
    whose settings and numbers are often odd and whose text is sometimes mutated."""
    odd = draw(st.booleans())
    def num(kind):  # noqa: E306
        return draw(number() if odd and draw(st.integers(0, 2)) == 0 else SENSIBLE[kind])
    lines = [f"input {num('units') if odd else '5'}"]
    acts = ["binary", "relu", "sign", "", "BINARY"] if odd else ["binary", "relu"]
    for _ in range(draw(st.integers(0, 3 if odd else 2))):
        block = draw(st.sampled_from(["", "", " { weights [-2, 2] }", " { M 10; bias [0, 1] }", " { M auto }",
                                      " { weights [-1, 1] grid 5 }", " { bias [-1, 1] grid 3 }"]
                                     + ([" {", " { eps 1 }", " { weights [0, 0] grid 2 }"] if odd else [])))
        lines.append(f"hidden {num('units')} {draw(st.sampled_from(acts))}{block}")
    lines.append(f"output {num('units') if odd else '2'}")
    lo, hi = sorted([num("bound"), num("bound")], key=lambda t: float(t) if _is_number(t) else 0)
    optional = [
        lambda: (f"weights [{lo}, {hi}]" if lo != hi else "weights [-1, 1]")
        + draw(st.sampled_from(["", "", " grid 3", " grid 9"] + ([" grid 1", " grid", " grid 2.5", " grd 3"]
                                                                 if odd else []))),
        lambda: f"bias [{num('bound')}, {num('bound')}]" if odd else "bias [-1, 1]",
        lambda: f"eps {num('eps')}", lambda: f"M {num('M')}", lambda: f"P {num('P')}",
        lambda: "loss " + draw(st.sampled_from(["nll", "errors", "hinge", "hinge 0.5"] + (["mse"] if odd else []))),
        lambda: "training " + draw(st.sampled_from(["full", "greedy"] + (["ovo"] if odd else []))),
        lambda: "penalty " + draw(st.sampled_from(["none", "l1", "l0"] + (["l2"] if odd else [])))
        + " " + num("weight"),
        lambda: "symmetry " + draw(st.sampled_from(["none", "bias", "count"] + (["all"] if odd else []))),
    ]
    for k in draw(st.lists(st.integers(0, len(optional) - 1), max_size=4, unique=not odd)):
        line = optional[k]()
        if not line.startswith("penalty none") or odd:
            lines.append(line.replace("penalty none 0.01", "penalty none"))
    sep = draw(st.sampled_from(SEPARATORS if odd else ["\n", "; "]))
    text = sep.join(lines) + "\n"
    for _ in range(draw(st.integers(0, 3)) if odd else 0):
        text = draw(mutate_text(text))
    return text


@st.composite
def mutate_text(draw, text: str) -> str:
    """One edit: delete, duplicate or insert a span, or splice in something odd."""
    if not text:
        return draw(st.text(max_size=20))
    i = draw(st.integers(0, len(text) - 1))
    j = draw(st.integers(i, min(len(text), i + 40)))
    kind = draw(st.sampled_from(["delete", "duplicate", "insert", "odd", "nest"]))
    if kind == "delete":
        return text[:i] + text[j:]
    if kind == "duplicate":
        return text[:j] + text[i:j] + text[j:]
    if kind == "insert":
        return text[:i] + draw(st.text(max_size=8)) + text[i:]
    if kind == "nest":
        depth = draw(st.sampled_from([2, 50, 3000]))
        return text[:i] + " {" * depth + text[i:]
    return text[:i] + draw(st.sampled_from(ODD_NUMBERS + ["{", "}", "[", "]", ",", ";", "#", "\x00",
                                                          "\ufeff", "é", "\u2028"])) + text[j:]


ODD_CELLS = ["", " ", "abc", "nan", "inf", "-inf", "1e308", "-1e308", "1e309", "1" + "0" * 400,
             "9" * 5000, "\"1\"", "'1'", "1,5", "\u00e9", "0x1", "1_0", "True", "NULL", "-0"]


@st.composite
def csv_text(draw) -> tuple[str, int, int]:
    """``(text, features, classes)``: a CSV table that is often slightly wrong."""
    odd = draw(st.booleans())
    k = draw(st.integers(1, 6))
    names = [f"x{i + 1}" for i in range(k)] + ["label"]
    if odd and draw(st.booleans()):
        names[draw(st.integers(0, k))] = draw(st.sampled_from(["", "x1", "label", " a b ", "\ufeffx1", "é"]))
    cell = st.one_of(st.integers(-3, 3).map(str), st.floats(-2, 2, allow_nan=False).map(lambda v: f"{v:.4g}"),
                     st.sampled_from(ODD_CELLS))
    label = st.one_of(st.integers(0, 2).map(str), st.sampled_from(["a", "b", "", "1.0", "9" * 4400, "nan"]))
    rows = []
    for _ in range(draw(st.integers(0 if odd else 4, 12))):
        clean = not odd or draw(st.booleans())
        cells = [draw(st.integers(0, 1).map(str) if clean else cell) for _ in range(k)]
        cells.append(draw(st.integers(0, 1).map(str) if clean else label))
        if odd and draw(st.integers(0, 9)) == 0:
            cells = cells[:-1] if draw(st.booleans()) else cells + ["7"]
        rows.append(",".join(cells))
    eol = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    text = eol.join([",".join(names)] + rows) + draw(st.sampled_from(["\n", "", "\n\n"]))
    if odd and draw(st.integers(0, 4)) == 0:
        text = draw(mutate_text(text))
    classes = draw(st.sampled_from([2, 2, 3])) if odd else 2
    return text, k, classes


# -- mutating real files ---------------------------------------------------------------
NUMBER_LIKE = ["nan", "NaN", "inf", "-inf", "1e400", "-1e400", "1" * 400, "1e-400", "-0", "abc", "0x1p3",
               "", "1e", "2", "0.5", "-1", "1e20"]


@st.composite
def mutate_solution(draw, text: str) -> str:
    """A solution file with one or more realistic corruptions: a number replaced by an
    odd one, lines deleted, duplicated or swapped, the file cut short, bytes inserted."""
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        kind = draw(st.sampled_from(["number", "number", "number", "delete", "duplicate", "swap", "cut",
                                     "insert"]))
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "number":
            tokens = lines[i].replace('"', ' " ').replace(",", " , ").split()
            nums = [t for t in tokens if _is_number(t)]
            if nums:
                old = draw(st.sampled_from(nums))
                lines[i] = lines[i].replace(old, draw(st.sampled_from(NUMBER_LIKE)), 1)
        elif kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "cut":
            cut = draw(st.integers(0, len(lines[i])))
            lines = lines[:i] + [lines[i][:cut]]
        else:
            lines.insert(i, draw(st.text(max_size=30)) + "\n")
    return "".join(lines)


def _is_number(t: str) -> bool:
    try:
        return math.isfinite(float(t))
    except ValueError:
        return False


ODD_JSON = [None, True, -1, 0, 1, 2.5, 10 ** 30, float("nan"), float("inf"), "", "x", [], {}, [1, 2],
            {"a": 1}, [[1, 2], [3]], -(10 ** 400)]


@st.composite
def mutate_json(draw, obj):
    """``obj`` (a parsed JSON document) with one to three edits at random paths: a value
    replaced by an odd one, a key deleted, a list element dropped or duplicated."""
    obj = json.loads(json.dumps(obj))
    for _ in range(draw(st.integers(1, 3))):
        path = []
        node = obj
        while isinstance(node, (dict, list)) and node and draw(st.integers(0, 3)) > 0:
            key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
            path.append(key)
            node = node[key]
        if not path:
            continue
        parent = obj
        for k in path[:-1]:
            parent = parent[k]
        last = path[-1]
        kind = draw(st.sampled_from(["replace", "replace", "delete", "duplicate"]))
        if kind == "replace":
            parent[last] = copy.deepcopy(draw(st.sampled_from(ODD_JSON)))
        elif kind == "delete":
            del parent[last]
        elif isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        else:
            parent[last] = [parent[last], copy.deepcopy(parent[last])]
    return obj


# -- the real files the mutations start from ---------------------------------------------
@dataclass(frozen=True)
class Base:
    """A compiled tiny model, its data and real solution files of seven solvers."""

    folder: Path
    data: Path
    model: Path
    map: Path
    solutions: tuple[Path, ...]
    weights: Path


@lru_cache(maxsize=1)
def base() -> Base:
    """Compile ``specs/xor.ann`` on 24 XOR samples, solve it with every solver, decode one
    solution (made once per process, in a temporary folder removed at exit)."""
    import atexit

    from annc.io.datasets import write_csv, xor_data
    from solver_runs import SOLVERS, solve_glpk

    folder = Path(tempfile.mkdtemp(prefix="annc-fuzz-base-"))
    atexit.register(shutil.rmtree, folder, True)
    X, y = xor_data(24, noise=0.1, seed=1)
    data = write_csv(folder / "xor.csv", X, y)
    r = run("compile", "--no-start", SPECS / "xor.ann", data, "-o", folder)
    assert r.code == 0, r.err
    sols = []
    for name, solve, ext, _ in SOLVERS:
        sol = folder / f"{name}.{ext}"
        if name == "glpk":  # GLPK takes about 40 s to prove this optimum; a feasible point's file will do
            solve_glpk(folder / "xor.mps", sol, gap=0.9)
        else:
            solve(folder / "xor.mps", sol)
        sols.append(sol)
    r = run("decode", folder / "highs.sol", "--map", folder / "xor.map.json", "-o", folder)
    assert r.code == 0, r.out + r.err
    return Base(folder, data, folder / "xor.mps", folder / "xor.map.json", tuple(sols),
                folder / "highs.weights.json")


def fixture_solutions() -> list[Path]:
    """Every real solver output in the fixtures (solutions of other models)."""
    return sorted(p for p in FIXTURES.iterdir()
                  if p.suffix in (".sol", ".raw", ".out", ".json", ".slx", ".mst", ".prt", ".txt"))


def scratch() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="annc-fuzz-")


# -- the targets: one strategy and one runner each ------------------------------------------
def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


def _finite_weights(folder: Path) -> str | None:
    for p in folder.glob("*.weights.json"):
        net = json.loads(p.read_text())
        flat = [v for L in net["layers"] for row in L["weight"] for v in row] + \
               [v for L in net["layers"] for v in L["bias"]]
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in flat):
            return f"exit 0 but {p.name} has a weight that is not a finite number"
    return None


def run_compile_spec(text: str, fmt: str) -> tuple[Run, str | None]:
    """``annc compile`` of a fuzzed spec on the bundled 40-row XOR sample."""
    with scratch() as d:
        d = Path(d)
        spec = _write(d / "net.ann", text)
        extra = ["--format", "lp"] if fmt == "lp" else (["--gz"] if fmt == "mps.gz" else [])
        r = run("compile", "--no-start", spec, SPECS / "xor_sample.csv", "-o", d / "out", "--max-nonzeros", SMALL_MODEL, *extra)
        bad = judge(r, d / "out")
        if not bad and r.code == 0 and len(files_in(d / "out")) != 2:
            bad = f"compile succeeded but wrote {sorted(files_in(d / 'out'))}"
        return r, bad


def run_compile_csv(table: tuple[str, int, int]) -> tuple[Run, str | None]:
    """``annc compile`` of a small spec that fits the fuzzed CSV's width."""
    text, k, classes = table
    with scratch() as d:
        d = Path(d)
        spec = _write(d / "net.ann", f"input {k}\nhidden 2 binary\noutput {classes}\n")
        csv = _write(d / "data.csv", text)
        r = run("compile", "--no-start", spec, csv, "-o", d / "out", "--max-nonzeros", SMALL_MODEL)
        return r, judge(r, d / "out")


def run_decode(text: str, name: str) -> tuple[Run, str | None]:
    """``annc decode`` of a corrupted solution file, with the tiny model's map and data."""
    b = base()
    with scratch() as d:
        d = Path(d)
        sol = _write(d / name, text)
        r = run("decode", sol, "--map", b.map, "--data", b.data, "-o", d / "out")
        bad = judge(r, d / "out") or (_finite_weights(d / "out") if r.code == 0 else None)
        return r, bad


def run_decode_map(vmap, search: bool) -> tuple[Run, str | None]:
    """``annc decode`` of a real solution with a corrupted map: given with ``--map``, or
    lying beside the solution for the map search to find."""
    b = base()
    with scratch() as d:
        d = Path(d)
        try:
            text = json.dumps(vmap)
        except ValueError:  # an integer too long for JSON's encoder
            text = "{"
        _write(d / "xor.map.json", text)
        sol = d / "highs.sol"
        shutil.copy(b.folder / "highs.sol", sol)
        args = [] if search else ["--map", d / "xor.map.json"]
        r = run("decode", sol, *args, "--data", b.data, "-o", d / "out")
        bad = judge(r, d / "out") or (_finite_weights(d / "out") if r.code == 0 else None)
        return r, bad


def run_eval(weights) -> tuple[Run, str | None]:
    """``annc eval`` of a corrupted weights file on the tiny model's data."""
    b = base()
    with scratch() as d:
        d = Path(d)
        try:
            text = json.dumps(weights)
        except ValueError:
            text = "["
        w = _write(d / "net.weights.json", text)
        r = run("eval", w, b.data)
        return r, judge(r, d / "out")


def run_data(n: str, noise: str, seed: str, where: str) -> tuple[Run, str | None]:
    """``annc data xor`` with fuzzed options and output path."""
    with scratch() as d:
        d = Path(d)
        (d / "file").write_text("x")
        target = {"plain": d / "x.csv", "missing": d / "no" / "such" / "x.csv", "under-file": d / "file" / "x.csv",
                  "folder": d}[where]
        r = run("data", "xor", "--n", n, "--noise", noise, "--seed", seed, "-o", target)
        before = {"file"}
        return r, judge(r, d, before)


def run_train(spec: str, time_limit: str, gap: str, threads: str, test: str) -> tuple[Run, str | None]:
    """``annc train`` with fuzzed options on the bundled 40-row sample (no MIP start)."""
    with scratch() as d:
        d = Path(d)
        tests = {"none": [], "same": ["--test", SPECS / "xor_sample.csv"],
                 "wide": ["--test", _write(d / "wide.csv", "a,b,label\n1,2,0\n")],
                 "missing": ["--test", d / "nope.csv"]}[test]
        r = run("train", SPECS / spec, SPECS / "xor_sample.csv", "--time-limit", time_limit, "--gap", gap,
                "--threads", threads, *tests, "--no-warm-start", "-q", "-o", d / "out")
        return r, judge(r, d / "out", kept_on_failure=(".mps", ".map.json", ".csv"))


def _solution_texts():
    b = base()
    return st.sampled_from(b.solutions).flatmap(
        lambda p: st.tuples(mutate_solution(p.read_text()), st.just(p.name)))


def _fixture_texts():
    return st.sampled_from(fixture_solutions()).flatmap(
        lambda p: st.tuples(mutate_solution(p.read_text(errors="replace")), st.just(p.name)))


def targets() -> dict:
    """``name -> (strategy of argument tuples, runner)``."""
    odd = st.sampled_from(["0", "-1", "-5", "nan", "inf", "-inf", "1e9", "abc", "", "1000000", "9" * 400, "0x10"])

    def option(*valid):  # two thirds sensible, one third odd
        return st.one_of(st.sampled_from(valid), st.sampled_from(valid), odd)
    n, noise, seed = option("1", "10", "100"), option("0", "0.1", "0.5", "1"), option("0", "3", "12345")
    limit, gap, threads = option("20", "60", "1e6"), option("0", "0.01", "0.5"), option("1", "2")
    return {
        "spec": (st.tuples(spec_text(), st.sampled_from(["mps", "lp", "mps.gz"])), run_compile_spec),
        "csv": (st.tuples(csv_text()), run_compile_csv),
        "solution": (st.deferred(_solution_texts), run_decode),
        "other-solution": (st.deferred(_fixture_texts), run_decode),
        "map": (st.deferred(lambda: st.tuples(mutate_json(json.loads(base().map.read_text())), st.booleans())),
                run_decode_map),
        "weights": (st.deferred(lambda: st.tuples(mutate_json(json.loads(base().weights.read_text())))), run_eval),
        "data": (st.tuples(n, noise, seed, st.sampled_from(["plain", "missing", "under-file", "folder"])),
                 run_data),
        "train": (st.tuples(st.sampled_from(["output_only.ann", "xor.ann"]), limit, gap, threads,
                            st.sampled_from(["none", "same", "wide", "missing"])), run_train),
    }
