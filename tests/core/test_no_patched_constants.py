"""No test monkeypatches a module constant (the developers' guide: pass parameters instead).  A
test may patch a function to spy on it or to make it fail; it may not patch an UPPER_CASE name, nor
a leading-underscore module attribute that is not callable (a module's memo, table or flag)."""
import ast
import importlib
import re

from conftest import ROOT

TESTS = ROOT / "tests"
CONSTANT = re.compile(r"^_*[A-Z][A-Z0-9_]*$")


def _target_and_name(call: ast.Call) -> tuple[str | None, str | None]:
    """``monkeypatch.setattr(target, "NAME", value)`` -> (target's source, "NAME");
    ``monkeypatch.setattr("pkg.mod.NAME", value)`` -> ("pkg.mod", "NAME")."""
    args = call.args
    if len(args) >= 2 and isinstance(args[1], ast.Constant) and isinstance(args[1].value, str) and \
            not (isinstance(args[0], ast.Constant) and isinstance(args[0].value, str)):
        return ast.unparse(args[0]), args[1].value
    if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str) and "." in args[0].value:
        module, _, name = args[0].value.rpartition(".")
        return module, name
    return None, None


def _aliases(tree: ast.AST) -> dict[str, str]:
    """The names a test file binds to modules: ``import a.b as x`` and ``from a import b`` (x, b -> path)."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def patched_attributes(root=TESTS):
    """``(place, target, name)`` of every ``monkeypatch.setattr`` call in the tests, the target
    written as its module's dotted path where the test file imported it under a name."""
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        aliases = _aliases(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setattr" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "monkeypatch":
                target, name = _target_and_name(node)
                if name is not None:
                    yield f"{path.relative_to(root)}:{node.lineno}", aliases.get(target, target), name


def _private_value(target: str, name: str):
    """The current value of ``target.name`` when ``target`` is an annc module's dotted path, else a
    marker that it could not be looked up (a local variable of the test)."""
    if not target.startswith("annc"):
        return _UNKNOWN
    try:
        return getattr(importlib.import_module(target), name, _UNKNOWN)
    except ImportError:
        return _UNKNOWN


_UNKNOWN = object()


def offenders(found) -> list[str]:
    bad = []
    for place, target, name in found:
        if CONSTANT.match(name):
            bad.append(f"{place}: {target}.{name} is a constant")
        elif name.startswith("_") and not name.startswith("__"):
            value = _private_value(target, name)
            if value is not _UNKNOWN and not callable(value):
                bad.append(f"{place}: {target}.{name} is a module's data, not a function")
    return bad


def test_no_test_patches_a_module_constant():
    found = list(patched_attributes())
    assert len(found) > 10  # the scan sees the tests' monkeypatching
    bad = offenders(found)
    assert not bad, "pass it as a parameter instead:\n" + "\n".join(bad)


def test_the_scan_tells_constants_from_functions(tmp_path):
    (tmp_path / "test_x.py").write_text(
        "def test_a(monkeypatch):\n"
        "    monkeypatch.setattr(compress, 'LARGE_ROWS', 200)\n"
        "    monkeypatch.setattr('annc.training.warmstart.pool.trees.DEPTHS', ())\n"
        "    monkeypatch.setattr('annc.training.warmstart.pool.seeding.SGD_MEMO_SIZE', 1)\n"
        "    monkeypatch.setattr(seeding, 'train_sgd', lambda *a: None)\n"
        "    monkeypatch.setattr(cbc, '_cbcbox_path', lambda: None)\n"
        "    monkeypatch.setattr(type(x), '__call__', lambda self: False)\n"
        "    monkeypatch.setattr(seeding, 'SGD_MEMO', None)\n"
        "    monkeypatch.setattr(seeding, '_digest', None)\n"
        "    monkeypatch.setattr(executor, '_PENDING', None)\n"
        "import annc.training.warmstart.pool.seeding as seeding\n"
        "from annc.training.large import executor\n")
    bad = offenders(patched_attributes(tmp_path))
    assert [b.split(": ", 1)[1].split(" is ")[0] for b in bad] == [
        "compress.LARGE_ROWS", "annc.training.warmstart.pool.trees.DEPTHS",
        "annc.training.warmstart.pool.seeding.SGD_MEMO_SIZE", "annc.training.warmstart.pool.seeding.SGD_MEMO",
        "annc.training.large.executor._PENDING"]
