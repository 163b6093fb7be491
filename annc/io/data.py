"""CSV data sets: feature columns (numbers, or text: one-hot encoded, :mod:`annc.core.categories`) and a label.

:func:`load_data` reads a labelled file (training, test or evaluation data);
:func:`load_features` reads the feature columns of a file for a trained network, with or
without a label column (``annc predict``).  Every problem raises
:class:`~annc.core.errors.DataError` whose message starts with the file path and names the
row (the 1-based line in the file; the header is line 1) and the column (its name and
1-based number).  Cell problems are collected and reported together (the first
:data:`annc.io.csvcells.MAX_REPORTED` of them: :mod:`annc.io.csvcells`).
"""
from __future__ import annotations

import csv
import difflib
import hashlib
import io
import shlex
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..core.categories import onehot_name
from ..core.columns import Columns, clipped, listed, match_columns
from ..core.errors import DataError, UsageError
from ..core.inputs import read_bytes
from ..core.missing import check_rule
from .csvcells import Problems, number, read_features, shown
from .labels import MAX_LABEL_DIGITS, class_index, class_lookup, class_order, long_integer


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


def _header(line: int, cells: list[str], path: str, labelled: bool = True) -> list[str]:
    names = [c.strip() for c in cells]
    problems = Problems(path)
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
    if len(names) < 1 + labelled:
        hint = ""
        if any(sep in cells[0] for sep in ";\t|"):
            hint = " (annc reads comma-separated files)"
        raise DataError(f"{path}: the header has a single column '{clipped(names[0])}'; need at "
                        f"least one feature column and a label column{hint}")
    return names


def _table(path: str, labelled: bool = True) -> tuple[list, list[str], str]:
    """The file's rows (header first), its column names and the sha256 of its bytes."""
    text, digest = _read_text(path)
    rows = _rows(text, path)
    if not rows:
        raise DataError(f"{path}: the file is empty (expected a header line and data rows)")
    return rows, _header(rows[0][0], rows[0][1], path, labelled), digest


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
# Public API
# ---------------------------------------------------------------------------

def load_data(path, label: str | None = None, classes: list | None = None, inputs_of=None,
              missing: str | None = None, unknown: str | None = None) -> Dataset:
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

    A category of a text column that ``inputs_of`` did not see in training follows the rule
    ``unknown`` (:data:`annc.core.categories.UNKNOWN_RULES`): all zeros with one warning per
    column (``"ignore"``, None), or a problem of the file (``"error"``).
    """
    path, missing = str(path), check_rule(missing)
    rows, names, digest = _table(path)
    if inputs_of is not None:
        classes = inputs_of.classes if classes is None else classes
        recorded = inputs_of.columns
        label = recorded.label if label is None and recorded is not None and recorded.label in names else label
    li = _label_index(names, label, path)
    feature_cols = _feature_columns(names, li, inputs_of, path)
    if len(rows) == 1:
        raise DataError(f"{path}: no data rows (only the header)")

    read = read_features(rows, names, feature_cols, inputs_of, missing, path, unknown=unknown)
    rows, X, kinds, settled, problems = read.rows, read.X, read.kinds, read.settled, read.problems
    labels: list[str] = []
    good = []  # the rows whose label cell is usable, for the class mapping
    for r, (line, cells) in enumerate(rows[1:]):
        if len(cells) != len(names):  # a problem of read_features
            labels.append("")
            continue
        labels.append(cells[li])
        if not cells[li].strip():
            problems.cell(line, names[li], li + 1, "empty cell")
        elif long_integer(cells[li]):
            problems.cell(line, names[li], li + 1,
                          f"label {shown(cells[li].strip())} is an integer of more than "
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
                          f"label {shown(labels[r].strip())} is not one of the classes "
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


@dataclass
class FeatureRows:
    """A file's feature columns read for a trained network (:func:`load_features`): ``X``
    its inputs, one row per data row of the file (``lines``: each one's line), the
    ``features`` in the network's order, ``ignored`` the file's columns it did not read (a
    label column, columns the network does not take) and ``missing_note``, what was done with
    missing cells (filled as the network records), if anything."""

    X: np.ndarray
    lines: np.ndarray
    features: list[str]
    ignored: list[str]
    path: str
    missing_note: str | None = None


def load_features(path, inputs_of, label: str | None = None, unknown: str | None = None) -> FeatureRows:
    """Read the feature columns of a CSV for ``inputs_of`` (a trained network or ensemble),
    with or without a label column, as :func:`load_data` reads them for ``annc eval`` (the
    same cells, fills and one-hot encoding, so the same ``X`` row for row): what ``annc
    predict`` reads.

    The columns are matched by name (:func:`annc.core.columns.match_columns`): a feature the
    network reads that the file lacks is a :class:`~annc.core.errors.DataError` naming it;
    the label column (``label``, else the network's recorded label name) and any column the
    network does not read are ignored (listed in ``ignored``).  A network that records no
    names reads the file by position: all its columns, or all but ``label`` or, one column
    too many, the last (a label), with a warning.  Missing cells get the network's recorded
    fills (else :class:`~annc.core.errors.MissingValuesError`; no row is dropped), and an
    unseen category follows ``unknown`` as in :func:`load_data`."""
    path = str(path)
    rows, names, _ = _table(path, labelled=False)
    recorded = inputs_of.columns
    if label is None and recorded is not None and recorded.label in names:
        label = recorded.label
    skip = {_label_index(names, label, path)} if label is not None else set()
    if recorded is not None:
        skip |= {i for i, name in enumerate(names) if name not in recorded.raw}
    elif not skip and len(names) == inputs_of.inputs + 1:  # by position: the last column is the label
        skip = {len(names) - 1}
    cols = [i for i in range(len(names)) if i not in skip]
    order = match_columns([names[i] for i in cols], recorded, inputs_of.inputs, path)
    feature_cols = cols if order is None else [cols[i] for i in order]
    if len(rows) == 1:
        raise DataError(f"{path}: no data rows (only the header)")
    read = read_features(rows, names, feature_cols, inputs_of, "error", path, unknown=unknown)
    read.problems.raise_if_any()
    features = list(recorded.features) if recorded is not None else [names[i] for i in feature_cols]
    return FeatureRows(read.X, np.array([line for line, _ in read.rows[1:]], dtype=np.int64), features,
                       [names[i] for i in sorted(skip)], path, read.settled.note)


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
    if not rows or any(number(cells[last])[1] for cells in rows):
        return None
    text = [i for i in feature_cols if all(cells[i].strip() and number(cells[i])[1] for cells in rows)]
    if not text:
        return None
    which = ", ".join(f"'{clipped(names[i])}' ({i + 1})" for i in text[:5])
    one = len(text) == 1
    return (f"the last column '{clipped(names[last])}' holds numbers, and column{'' if one else 's'} {which} "
            f"hold{'s' if one else ''} text such as {shown(rows[0][text[0]].strip())}: if "
            f"{'it is' if one else 'one of them is'} the label, pass --label "
            + (shlex.quote(names[text[0]]) if one else "NAME") + " (label= in Python)")
