"""annc: compile the training of a small dense neural network into a mixed-integer program.

The Python API mirrors the command line (imports are lazy: ``import annc`` is cheap)::

    import annc
    c = annc.compile("specs/xor.ann", "xor.csv", out_dir="out")     # model + variable map
    r = annc.train("specs/xor.ann", (X, y), solver="cbc", time_limit=60)
    r.status, r.train_accuracy, r.network.predict(X_new)

``spec`` is a ``.ann`` path, ``.ann`` text or a ``NetworkSpec``; ``data`` (and ``test``) a
CSV path, a ``Dataset`` or a pair ``(X, y)``.  Every argument is checked as the CLI
checks its options, before anything is written: a bad one raises an
``annc.errors.AnncError`` (``UsageError``, ``DataError``, ``OutputError``, ...), with the
CLI's exit code as ``.exit_code``.
"""
__version__ = "0.1.0"


def compile(spec, data, **kw):  # noqa: A001 - mirrors `annc compile`
    """Build the training MIP of ``spec`` on ``data``; returns a ``Compiled`` (model, map).

    Keywords: ``out_dir`` (write ``<name>.mps`` and ``<name>.map.json`` there), ``fmt``
    ("mps" or "lp"), ``label``, ``merge``, ``allow_small_m``, ``gzip``, ``writer`` ("annc"
    or "pulp"), ``name`` (a plain file name: no path separator), ``max_nonzeros``.
    """
    from .train import check_keywords, compile_api
    check_keywords(compile_api, kw)
    return compile_api(spec, data, **kw)


def train(spec, data, test=None, **kw):
    """Compile, solve, decode and verify; returns a ``TrainResult`` (``.network``,
    ``.predict(X)``, ``.status``, ``.train_accuracy``, ``.test_accuracy``, ``.steps``).

    Keywords: ``solver`` (highs, cbc, scip, glpk, gurobi, cplex, xpress), ``solver_cmd``,
    ``time_limit`` (seconds > 0), ``gap`` (0 to 1), ``threads`` (1 to 1024), ``greedy``,
    ``out_dir``, ``label``, ``merge``, ``progress`` (a callable), ``verbose``, ``name``,
    ``warm_start``, ``max_nonzeros``.
    """
    from .train import check_keywords, train_api
    check_keywords(train_api, kw)
    return train_api(spec, data, test, **kw)


__all__ = ["__version__", "compile", "train"]
