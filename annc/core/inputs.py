"""Reading the user's input files and arrays: one place for what can go wrong.

Every reader (specs, CSV data, weights files) and every array entry point (the Python
API, :func:`annc.io.problem.make_problem`) goes through these checks, so a missing file, a
folder, an unreadable file or a non-numeric array gets the same kind of message from each,
as the caller's own error type (``SpecError``, ``DataError``, ``WeightsError``, ...).

Column names (:class:`Columns`, :func:`match_columns`): a network records the names of
its training columns, and every reader of a table for a trained network (``annc eval``,
``annc report``, ``annc decode --data``, ``annc train --test``, ``predict`` on a data
frame, the scikit-learn estimator) finds its features by name through
:func:`match_columns`, so a table whose columns come in another order gives the same
predictions, and a missing or extra column is an error that names it.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .categories import category_of, check_categories, is_number, onehot_name, source_columns, text_categories
from .errors import AnncError, AnncWarning, DataError, UsageError, WeightsError
from .missing import check_fills, missing_mask, settle


def read_bytes(path: str | Path, what: str, error: type[AnncError] = AnncError) -> bytes:
    """The bytes of ``path``; ``error("<path>: <what> not found")`` and the like otherwise."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: {what} not found") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a {what}") from None
    except OSError as err:
        raise error(f"{path}: cannot read {what} ({err.strerror or err})") from None


