"""Predictions of a trained network on new rows: ``annc predict`` and ``annc.predict``.

The rows are read as ``annc eval`` reads them (:func:`annc.io.data.load_features` for a CSV,
:func:`annc.core.inputs.input_matrix` for a data frame or an array): feature columns matched
by name to those the network records, text columns one-hot encoded with its categories,
missing cells filled with its recorded fills (else
:class:`~annc.core.errors.MissingValuesError`), so a row gets the class ``annc eval``
counts for it.  Unlike ``eval`` the table needs no label column: a label column that is
there is ignored, and so is any column the network does not read (an id, say); a feature
the network reads that the table lacks is a :class:`~annc.core.errors.DataError` naming it
(exit 2).  A category not seen in training follows the rule ``unknown``
(:data:`annc.core.categories.UNKNOWN_RULES`: all zeros with one warning per column, or an
error).

The scores are the network's output layer (an ensemble's: its votes plus the tie-breaking
margins, :mod:`annc.core.ensemble`), one per class; the predicted label is the class of the
first highest score.  The CSV of :func:`predictions_csv` has one row per input row, in
order: ``prediction`` and, asked for, ``score:<class>`` per class (Python's shortest text
that reads back as the same double).
"""
from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass

import numpy as np

from ..core.columns import frame_columns, listed, match_columns
from ..core.ensemble import Ensemble, load_model
from ..core.errors import UsageError
from ..core.inputs import input_matrix
from ..core.network import TrainedNetwork
from ..io.data import load_features

__all__ = ["Predictions", "model_of", "predict", "predict_rows", "predictions_csv"]


@dataclass
class Predictions:
    """The predicted ``labels`` (class labels, one per input row), the output ``scores``
    (rows x classes), the ``classes`` in the scores' order, the table's columns that were
    ``ignored`` and what was done with missing cells (``missing_note``), if anything."""

    labels: np.ndarray
    scores: np.ndarray
    classes: list
    ignored: list
    missing_note: str | None = None


def model_of(weights) -> TrainedNetwork | Ensemble:
    """The network of ``weights``: a ``TrainedNetwork`` or ``Ensemble``, a training result
    (its ``.network``) or the path of a weights file (:func:`annc.core.ensemble.load_model`)."""
    if isinstance(weights, (str, os.PathLike)):
        return load_model(weights)
    weights = getattr(weights, "network", weights)  # a TrainResult or DecomposedResult
    if not isinstance(weights, (TrainedNetwork, Ensemble)):
        raise UsageError("the network must be a TrainedNetwork or an Ensemble, a training result or a weights "
                         f"file's path, not {type(weights).__name__}")
    return weights


def predict_rows(model, data, *, label: str | None = None, unknown: str | None = None) -> Predictions:
    """:class:`Predictions` of ``model`` (a network or ensemble) on ``data``: a CSV path
    (:func:`annc.io.data.load_features`), a data frame (its columns by name; the label and
    other columns the network does not read ignored) or an array of rows (by position)."""
    if isinstance(data, (str, os.PathLike)):
        read = load_features(data, model, label=label, unknown=unknown)
        X, ignored, note = read.X, read.ignored, read.missing_note
    else:
        X, ignored, note = _frame_rows(model, data, label), [], None
        names = frame_columns(data)
        if names is not None and model.columns is not None:
            ignored = [n for n in names if n not in model.columns.raw]
        X = input_matrix(X, model.inputs, model.columns, unknown)
    scores = np.asarray(model.scores(X), dtype=float)
    labels = np.asarray(model.classes, dtype=object)[np.argmax(scores, axis=1)]
    return Predictions(labels, scores, list(model.classes), ignored, note)


def _frame_rows(model, X, label: str | None):
    """A data frame ``X`` cut to the columns ``model`` reads (a missing one: the
    :class:`~annc.core.errors.DataError` of :func:`annc.core.columns.match_columns`); other
    tables as they are."""
    names = frame_columns(X)
    if names is None or model.columns is None:
        if names is not None and label is not None and label in names:
            return X[[n for n in names if n != label]]
        return X
    keep = [n for n in names if n in model.columns.raw]
    match_columns(keep, model.columns, model.inputs, "X")  # says which column is missing
    return X[keep]


def predict(weights, data, *, scores: bool = False, label: str | None = None, unknown: str | None = None):
    """``annc predict`` as a function: the predicted class label of every row of ``data``
    (a CSV path, with or without a label column; a data frame; an array of raw rows), as a
    numpy array; with ``scores=True`` the pair ``(labels, scores)``, ``scores`` one column
    per class of the network (``network.classes``).

    ``weights``: a weights file's path, a ``TrainedNetwork`` or ``Ensemble``, or a training
    result.  ``label``: the label column to ignore (default: the one the network records);
    ``unknown``: ``"ignore"`` (the default: a category not seen in training is all zeros,
    with one :class:`~annc.core.errors.UnknownCategoryWarning` per column) or ``"error"``
    (a :class:`~annc.core.errors.DataError`).  Columns, one-hot encoding and missing cells as
    ``annc eval`` reads them (see the module docstring)."""
    if not isinstance(scores, (bool, np.bool_)):
        raise UsageError(f"scores must be True or False, not {scores!r}")
    p = predict_rows(model_of(weights), data, label=label, unknown=unknown)
    return (p.labels, p.scores) if scores else p.labels


def predictions_csv(p: Predictions, scores: bool = False) -> str:
    """The CSV text of ``p``: a header, then one line per input row: ``prediction`` and,
    with ``scores``, ``score:<class>`` for each class (each double's shortest exact text)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["prediction"] + ([f"score:{c}" for c in p.classes] if scores else []))
    for k, label in enumerate(p.labels):
        w.writerow([str(label)] + ([repr(float(v)) for v in p.scores[k]] if scores else []))
    return out.getvalue()


def summary(p: Predictions, source) -> str:
    """One line on what was predicted: how many rows, of which class, what was ignored."""
    counts = {c: int(np.sum(p.labels == c)) for c in p.classes}
    classes = ", ".join(f"{c} {n}" for c, n in counts.items())
    ignored = f"; ignored column{'s' if len(p.ignored) > 1 else ''} {listed(p.ignored, quote=True)}" \
        if p.ignored else ""
    return f"{source}: {len(p.labels)} rows predicted ({classes}){ignored}"
