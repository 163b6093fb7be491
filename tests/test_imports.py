"""The import layers of docs/architecture.md ("Import layers"), checked over the import graph.

Every import of an annc module is read with ``ast`` (top-level and inside functions,
``import annc.x``, ``from annc.x import``, ``from .x import``, ``from .. import x``), each
module is mapped to its unit (a top-level module, or a package as a whole), and an import
of a higher layer fails.  Imports inside a package are free; every unit must be assigned
a layer, so that a new module is placed on purpose.  No two modules (nor two units) may
import each other, directly or round a longer loop, deferred imports included: an import
inside a function still ties the two modules together.
"""
from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from conftest import ROOT

PACKAGE = ROOT / "annc"

# bottom to top: a unit may import its own layer and those below (docs/architecture.md, whose
# table tests/test_docs.py checks against this list)
LAYERS: list[set[str]] = [
    {"errors", "names", "log", "activations", "losses", "penalties", "inputs", "outputs", "limits", "feasibility", "model",
     "builder", "network", "scaling", "executor", "ensemble"},
    {"spec", "data", "datasets", "problem", "magnitudes", "recipe"},
    {"formulations"},
    {"writers", "solutions"},
    {"compiler", "solvers", "decode", "varmap", "verify", "verdict", "report", "onnx_export", "html_report",
     "report_drawing"},
    {"starts", "bounds", "warmstart", "sgd", "chain", "relaxed", "request", "runfiles", "results", "training",
     "splits", "select_grid", "selection", "decomposition", "dispatch"},
    {"api", "experiment", "cli", "cli_commands", "cli_train", "progress", "annc", "estimator"},  # "annc": the package's __init__, which binds the API
]
ALIASES = [{"starts", "warmstart"}]  # one of the two exists (warmstart.py is becoming starts/)
ONLY_BOTTOM = {"writers", "solutions"}  # layer 0 only, plus their own package
NEVER = {
    "formulations": {"solvers", "writers", "sgd"},
    "solvers": {"compiler", "decode", "varmap", "verify"},  # a driver turns a model into a point, no more
    "bounds": {"starts", "warmstart", "training", "chain", "decomposition", "selection"},  # bounds, not search
}
ROOT_CONSTANTS = {"__version__"}  # names any layer may take from the package (its top level imports nothing)

LAYER = {unit: i for i, units in enumerate(LAYERS) for unit in units}