def sample_arrays(X, y, name: str, error: type[AnncError], allow_nan: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``X`` as an N x d array of finite floats (N, d >= 1) and ``y`` as a 1-D array of N
    labels; ``error`` naming ``name`` and what is wrong otherwise.  ``allow_nan``: NaN (a
    missing cell, :mod:`annc.core.missing`) is let through for the caller's rule."""
    try:
        X = np.asarray(X) if not allow_nan else as_floats(X)  # missing cells (None, pandas' NA) as NaN
        if np.iscomplexobj(X):
            raise TypeError("complex numbers")
        X = X.astype(float)
    except (TypeError, ValueError, OverflowError) as e:
        raise error(f"{name}: X must be a 2-D array of numbers ({e})") from None
    try:
        y = np.asarray(y)
    except (TypeError, ValueError) as e:
        raise error(f"{name}: y must be a 1-D array of labels ({e})") from None
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
        raise error(f"{name}: X must be 2-D and y 1-D with one label per row of X "
                    f"(got shapes {X.shape} and {y.shape})")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise error(f"{name}: X has no {'samples' if X.shape[0] == 0 else 'feature columns'} "
                    f"(shape {X.shape})")
    if not np.all(np.isfinite(X) | (np.isnan(X) if allow_nan else False)):
        raise error(f"{name}: X has values that are not finite numbers")
    return X, y


# ---------------------------------------------------------------------------
# Column names: what a network records of its training columns, and the one
# function that matches a table's columns to them
# ---------------------------------------------------------------------------

def clipped(s: str, keep: int = 12) -> str:
    """``s``, or its ends and its length if it is long."""
    return s if len(s) <= 2 * keep + 3 else f"{s[:keep]}...{s[-keep:]} ({len(s)} characters)"


def listed(items, most: int = 10, quote: bool = False) -> str:
    """``a, b, c`` (the first ``most`` items, clipped, quoted with ``quote``, then how many more)."""
    items = list(items)
    text = ", ".join(repr(clipped(str(c))) if quote else clipped(str(c)) for c in items[:most])
    return text + (f" and {len(items) - most} more" if len(items) > most else "")


@dataclass(frozen=True)
class Columns:
    """The names of a network's training columns: its input ``features``, in the order
    its first layer reads them, the ``label`` column (None if not known), the text
    columns it one-hot encodes (``categories``: each column's name and its categories,
    whose inputs ``column=category`` follow each other in ``features``:
    :mod:`annc.core.categories`; a dict or pairs, kept as sorted pairs), and the fill of a
    missing cell of each column (``imputed``: column -> the median of a numeric column or
    a category of a text column, :mod:`annc.core.missing`; none unless trained with
    ``--missing impute``; kept as sorted pairs).

    Features are distinct, non-empty strings; a :class:`~annc.core.errors.UsageError` says
    otherwise (readers of files re-raise it as their own error type)."""

    features: tuple[str, ...]
    label: str | None = None
    categories: tuple = ()
    imputed: tuple = ()

    def __post_init__(self):
        if isinstance(self.features, str) or not all(isinstance(f, str) and f for f in self.features):
            raise UsageError("feature names must be a list of non-empty strings")
        features = tuple(self.features)
        twice = sorted({f for f in features if features.count(f) > 1})
        if twice:
            raise UsageError(f"feature names must be distinct; repeated: {listed(twice)}")
        if self.label is not None and not (isinstance(self.label, str) and self.label):
            raise UsageError("the label name must be a non-empty string or None")
        cats = self.categories
        try:
            cats = check_categories(dict(cats) if not isinstance(cats, dict) else cats, features)
        except (TypeError, ValueError) as e:
            raise UsageError(f"categories: {e}") from None
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "categories", cats)
        try:
            fills = check_fills(self.imputed, source_columns(features, cats))
        except (TypeError, ValueError) as e:
            raise UsageError(str(e)) from None
        object.__setattr__(self, "imputed", fills)

    @property
    def sources(self) -> list[tuple[str, tuple | None]]:
        """The table's columns behind the features: ``(name, None)`` for a numeric column,
        ``(name, categories)`` for a text column, in the order of the features."""
        return source_columns(self.features, self.categories)

    @property
    def raw(self) -> tuple[str, ...]:
        """The names of the table's feature columns (a text column once), in input order."""
        return tuple(name for name, _ in self.sources) if self.categories else self.features

    @property
    def onehot(self) -> np.ndarray:
        """Which features are one-hot inputs of a text column (never scaled: :mod:`annc.core.scaling`)."""
        names = {onehot_name(c, k) for c, cats in self.categories for k in cats}
        return np.array([f in names for f in self.features], dtype=bool)

    def to_dict(self) -> dict:
        cats = {"categories": {c: list(k) for c, k in self.categories}} if self.categories else {}
        fills = {"imputed": dict(self.imputed)} if self.imputed else {}
        return {"features": list(self.features), "label": self.label, **cats, **fills}

    @classmethod
    def from_dict(cls, d) -> "Columns":
        """The columns of a parsed weights file; :class:`~annc.core.errors.UsageError` when
        ``d`` is not an object with a list ``features``, a ``label`` (string or null),
        optional ``categories`` (an object: column -> list of categories) and optional
        ``imputed`` (an object: column -> its fill)."""
        if not isinstance(d, dict) or not set(d) <= {"features", "label", "categories", "imputed"} \
                or not isinstance(d.get("features"), list) or not isinstance(d.get("categories", {}), dict) \
                or not isinstance(d.get("imputed", {}), dict):
            raise UsageError("columns must be an object with a list features, a label and optional categories "
                             "and imputed")
        return cls(tuple(d["features"]), d.get("label"), d.get("categories", {}), d.get("imputed", {}))

    def arrays(self) -> dict:
        """The ``.npz`` arrays: ``columns_features`` (strings), ``columns_label`` ("" for None)
        and, with text columns, ``columns_categories`` (their categories, as JSON), with
        fills, ``columns_imputed`` (as JSON)."""
        d = self.to_dict()
        extra = {f"columns_{k}": np.asarray(json.dumps(d[k])) for k in ("categories", "imputed") if k in d}
        return {"columns_features": np.asarray(self.features, dtype=str),
                "columns_label": np.asarray(self.label or "", dtype=str), **extra}

    @classmethod
    def from_arrays(cls, arrays: dict) -> "Columns | None":
        """The columns of a ``.npz``'s arrays; None when it records none (an older file)."""
        if "columns_features" not in arrays:
            return None
        features, label = arrays["columns_features"], arrays.get("columns_label", np.asarray(""))
        if features.ndim != 1 or features.dtype.kind != "U" or label.ndim != 0 or label.dtype.kind != "U":
            raise UsageError("columns_features must be a list of strings and columns_label a string")
        records = []
        for key, what in (("categories", "column -> list of categories"), ("imputed", "column -> its fill")):
            value = arrays.get(f"columns_{key}", np.asarray("{}"))
            try:
                value = json.loads(str(value)) if value.ndim == 0 and value.dtype.kind == "U" else None
            except ValueError:
                value = None
            if not isinstance(value, dict):
                raise UsageError(f"columns_{key} must be a JSON object: {what}")
            records.append(value)
        return cls(tuple(str(f) for f in features), str(label) or None, *records)


