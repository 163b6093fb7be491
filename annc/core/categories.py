"""Text (categorical) feature columns, one-hot encoded.

A feature column of a CSV (or a data frame's column) none of whose cells is a number holds
**categories**.  annc encodes it as one 0/1 input per category, in place of the column:
the categories are the distinct cells of the training data (stripped of surrounding
blanks), sorted as text, and the input of category ``k`` of column ``c`` is named
``c=k`` (:func:`onehot_name`).  A row has a 1 in the input of its category and 0 in the
others.  A column that mixes numbers and text is not a category column: its text cells
are errors, as before (a typo in a numeric column must not turn it into categories).

The encoding is recorded with the network's column names
(:class:`annc.core.columns.Columns` ``categories``: each text column's name and its
categories, in order), in the variable map (``data.categories``) and in every weights file
(``columns.categories``; ``columns_categories`` in a ``.npz``, as JSON), so every reader of
a table for a trained network (``annc eval``, ``annc report``, ``predict`` on raw rows or a
data frame, the scikit-learn estimator, ONNX) encodes its cells the same way.

**A category not seen in training** (a rare category that only a test fold holds, say) is
read as scikit-learn's ``OneHotEncoder(handle_unknown="ignore")`` reads it: as **all zeros**,
no one-hot input of its column set, so the column adds nothing to any unit's
pre-activation, with one :class:`~annc.core.errors.UnknownCategoryWarning` per column that
names the column, each unseen category and how many rows have it
(:func:`annc.core.encoding.warn_unseen`; the command line prints it once on stderr).  The
rule ``unknown`` (:data:`UNKNOWN_RULES`: ``--unknown`` on the command line, ``unknown=`` in
Python and on the estimator) is ``ignore`` by default; ``error`` refuses such a category
instead (:class:`~annc.core.errors.DataError`, exit 2, naming the column, the row and the
value, with the known categories).  It applies wherever a table is read for a trained
network (``annc eval``, ``annc predict``, ``annc report``, ``annc train --test``, ``predict``
on raw rows or a data frame, the estimator, the ONNX graph); training data have no unseen
category (their categories are fitted on them).

**Scaling.** The one-hot inputs are not scaled, whatever the spec's ``scale``: they stay
0/1 (``center 0``, ``width 1`` in the recorded scaling), so a first-layer weight on
``c=k`` is what category ``k`` adds to a unit's pre-activation, within the spec's weight
box, and the l0 penalty counts one weight per category and unit.
"""
from __future__ import annotations

import math

import numpy as np

from .errors import UsageError

SEP = "="
MARKERS = frozenset({"", "NA", "N/A", "NaN", "nan"})  # a text cell that means "missing" (stripped): annc.core.missing
UNKNOWN_RULES = ("ignore", "error")  # a category not seen in training: all zeros with a warning, or an error


def check_unknown(rule) -> str:
    """``rule`` if it is one of :data:`UNKNOWN_RULES` (None: ``ignore``); else a
    :class:`~annc.core.errors.UsageError` naming them."""
    if rule is None:
        return "ignore"
    if not isinstance(rule, str) or rule not in UNKNOWN_RULES:
        raise UsageError(f"unknown (--unknown) must be one of {', '.join(UNKNOWN_RULES)}, not {rule!r}")
    return rule


def onehot_name(column: str, category: str) -> str:
    """The name of the input of ``category`` of the text column ``column``: ``column=category``."""
    return f"{column}{SEP}{category}"


def is_missing(cell) -> bool:
    """Whether ``cell`` is a missing value (:mod:`annc.core.missing`): None, a float NaN,
    pandas' ``NA`` or ``NaT``, or text that is blank or one of :data:`MARKERS`.  Such a cell
    is neither a number nor a category."""
    if cell is None:
        return True
    if isinstance(cell, str):
        return cell.strip() in MARKERS
    if isinstance(cell, (float, np.floating)):
        return math.isnan(cell)
    return type(cell).__name__ in ("NAType", "NaTType")


def is_number(cell) -> bool:
    """Whether a cell reads as a number (a float, int or bool, or text ``float()`` reads,
    ``nan`` and ``inf`` included): such a cell is never a category."""
    if isinstance(cell, (int, float, np.number, np.bool_)):
        return True
    s = str(cell).strip()
    if not s or "_" in s:
        return False
    try:
        float(s)
    except ValueError:
        return False
    return True


