"""CSV data sets: feature columns (numbers, or text: one-hot encoded, :mod:`annc.core.categories`) and a label.

Every problem raises :class:`~annc.core.errors.DataError` whose message starts with the
file path and names the row (the 1-based line in the file; the header is line 1)
and the column (its name and 1-based number).  Cell problems are collected and
reported together (the first :data:`MAX_REPORTED` of them).
"""
from __future__ import annotations

import csv
import difflib
import hashlib
import io
import math
import shlex
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..core.categories import category_of, column_kinds, onehot_name
from ..core.columns import Columns, clipped, listed, match_columns
from ..core.encoding import unseen
from ..core.errors import DataError, UsageError
from ..core.inputs import read_bytes
from ..core.limits import LARGEST
from ..core.missing import Settled, check_rule, settle
from .labels import MAX_LABEL_DIGITS, class_index, class_lookup, class_order, long_integer

MAX_REPORTED = 20
HINTED_REPORTED = 3  # cell problems shown after a hint that explains them all (--label)


@dataclass
class Dataset:
    X: np.ndarray  # float, N x d
    y: np.ndarray  # int class index, N
    classes: list  # class labels in stable order (ints sorted numerically, else strings sorted)
    features: list[str]  # feature column names
    label: str  # label column name
    path: str
    sha256: str  # hex digest of the file bytes
    lines: np.ndarray | None = None  # N: the file's line of every sample (None: not from a file)
    named: bool = True  # False: ``features`` are annc's own names (x1, x2, ... of an array)
    categories: dict = field(default_factory=dict)  # text column -> its categories (annc.core.categories)
    imputed: dict = field(default_factory=dict)  # column -> the fill of its missing cells (annc.core.missing)
    missing: str = "error"  # the rule its missing cells were read with (annc.core.missing.RULES)
    missing_note: str | None = None  # what was done with missing cells (rows dropped, cells imputed), if any
    weights: np.ndarray | None = None  # N: each sample's weight in the objective (annc.core.rowweights); None: 1 each
    class_weight: np.ndarray | None = None  # J: the class weights that went into ``weights`` (recorded), if any

    @property
    def inputs(self) -> int:
        """The number of feature columns."""
        return self.X.shape[1]

    @property
    def columns(self) -> Columns | None:
        """The names of the feature and label columns, and the fills of missing cells, as a
        network trained on these data records them; None when the features have no names of
        the user's (arrays) and nothing is imputed (with fills, an array's columns are
        recorded under annc's names ``x1``, ``x2``, ...)."""
        if not (self.named or self.imputed):
            return None
        return Columns(tuple(self.features), self.label, self.categories, self.imputed)


class Inputs(NamedTuple):
    """What reads a table of data (as :func:`load_data`'s ``inputs_of`` takes it, like a
    network, an ensemble or a training :class:`Dataset`): ``inputs`` features named
    ``columns`` (None: names not recorded), and the ``classes``."""

    inputs: int
    columns: Columns | None
    classes: list


def array_digest(X: np.ndarray, y: np.ndarray) -> str:
    """The fingerprint of an in-memory dataset (arrays given to the API, a greedy layer's
    inputs, a selection split): SHA-256 of the bytes of ``X`` then of ``y``, in C order."""
    return hashlib.sha256(np.ascontiguousarray(X).tobytes() + np.ascontiguousarray(y).tobytes()).hexdigest()


# ---------------------------------------------------------------------------
# Reading the file
# ---------------------------------------------------------------------------

def _read_text(path: str) -> tuple[str, str]:
    """The file's text and the sha256 of its bytes."""
    raw = read_bytes(path, "data file", DataError)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise DataError(f"{path}: row {line}: not UTF-8 text (byte 0x{raw[err.start]:02x} at "
                        f"offset {err.start}; save the file as UTF-8)") from None
    return text, hashlib.sha256(raw).hexdigest()


MAX_CELL = 131072  # characters in a cell: the csv module's default field limit, which other libraries raise
# for the whole process (scipy's ARFF reader, used by scikit-survival's data sets, sets it to the maximum)


def _rows(text: str, path: str) -> list[tuple[int, list[str]]]:
    """Non-blank CSV rows as (line number of the row's first line, cells); a cell longer than
    :data:`MAX_CELL` is malformed CSV whatever another library set ``csv.field_size_limit`` to."""
    reader = csv.reader(io.StringIO(text, newline=""))
    rows, line = [], 1
    try:
        for cells in reader:
            if any(len(c) > MAX_CELL for c in cells):
                raise csv.Error(f"field larger than field limit ({MAX_CELL})")
            if any(c.strip() for c in cells):
                rows.append((line, cells))
            line = reader.line_num + 1
    except csv.Error as err:
        raise DataError(f"{path}: row {reader.line_num}: malformed CSV ({err})") from None
    return rows