def units_present() -> set[str]:
    """The top-level units of the package: its modules and sub-packages."""
    found = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    found |= {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    return found


def unit_of(module: str) -> str:
    """``annc.solvers.highs`` -> ``solvers``; ``annc`` -> ``annc``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "annc"


def imports(module: str, source: str, *, is_package: bool = False, units: set[str] | None = None):
    """``(line, imported module, names)`` for every import of an annc module in ``source``,
    the text of ``module`` (``annc.x`` or ``annc.pkg.x``; ``is_package`` for an ``__init__``)."""
    units = units_present() if units is None else units
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "annc":
                    yield node.lineno, a.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if node.module and node.module.split(".")[0] == "annc":
                    yield node.lineno, node.module, tuple(a.name for a in node.names)
                continue
            base = package[:len(package) - node.level + 1]
            if node.module:
                yield node.lineno, ".".join(base + [node.module]), tuple(a.name for a in node.names)
            elif base == ["annc"]:  # from .. import x: a top-level module, or a name of the package
                for a in node.names:
                    if a.name in units:
                        yield node.lineno, f"annc.{a.name}", ()
                    else:
                        yield node.lineno, "annc", (a.name,)
            else:  # from . import x inside a sub-package: its own package
                yield node.lineno, ".".join(base), tuple(a.name for a in node.names)


def violations(module: str, source: str, *, is_package: bool = False, units: set[str] | None = None) -> list[str]:
    """What in ``source`` (the text of ``module``) breaks the layers."""
    src = unit_of(module)
    if src not in LAYER:
        return [f"{module}: {src} has no layer"]
    found = []
    for line, target, names in imports(module, source, is_package=is_package, units=units):
        dst = unit_of(target)
        if dst == src or (dst == "annc" and names and set(names) <= ROOT_CONSTANTS):
            continue
        where = f"{module} line {line}: imports {target}"
        if dst not in LAYER:
            found.append(f"{where}: {dst} has no layer")
        elif LAYER[dst] > LAYER[src]:
            found.append(f"{where}: layer {LAYER[dst]} ({dst}) above layer {LAYER[src]} ({src})")
        elif src in ONLY_BOTTOM and LAYER[dst] > 0:
            found.append(f"{where}: {src} may import only layer 0 ({dst} is layer {LAYER[dst]})")
        elif dst in NEVER.get(src, ()):
            found.append(f"{where}: {src} never imports {dst}")
    return found


def package_modules():
    """``(module name, path, is_package)`` for every module of annc."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        yield ".".join(parts[:-1] if is_package else parts), path, is_package


def test_every_unit_has_a_layer():
    present = units_present()
    assert not present - set(LAYER), f"give these modules a layer (here and in docs/architecture.md): {present - set(LAYER)}"
    stale = set(LAYER) - present - {"annc"} - set().union(*ALIASES)
    assert not stale, f"layers name modules that are gone: {stale}"
    for alias in ALIASES:
        assert alias & present, f"none of {alias} exists"


def test_no_module_imports_a_higher_layer():
    units = units_present()
    found, edges = [], set()
    for module, path, is_package in package_modules():
        source = path.read_text(encoding="utf-8")
        edges |= {(unit_of(module), unit_of(t)) for _, t, _ in imports(module, source, is_package=is_package,
                                                                         units=units)}
        found += violations(module, source, is_package=is_package, units=units)
    assert not found, "\n".join(found)
    # the graph was read: e.g. the pipeline's own edges are there
    assert {("training", "chain"), ("compiler", "formulations"), ("formulations", "model"), ("cli_train", "dispatch"),
            ("api", "dispatch"), ("dispatch", "training"), ("experiment", "chain")} <= edges


# -- no import cycles (deferred imports included) --------------------------------------------------
# A cycle that is known and waiting for its fix, as a set of modules; the test fails when it is
# gone too, so that the entry is removed.  None now: selection <-> training was broken by
# annc.dispatch.run, which hands selection and decomposition the training function.
KNOWN_CYCLES: list[set[str]] = []


def module_of(target: str, names: tuple, modules: set[str]) -> list[str]:
    """The annc modules an import of ``target`` (with ``names``) reaches: ``from .pkg import
    sub`` reaches ``annc.pkg.sub``; a name that is no module reaches the package itself."""
    found = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
    if len(found) < len(names) or not names:
        found.append(target)
    return [m for m in found if m in modules]


def module_graph() -> dict[str, set[str]]:
    """Every annc module -> the annc modules it imports (top level and inside functions)."""
    units = units_present()
    listed = list(package_modules())
    modules = {m for m, _, _ in listed}
    graph = {}
    for module, path, is_package in listed:
        graph[module] = {dst for _, target, names in imports(module, path.read_text(encoding="utf-8"),
                                                              is_package=is_package, units=units)
                         for dst in module_of(target, names, modules) if dst != module and dst != "annc"}
    return graph


def unit_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph with each module replaced by its unit (:func:`unit_of`)."""
    out: dict[str, set[str]] = {}
    for src, dsts in graph.items():
        out.setdefault(unit_of(src), set()).update(unit_of(d) for d in dsts if unit_of(d) != unit_of(src))
    return out


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected parts of ``graph`` with more than one node: each a set of nodes
    that import one another, directly or round a loop (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack, on_stack, found = [], set(), []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    part.add(top)
                    if top == node:
                        break
                if len(part) > 1:
                    found.append(part)
    return found


def test_no_import_cycles():
    graph = module_graph()
    found = cycles(graph)
    new = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    assert not new, f"import cycles (deferred imports included): {new}"
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not gone, f"these known cycles are gone: remove them from KNOWN_CYCLES: {gone}"
    known_units = [{unit_of(m) for m in c} for c in KNOWN_CYCLES]
    assert [sorted(c) for c in cycles(unit_graph(graph)) if c not in known_units] == []
    # the graph was read, deferred imports too: cli_train imports dispatch inside cmd_train()
    assert "annc.dispatch" in graph["annc.cli_train"] and "annc.log" in graph["annc.selection"]
    # selection and decomposition receive the training function: they never import training
    assert "annc.training" not in graph["annc.selection"] | graph["annc.decomposition"]
    assert {"annc.training", "annc.selection", "annc.decomposition"} <= graph["annc.dispatch"]


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"a"}}, [{"a", "b"}]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [{"a", "b", "c"}]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [{"a", "b"}, {"c", "d"}]),
])
def test_the_cycle_finder(graph, expected):
    assert sorted(map(sorted, cycles(graph))) == sorted(map(sorted, expected))


def test_a_deferred_import_makes_a_cycle():
    """An import inside a function is read like a top-level one (synthetic sources)."""
    a = list(imports("annc.model", "def f():\n    from .builder import ModelBuilder\n", units=UNITS))
    b = list(imports("annc.builder", "from .model import Model\n", units=UNITS))
    modules = {"annc.model", "annc.builder"}
    graph = {"annc.model": {d for _, t, n in a for d in module_of(t, n, modules)},
             "annc.builder": {d for _, t, n in b for d in module_of(t, n, modules)}}
    assert cycles(graph) == [{"annc.model", "annc.builder"}]


def test_the_package_top_level_imports_nothing():
    """``import annc`` (which every ``import annc.x`` runs first) imports no other annc module;
    that is why any layer may take ``__version__`` from it, and why it is cheap."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    assert not [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    code = "import sys, annc; print(sorted(m for m in sys.modules if m.startswith('annc.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_annc_train_and_compile_are_the_api_functions():
    import annc
    import annc.api
    import annc.training  # a submodule import rebinds nothing
    assert annc.train is annc.api.train and annc.compile is annc.api.compile
    assert type(annc.train).__name__ == "function"
    with pytest.raises(ModuleNotFoundError):
        __import__("annc.train")


# -- the checker fails when a rule is broken (synthetic sources; no file is touched) ---------------
UNITS = units_present()


@pytest.mark.parametrize("module, source, is_package, words", [
    ("annc.formulations.relu", "from ..solvers import solve\n", False, "layer 4 (solvers) above layer 2"),
    ("annc.formulations.relu", "def f():\n    from annc.writers.mps import write_mps\n", False,
     "above layer 2 (formulations)"),
    ("annc.formulations.binary", "import annc.sgd\n", False, "layer 5 (sgd) above layer 2"),
    ("annc.errors", "from .spec import NetworkSpec\n", False, "layer 1 (spec) above layer 0 (errors)"),
    ("annc.writers.lp", "from ..spec import NetworkSpec\n", False, "writers may import only layer 0"),
    ("annc.solutions", "from ..data import Dataset\n", True, "solutions may import only layer 0"),
    ("annc.solvers.external", "from ..decode import decode_network\n", False, "solvers never imports decode"),
    ("annc.training", "from .api import train\n", False, "layer 6 (api) above layer 5 (training)"),
    ("annc.verify", "from . import training\n", False, "layer 5 (training) above layer 4 (verify)"),
    ("annc.varmap", "from annc import train\n", False, "layer 6 (annc) above layer 4 (varmap)"),
    ("annc.model", "from .newthing import x\n", False, "newthing has no layer"),
    ("annc.newthing", "from .model import Model\n", False, "newthing has no layer"),
])
def test_the_checker_reports_a_broken_rule(module, source, is_package, words):
    found = violations(module, source, is_package=is_package, units=UNITS | {"newthing"})
    assert len(found) == 1 and words in found[0], found


@pytest.mark.parametrize("module, source, is_package", [
    ("annc.formulations.relu", "from .common import x\nfrom ..model import Model\nfrom . import binary\n", False),
    ("annc.writers.lp", "from .text import x\nfrom ..names import y\n", False),
    ("annc.varmap", "from . import __version__\n", False),
    ("annc.cli", "from .experiment import add_parser\nfrom . import __version__\n", False),
    ("annc.experiment.tasks", "from ..training import train\nfrom .definitions import Config\n", False),
])
def test_the_checker_accepts_what_the_rules_allow(module, source, is_package):
    assert violations(module, source, is_package=is_package, units=UNITS) == []


# -- only the command line prints ------------------------------------------------------------------
PRINTERS = {"annc/cli.py", "annc/cli_commands.py", "annc/cli_train.py", "annc/experiment/cli.py", "annc/progress.py"}  # progress.py: the CLI's display


def test_only_the_command_line_prints():
    """``print`` appears only in the CLI modules (and the CLI's progress display), and in :func:`annc.api.train_api`, which
    passes it on when the caller asks (``verbose=True``); every other layer takes ``log``."""
    found = []
    for _, path, _ in package_modules():
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed = set()
        if rel == "annc/api.py":
            allowed = {id(n) for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "train_api"
                       for n in ast.walk(f)}
        found += [f"{rel} line {n.lineno}" for n in ast.walk(tree)
                  if isinstance(n, ast.Name) and n.id == "print" and rel not in PRINTERS and id(n) not in allowed]
    assert not found, found


def test_training_and_the_api_are_silent_unless_asked(capsys):
    import annc
    from annc.api import as_data
    from annc.datasets import xor_data
    from annc.spec import load_spec
    from annc.training import train
    X, y = xor_data(16, noise=0.1, seed=0)
    spec = ROOT / "specs" / "output_only.ann"
    r = train(load_spec(spec), as_data((X, y)), out_dir=None, warm_start=False)
    assert r.verified
    annc.train(spec, (X, y), warm_start=False)
    assert capsys.readouterr().out == ""
    annc.train(spec, (X, y), warm_start=False, verbose=True)
    assert "[output_only]" in capsys.readouterr().out
