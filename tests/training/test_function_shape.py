"""The shape the developers' guide asks of annc/training/: no function over 60 lines, none with more
than 8 parameters (``self`` and ``cls`` not counted; ``*args`` and ``**kwargs`` one each).  Settings
that travel together are frozen dataclasses (``SgdSettings``, ``Schedule``, ``CompileOptions``, ...),
long functions are named steps."""
import ast

import pytest

from conftest import ROOT

TRAINING = ROOT / "annc" / "training"
MAX_LINES = 60
MAX_PARAMS = 8


def parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
    first = (a.posonlyargs + a.args)[:1]
    return n - (1 if first and first[0].arg in ("self", "cls") else 0)


def shapes(root=TRAINING):
    """``(place, lines, parameters)`` of every function and method under ``root``."""
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                place = f"{path.relative_to(root.parents[1])}:{node.lineno} {node.name}"
                yield place, node.end_lineno - node.lineno + 1, parameters(node)


def test_no_function_in_training_is_too_long_or_too_wide():
    found = list(shapes())
    assert len(found) > 100  # the walk saw the package
    long = [f"{place} ({lines} lines)" for place, lines, _ in found if lines > MAX_LINES]
    wide = [f"{place} ({n} parameters)" for place, _, n in found if n > MAX_PARAMS]
    assert not long and not wide, "\n".join(long + wide)


@pytest.mark.parametrize("source, lines, params", [
    ("def f(a, b, *c, d=1, **e):\n    pass\n", 2, 5),
    ("class C:\n    def m(self, a, b):\n        return a\n", 2, 2),
    ("def g(x, /, y, *, z):\n" + "    x += 1\n" * 70, 71, 3),
])
def test_the_count_is_the_guides(source, lines, params):
    tree = ast.parse(source)
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert (fn.end_lineno - fn.lineno + 1, parameters(fn)) == (lines, params)