def text_categories(cells) -> tuple[str, ...] | None:
    """The sorted categories of a column of ``cells`` when none of them is a number and some
    is not missing (:func:`annc.core.missing.is_missing`: blank, NA, NaN, None); None otherwise
    (a numeric column, or one that mixes numbers and text)."""
    values = set()
    for cell in cells:
        if is_missing(cell):  # an empty cell, NA, NaN: missing, neither a number nor a category
            continue
        if is_number(cell):
            return None
        values.add(str(cell).strip())
    return tuple(sorted(values)) if values else None


def category_of(cell) -> str:
    """A cell as a category: its text, stripped of surrounding blanks."""
    return str(cell).strip()


def check_categories(categories: dict, features: tuple) -> tuple:
    """``categories`` (column -> its categories) as a sorted tuple of ``(column, categories)``
    pairs after checking each column's one-hot inputs follow each other in ``features``;
    ``ValueError`` saying what is wrong otherwise."""
    pairs = []
    for column, cats in categories.items():
        if not isinstance(column, str) or not column or isinstance(cats, str) \
                or not all(isinstance(k, str) and k for k in cats) or not cats:
            raise ValueError("categories must map each text column's name to a list of category names")
        cats = tuple(cats)
        if len(set(cats)) != len(cats):
            raise ValueError(f"column {column!r}: its categories must be distinct")
        names = [onehot_name(column, k) for k in cats]
        if names[0] not in features or tuple(features[features.index(names[0]):][:len(names)]) != tuple(names):
            raise ValueError(f"column {column!r}: the features must hold its one-hot inputs "
                             f"{', '.join(names[:3])}{', ...' if len(names) > 3 else ''}, in order and together")
        stray = [f for f in features if f.startswith(column + SEP) and f not in names]
        if stray:
            raise ValueError(f"column {column!r}: feature {stray[0]!r} is named as one of its categories' inputs "
                             "but is not one of them")
        pairs.append((column, cats))
    return tuple(sorted(pairs))


def source_columns(features: tuple, categories: tuple) -> list[tuple[str, tuple | None]]:
    """The table's columns behind the inputs ``features``: ``(name, None)`` for a numeric
    column, ``(name, categories)`` for a text column (its one-hot block), in input order."""
    starts = {onehot_name(c, cats[0]): (c, cats) for c, cats in categories}
    out, i = [], 0
    while i < len(features):
        if features[i] in starts:
            column, cats = starts[features[i]]
            out.append((column, cats))
            i += len(cats)
        else:
            out.append((features[i], None))
            i += 1
    return out


def column_kinds(names: list[str], columns: list[int], rows: list[list[str]], recorded) -> list:
    """Per column of ``columns`` (positions in the header ``names``): None (numbers) or its
    categories.  With ``recorded`` (a trained network's categories: pairs, possibly none)
    those it records for the column's name; for training data (``recorded`` None) those
    of every column of the text ``rows`` none of whose cells is a number."""
    if recorded is not None:
        return [dict(recorded).get(names[i]) for i in columns]
    return [text_categories([cells[i] for cells in rows]) for i in columns]


def encoding_summary(features, categories: dict) -> str:
    """How the inputs ``features`` come from the table: ``7 numeric columns and 'occupation'
    encoded as 5 one-hot columns``."""
    numeric = len(features) - sum(len(k) for k in categories.values())
    parts = [f"{numeric} numeric column{'s' if numeric != 1 else ''}"] if numeric else []
    parts += [f"'{c}' encoded as {len(k)} one-hot column{'s' if len(k) != 1 else ''}" for c, k in categories.items()]
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def width_summary(features, categories: dict) -> str:
    """How many inputs the table gives, for ``input auto``: ``5 numeric columns + 7 one-hot
    columns of 3 text columns`` (or only the numeric part)."""
    onehot = sum(len(k) for k in categories.values())
    numeric = len(features) - onehot
    parts = [f"{numeric} numeric column{'s' if numeric != 1 else ''}"] if numeric or not onehot else []
    if onehot:
        parts.append(f"{onehot} one-hot column{'s' if onehot != 1 else ''} of {len(categories)} text "
                     f"column{'s' if len(categories) != 1 else ''}")
    return " + ".join(parts)