def _header(line: int, cells: list[str], path: str) -> list[str]:
    names = [c.strip() for c in cells]
    problems = _Problems(path)
    for i, name in enumerate(names, 1):
        if not name:
            problems.add(f"row {line}, column {i}: empty column name in the header")
    seen: dict[str, int] = {}
    for i, name in enumerate(names, 1):
        if name and name in seen:
            problems.add(f"row {line}, column {i}: duplicate column name "
                         f"'{clipped(name)}' (also column {seen[name]})")
        seen.setdefault(name, i)
    problems.raise_if_any()
    if len(names) < 2:
        hint = ""
        if any(sep in cells[0] for sep in ";\t|"):
            hint = " (annc reads comma-separated files)"
        raise DataError(f"{path}: the header has a single column '{clipped(names[0])}'; need at "
                        f"least one feature column and a label column{hint}")
    return names


def _label_index(names: list[str], label: str | None, path: str) -> int:
    if label is None:
        return len(names) - 1
    if not isinstance(label, str):
        raise UsageError(f"label must be a column name (a str), got {type(label).__name__}")
    if label in names:
        return names.index(label)
    close = difflib.get_close_matches(label, names, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise DataError(f"{path}: no column named '{clipped(label)}'{hint}; the columns are: "
                    + listed(names))


# ---------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------

class _Problems:
    """Collects located cell problems; raises them all at once."""

    def __init__(self, path: str):
        self.path = path
        self.messages: list[str] = []

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
        if more:
            shown.append(f"{self.path}: ... and {more} more")
        raise DataError("\n".join(shown))


def _shown(s: str) -> str:
    """A cell as quoted in a message (long ones clipped)."""
    return repr(clipped(s))


def _number(text: str) -> tuple[float | None, str | None]:
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
        return None, f"{_shown(s)} is not a number"
    if not math.isfinite(value):
        return None, f"{_shown(s)} is not a finite number"
    if abs(value) >= LARGEST:
        return None, (f"{_shown(s)} is too large: a feature is a coefficient of the model, and "
                      f"every number of the model stays below {LARGEST:g} (rescale the column)")
    return value, None


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

def load_data(path, label: str | None = None, classes: list | None = None, inputs_of=None,
              missing: str | None = None) -> Dataset:
    """Read a CSV with a header into a :class:`Dataset`.

    The label column is the last one unless ``label`` names another.  With ``classes``
    (e.g. the training classes, for a test set) labels are mapped through that list
    and a label outside it is an error; otherwise the classes are the labels present.

    With ``inputs_of`` (a trained network or ensemble, or the training Dataset of a test
    set: anything with ``inputs``, ``columns`` and ``classes``) the file is read as its
    input: the classes are its classes unless given, the label column is the one of its
    recorded label name when the file has one (and ``label`` is None), and the feature
    columns are found by :func:`annc.core.columns.match_columns` (by name in any order, or by
    position with a warning when it records no names), so ``X`` and ``features`` come in
    its order.

    When the label column was not named and every cell of the last column is a number
    while some feature column holds only text, the error says which column looks like
    the label and suggests ``--label``.

    Missing feature cells (empty, ``NA``, ``NaN``: :mod:`annc.core.missing`) follow the rule
    ``missing`` for training data (None or ``error``: a
    :class:`~annc.core.errors.MissingValuesError`; ``drop``; ``impute``, whose fills the
    Dataset records); read for ``inputs_of``, they get the fills its columns record
    (``drop``: their rows are dropped), else the same error.  A missing label is an error.
    """
    path, missing = str(path), check_rule(missing)
    text, digest = _read_text(path)
    rows = _rows(text, path)
    if not rows:
        raise DataError(f"{path}: the file is empty (expected a header line and data rows)")
    header_line, header_cells = rows[0]
    names = _header(header_line, header_cells, path)
    if inputs_of is not None:
        classes = inputs_of.classes if classes is None else classes
        recorded = inputs_of.columns
        label = recorded.label if label is None and recorded is not None and recorded.label in names else label
    li = _label_index(names, label, path)
    feature_cols = _feature_columns(names, li, inputs_of, path)
    if len(rows) == 1:
        raise DataError(f"{path}: no data rows (only the header)")

    problems = _Problems(path)
    recorded = None if inputs_of is None else (inputs_of.columns.categories if inputs_of.columns is not None else ())
    shaped = [cells for _, cells in rows[1:] if len(cells) == len(names)]
    kinds = column_kinds(names, feature_cols, shaped, recorded)
    rows, settled = _settle(rows, names, feature_cols, kinds, missing, inputs_of, path)
    if settled.keep is not None and recorded is None:  # the categories are those of the rows kept
        kinds = column_kinds(names, feature_cols, [cells for _, cells in rows[1:] if len(cells) == len(names)], None)
    at = np.cumsum([0] + [1 if k is None else len(k) for k in kinds])
    lookups = [None if k is None else {c: i for i, c in enumerate(k)} for k in kinds]
    X = np.zeros((len(rows) - 1, int(at[-1])))
    labels: list[str] = []
    good = []  # the rows whose label cell is usable, for the class mapping
    for r, (line, cells) in enumerate(rows[1:]):
        if len(cells) != len(names):
            problems.add(f"row {line} has {len(cells)} cells, the header has {len(names)}")
            labels.append("")
            continue
        for j, col in enumerate(feature_cols):
            if lookups[j] is not None:  # a text column: its one-hot inputs
                k = lookups[j].get(category_of(cells[col]))
                if k is None:
                    problems.cell(line, names[col], col + 1, "empty cell" if not cells[col].strip()
                                  else unseen(names[col], category_of(cells[col]), kinds[j]))
                else:
                    X[r, at[j] + k] = 1.0
                continue
            value, wrong = _number(cells[col])
            if wrong:
                problems.cell(line, names[col], col + 1, wrong)
            else:
                X[r, at[j]] = value
        labels.append(cells[li])
        if not cells[li].strip():
            problems.cell(line, names[li], li + 1, "empty cell")
        elif long_integer(cells[li]):
            problems.cell(line, names[li], li + 1,
                          f"label {_shown(cells[li].strip())} is an integer of more than "
                          f"{MAX_LABEL_DIGITS} digits")
        else:
            good.append(r)
    hint = None
    if label is None and problems.messages:  # the label is the last column by default
        hint = _label_hint(names, feature_cols, [cells for _, cells in rows[1:]])

    if classes is None:
        problems.raise_if_any(hint)
        classes = class_order(labels)
        if len(classes) < 2:
            raise DataError(f"{path}: all {len(labels)} rows have label {classes[0]}; "
                            "training needs at least two classes")
    else:
        classes = list(classes)
    lookup = class_lookup(classes)
    y = np.zeros(len(labels), dtype=np.int64)
    for r in good:
        index = class_index(labels[r], lookup)
        if index is None:
            problems.cell(rows[r + 1][0], names[li], li + 1,
                          f"label {_shown(labels[r].strip())} is not one of the classes "
                          + listed(classes))
        else:
            y[r] = index
    problems.raise_if_any(hint)
    features = [f for j, i in enumerate(feature_cols)
                for f in ([names[i]] if kinds[j] is None else [onehot_name(names[i], k) for k in kinds[j]])]
    categories = {names[i]: kinds[j] for j, i in enumerate(feature_cols) if kinds[j] is not None}
    try:
        Columns(tuple(features), names[li], categories)
    except UsageError as e:  # a one-hot input's name is also a column's
        raise DataError(f"{path}: the one-hot encoding of the text columns: {e}") from None
    return Dataset(X=X, y=y, classes=classes, features=features, label=names[li], path=path, sha256=digest,
                   lines=np.array([line for line, _ in rows[1:]], dtype=np.int64), categories=categories,
                   imputed=settled.fills, missing=missing, missing_note=settled.note)


def _settle(rows: list, names: list[str], feature_cols: list[int], kinds: list, missing: str | None, inputs_of,
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



def _feature_columns(names: list[str], li: int, inputs_of, path: str) -> list[int]:
    """The feature columns (every column but the label ``li``), in the order ``inputs_of``
    reads them (:func:`annc.core.columns.match_columns`) or, without it, in the file's."""
    cols = [i for i in range(len(names)) if i != li]
    if inputs_of is None:
        return cols
    order = match_columns([names[i] for i in cols], inputs_of.columns, inputs_of.inputs, path)
    return cols if order is None else [cols[i] for i in order]


def _label_hint(names: list[str], feature_cols: list[int], rows: list[list[str]]) -> str | None:
    """When the label is the last column by default: if each of its cells is a number
    while some feature column holds only text (such as class names), a hint that names
    that column and suggests ``--label``; else None."""
    rows = [cells for cells in rows if len(cells) == len(names)]
    last = len(names) - 1
    if not rows or any(_number(cells[last])[1] for cells in rows):
        return None
    text = [i for i in feature_cols if all(cells[i].strip() and _number(cells[i])[1] for cells in rows)]
    if not text:
        return None
    which = ", ".join(f"'{clipped(names[i])}' ({i + 1})" for i in text[:5])
    one = len(text) == 1
    return (f"the last column '{clipped(names[last])}' holds numbers, and column{'' if one else 's'} {which} "
            f"hold{'s' if one else ''} text such as {_shown(rows[0][text[0]].strip())}: if "
            f"{'it is' if one else 'one of them is'} the label, pass --label "
            + (shlex.quote(names[text[0]]) if one else "NAME") + " (label= in Python)")
