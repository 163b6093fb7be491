"""The Python API: ``annc.compile`` and ``annc.train`` (the package binds these two
functions, :func:`compile` and :func:`train`, and ``annc.export_onnx`` and ``annc.predict``:
:func:`export_onnx`, :func:`annc.app.prediction.predict`).

They take paths, spec text, ``NetworkSpec`` and ``Dataset`` objects or ``(X, y)``
arrays (:func:`as_spec`, :func:`as_data`), and check their arguments with the same
functions as the CLI (:meth:`~annc.solve.solvers.base.SolveOptions.checked`,
:func:`~annc.solve.compiler.check_compile_options`, :func:`~annc.solve.compiler.check_name`,
:meth:`~annc.training.request.TrainRequest.checked`): a bad one raises
:class:`~annc.core.errors.UsageError` (or :class:`~annc.core.errors.DataError` for data), never
``TypeError`` or ``ValueError``.  They print nothing unless asked (``verbose=True``).
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Callable

import numpy as np

from ..core.columns import Columns, all_numbers, frame_columns, match_columns
from ..core.encoding import encode_table, fit_encoding
from ..core.errors import DataError, UsageError
from ..core.inputs import sample_arrays
from ..core.missing import check_rule, settle
from ..core.rowweights import check_class_weight, with_weights
from ..io.data import Dataset, array_digest, load_data
from ..io.labels import class_index, class_lookup, class_order
from ..io.outputs import check_out_dir
from ..io.spec import NetworkSpec, load_spec_of, parse_spec
from ..solve.compiler import Compiled, check_compile_options, check_name, check_scale, with_scale
from ..solve.solvers import SolveOptions
from ..training.mip.compiling import CompileOptions, compile_model
from ..training.mip.runfiles import csv_backing
from ..training.request import DECOMPOSED, TrainRequest
from ..training.results import TrainResult
from .prediction import model_of, predict

__all__ = ["TrainResult", "as_data", "as_spec", "compile", "compile_api", "export_onnx", "predict", "table_data",
           "train", "train_api", "train_request"]


def export_onnx(network, path, *, unknown: str | None = None) -> Path:
    """Write ``network`` (a ``TrainedNetwork`` or ``Ensemble``, a training result, or the
    path of a weights file) as an ONNX model to ``path`` (:mod:`annc.export.onnx_export`: the same forward pass,
    input scaling included, in double precision); returns the path.  ``unknown``: a category of
    a text column not seen in training is all zeros in the graph (``"ignore"``, the default)
    or an error of the runtime (``"error"``)."""
    from ..export.onnx_export import save_onnx
    network = model_of(network)
    if not isinstance(path, (str, os.PathLike)):
        raise UsageError(f"path must be a file path, not {type(path).__name__}")
    return save_onnx(network, path, unknown)


def compile(spec, data, **kw) -> Compiled:  # noqa: A001 - mirrors `annc compile`
    """Build the training MIP of ``spec`` on ``data``; returns a ``Compiled`` (model, map).

    Keywords: ``out_dir`` (write ``<name>.mps`` and ``<name>.map.json`` there), ``fmt``
    ("mps" or "lp"), ``label``, ``merge``, ``allow_small_m``, ``gzip``, ``writer`` ("annc"
    or "pulp"), ``name`` (a plain file name: no path separator), ``max_nonzeros``,
    ``scale`` (overrides the spec's input scaling), ``missing`` (``"error"``, the default, ``"drop"`` or
    ``"impute"``: missing cells, :mod:`annc.core.missing`), ``start`` (find a MIP start: ``.start``; with ``out_dir`` also write its files
    ``<name>.start.*``; default True), ``start_budget`` (seconds for its search; default 20).
    """
    check_keywords(compile_api, kw)
    return compile_api(spec, data, **kw)


def train(spec, data, test=None, **kw) -> TrainResult:
    """Compile, solve, decode and verify; returns a ``TrainResult`` (``.network``,
    ``.predict(X)``, ``.status``, ``.train_accuracy``, ``.test_accuracy``, ``.steps``).

    Keywords: ``solver`` (highs, cbc, scip, glpk, gurobi, cplex, xpress), ``solver_cmd``,
    ``time_limit`` (seconds > 0), ``gap`` (0 to 1), ``threads`` (1 to 1024), ``solver_options``
    (a dict of the solver's own options, passed through as ``--solver-option`` does), ``stall`` (True,
    the default: the full MIP ends once its solver's work moves neither incumbent nor bound for a
    stretch scaled by the model, :mod:`annc.training.mip.stalling`; False: never; a whole number: that
    many work checks), ``greedy``,
    ``out_dir``, ``label``, ``merge``, ``progress`` (a callable), ``verbose``, ``name``,
    ``warm_start``, ``max_nonzeros``, ``scale`` (minmax, standard or none: overrides the spec's
    input scaling, :mod:`annc.core.scaling`), ``missing`` (``"error"``, the default: missing cells are
    an error naming them; ``"drop"``: leave their rows out; ``"impute"``: fill them with the training
    rows' median or most frequent category, recorded with the network: :mod:`annc.core.missing`),
    ``unknown`` (``"ignore"``, the default: a category of ``test`` not seen in ``data`` is all zeros,
    with a warning; ``"error"``: a DataError: :mod:`annc.core.categories`),
    ``select`` (None, the default: what the spec leaves
    open, its l0 weight and width, is chosen by k-fold cross-validation on real data,
    :mod:`annc.training.modelselect.cvselect`; False: the spec's defaults as written; True: the same, and on
    data too small for the folds the held-out grid of :mod:`annc.training.modelselect.selection`; a grid
    dict: that grid; ``.selection`` then holds the path or the table; with ``workers`` or
    ``scheduler`` the folds or candidates run in parallel on Dask, and so do the clustering and the
    annealed seeds of a MIP above 10,000 distinct rows: :mod:`annc.training.large.largedata`), ``select_fraction``,
    ``select_seed``, ``class_weight`` (``"balanced"``, a dict label -> weight, or None: each sample's
    weight in the objective, scikit-learn's convention, :mod:`annc.core.rowweights`; model selection
    then scores balanced accuracy), ``refine`` (adaptive refinement after a relaxed
    solve of a ReLU net: :mod:`annc.training.finish.refine`).  ``.verdict`` says what is proven
    about the exported network (:mod:`annc.solve.verdict`).  ``ensemble="ovo"`` or ``batches=K``
    (with ``per_class``, ``workers``, ``scheduler``) train by decomposition
    (:mod:`annc.training.decompose.decomposition`) and return its ``DecomposedResult``.
    """
    check_keywords(train_request, kw, extra=("verbose",))
    return train_api(spec, data, test, **kw)


def _no_nul(path, what: str):
    if "\0" in os.fspath(path):
        raise UsageError(f"{what} path {os.fspath(path)!r} has a NUL character")
    return path


def as_spec(spec, data=None) -> NetworkSpec:
    """A :class:`NetworkSpec` from a spec, a ``.ann`` path, or ``.ann`` source text; with
    ``data`` (the data argument beside it), a spec file that does not parse while the two
    look swapped says so (:func:`annc.io.spec.load_spec_of`)."""
    if isinstance(spec, NetworkSpec):
        return spec
    data = data if isinstance(data, (str, os.PathLike)) else None
    if isinstance(spec, os.PathLike) and isinstance(os.fspath(spec), str):
        return load_spec_of(_no_nul(spec, "spec"), data)
    if isinstance(spec, str):
        if "\n" in spec or "\0" in spec or (not os.path.exists(spec)
                                            and spec.lstrip().startswith(("input", "#"))):
            return parse_spec(spec, "<spec>")
        return load_spec_of(spec, data)
    raise UsageError(f"spec must be a NetworkSpec, a path or .ann text, not {type(spec).__name__}")


def as_data(data, *, label: str | None = None, classes: list | None = None, name: str = "<arrays>",
            like: Dataset | None = None, missing: str | None = None, unknown: str | None = None) -> Dataset:
    """A :class:`Dataset` from a Dataset, a CSV path, or a pair ``(X, y)`` of arrays
    (``y``: class labels; the classes are the sorted labels, or ``classes``).  ``X`` may
    be a data frame: its column names are then the feature names (and a named ``y``,
    such as a pandas Series, names the label).

    With ``like`` (the training data, for a test set) the classes are those of ``like``
    and the feature columns are found by name (:func:`annc.core.columns.match_columns`), so
    they come in the order of ``like``'s.

    Missing cells (NaN, None, ``pandas.NA``; empty, ``NA`` or ``NaN`` in a CSV) follow the rule
    ``missing`` (:mod:`annc.core.missing`: None or ``"error"``, ``"drop"``, ``"impute"``); with
    ``like`` they get ``like``'s fills (``"drop"``: their rows are dropped), and a category
    ``like`` did not see follows ``unknown`` (:data:`annc.core.categories.UNKNOWN_RULES`: all
    zeros with a warning, or an error).  A ``Dataset`` is taken as it is."""
    classes = like.classes if like is not None and classes is None else classes
    missing = check_rule(missing)
    if isinstance(data, (str, os.PathLike)) and isinstance(os.fspath(data), str):
        return load_data(_no_nul(data, "data"), label=label, classes=classes, inputs_of=like, missing=missing,
                         unknown=unknown)
    if isinstance(data, Dataset):
        data = data if like is None else _in_order_of(data, like)
        if classes is None or list(data.classes) == list(classes):
            return data
        labels = np.asarray(data.classes, dtype=object)[data.y]
        return replace(_array_data(data.X, labels, label=data.label, classes=classes, name=data.path),
                       features=data.features, named=data.named)
    if isinstance(data, tuple) and len(data) == 2:
        X, y = data
        names = frame_columns(X)
        order = None if like is None else match_columns(names, like.columns, like.inputs, name)
        if order is not None:  # a data frame's columns, by name, before its cells are read
            names = [names[i] for i in order]
            X = X[names]
        return table_data(X, y, names, label=label, classes=classes, name=name, like=like, missing=missing,
                          unknown=unknown)
    raise UsageError("data must be a Dataset, a CSV path or a pair (X, y), "
                     f"not {type(data).__name__}")


def table_data(X, y, names: list[str] | None, *, label: str | None = None, classes: list | None = None,
               name: str = "<arrays>", like: Dataset | None = None, missing: str = "error",
               unknown: str | None = None) -> Dataset:
    """The :class:`Dataset` of a table ``X`` (an array or a data frame's cells, its columns
    ``names``, None for an array) and labels ``y``: one-hot encoded when it has text columns
    (or ``like``, the training data of a test set, has), its missing cells as ``missing`` says
    (:mod:`annc.core.missing`).  :func:`as_data` and the estimator's ``fit`` read tables here."""
    if names is not None and ((like is not None and like.categories) or not all_numbers(X)):
        return _text_data(X, y, label=label, classes=classes, name=name, names=names, like=like, missing=missing,
                          unknown=unknown)
    return _array_data(X, y, label=label, classes=classes, name=name, names=names, missing=missing, like=like)


def _text_data(X, y, *, label, classes, name: str, names: list[str], like: Dataset | None,
               missing: str = "error", unknown: str | None = None) -> Dataset:
    """:func:`as_data` of a data frame with text columns (:mod:`annc.core.categories`):
    encoded as ``like`` encodes its own (a test set), or as its training data; its missing
    cells as :func:`as_data` says (:func:`annc.core.encoding.fit_encoding`, :func:`~annc.core.encoding.encode_table`)."""
    cells = np.asarray(X, dtype=object)
    if like is not None and like.columns is not None and like.categories:
        enc = encode_table(cells, like.columns, name, missing, unknown)
    else:
        enc = fit_encoding(cells, names, label or _series_name(y), name, missing)
    y = _rows_kept(y, enc.keep)
    columns = enc.columns
    data = _array_data(enc.X, y, label=columns.label or label, classes=classes, name=name, names=list(columns.features))
    return replace(data, categories=dict(columns.categories), imputed=dict(columns.imputed), missing=missing,
                   missing_note=enc.note)


def _rows_kept(y, keep):
    """The labels ``y`` of the rows ``keep`` (None: all; a ``y`` of another length is left for
    :func:`~annc.core.inputs.sample_arrays` to refuse)."""
    if keep is None or np.ndim(y) != 1 or len(y) != len(keep):
        return y
    return np.asarray(y)[keep]


def _in_order_of(data: Dataset, like: Dataset) -> Dataset:
    """``data`` with its feature columns in the order of ``like``'s, found by name
    (:func:`annc.core.columns.match_columns`; one-hot inputs by their names, when both
    encode the same text columns the same way)."""
    if data.categories != like.categories:
        raise DataError(f"{data.path}: its text columns are not encoded as the training data's "
                        f"({data.categories or 'none'} and {like.categories or 'none'})")
    named = like.columns if like.columns is None else Columns(like.columns.features, like.label)
    order = match_columns(data.features if data.named else None, named, like.inputs, data.path)
    if order is None:
        return data
    return replace(data, X=data.X[:, order], features=[data.features[i] for i in order])


def _array_data(X, y, *, label: str | None, classes: list | None, name: str,
                names: list[str] | None = None, missing: str | None = None, like: Dataset | None = None) -> Dataset:
    """:func:`as_data` of a pair ``(X, y)`` (``names``: the feature names of a data
    frame ``X``); :class:`DataError` names what is wrong.  With ``missing``, NaN cells follow
    that rule (:func:`annc.core.missing.settle`; with ``like``, its fills); without, X has none
    (it was settled before: :func:`_text_data`)."""
    columns = None
    if names is not None:
        try:
            columns = Columns(tuple(names), label or _series_name(y))
        except UsageError as e:
            raise DataError(f"{name}: the columns of X: {e}") from None
    settled = None
    if missing is not None:
        X, y = sample_arrays(X, y, name, DataError, allow_nan=True)
        features = list(columns.features) if columns else [f"x{i + 1}" for i in range(X.shape[1])]
        fills = None if like is None else dict(like.imputed)
        settled = settle(X, features, [None] * len(features), rule=missing, fills=fills, source=name)
        X = settled.cells if settled.keep is None else settled.cells[settled.keep]
        y = _rows_kept(y, settled.keep)
    X, y = sample_arrays(X, y, name, DataError)
    # labels as the CSV loader sees them: integer-valued numbers as integers
    texts = [str(int(v)) if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
             and np.isfinite(v) and float(v).is_integer() else str(v) for v in y.tolist()]
    if classes is None:
        classes = class_order(texts)
        if len(classes) < 2:
            raise DataError(f"{name}: every label is {classes[0]}; training needs at least two classes")
    classes = list(classes)
    lookup = class_lookup(classes)
    found = [class_index(t, lookup) for t in texts]
    bad = sorted({t for t, i in zip(texts, found) if i is None})
    if bad:
        raise DataError(f"{name}: labels {', '.join(bad[:5])} are not among the classes "
                        + ", ".join(map(str, classes)))
    idx = np.array(found, dtype=np.int64)
    features = list(columns.features) if columns else [f"x{i + 1}" for i in range(X.shape[1])]
    label = (columns.label if columns else label) or "label"
    data = Dataset(X, idx, classes, features, label, name, array_digest(X, idx), named=columns is not None)
    if settled is None:
        return data
    return replace(data, imputed=settled.fills, missing=missing, missing_note=settled.note)


def _series_name(y) -> str | None:
    """The name of a labelled ``y`` (a pandas Series), if it is a non-empty string."""
    label = getattr(y, "name", None)
    return label if isinstance(label, str) and label else None


def _stem_of(spec_arg, spec: NetworkSpec) -> str:
    if isinstance(spec_arg, (str, os.PathLike)) and os.path.exists(spec_arg):
        return Path(spec_arg).stem
    return Path(spec.source).stem.strip("<>").replace(" ", "_") or "net"


def compile_api(spec, data, *, out_dir=None, fmt: str = "mps", label: str | None = None, merge: bool = True,
                allow_small_m: bool = False, gzip: bool = False, writer: str = "annc",
                name: str | None = None, max_nonzeros: int | None = None, start: bool = True,
                start_budget: float | None = None, scale: str | None = None, missing: str | None = None,
                class_weight=None) -> Compiled:
    """``annc compile`` as a function: the built model and its map; with ``out_dir`` also
    the files ``<out_dir>/<name>.<fmt>`` and ``<out_dir>/<name>.map.json``.  Checks
    every argument before it writes anything (:class:`~annc.core.errors.UsageError`).

    With ``start`` (the default) it also searches for a MIP start, as ``annc compile``
    does (:func:`annc.training.search.incumbent.budgeted_start`, ``start_budget`` seconds, 20 by
    default): the point is ``.start`` (None if there is none; ``.start_message`` says
    why), and with ``out_dir`` its files ``<name>.start.*`` are written with the model.
    ``class_weight`` (``"balanced"``, a dict label -> weight, None) weighs each sample in the
    objective (:mod:`annc.core.rowweights`)."""
    check_class_weight(class_weight)
    check_compile_options(fmt=fmt, gzip=gzip, writer=writer, label=label, merge=merge,
                          allow_small_m=allow_small_m, max_nonzeros=max_nonzeros, start=start,
                          start_budget=start_budget)
    check_scale(scale)
    out = check_out_dir(out_dir) if out_dir is not None else None
    s = with_scale(as_spec(spec, data), scale)
    stem = check_name(name if name is not None else _stem_of(spec, s))
    d, csv = csv_backing(with_weights(as_data(data, label=label, missing=missing), class_weight), out,
                         f"{stem}.data")
    options = CompileOptions(fmt=fmt, gzip=gzip, writer=writer, merge=merge, allow_small_m=allow_small_m,
                             max_nonzeros=max_nonzeros, start=start, start_budget=start_budget)
    return compile_model(s, d, name=stem, out=out, options=options, data_csv=csv)


def train_request(spec, data, test=None, *, solver: str | None = None, solver_cmd: str | None = None,
                  time_limit: float | None = None, gap: float | None = None, threads: int | None = None,
                  solver_options: dict | None = None, stall: bool | int = True, greedy: bool | None = None,
                  out_dir=None, label: str | None = None, merge: bool = True,
                  progress: Callable | None = None, name: str | None = None,
                  warm_start: bool = True, max_nonzeros: int | None = None, refine: bool = True,
                  scale: str | None = None, select: bool | dict | None = None, select_fraction: float = 0.25,
                  select_seed: int = 0, ensemble: str | None = None, batches: int | None = None,
                  per_class: int | None = None, workers: int | None = None,
                  scheduler: str | None = None, missing: str | None = None, unknown: str | None = None,
                  class_weight=None, sample_weight=None) -> TrainRequest:
    """The :class:`~annc.training.request.TrainRequest` of :func:`train_api`'s arguments (not yet
    checked: :func:`annc.training.dispatch.run` checks it): the spec, data and test data read
    (:func:`as_spec`, :func:`as_data`), the input scaling applied to the spec.  ``class_weight``
    (``"balanced"``, a dict label -> weight, None) and ``sample_weight`` (one weight per sample)
    weigh each sample in the objective (:mod:`annc.core.rowweights`)."""
    check_class_weight(class_weight)
    check_compile_options(label=label, max_nonzeros=max_nonzeros)
    check_scale(scale)
    s = with_scale(as_spec(spec, data), scale)
    d = as_data(data, label=label, missing=missing)
    t = None if test is None else as_data(test, label=label, name="<test arrays>", like=d, missing=missing,
                                          unknown=unknown)
    opts = SolveOptions(time_limit=time_limit, gap=gap, threads=threads, progress=progress, stall=stall,
                        native=tuple((solver_options or {}).items()) if isinstance(solver_options, dict)
                        else solver_options or ())
    return TrainRequest(s, d, t, solver=solver, solver_cmd=solver_cmd, opts=opts, out_dir=out_dir,
                        stem=name if name is not None else _stem_of(spec, s), merge=merge, greedy=greedy,
                        warm_start=warm_start, max_nonzeros=max_nonzeros, refine=refine, select=select,
                        select_fraction=select_fraction, select_seed=select_seed, ensemble=ensemble,
                        batches=batches, per_class=per_class, workers=workers, scheduler=scheduler,
                        class_weight=class_weight, sample_weight=sample_weight)


def train_api(spec, data, test=None, *, verbose: bool = False, **keywords):
    """``annc train`` as a function; returns a :class:`TrainResult` (``.network``,
    ``.predict(X)``, ``.status``, ``.steps``, accuracies).  Writes files only with ``out_dir``.

    ``ensemble="ovo"`` or ``batches=K`` (or a spec saying ``training ovo`` /
    ``training batches K``) trains by decomposition (:mod:`annc.training.decompose.decomposition`, each MIP
    a Dask task: ``workers``, ``scheduler``, ``per_class``) and returns its
    ``DecomposedResult`` (``.network`` is an ``Ensemble`` for ovo).

    ``spec``: a NetworkSpec, a ``.ann`` path or ``.ann`` text; ``data`` and ``test``: a
    Dataset, a CSV path or ``(X, y)``; the other keywords are those of
    :func:`train_request`, which builds the request that :func:`annc.training.dispatch.run` checks
    and trains.  ``verbose=True`` prints what the CLI prints while
    solving; ``progress`` receives :class:`~annc.solve.solvers.Progress` objects (the solver's,
    and, with their ``phase``, those of the build, the start search and the finish).  Bad
    arguments raise :class:`~annc.core.errors.UsageError` (:class:`~annc.core.errors.DataError`
    for data), checked as the CLI checks them (:meth:`annc.training.request.TrainRequest.checked`),
    before anything is written.
    """
    if verbose is not None and not isinstance(verbose, (bool, np.bool_)):
        raise UsageError(f"verbose must be True or False, not {verbose!r}")
    request = train_request(spec, data, test, **keywords)
    if verbose and request.mode in DECOMPOSED:
        request.log = print
    elif verbose:  # the command line's lines (annc.app.progress), without its live line and heartbeat
        from .progress import Reporter
        shown = Reporter(live=False, heartbeat=False, phase="build")
        request.log = shown.log
        request.opts.progress = request.opts.progress or shown.progress
    from ..training.dispatch import run  # with the training's modules (scikit-learn): annc.compile needs none
    return run(request)


def check_keywords(function: Callable, kw: dict, extra: tuple = ()) -> None:
    """A misspelt keyword of ``annc.compile`` / ``annc.train`` is a UsageError that names
    the right ones, not Python's TypeError."""
    import difflib
    import inspect
    known = [p.name for p in inspect.signature(function).parameters.values() if p.kind == p.KEYWORD_ONLY]
    known += extra
    for name in kw:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            raise UsageError(f"unknown keyword {name!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
                             + f"; the keywords are {', '.join(known)}")