def frame_columns(X) -> list[str] | None:
    """The column names of a data frame (pandas, polars: anything with ``columns``) when
    they are all strings; None for an array, or a frame of unnamed (integer) columns."""
    names = getattr(X, "columns", None)
    if names is None or isinstance(X, np.ndarray):
        return None
    names = list(names)
    return names if names and all(isinstance(n, str) for n in names) else None


def all_numbers(X) -> bool:
    """Whether every cell of the table ``X`` reads as a number (no text column)."""
    try:
        np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        return False
    return True


def column_differences(names: list[str], features) -> tuple[list[str], list[str]]:
    """``(missing, extra)``: the ``features`` not among ``names``, and the ``names`` not
    among the ``features``, each in its own order."""
    have, want = set(names), set(features)
    return [f for f in features if f not in have], [n for n in names if n not in want]


def match_columns(names: list[str] | None, columns: Columns | None, width: int,
                  source: str) -> list[int] | None:
    """Where a table's feature columns ``names`` (None: an array, which has no names)
    hold the ``width`` features of a network that records ``columns`` (None: it records
    none): their positions in ``names``, in the network's order; None for "as they are".

    * both named: by name, in any order; a missing or extra column is a
      :class:`~annc.core.errors.DataError` naming it (``source``: the file or ``X``);
    * a network without names (a weights file of an older annc, a network trained on
      arrays) and a named table: by position, with one :class:`~annc.core.errors.AnncWarning`,
      and a ``DataError`` if the table is not ``width`` columns wide;
    * an array: None (by position; the caller checks its shape).
    """
    if names is None:
        return None
    if columns is None:
        if len(names) != width:
            raise DataError(f"{source} has {len(names)} feature columns but the network takes {width} inputs")
        warnings.warn(f"{source}: the network records no feature names (a weights file of an older annc, "
                      "or trained on arrays): its columns are read by position", AnncWarning, stacklevel=3)
        return None
    missing, extra = column_differences(names, columns.raw)
    if missing or extra:
        parts = [f"{what} column{'s' if len(cols) > 1 else ''} {listed(cols, quote=True)}"
                 for what, cols in (("missing", missing), ("extra", extra)) if cols]
        raise DataError(f"{source}: {'; '.join(parts)} (columns are matched by name to the training "
                        f"features: {listed(columns.raw)})")
    return [names.index(f) for f in columns.raw]


# -- a network's inputs and their names -----------------------------------------------------------
def input_matrix(X, width: int, columns: Columns | None) -> np.ndarray:
    """``X`` as a float matrix of finite rows as wide as the input layer (``width``): a
    data frame's columns found by name when the network records ``columns``
    (:func:`annc.core.inputs.match_columns`), an array's as they are.  A
    :class:`~annc.core.errors.UsageError` (wrong shape or type) or
    :class:`~annc.core.errors.DataError` (NaN or inf, a missing or extra column) otherwise."""
    order = match_columns(frame_columns(X), columns, width, "X")
    if columns is not None and columns.categories:
        return _encoded_input(X, order, width, columns)
    try:
        a = as_floats(X)
    except (TypeError, ValueError) as e:
        raise UsageError(f"X must be a matrix of numbers (samples x {width} features): {e}") from None
    if order is not None:
        a = a[:, order]
    if a.ndim != 2 or a.shape[1] != width:
        raise UsageError(f"X must be a matrix of shape (samples, {width}); got shape {a.shape}")
    a = _filled(a, columns)
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        r, c = bad[0]
        raise DataError(f"X row {r}, column {c}: {a[r, c]} is not a finite number")
    return a


