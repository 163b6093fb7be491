"""The public names at the top level of annc, and the module paths of releases before the
layer packages (``annc.network``, ``annc.errors``, ``annc.cli``, ...): they import, as the
same modules, with a DeprecationWarning naming the new path (CHANGELOG.md)."""
import importlib
import subprocess
import sys

import pytest

import annc
from conftest import ROOT


@pytest.mark.parametrize("old, new", [("annc.network", "annc.core.network"), ("annc.errors", "annc.core.errors"),
                                      ("annc.cli", "annc.app.cli"), ("annc.spec", "annc.io.spec"),
                                      ("annc.solvers.highs", "annc.solve.solvers.highs"),
                                      ("annc.starts.search", "annc.training.search.local"),
                                      ("annc.api", "annc.app.api"), ("annc.verdict", "annc.solve.verdict")])
def test_an_old_module_path_is_the_moved_module_with_a_warning(old, new):
    _same_module_with_a_warning(old, new)


# training/'s top-level modules grouped by concern (issue 62): every old path, and the old top-level
# and ``starts`` paths that named them
GROUPED = {"modelselect": ("cvselect", "cvpath", "cvresults", "cvrows", "selection", "select_grid", "splits"),
           "large": ("executor", "anneal", "compress", "largedata"), "warmstart": ("sgd", "margin", "pool"),
           "decompose": ("decomposition",), "mip": ("chain", "compiling", "stalling", "runfiles"),
           "bounds": ("proof",), "finish": ("deadweights",)}


@pytest.mark.parametrize("old, new", [
    *[(f"annc.training.{m}", f"annc.training.{p}.{m}") for p, ms in GROUPED.items() for m in ms],
    *[(f"annc.training.pool.{m}", f"annc.training.warmstart.pool.{m}")
      for m in ("candidates", "linear", "point", "repair", "seeding")],
    ("annc.training.starts.margin", "annc.training.warmstart.margin"),
    ("annc.training.starts.repair", "annc.training.warmstart.pool.repair"),
    ("annc.sgd", "annc.training.warmstart.sgd"), ("annc.chain", "annc.training.mip.chain"),
    ("annc.selection", "annc.training.modelselect.selection"), ("annc.executor", "annc.training.large.executor"),
    ("annc.decomposition", "annc.training.decompose.decomposition")])
def test_a_grouped_training_module_is_the_moved_module_with_a_warning(old, new):
    _same_module_with_a_warning(old, new)


def test_an_old_training_path_loads_no_second_copy_in_a_fresh_process():
    code = ("import sys, warnings; warnings.simplefilter('ignore', DeprecationWarning)\n"
            "from annc.training.pool.seeding import sgd_start\n"
            "import annc.training.cvselect as old, annc.training.modelselect.cvselect as new\n"
            "from annc.training.warmstart.pool import seeding\n"
            "assert old is new and sgd_start is seeding.sgd_start\n"
            "assert len({id(m) for n, m in sys.modules.items() if n.endswith('pool.seeding')}) == 1\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr


def _same_module_with_a_warning(old, new):
    import warnings
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        sys.modules.pop(old, None)
        module = importlib.import_module(old)
    assert any(w.category is DeprecationWarning and f"{old} moved to {new}" in str(w.message) for w in said)
    assert module is importlib.import_module(new)


def test_old_imports_of_public_names_work_in_a_fresh_process():
    code = ("import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
            "from annc import TrainedNetwork, SpecError, UsageError, load_model, EnvironmentLimitError\n"
            "import annc.core.network as n, annc.core.errors as e, annc.core.ensemble as en\n"
            "assert TrainedNetwork is n.TrainedNetwork and SpecError is e.SpecError and load_model is en.load_model\n"
            "warnings.simplefilter('ignore', DeprecationWarning)\n"
            "from annc.network import TrainedNetwork as T2\n"
            "from annc.errors import AnncError\n"
            "import annc.cli\n"
            "assert T2 is TrainedNetwork and issubclass(SpecError, AnncError) and annc.cli.main\n"
            "assert callable(annc.train) and type(annc.train).__name__ == 'function'\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr


def test_top_level_names_and_the_api_function_train():
    assert "TrainedNetwork" in dir(annc) and "TrainedNetwork" in annc.__all__
    assert annc.load_model.__module__ == "annc.core.ensemble"
    with pytest.raises(AttributeError):
        annc.no_such_name
    with pytest.raises(ModuleNotFoundError):  # annc.train is the API function, not an old module
        __import__("annc.train")


def test_changelog_says_what_moved():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n") and "\n## Unreleased\n" in text
    for old, new in [("network", "annc.core"), ("cli", "annc.app"), ("errors", "annc.core")]:
        assert f"`{old}`" in text or f"`annc.{old}`" in text
        assert f"`{new}.<module>`" in text
    for name in annc._NAMES:
        assert f"annc.{name}" in text, name
