"""annc: compile the training of a small dense neural network into a mixed-integer program.

The Python API mirrors the command line (imports are lazy: ``import annc`` is cheap)::

    import annc
    c = annc.compile("specs/xor.ann", "xor.csv", out_dir="out")     # model + variable map
    r = annc.train("specs/xor.ann", (X, y), solver="cbc", time_limit=60)
    r.status, r.train_accuracy, r.network.predict(X_new)

``spec`` is a ``.ann`` path, ``.ann`` text or a ``NetworkSpec``; ``data`` (and ``test``) a
CSV path, a ``Dataset`` or a pair ``(X, y)``.
"""
__version__ = "0.1.0"


def compile(spec, data, **kw):  # noqa: A001 - mirrors `annc compile`
    """Build the training MIP of ``spec`` on ``data``; returns a ``Compiled`` (model, map).

    Keywords: ``out_dir`` (write ``<name>.mps`` and ``<name>.map.json`` there), ``fmt``
    ("mps" or "lp"), ``label``, ``merge``, ``allow_small_m``, ``gzip``, ``writer``, ``name``.
    """
    from .train import compile_api
    return compile_api(spec, data, **kw)


def train(spec, data, test=None, **kw):
    """Compile, solve, decode and verify; returns a ``TrainResult`` (``.network``,
    ``.predict(X)``, ``.status``, ``.train_accuracy``, ``.test_accuracy``, ``.steps``).

    Keywords: ``solver`` (highs, cbc, scip, glpk, gurobi, cplex, xpress), ``solver_cmd``,
    ``time_limit``, ``gap``, ``threads``, ``greedy``, ``out_dir``, ``label``, ``merge``,
    ``progress`` (a callable), ``verbose``, ``name``.
    """
    from .train import train_api
    return train_api(spec, data, test, **kw)


__all__ = ["__version__", "compile", "train"]