def as_floats(X) -> np.ndarray:
    """``X`` as floats, its missing cells (None, pandas' NA: :func:`annc.core.missing.is_missing`)
    NaN; ``TypeError`` or ``ValueError`` for cells that are not numbers."""
    try:
        return np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        cells = np.asarray(X, dtype=object)
        mask = missing_mask(cells) if cells.ndim == 2 else None
        if mask is None or not mask.any():
            raise
        return np.where(mask, np.nan, cells).astype(float)


def _filled(a: np.ndarray, columns: Columns | None) -> np.ndarray:
    """The float inputs ``a`` of a network that records ``columns`` with their NaN (missing
    cells) filled as it records (:func:`annc.core.missing.settle`: a
    :class:`~annc.core.errors.MissingValuesError` for a column without a fill)."""
    if not np.isnan(a).any():
        return a
    names = list(columns.features) if columns is not None else [f"x{j + 1}" for j in range(a.shape[1])]
    fills = dict(columns.imputed) if columns is not None else {}
    return settle(a, names, [None] * len(names), rule=None, fills=fills, source="X").cells


def _encoded_input(X, order, width: int, columns: Columns) -> np.ndarray:
    """:func:`input_matrix` for a network with text columns: a data frame's columns (by
    name, ``order``) or raw rows as wide as the table (one cell per column, by position)
    encoded (:func:`encode_cells`); an array of numbers as wide as the input layer is
    taken as already encoded."""
    sources = columns.sources
    if order is not None:
        return encode_table(np.asarray(X, dtype=object)[:, order], columns, "X").X
    a = np.asarray(X) if not isinstance(X, list) else np.asarray(X, dtype=object)
    if a.ndim == 2 and a.dtype.kind in "biuf" and a.shape[1] == width:  # numbers only: no category text
        return input_matrix(_filled(a.astype(float), columns), width, None)
    if a.ndim != 2 or a.shape[1] != len(sources):
        raise UsageError(f"X must be raw rows of {len(sources)} cells ({listed(columns.raw)}; text columns as "
                         f"text), a data frame with these columns, or {width} already encoded numbers per row; "
                         f"got shape {a.shape}")
    return encode_table(a.astype(object), columns, "X").X


@dataclass
class Encoded:
    """A table of raw cells read for a network: the input matrix ``X`` of the rows kept, the
    :class:`Columns` that record its encoding (and fills), ``keep`` the rows kept (None: all)
    and ``note``, what was done with missing cells (:class:`annc.core.missing.Settled`)."""

    X: np.ndarray
    columns: Columns
    keep: np.ndarray | None = None
    note: str | None = None


def encode_table(cells: np.ndarray, columns: Columns, source: str, missing: str | None = None) -> Encoded:
    """A table of raw ``cells`` (N x columns, objects, in the order of ``columns.raw``) read
    as the network that records ``columns`` reads it: missing cells filled as it records
    (``missing="drop"``: their rows dropped; :func:`annc.core.missing.settle`), then
    :func:`encode_cells`."""
    sources = columns.sources
    s = settle(cells, [name for name, _ in sources], [cats for _, cats in sources], rule=missing,
               fills=dict(columns.imputed), source=source)
    return _encoded(s, sources, columns, source)


def _encoded(s, sources: list, columns: Columns, source: str) -> Encoded:
    """The :class:`Encoded` table of the settled cells ``s`` (:class:`annc.core.missing.Settled`):
    the rows kept, encoded (:func:`encode_cells`; messages number the rows as the caller gave them)."""
    kept = s.cells if s.keep is None else s.cells[s.keep]
    rows = None if s.keep is None else np.flatnonzero(s.keep)
    return Encoded(encode_cells(kept, sources, source, rows), columns, s.keep, s.note)


def _inputs_of(sources: list) -> list[str]:
    """The input names of the table's columns ``sources``: a numeric column's own, a text column's one-hot inputs."""
    return [f for name, cats in sources for f in ([name] if cats is None else [onehot_name(name, k) for k in cats])]


