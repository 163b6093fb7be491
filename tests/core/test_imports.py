"""The import layers of docs/architecture.md ("Import layers"), checked over the import graph.

``annc/`` holds one sub-package per layer and nothing else (beside its ``__init__``):
``core`` at the bottom, then ``io``, ``formulations``, ``solve``, ``training``, ``export``
and ``app``.  Every import of an annc module is read with ``ast`` (top-level and inside
functions, ``import annc.x.y``, ``from annc.x.y import``, ``from .y import``, ``from ..x
import y``); a module may import its own layer and the layers below, and an import of a
higher layer fails.  Inside a layer, each module or sub-package is a *unit*
(``annc.solve.solvers.highs`` is the unit ``solve.solvers``); a few rules between units
(:data:`NEVER`, :data:`ONLY_BELOW`) keep the wings apart.  Every unit must be listed in
its layer, so that a new module is placed on purpose.  No two modules (nor two units) may
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

# bottom to top: (package, its units); a module may import its own layer and those below
# (docs/architecture.md, whose table tests/app/test_docs.py checks against this list)
LAYERS: list[tuple[str, set[str]]] = [
    ("core", {"errors", "names", "log", "activations", "losses", "penalties", "inputs", "limits", "feasibility",
              "model", "builder", "network", "scaling", "ensemble", "categories", "missing", "deadline", "columns",
              "encoding", "rowweights"}),
    ("io", {"spec", "data", "csvcells", "datasets", "outputs", "problem", "magnitudes", "recipe", "writers", "solutions", "datacheck",
            "varmap", "mapfile", "labels"}),
    ("formulations", {"binary", "common", "errors", "grid", "hinge", "l0", "l1", "lift", "nll", "nopenalty", "output",
                      "registry", "relu", "sign", "symmetry"}),
    ("solve", {"compiler", "solvers", "lp", "decode", "verify", "verdict"}),
    ("training", {"context", "large", "warmstart", "search", "bounds", "finish", "mip", "request", "results", "trainer",
                  "modelselect", "decompose", "dispatch"}),
    ("export", {"report", "report_drawing", "html_report", "onnx_export"}),
    ("app", {"api", "prediction", "experiment", "cli", "cli_commands", "cli_train", "progress", "estimator", "estimator_spec", "thresholds"}),
]
TOP = "annc"  # the package's own __init__, which binds the API: above every layer
# units that may import only the bottom layer and these units (and their own package)
ONLY_BELOW = {"io.writers": {"io.outputs"}, "io.solutions": set()}
NEVER = {
    "formulations": {"io.writers", "io.varmap", "io.mapfile"},  # a formulation is rows, not a file
    "solve.solvers": {"solve.compiler", "solve.decode", "io.varmap", "io.mapfile", "solve.verify"},  # a driver turns a model into a point
    "training.bounds": {"training.search", "training.finish", "training.trainer", "training.mip",
                        "training.decompose", "training.modelselect"},  # bounds, not search
    # the warm starts, then the searches that improve their networks, then the finish after a solve
    "training.warmstart": {"training.search", "training.finish", "training.trainer"},
    "training.search": {"training.finish", "training.trainer"},
    "training.context": {"training.warmstart", "training.search", "training.finish", "training.bounds",
                         "training.trainer"},
}
ROOT_CONSTANTS = {"__version__"}  # names any layer may take from the package (its top level imports nothing)

LAYER = {package: i for i, (package, _) in enumerate(LAYERS)}
LAYER[TOP] = len(LAYERS)
UNITS = {f"{package}.{u}" for package, units in LAYERS for u in units}


def units_present() -> set[str]:
    """The units of the package as they stand: ``layer.module`` or ``layer.subpackage``
    (``formulations`` is a layer of modules too), and any stray top-level module or package."""
    found = set()
    for p in PACKAGE.iterdir():
        if p.suffix == ".py" and p.stem != "__init__":
            found.add(p.stem)
        elif (p / "__init__.py").is_file():
            found |= {f"{p.name}.{q.stem}" for q in p.glob("*.py") if q.stem != "__init__"}
            found |= {f"{p.name}.{q.name}" for q in p.iterdir() if (q / "__init__.py").is_file()}
    return found


def layer_of(module: str) -> str:
    """``annc.solve.solvers.highs`` -> ``solve``; ``annc`` -> ``annc``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else TOP


