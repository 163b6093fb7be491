"""annc: compile the training of a small dense neural network into a mixed-integer program.

The Python API mirrors the command line::

    import annc
    c = annc.compile("specs/xor.ann", "xor.csv", out_dir="out")     # model + variable map
    r = annc.train("specs/xor.ann", (X, y), solver="cbc", time_limit=60)
    r.status, r.train_accuracy, r.network.predict(X_new)

``spec`` is a ``.ann`` path, ``.ann`` text or a ``NetworkSpec``; ``data`` (and ``test``) a
CSV path, a ``Dataset`` or a pair ``(X, y)``.  Every argument is checked as the CLI
checks its options, before anything is written: a bad one raises an
``annc.core.errors.AnncError`` (``UsageError``, ``DataError``, ``OutputError``, ...), with the
CLI's exit code as ``.exit_code``.

``annc.compile``, ``annc.train``, ``annc.export_onnx`` and ``annc.predict`` are the plain functions
:func:`annc.app.api.compile`, :func:`annc.app.api.train`, :func:`annc.app.api.export_onnx` and
:func:`annc.app.prediction.predict`, bound on first use (PEP 562 ``__getattr__``), so that ``import
annc`` (and every ``import annc.<module>``, which runs this file first) stays cheap and
imports no other annc module.  ``annc.MIPNetClassifier`` (:mod:`annc.app.estimator`, a
scikit-learn classifier; the ``sklearn`` extra) is bound the same way, so that ``import
annc`` never imports scikit-learn.  No submodule is called ``train`` or ``compile``: importing
a submodule can never rebind them (training itself is :mod:`annc.training.trainer`).
"""
__version__ = "0.1.0"

_API = ("compile", "train", "export_onnx", "predict")

# the public names a user may import from the top level, each from the module that holds it
# (bound on first use, as the API); CHANGELOG.md says what moved
_NAMES = {
    "TrainedNetwork": "core.network", "Layer": "core.network", "Ensemble": "core.ensemble",
    "load_model": "core.ensemble", "Scaling": "core.scaling",
    "NetworkSpec": "io.spec", "parse_spec": "io.spec", "load_spec": "io.spec", "load_data": "io.data",
    "Dataset": "io.data", "read_solution": "io.solutions", "load_map": "io.mapfile",
    **{name: "core.errors" for name in (
        "AnncError", "AnncWarning", "SpecError", "DataError", "SolutionError", "NoSolutionError", "ModelError",
        "MapError", "WeightsError", "UsageError", "OutputError", "SizeError", "VerificationError",
        "TruncatedSolutionError", "EnvironmentLimitError", "UnknownCategoryWarning")},
}

# the modules of releases before the layer packages (annc/<module>.py), and where each is now:
# ``import annc.network`` still works, with a DeprecationWarning (not ``annc.train``: that
# name is the API function)
_MOVED = {
    **{m: f"core.{m}" for m in ("activations", "builder", "ensemble", "errors", "feasibility", "inputs", "limits",
                                "log", "losses", "model", "names", "network", "penalties", "scaling")},
    **{m: f"io.{m}" for m in ("data", "datasets", "magnitudes", "outputs", "problem", "recipe", "varmap", "spec",
                              "writers", "solutions")},
    **{m: f"solve.{m}" for m in ("compiler", "decode", "verdict", "verify", "solvers")},
    **{m: f"training.{m}" for m in ("dispatch", "request", "results", "bounds")},
    **{m: f"training.mip.{m}" for m in ("chain", "runfiles")},
    **{m: f"training.modelselect.{m}" for m in ("select_grid", "selection", "splits")},
    "decomposition": "training.decompose.decomposition", "executor": "training.large.executor",
    "sgd": "training.warmstart.sgd",
    "starts": "training.search", "relaxed": "training.finish.relaxed",
    **{m: f"export.{m}" for m in ("html_report", "onnx_export", "report", "report_drawing")},
    **{m: f"app.{m}" for m in ("api", "cli", "cli_commands", "cli_train", "estimator", "progress", "experiment")},
}


