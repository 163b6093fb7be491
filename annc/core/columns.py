"""Column names: what a network records of its training columns, and the one function that matches
a table's columns to them.

A network records the names of its training columns (:class:`Columns`: its input features in
the order its first layer reads them, the label, the text columns it one-hot encodes and the
fills of missing cells), and every reader of a table for a trained network (``annc eval``,
``annc report``, ``annc decode --data``, ``annc train --test``, ``predict`` on a data frame, the
scikit-learn estimator) finds its features by name through :func:`match_columns`, so a table
whose columns come in another order gives the same predictions, and a missing or extra column
is an error that names it.  The weights files keep the columns as JSON (:func:`json_columns`)
or as ``.npz`` arrays (:func:`npz_columns`).
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass

import numpy as np

from .categories import check_categories, onehot_name, source_columns
from .errors import AnncWarning, DataError, UsageError, WeightsError, weights_field
from .missing import check_fills


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


def check_columns(columns: Columns | None, width: int | None, error: type, source: str) -> None:
    """``error`` naming ``source`` unless ``columns`` (if any) names ``width`` features."""
    if columns is not None and width is not None and len(columns.features) != width:
        raise error(f"{source}: the columns name {len(columns.features)} features but the first layer "
                    f"takes {width} inputs")


def json_columns(d: dict, source: str) -> Columns | None:
    """The ``columns`` field of a parsed weights file (None if absent: an older file)."""
    return weights_field(d, "columns", Columns.from_dict, source)


def npz_columns(arrays: dict, source: str) -> Columns | None:
    """The ``columns_*`` arrays of a ``.weights.npz`` (None if absent: an older file)."""
    try:
        return Columns.from_arrays(arrays)
    except UsageError as e:
        raise WeightsError(f"{source}: field columns: {e}") from None