def unit_of(module: str) -> str:
    """``annc.solve.solvers.highs`` -> ``solve.solvers``; ``annc.core`` -> ``core``."""
    parts = module.split(".")
    return ".".join(parts[1:3]) if len(parts) > 1 else TOP


def imports(module: str, source: str, *, is_package: bool = False):
    """``(line, imported module, names)`` for every import of an annc module in ``source``,
    the text of ``module`` (``annc.x.y``; ``is_package`` for an ``__init__``)."""
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
            yield node.lineno, ".".join(base + ([node.module] if node.module else [])), tuple(a.name for a in node.names)


def targets(target: str, names: tuple) -> list[str]:
    """What an import of ``names`` from ``target`` reaches, as dotted modules: ``from annc.io
    import writers`` reaches ``annc.io.writers`` (a name is taken for a submodule when it is a
    listed unit, else the layer package itself); ``from annc import __version__`` the package."""
    if not names:
        return [target]
    depth = len(target.split("."))
    if depth == 2:  # from annc.<layer> import <unit or name>, ...: a name of no unit is the package's own
        layer = target.split(".")[1]
        return sorted({f"{target}.{n}" if f"{layer}.{n}" in UNITS else target for n in names})
    if depth == 1:  # from annc import x: a layer package, or a name the package binds (annc.train, ...)
        return sorted({f"annc.{n}" if n in LAYER and n != TOP else "annc" for n in names})
    return [target]


def violations(module: str, source: str, *, is_package: bool = False) -> list[str]:
    """What in ``source`` (the text of ``module``) breaks the layers."""
    src_layer, src = layer_of(module), unit_of(module)
    if src_layer != TOP and (src_layer not in LAYER or (src != src_layer and src not in UNITS)):
        return [f"{module}: {src} has no layer"]
    found = []
    for line, target, names in imports(module, source, is_package=is_package):
        for reached in targets(target, names):
            dst_layer, dst = layer_of(reached), unit_of(reached)
            if dst == src or (reached == "annc" and set(names) <= ROOT_CONSTANTS):
                continue
            where = f"{module} line {line}: imports {reached}"
            if dst_layer not in LAYER or (dst != dst_layer and dst not in UNITS and dst_layer != TOP):
                found.append(f"{where}: {dst} has no layer")
            elif LAYER[dst_layer] > LAYER[src_layer]:
                found.append(f"{where}: layer {LAYER[dst_layer]} ({dst_layer}) above layer {LAYER[src_layer]} "
                             f"({src_layer})")
            elif src in ONLY_BELOW and LAYER[dst_layer] > 0 and dst not in ONLY_BELOW[src]:
                found.append(f"{where}: {src} may import only layer 0 (core)"
                             + "".join(f" and {u}" for u in sorted(ONLY_BELOW[src])))
            elif dst in NEVER.get(src, ()) or dst in NEVER.get(src_layer, ()):
                found.append(f"{where}: {src} never imports {dst}")
    return found