# modules that moved inside a layer (training/starts/ split into pool/, search/ and finish/):
# the whole old dotted path below ``annc.`` and its new one
_MOVED_DEEP = {
    "training.starts": "training.search",
    **{f"training.starts.{m}": f"training.warmstart.pool.{m}" for m in ("point", "repair", "linear", "seeding")},
    "training.starts.search": "training.search.local", "training.starts.lns": "training.search.lns",
    "training.starts.incumbent": "training.search.incumbent", "training.starts.budget": "training.search.incumbent",
    "training.starts.finish": "training.finish.exact", "training.starts.refine": "training.finish.refine",
    "training.starts.margin": "training.warmstart.margin", "training.relaxed": "training.finish.relaxed",
    # training/'s top-level modules grouped by concern (issue 62): model selection, large data, warm starts,
    # decomposition, the MIPs of a run, and two that joined bounds/ and finish/
    **{f"training.{m}": f"training.modelselect.{m}" for m in ("cvselect", "cvpath", "cvresults", "cvrows", "selection",
                                                               "select_grid", "splits")},
    **{f"training.{m}": f"training.large.{m}" for m in ("executor", "anneal", "compress", "largedata")},
    **{f"training.{m}": f"training.warmstart.{m}" for m in ("sgd", "margin", "pool")},
    **{f"training.pool.{m}": f"training.warmstart.pool.{m}" for m in ("candidates", "linear", "point", "repair",
                                                                      "seeding")},
    "training.decomposition": "training.decompose.decomposition",
    **{f"training.{m}": f"training.mip.{m}" for m in ("chain", "compiling", "stalling", "runfiles")},
    "training.proof": "training.bounds.proof", "training.deadweights": "training.finish.deadweights",
}


class _OldPaths:
    """A meta-path finder for the module paths of :data:`_MOVED`: ``annc.<old>`` (and what is
    below it) is the module at its new path, the same object, imported on first use."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        head, _, rest = fullname.partition(".")
        old, _, below = rest.partition(".")
        if head != __name__:
            return None
        import importlib.util
        if rest in _MOVED_DEEP:
            new = f"{__name__}.{_MOVED_DEEP[rest]}"
        elif old in _MOVED and not (old == "starts" and below):
            new = f"{__name__}.{_MOVED[old]}" + (f".{below}" if below else "")
        elif old == "starts" and f"training.starts.{below}" in _MOVED_DEEP:
            new = f"{__name__}.{_MOVED_DEEP['training.starts.' + below]}"
        else:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(fullname, new))


class _Alias:
    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def create_module(self, spec):
        import importlib
        import warnings
        warnings.warn(f"{self.old} moved to {self.new} (see CHANGELOG.md); import it from there, or the "
                      "public names from annc itself", DeprecationWarning, stacklevel=2)
        return importlib.import_module(self.new)

    def exec_module(self, module) -> None:
        pass  # the module at its new path, already run


def _install_old_paths() -> None:
    import sys
    if not any(isinstance(f, type) and f.__name__ == "_OldPaths" and getattr(f, "__module__", "") == __name__
               for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths)  # before the path finder, which would load a moved
        # package's modules a second time under the old name


_install_old_paths()


def __getattr__(name: str):
    if name in _API:
        from .app import api
        value = getattr(api, name)
        globals()[name] = value  # bound once: later look-ups do not come here
        return value
    if name == "MIPNetClassifier":  # scikit-learn is imported only here (the "sklearn" extra)
        from .app.estimator import MIPNetClassifier
        globals()[name] = MIPNetClassifier
        return MIPNetClassifier
    if name in _NAMES:
        import importlib
        value = getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'annc' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_API) | {"MIPNetClassifier"} | set(_NAMES))


__all__ = ["__version__", "compile", "train", "export_onnx", "predict", "MIPNetClassifier", *_NAMES]
