"""The cells of a CSV's feature columns: numbers, categories and missing cells read for
:mod:`annc.io.data` (:func:`annc.io.data.load_data`, :func:`annc.io.data.load_features`).

Every problem with a cell is collected (:class:`Problems`) with the file's line and the
column's name and 1-based number, and raised together as one
:class:`~annc.core.errors.DataError`: the first :data:`MAX_REPORTED` of them.
:func:`read_features` is the one place that turns a file's feature cells into the input
matrix: missing cells by the rule (:mod:`annc.core.missing`), text columns one-hot
(:mod:`annc.core.categories`; a category not seen in training by the rule ``unknown``, one
warning per column: :func:`annc.core.encoding.warn_unseen`).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..core.categories import category_of, check_unknown, column_kinds
from ..core.columns import clipped
from ..core.encoding import mixed_column, unseen, warn_unseen
from ..core.errors import DataError
from ..core.limits import LARGEST
from ..core.missing import Settled, settle

MAX_REPORTED = 20
HINTED_REPORTED = 3  # cell problems shown after a hint that explains them all (--label)


class Problems:
    """Collects located cell problems; raises them all at once."""

    def __init__(self, path: str):
        self.path = path
        self.messages: list[str] = []
        self.headlines: list[str] = []  # what explains many of the messages, shown first and not counted

    def add(self, message: str) -> None:
        self.messages.append(f"{self.path}: {message}")

    def cell(self, row: int, name: str, column: int, message: str) -> None:
        self.add(f"row {row}, column '{name}' ({column}): {message}")

    def raise_if_any(self, hint: str | None = None) -> None:
        """Raise the problems, if any: the first :data:`MAX_REPORTED`, or ``hint`` and the
        first :data:`HINTED_REPORTED`, then how many more."""
        if not self.messages:
            return
        shown = self.messages[:HINTED_REPORTED if hint else MAX_REPORTED]
        more = len(self.messages) - len(shown)
        if hint:
            shown = [f"{self.path}: {hint}"] + shown
        shown = [f"{self.path}: {h}" for h in self.headlines] + shown
        if more:
            shown.append(f"{self.path}: ... and {more} more")
        raise DataError("\n".join(shown))


def shown(s: str) -> str:
    """A cell as quoted in a message (long ones clipped)."""
    return repr(clipped(s))


def number(text: str) -> tuple[float | None, str | None]:
    """(value, None) or (None, what is wrong with the cell).

    A feature is a coefficient of the model (``x * alpha`` in layer 0's rows), so its
    magnitude must stay below :data:`annc.core.limits.LARGEST` like every number of the model.
    """
    s = text.strip()
    if not s:
        return None, "empty cell"
    try:
        value = float(s) if "_" not in s else None  # float() would read 1_0 as 10
    except ValueError:
        value = None
    if value is None:
        return None, f"{shown(s)} is not a number"
    if not math.isfinite(value):
        return None, f"{shown(s)} is not a finite number"
    if abs(value) >= LARGEST:
        return None, (f"{shown(s)} is too large: a feature is a coefficient of the model, and "
                      f"every number of the model stays below {LARGEST:g} (rescale the column)")
    return value, None


@dataclass
class Features:
    """A file's feature cells read: ``rows`` (header first) after the missing-cell rule
    (dropped rows left out), ``X`` the input matrix (a ragged row's all zeros: it is a
    problem), ``kinds`` each feature column's categories (None: numbers), ``settled`` what
    the rule did, and the ``problems`` found (not yet raised)."""

    rows: list
    X: np.ndarray
    kinds: list
    settled: Settled
    problems: Problems


def read_features(rows: list, names: list[str], feature_cols: list[int], inputs_of, missing: str, path: str,
                  unknown: str | None = None) -> Features:
    """The feature columns ``feature_cols`` (positions in the header ``names``, in input
    order) of the file's ``rows`` (header first) as :class:`Features`: for training data
    (``inputs_of`` None) text columns are those none of whose cells is a number; read for a
    trained network (``inputs_of``), its recorded categories, a category it did not see being
    all zeros with one warning per column (``unknown`` ``"ignore"``, None) or a problem
    (``"error"``)."""
    unknown, problems = check_unknown(unknown), Problems(path)
    recorded = None if inputs_of is None else (inputs_of.columns.categories if inputs_of.columns is not None else ())
    shaped = [cells for _, cells in rows[1:] if len(cells) == len(names)]
    kinds = column_kinds(names, feature_cols, shaped, recorded)
    rows, settled = settle_rows(rows, names, feature_cols, kinds, missing, inputs_of, path)
    if settled.keep is not None and recorded is None:  # the categories are those of the rows kept
        kinds = column_kinds(names, feature_cols, [cells for _, cells in rows[1:] if len(cells) == len(names)], None)
    at = np.cumsum([0] + [1 if k is None else len(k) for k in kinds])
    lookups = [None if k is None else {c: i for i, c in enumerate(k)} for k in kinds]
    X = np.zeros((len(rows) - 1, int(at[-1])))
    ignored = [Counter() for _ in feature_cols]
    words = [Counter() for _ in feature_cols]  # a numeric column's cells that are words
    for r, (line, cells) in enumerate(rows[1:]):
        if len(cells) != len(names):
            problems.add(f"row {line} has {len(cells)} cells, the header has {len(names)}")
            continue
        for j, col in enumerate(feature_cols):
            if lookups[j] is not None:  # a text column: its one-hot inputs
                text = category_of(cells[col])
                k = lookups[j].get(text)
                if k is not None:
                    X[r, at[j] + k] = 1.0
                elif text and unknown == "ignore":  # a category not seen in training: all zeros
                    ignored[j][text] += 1
                else:
                    problems.cell(line, names[col], col + 1, unseen(names[col], text, kinds[j]) if text
                                  else "empty cell")
                continue
            value, wrong = number(cells[col])
            if wrong:
                problems.cell(line, names[col], col + 1, wrong)
                words[j][clipped(cells[col].strip())] += wrong.endswith("is not a number")
            else:
                X[r, at[j]] = value
    problems.headlines += [mixed_column(names[col], +words[j], len(rows) - 1) for j, col in enumerate(feature_cols)
                           if +words[j]]
    for j, col in enumerate(feature_cols):
        warn_unseen(path, names[col], ignored[j])
    return Features(rows, X, kinds, settled, problems)


def settle_rows(rows: list, names: list[str], feature_cols: list[int], kinds: list, missing: str | None, inputs_of,
                path: str) -> tuple[list, Settled]:
    """The rows of the file (header first) after the rule for missing feature cells
    (:func:`annc.core.missing.settle`): dropped rows left out, missing cells filled with their
    fill's text; and what was settled.  Ragged rows are left as they are (they are errors)."""
    shaped = [(i, line, cells) for i, (line, cells) in enumerate(rows[1:]) if len(cells) == len(names)]
    table = np.array([[cells[c] for c in feature_cols] for _, _, cells in shaped], dtype=object)
    table = table.reshape(len(shaped), len(feature_cols))
    fills = None
    if inputs_of is not None:
        fills = dict(inputs_of.columns.imputed) if inputs_of.columns is not None else {}
    settled = settle(table, [names[c] for c in feature_cols], kinds, rule=missing, fills=fills, source=path,
                     rows=[line for _, line, _ in shaped])
    if settled.note is None:
        return rows, settled
    out, dropped = list(rows[1:]), set()
    for k, (i, line, cells) in enumerate(shaped):
        if settled.keep is not None and not settled.keep[k]:
            dropped.add(i)
            continue
        filled = list(cells)
        for j, c in enumerate(feature_cols):
            value = settled.cells[k, j]
            filled[c] = value if isinstance(value, str) else repr(float(value))
        out[i] = (line, filled)
    return [rows[0]] + [row for i, row in enumerate(out) if i not in dropped], settled