def package_modules():
    """``(module name, path, is_package)`` for every module of annc."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        yield ".".join(parts[:-1] if is_package else parts), path, is_package


def test_every_unit_has_a_layer():
    """``annc/`` holds the layer packages only, and each unit of each is listed in its layer."""
    present = units_present()
    stray = {u for u in present if "." not in u}
    assert not stray, f"annc/ holds only its layer packages: move {stray} into one"
    assert {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()} == set(LAYER) - {TOP}
    assert not present - UNITS, f"give these modules a layer (here and in docs/architecture.md): {present - UNITS}"
    assert not UNITS - present, f"layers name modules that are gone: {UNITS - present}"


def test_no_module_imports_a_higher_layer():
    found, edges = [], set()
    for module, path, is_package in package_modules():
        source = path.read_text(encoding="utf-8")
        edges |= {(unit_of(module), unit_of(r)) for _, t, n in imports(module, source, is_package=is_package)
                  for r in targets(t, n)}
        found += violations(module, source, is_package=is_package)
    assert not found, "\n".join(found)
    # the graph was read: e.g. the pipeline's own edges are there
    assert {("training.trainer", "training.mip"), ("solve.compiler", "formulations"),
            ("formulations", "core.model"), ("app.cli_train", "training.dispatch"),
            ("app.api", "training.dispatch"), ("training.dispatch", "training.trainer"),
            ("app.experiment", "training.mip")} <= edges


# -- no import cycles (deferred imports included) --------------------------------------------------
# A cycle that is known and waiting for its fix, as a set of modules; the test fails when it is
# gone too, so that the entry is removed.  None now: selection <-> training was broken by
# annc.training.dispatch.run, which hands selection and decomposition the training function.
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
    listed = list(package_modules())
    modules = {m for m, _, _ in listed}
    graph = {}
    for module, path, is_package in listed:
        graph[module] = {dst for _, target, names in imports(module, path.read_text(encoding="utf-8"),
                                                              is_package=is_package)
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
    assert "annc.training.dispatch" in graph["annc.app.cli_train"]
    assert "annc.core.log" in graph["annc.training.modelselect.selection"]
    # selection and decomposition receive the training function: they never import training
    selection, decomposition = "annc.training.modelselect.selection", "annc.training.decompose.decomposition"
    strategy = "annc.training.modelselect.strategy"  # the strategies of model selection, which dispatch runs
    assert "annc.training.trainer" not in graph[selection] | graph[decomposition] | graph[strategy]
    assert selection in graph[strategy] and "annc.training.modelselect.cvselect" in graph[strategy]
    assert {"annc.training.trainer", strategy, decomposition} <= graph["annc.training.dispatch"]


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
    a = list(imports("annc.core.model", "def f():\n    from .builder import ModelBuilder\n"))
    b = list(imports("annc.core.builder", "from .model import Model\n"))
    modules = {"annc.core.model", "annc.core.builder"}
    graph = {"annc.core.model": {d for _, t, n in a for d in module_of(t, n, modules)},
             "annc.core.builder": {d for _, t, n in b for d in module_of(t, n, modules)}}
    assert cycles(graph) == [{"annc.core.model", "annc.core.builder"}]


def test_the_package_top_level_imports_nothing():
    """``import annc`` (which every ``import annc.x`` runs first) imports no other annc module;
    that is why any layer may take ``__version__`` from it, and why it is cheap."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    assert not [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    code = "import sys, annc; print(sorted(m for m in sys.modules if m.startswith('annc.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


HEAVY = ("sklearn", "pandas", "scipy.stats")  # 3 to 5 s and about 110 MB to import on a 2-core EPYC


@pytest.mark.parametrize("call", [
    "from annc.app.cli import main; main(['compile', SPEC, DATA, '--no-start', '-q', '-o', OUT])",
    "import annc; annc.compile(SPEC, DATA, out_dir=OUT, start=False)",
])
def test_a_compile_without_training_steps_imports_no_scikit_learn(call, tmp_path):
    """``annc compile --no-start`` (and ``annc.compile(..., start=False)``) of a spec that names
    its eps runs no training step, so it imports none of their libraries (the compile
    benchmark's peak memory and a command's start: annc.training.mip.compiling, "Imports")."""
    code = (f"import sys; SPEC, DATA, OUT = {str(ROOT / 'specs' / 'xor.ann')!r}, "
            f"{str(ROOT / 'specs' / 'xor_sample.csv')!r}, {str(tmp_path / 'out')!r}; {call}; "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "out" / "xor.mps").is_file()


def test_annc_train_and_compile_are_the_api_functions():
    import annc
    import annc.app.api
    import annc.training.trainer  # a submodule import rebinds nothing
    assert annc.train is annc.app.api.train and annc.compile is annc.app.api.compile
    assert type(annc.train).__name__ == "function"
    with pytest.raises(ModuleNotFoundError):
        __import__("annc.train")


# -- the checker fails when a rule is broken (synthetic sources; no file is touched) ---------------
@pytest.mark.parametrize("module, source, is_package, words", [
    ("annc.formulations.relu", "from ..solve.solvers import solve\n", False, "layer 3 (solve) above layer 2"),
    ("annc.formulations.relu", "def f():\n    from annc.training.warmstart.sgd import fit\n", False,
     "layer 4 (training) above layer 2 (formulations)"),
    ("annc.formulations.binary", "import annc.training.warmstart.sgd\n", False, "layer 4 (training) above layer 2"),
    ("annc.formulations.binary", "from ..io.writers import write_model\n", False,
     "formulations.binary never imports io.writers"),
    ("annc.core.errors", "from ..io.spec import NetworkSpec\n", False, "layer 1 (io) above layer 0 (core)"),
    ("annc.io.writers.lp", "from ..spec import NetworkSpec\n", False, "io.writers may import only layer 0"),
    ("annc.io.solutions", "from ..data import Dataset\n", True, "io.solutions may import only layer 0"),
    ("annc.solve.solvers.external", "from ..decode import decode_network\n", False,
     "solve.solvers never imports solve.decode"),
    ("annc.training.trainer", "from ..app.api import train\n", False, "layer 6 (app) above layer 4 (training)"),
    ("annc.solve.verify", "from .. import training\n", False, "layer 4 (training) above layer 3 (solve)"),
    ("annc.training.bounds.support", "from ..search import start_search\n", False,
     "training.bounds never imports training.search"),
    ("annc.io.varmap", "from annc import train\n", False, "layer 7 (annc) above layer 1 (io)"),
    ("annc.core.model", "from .newthing import x\n", False, "core.newthing has no layer"),
    ("annc.core.newthing", "from .model import Model\n", False, "core.newthing has no layer"),
])
def test_the_checker_reports_a_broken_rule(module, source, is_package, words):
    found = violations(module, source, is_package=is_package)
    assert len(found) == 1 and words in found[0], found


@pytest.mark.parametrize("module, source, is_package", [
    ("annc.formulations.relu", "from .common import x\nfrom ..core.model import Model\nfrom . import binary\n", False),
    ("annc.io.writers.lp", "from .text import x\nfrom ...core.names import y\nfrom ..outputs import z\n", False),
    ("annc.io.varmap", "from .. import __version__\n", False),
    ("annc.app.cli", "from .experiment import add_parser\nfrom .. import __version__\n", False),
    ("annc.app.experiment.tasks", "from ...training.trainer import train\nfrom .definitions import Config\n", False),
    ("annc.training.dispatch", "from . import selection, trainer\nfrom ..solve import solvers\n", False),
])
def test_the_checker_accepts_what_the_rules_allow(module, source, is_package):
    assert violations(module, source, is_package=is_package) == []


# -- only the command line prints ------------------------------------------------------------------
PRINTERS = {"annc/app/cli.py", "annc/app/cli_commands.py", "annc/app/cli_train.py", "annc/app/experiment/cli.py", "annc/app/progress.py"}  # progress.py: the CLI's display


def test_only_the_command_line_prints():
    """``print`` appears only in the CLI modules (and the CLI's progress display), and in :func:`annc.app.api.train_api`, which
    passes it on when the caller asks (``verbose=True``); every other layer takes ``log``."""
    found = []
    for _, path, _ in package_modules():
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed = set()
        if rel == "annc/app/api.py":
            allowed = {id(n) for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "train_api"
                       for n in ast.walk(f)}
        found += [f"{rel} line {n.lineno}" for n in ast.walk(tree)
                  if isinstance(n, ast.Name) and n.id == "print" and rel not in PRINTERS and id(n) not in allowed]
    assert not found, found


def test_training_and_the_api_are_silent_unless_asked(capsys):
    import annc
    from annc.app.api import as_data
    from annc.io.datasets import xor_data
    from annc.io.spec import load_spec
    from annc.training.trainer import train
    X, y = xor_data(16, noise=0.1, seed=0)
    spec = ROOT / "specs" / "output_only.ann"
    r = train(load_spec(spec), as_data((X, y)), out_dir=None, warm_start=False)
    assert r.verified
    annc.train(spec, (X, y), warm_start=False)
    assert capsys.readouterr().out == ""
    annc.train(spec, (X, y), warm_start=False, verbose=True)
    assert "[output_only]" in capsys.readouterr().out
