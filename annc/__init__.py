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

``annc.compile``, ``annc.train`` and ``annc.export_onnx`` are the plain functions
:func:`annc.app.api.compile`, :func:`annc.app.api.train` and :func:`annc.app.api.export_onnx`, bound on first use (PEP 562 ``__getattr__``), so that ``import
annc`` (and every ``import annc.<module>``, which runs this file first) stays cheap and
imports no other annc module.  ``annc.MIPNetClassifier`` (:mod:`annc.app.estimator`, a
scikit-learn classifier; the ``sklearn`` extra) is bound the same way, so that ``import
annc`` never imports scikit-learn.  No submodule is called ``train`` or ``compile``: importing
a submodule can never rebind them (training itself is :mod:`annc.training.trainer`).
"""
__version__ = "0.1.0"

_API = ("compile", "train", "export_onnx")


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
    raise AttributeError(f"module 'annc' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_API) | {"MIPNetClassifier"})


__all__ = ["__version__", "compile", "train", "export_onnx"]
