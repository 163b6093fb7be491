"""Encoding a table of raw cells for a network: numeric columns as numbers, text columns as their
one-hot inputs (:mod:`annc.core.categories`), missing cells filled or their rows dropped
(:mod:`annc.core.missing`).

:func:`fit_encoding` chooses the encoding of a training table (every column none of whose cells is
a number is a text column, its categories sorted) and records it in :class:`~annc.core.columns.Columns`;
:func:`encode_table` reads any later table as the network that records those columns reads it,
and :func:`encode_cells` is the one place that turns cells into the input matrix, so training,
``eval``, ``predict``, the estimator and the report encode alike.  A category not seen in
training follows the rule ``unknown`` (:data:`annc.core.categories.UNKNOWN_RULES`): all zeros
with one warning per column (:func:`warn_unseen`; the CSV reader :mod:`annc.io.data` warns
through it too), or an error (:func:`unseen`).
"""
from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass

import numpy as np

from .categories import category_of, check_unknown, is_number, onehot_name, text_categories
from .columns import Columns, clipped, listed
from .errors import DataError, UnknownCategoryWarning, UsageError
from .missing import settle


@dataclass
class Encoded:
    """A table of raw cells read for a network: the input matrix ``X`` of the rows kept, the
    :class:`Columns` that record its encoding (and fills), ``keep`` the rows kept (None: all)
    and ``note``, what was done with missing cells (:class:`annc.core.missing.Settled`)."""

    X: np.ndarray
    columns: Columns
    keep: np.ndarray | None = None
    note: str | None = None


def encode_table(cells: np.ndarray, columns: Columns, source: str, missing: str | None = None,
                 unknown: str | None = None) -> Encoded:
    """A table of raw ``cells`` (N x columns, objects, in the order of ``columns.raw``) read
    as the network that records ``columns`` reads it: missing cells filled as it records
    (``missing="drop"``: their rows dropped; :func:`annc.core.missing.settle`), then
    :func:`encode_cells` (``unknown``: its rule for a category not seen in training)."""
    sources = columns.sources
    s = settle(cells, [name for name, _ in sources], [cats for _, cats in sources], rule=missing,
               fills=dict(columns.imputed), source=source)
    return _encoded(s, sources, columns, source, unknown)


def _encoded(s, sources: list, columns: Columns, source: str, unknown: str | None = None) -> Encoded:
    """The :class:`Encoded` table of the settled cells ``s`` (:class:`annc.core.missing.Settled`):
    the rows kept, encoded (:func:`encode_cells`; messages number the rows as the caller gave them)."""
    kept = s.cells if s.keep is None else s.cells[s.keep]
    rows = None if s.keep is None else np.flatnonzero(s.keep)
    return Encoded(encode_cells(kept, sources, source, rows, unknown), columns, s.keep, s.note)


def _inputs_of(sources: list) -> list[str]:
    """The input names of the table's columns ``sources``: a numeric column's own, a text column's one-hot inputs."""
    return [f for name, cats in sources for f in ([name] if cats is None else [onehot_name(name, k) for k in cats])]


def encode_cells(cells: np.ndarray, sources: list, source: str, rows=None, unknown: str | None = None) -> np.ndarray:
    """The input matrix of a table of raw ``cells`` (N x columns, objects) whose columns are
    ``sources`` (:attr:`Columns.sources`): a numeric column's cells as numbers, a text
    column's as its one-hot inputs (:mod:`annc.core.categories`).  A
    :class:`~annc.core.errors.DataError` lists the cells that are not numbers or not finite,
    each with its row (``rows``: the row of each sample, by default 0, 1, ...) and column.
    A category not seen in training is all zeros, one :func:`warn_unseen` per column
    (``unknown`` ``"ignore"`` or None), or one of those errors (``"error"``)."""
    unknown = check_unknown(unknown)
    n = cells.shape[0]
    rows = range(n) if rows is None else rows
    out = np.zeros((n, sum(1 if cats is None else len(cats) for _, cats in sources)))
    problems, mixed, at = [], [], 0
    for j, (name, cats) in enumerate(sources):
        where = [f"{source} row {r}, column '{clipped(name)}'" for r in rows]
        if cats is None:
            words = Counter()
            for r, v in enumerate(cells[:, j]):
                x = float(v) if is_number(v) else None
                if x is None or not np.isfinite(x):
                    problems.append(f"{where[r]}: {clipped(str(v))!r} is not a{' finite' if x is not None else ''} number")
                    words[clipped(str(v))] += x is None
                else:
                    out[r, at] = x
            if +words:
                mixed.append(mixed_column(name, words, n))
            at += 1
            continue
        index, ignored = {k: i for i, k in enumerate(cats)}, Counter()
        for r, v in enumerate(cells[:, j]):
            k = None if v is None or is_number(v) else index.get(category_of(v))
            if k is not None:
                out[r, at + k] = 1.0
            elif unknown == "ignore":  # all zeros (a missing cell was filled or refused before)
                ignored[category_of(v)] += 1
            else:
                problems.append(f"{where[r]}: {unseen(name, category_of(v), cats)}")
        warn_unseen(source, name, ignored)
        at += len(cats)
    if problems:
        more = f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise DataError("\n".join(mixed + problems[:20]) + more)
    return out


def mixed_column(name: str, words: Counter, n: int) -> str:
    """The headline of a numeric column some of whose ``n`` cells are words (``words``: their counts)."""
    seen = ", ".join(f"{w!r} ({c:,})" for w, c in words.most_common(3)) + (", ..." if len(words) > 3 else "")
    return (f"column '{clipped(name)}' mixes numbers and text: {sum(words.values()):,} of {n:,} cells are not "
            f"numbers ({seen}). A column is read as text only when none of its cells is a number: make its cells "
            "all numbers (the words as missing cells: blank or NA) or all text.")


def unseen(column: str, value: str, categories) -> str:
    """What is wrong with a category ``value`` of the text column ``column`` not among its
    training ``categories`` (under ``--unknown error``)."""
    return (f"category {clipped(value)!r} was not seen in training (the categories of "
            f"'{clipped(column)}' are {listed(categories, quote=True)}; --unknown error refuses an unseen category)")


def warn_unseen(source: str, column: str, counts: Counter) -> None:
    """One :class:`~annc.core.errors.UnknownCategoryWarning` for the text column ``column`` of
    ``source`` whose categories ``counts`` (category -> rows) were not seen in training and
    were read as all zeros; nothing when there are none."""
    if not counts:
        return
    found = ", ".join(f"{clipped(k)!r} ({n} row{'s' if n != 1 else ''})" for k, n in list(counts.items())[:10])
    more = f" and {len(counts) - 10} more" if len(counts) > 10 else ""
    what = "category" if len(counts) == 1 else "categories"
    warnings.warn(f"{source}: column '{clipped(column)}': {what} {found}{more} not seen in training, read as all "
                  "zeros (no one-hot input set, as scikit-learn's OneHotEncoder(handle_unknown='ignore')); "
                  "--unknown error (unknown='error' in Python) refuses it", UnknownCategoryWarning, stacklevel=2)


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
