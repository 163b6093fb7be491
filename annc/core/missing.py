"""Missing cells: what counts as one, and the one rule every reader of a table applies.

A **missing cell** is an empty CSV cell or one that reads ``NA``, ``N/A``, ``NaN`` or ``nan``
(what pandas and R write for a missing value; blanks around it ignored), and in an array or
a data frame given to the Python API or the estimator a NaN, ``None``, ``pandas.NA`` or
``NaT`` (:func:`annc.core.categories.is_missing`, beside what reads as a number or a
category).  annc never reads one as 0.  The rule (:data:`RULES`;
``--missing`` on the command line, ``missing=`` in Python):

* ``error`` (the default): a :class:`~annc.core.errors.MissingValuesError` (exit 2) that names
  each column with missing cells, how many rows have one, and the two options below;
* ``drop``: the training rows with a missing cell are left out (the run says how many);
* ``impute``: each numeric column's missing cells get the **median** of its training rows,
  each text column's the **most frequent category** of its training rows (a tie goes to the
  first in the categories' sorted order), fitted on the training rows only, for every
  feature column (so that data read later may have missing cells in any of them).

The fills are recorded with the columns (:class:`annc.core.columns.Columns` ``imputed``:
column -> its fill, a number or a category), so the variable map (``data.imputed``), every
weights file (``columns.imputed``), prediction, ``annc eval``, ``annc report``, the estimator
and ONNX fill a missing cell the same way, before one-hot encoding and scaling.  Reading data
for a trained network (prediction), a missing cell of a column without a recorded fill is
the same error; ``drop`` there drops the row (``annc train --test`` under ``--missing drop``).

Why not scikit-learn's ``SimpleImputer``: the fills must be recorded as plain numbers and
category names in the map and the weights files and re-applied without scikit-learn (an
optional extra); the fit is a median and a count per column.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from .categories import MARKERS, category_of, is_missing, is_number
from .errors import MissingValuesError, UsageError

__all__ = ["MARKERS", "RULES", "Settled", "check_fills", "check_rule", "fit_fills", "is_missing", "missing_mask",
           "refusal", "settle"]

RULES = ("error", "drop", "impute")
SHOWN_ROWS = 5  # rows named in the message


def check_rule(rule) -> str:
    """``rule`` if it is one of :data:`RULES` (None: ``error``); else a :class:`UsageError`."""
    if rule is None:
        return "error"
    if not isinstance(rule, str) or rule not in RULES:
        raise UsageError(f"missing (--missing) must be one of {', '.join(RULES)}, not {rule!r}")
    return rule


def missing_mask(cells: np.ndarray) -> np.ndarray:
    """Which cells of the 2-D table ``cells`` (floats, or objects) are missing."""
    if cells.dtype.kind == "f":
        return np.isnan(cells)
    if cells.dtype.kind in "biu":
        return np.zeros(cells.shape, dtype=bool)
    return np.vectorize(is_missing, otypes=[bool])(cells) if cells.size else np.zeros(cells.shape, dtype=bool)


def fit_fills(cells: np.ndarray, mask: np.ndarray, names: list[str], kinds: list) -> dict:
    """The fill of every column of ``cells`` from its present cells: a numeric column's
    (``kinds[j]`` None) median, a text column's most frequent category (ties: the first of
    ``kinds[j]``, its sorted categories).  A :class:`MissingValuesError` names a column with
    no present cell."""
    fills, empty = {}, []
    for j, (name, cats) in enumerate(zip(names, kinds)):
        present = cells[~mask[:, j], j]
        if cats is None:
            values = present.astype(float) if present.dtype.kind in "biuf" else np.array(
                [float(v) for v in present if is_number(v)], dtype=float)
            values = values[np.isfinite(values)]
            if values.size:
                fills[name] = float(np.median(values))
            else:
                empty.append(name)
            continue
        counts = Counter(category_of(v) for v in present)
        fills[name] = max(cats, key=lambda k: (counts.get(k, 0), -cats.index(k)))
    if empty:
        raise MissingValuesError(f"column{'s' if len(empty) > 1 else ''} {', '.join(map(repr, empty))} "
                                 "ha" + ("ve" if len(empty) > 1 else "s") + " no value in any training row: "
                                 "there is nothing to impute from (drop the column)")
    return fills


def refusal(mask: np.ndarray, names: list[str], source: str, rows=None, *, recorded: bool | None = None) -> str:
    """The message for the missing cells ``mask`` of the columns ``names`` of ``source``: the
    rows that have one (how many, and the first :data:`SHOWN_ROWS`, numbered by ``rows``), each
    column with its count, and what to do: for training data (``recorded`` None) the two
    options; for data read by a trained network, that it records no fill for these columns
    (``recorded`` False: none at all)."""
    hit = mask.any(axis=1)
    where = np.flatnonzero(hit)
    numbers = [rows[i] for i in where[:SHOWN_ROWS]] if rows is not None else list(where[:SHOWN_ROWS])
    first = ", ".join(str(r) for r in numbers) + (", ..." if len(where) > SHOWN_ROWS else "")
    columns = [f"'{n}' ({int(mask[:, j].sum())} row{'s' if mask[:, j].sum() != 1 else ''})"
               for j, n in enumerate(names) if mask[:, j].any()]
    head = (f"{source}: {len(where)} of {len(mask)} rows have a missing cell (empty, NA or NaN; row"
            f"{'s' if len(where) > 1 else ''} {first}) in column{'s' if len(columns) > 1 else ''} "
            + ", ".join(columns))
    if recorded is None:
        return (head + ". annc does not read a missing cell as 0: pass --missing drop to leave those rows out, "
                "or --missing impute to fill each cell with its column's median (numbers) or most frequent "
                "category (text) on the training rows (missing= in Python)")
    why = "records no imputation (it was trained without --missing impute)" if not recorded else \
        "records no fill for " + ("these columns" if len(columns) > 1 else "this column")
    return head + f". The network {why}: fill or drop those rows, or train with --missing impute"


@dataclass
class Settled:
    """A table after the rule: ``cells`` with the missing ones filled (every row; dropped rows
    as they were), ``keep`` the rows kept (None: all), ``fills`` the fills in force (column ->
    fill; empty when nothing is imputed) and ``note``, what was done, for the run's output."""

    cells: np.ndarray
    keep: np.ndarray | None
    fills: dict
    note: str | None