def encode_cells(cells: np.ndarray, sources: list, source: str, rows=None) -> np.ndarray:
    """The input matrix of a table of raw ``cells`` (N x columns, objects) whose columns are
    ``sources`` (:attr:`Columns.sources`): a numeric column's cells as numbers, a text
    column's as its one-hot inputs (:mod:`annc.core.categories`).  A
    :class:`~annc.core.errors.DataError` lists the cells that are not numbers, not finite,
    or categories not seen in training, each with its row (``rows``: the row of each
    sample, by default 0, 1, ...) and column."""
    n = cells.shape[0]
    rows = range(n) if rows is None else rows
    out = np.zeros((n, sum(1 if cats is None else len(cats) for _, cats in sources)))
    problems, at = [], 0
    for j, (name, cats) in enumerate(sources):
        where = [f"{source} row {r}, column '{clipped(name)}'" for r in rows]
        if cats is None:
            for r, v in enumerate(cells[:, j]):
                x = float(v) if is_number(v) else None
                if x is None or not np.isfinite(x):
                    problems.append(f"{where[r]}: {clipped(str(v))!r} is not a{' finite' if x is not None else ''} number")
                else:
                    out[r, at] = x
            at += 1
            continue
        index = {k: i for i, k in enumerate(cats)}
        for r, v in enumerate(cells[:, j]):
            k = None if v is None or is_number(v) else index.get(category_of(v))
            if k is None:
                problems.append(f"{where[r]}: {unseen(name, category_of(v), cats)}")
            else:
                out[r, at + k] = 1.0
        at += len(cats)
    if problems:
        more = f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise DataError("\n".join(problems[:20]) + more)
    return out


def unseen(column: str, value: str, categories) -> str:
    """What is wrong with a category ``value`` of the text column ``column`` not among its
    training ``categories``."""
    return (f"category {clipped(value)!r} was not seen in training (the categories of "
            f"'{clipped(column)}' are {listed(categories, quote=True)}; annc does not encode an unseen category)")


def fit_encoding(cells: np.ndarray, names: list[str], label: str | None, source: str,
                 missing: str | None = None) -> Encoded:
    """The training encoding of a table of raw ``cells`` (N x columns, objects) with column
    ``names``: every column none of whose cells is a number is a text column
    (:func:`annc.core.categories.text_categories`, missing cells aside); the rule ``missing``
    applied to the missing cells (:func:`annc.core.missing.settle`: an error by default, or
    ``drop``, or ``impute``, whose fills the columns record); returns the :class:`Encoded`
    input matrix and the :class:`Columns` that record the encoding."""
    sources = [(name, text_categories(cells[:, j])) for j, name in enumerate(names)]
    s = settle(cells, list(names), [cats for _, cats in sources], rule=missing, fills=None, source=source)
    if s.keep is not None:  # the categories are those of the rows kept
        sources = [(name, text_categories(cells[s.keep, j])) for j, name in enumerate(names)]
    try:
        columns = Columns(tuple(_inputs_of(sources)), label, {n: cats for n, cats in sources if cats is not None},
                          s.fills)
    except UsageError as e:
        raise DataError(f"{source}: the columns of X: {e}") from None
    return _encoded(s, sources, columns, source)


def check_columns(columns: Columns | None, width: int | None, error: type, source: str) -> None:
    """``error`` naming ``source`` unless ``columns`` (if any) names ``width`` features."""
    if columns is not None and width is not None and len(columns.features) != width:
        raise error(f"{source}: the columns name {len(columns.features)} features but the first layer "
                    f"takes {width} inputs")


def json_columns(d: dict, source: str) -> Columns | None:
    """The ``columns`` field of a parsed weights file (None if absent: an older file)."""
    if "columns" not in d:
        return None
    try:
        return Columns.from_dict(d["columns"])
    except UsageError as e:
        raise WeightsError(f"{source}: field columns: {e}") from None


def npz_columns(arrays: dict, source: str) -> Columns | None:
    """The ``columns_*`` arrays of a ``.weights.npz`` (None if absent: an older file)."""
    try:
        return Columns.from_arrays(arrays)
    except UsageError as e:
        raise WeightsError(f"{source}: field columns: {e}") from None