def settle(cells: np.ndarray, names: list[str], kinds: list, *, rule: str | None, fills: dict | None,
           source: str, rows=None) -> Settled:
    """Apply the rule to the feature cells ``cells`` (N x columns: floats, or objects) whose
    columns are ``names`` (``kinds``: None for a numeric column, its categories for a text
    column; ``rows``: the row number of each, for messages).

    Training data (``fills`` None): ``rule`` ``error`` (or None), ``drop`` or ``impute`` as the
    module docstring says.  Data read by a trained network (``fills``: the fills it records,
    possibly none): ``drop`` drops the rows with a missing cell; otherwise the recorded fills
    fill them, and a missing cell of a column without one is a :class:`MissingValuesError`."""
    rule = check_rule(rule)
    mask = missing_mask(cells)
    training = fills is None
    if training and rule == "impute":
        fills = fit_fills(cells, mask, names, kinds)
    fills = dict(fills or {})
    if not mask.any():
        return Settled(cells, None, fills, None)
    n = len(mask)
    if rule == "drop":
        keep = ~mask.any(axis=1)
        if not keep.any():
            raise MissingValuesError(refusal(mask, names, source, rows) + " (--missing drop would leave no row)")
        cols = [f"'{name}'" for j, name in enumerate(names) if mask[:, j].any()]
        return Settled(cells, keep, {} if training else fills,
                       f"dropped {n - int(keep.sum())} of {n} rows of {source} with a missing cell (in "
                       + ", ".join(cols) + "; --missing drop)")
    unfilled = mask & ~np.array([name in fills for name in names], dtype=bool)
    if unfilled.any():
        raise MissingValuesError(refusal(unfilled, names, source, rows,
                                         recorded=None if training else bool(fills)))
    out = cells.astype(object) if cells.dtype.kind != "f" else cells.copy()
    for j, name in enumerate(names):
        if mask[:, j].any():  # a column without a fill (a file that records some) may have none missing
            out[mask[:, j], j] = fills[name]
    filled = [f"'{name}' {fills[name]!r} ({int(mask[:, j].sum())})" for j, name in enumerate(names) if mask[:, j].any()]
    return Settled(out, None, fills, f"imputed {int(mask.sum())} missing cells in {int(mask.any(axis=1).sum())} "
                   f"of {n} rows of {source}: " + ", ".join(filled))


def check_fills(fills, sources) -> tuple:
    """``fills`` (column -> fill) as sorted ``(column, fill)`` pairs after checking each names a
    column of ``sources`` (:attr:`annc.core.columns.Columns.sources`) and fits it: a finite
    number for a numeric column, one of its categories for a text column; ``ValueError``
    saying what is wrong otherwise."""
    if isinstance(fills, dict):
        fills = fills.items()
    kinds = dict(sources)
    pairs = []
    for column, value in fills:
        if column not in kinds:
            raise ValueError(f"imputed: {column!r} is not a feature column")
        cats = kinds[column]
        if cats is None:
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                    or not math.isfinite(float(value)):
                raise ValueError(f"imputed: the fill of the numeric column {column!r} must be a finite number, "
                                 f"not {value!r}")
            value = float(value)
        elif value not in cats:
            raise ValueError(f"imputed: the fill of the text column {column!r} must be one of its categories, "
                             f"not {value!r}")
        pairs.append((column, value))
    return tuple(sorted(pairs))
