"""Model selection on held-out data: ``annc train --select`` and ``annc.train(..., select=True)``.

A spec fixes settings the MIP cannot choose for itself: the weight of the sparsity
penalty, the hinge margin, the widths of the hidden layers.  The MIP minimises the
*training* loss for the settings given, so comparing training objectives across
settings says nothing about how a network generalises (a wider net or a smaller
penalty never trains worse).  Selection therefore measures what matters: the
**accuracy on held-out data**, never seen by the MIP that trained the candidate.

How (like scikit-learn's ``GridSearchCV`` with one stratified split and ``refit``):

1. :func:`validation_split` splits the *training* data (never the test data) into a
   fit part and a validation part, stratified by class with a seeded permutation
   (``fraction`` of each class, 0.25 by default, goes to validation).
2. :func:`candidates` lists a small grid of specs around the one given.
3. :func:`select` trains every candidate on the fit part (through a ``train`` callable
   the caller provides) and scores its decoded, verified network on the validation
   part.  The highest validation accuracy wins; ties (equal within 1e-12) go to the
   network with **fewer non-zero weights** -- the paper's promise is parsimonious
   networks, so among equally accurate ones the sparser is kept -- and then to the
   earlier candidate (closer to the spec as written).
4. The caller then trains the chosen spec on **all** the training data: the final
   network is trained on all training data with the chosen settings (the refit), and
   :meth:`Selection.to_dict` goes into its ``meta["selection"]``.

**In parallel** (``workers`` / ``scheduler``, ``annc train --select --workers N``): the
candidates are independent, so each is one task on :class:`annc.executor.Executor` (a
local Dask cluster of ``workers`` processes, or the cluster at ``scheduler``):
:func:`train_candidate` trains it on a worker with the options given (each with the full
time limit) and sends back a :class:`Trial`, the few numbers the table needs.  The rows,
the rule and the tie-breaks are those of the sequential run, in candidate order whatever
the order the tasks finish in; so with the same solutions, the same candidate is chosen.
A Ctrl-C cancels the candidates still running and chooses among those that finished.

**The default grid** (:data:`DEFAULT_GRID`), the product of the axes that apply:

* penalty weight: as written, 0.1x and 10x, when the spec has a penalty (``l0`` or
  ``l1``, same kind); else no penalty and ``l0 0.01``;
* margin: as written and half of it, only when the loss takes a margin
  (:data:`MARGIN_LOSSES`);
* hidden widths: as written and half of each (rounded up), every hidden layer
  together, only when that changes a width (not for width 1).

Duplicates are skipped (e.g. a written penalty weight of 0).  At most
:data:`MAX_DEFAULT_CANDIDATES` (8) are kept: those that change the fewest settings of
the spec first (the spec itself is always the first candidate), ties in grid order;
only a spec with a penalty, a margin and a hidden width >= 2 has more (12): it keeps
the spec, the 4 candidates that change one setting and 3 of the 5 that change two.

**A user grid** is a dict with optional keys ``penalty_weight`` (absolute weights;
0 means no penalty, another weight keeps the spec's penalty kind, ``l0`` if it has
none), ``margin`` (absolute margins > 0; only for a loss in :data:`MARGIN_LOSSES`)
and ``width_factor`` (factors in (0, 1] applied to every hidden width, rounded up);
a key left out keeps the spec's setting.  Its full product is used, up to
:data:`MAX_CANDIDATES`.
"""
from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

import numpy as np

from .data import Dataset, array_digest
from .errors import DataError, NoSolutionError, UsageError
from .log import silent
from .losses import takes, with_argument
from .spec import NetworkSpec, format_spec

__all__ = ["DEFAULT_GRID", "GRID_KEYS", "MARGIN_LOSSES", "MAX_CANDIDATES", "MAX_DEFAULT_CANDIDATES",
           "Row", "Selection", "Trial", "candidates", "select", "train_candidate", "validation_split"]

MARGIN_LOSSES = tuple(with_argument("margin"))  # the losses whose spec takes a margin (spec.margin): annc.losses
DEFAULT_GRID = {
    "penalty_factor": (1.0, 0.1, 10.0),  # times the spec's penalty weight, when it has a penalty
    "no_penalty": (0.0, 0.01),  # l0 weights tried when the spec has no penalty (0: none)
    "margin_factor": (1.0, 0.5),  # times the spec's margin, for a loss in MARGIN_LOSSES
    "width_factor": (1.0, 0.5),  # times every hidden width, rounded up
}
MAX_DEFAULT_CANDIDATES = 8
MAX_CANDIDATES = 64  # a user grid larger than this is surely a mistake (one MIP each)
GRID_KEYS = ("penalty_weight", "margin", "width_factor")
TIE = 1e-12  # validation accuracies this close are equal
DEFAULT_FRACTION = 0.25


# -- the split ----------------------------------------------------------------------
def _check_fraction(fraction) -> float:
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) \
            or not (math.isfinite(fraction) and 0 < fraction < 1):
        raise UsageError(f"the validation fraction must be a number between 0 and 1 (exclusive), "
                         f"not {fraction!r}")
    return float(fraction)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise UsageError(f"the selection seed must be a whole number >= 0, not {seed!r}")
    return int(seed)


def _subset(data: Dataset, rows: np.ndarray, part: str) -> Dataset:
    """The rows ``rows`` of ``data`` as an in-memory Dataset named ``<path>[part]`` (as
    :func:`annc.chain.layer_data` makes one: :func:`annc.data.array_digest`)."""
    X = np.ascontiguousarray(data.X[rows], dtype=float)
    y = np.ascontiguousarray(data.y[rows])
    return replace(data, X=X, y=y, classes=list(data.classes), features=list(data.features),
                   path=f"{data.path}[{part}]", sha256=array_digest(X, y),
                   lines=None if data.lines is None else np.asarray(data.lines)[rows])


def split_rows(y: np.ndarray, classes: Sequence, fraction: float = DEFAULT_FRACTION, seed: int = 0,
               name: str = "the data") -> tuple[np.ndarray, np.ndarray]:
    """The row indices ``(fit, validation)`` of a stratified split of the labels ``y``
    (class indices into ``classes``), each sorted; see :func:`validation_split`."""
    fraction, seed = _check_fraction(fraction), _check_seed(seed)
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    fit, val = [], []
    for c in range(len(classes)):
        rows = np.flatnonzero(y == c)
        n = len(rows)
        if n == 0:  # a class the data does not have: nothing to stratify
            continue
        if n < 2:
            raise DataError(f"{name}: class {classes[c]} has only {n} row; a validation split needs at "
                            "least 2 rows of every class (one to fit, one to validate)")
        k = min(max(round(fraction * n), 1), n - 1)
        rows = rng.permutation(rows)
        val.append(rows[:k])
        fit.append(rows[k:])
    if not fit:
        raise DataError(f"{name}: no rows to split")
    return np.sort(np.concatenate(fit)), np.sort(np.concatenate(val))


def validation_split(data: Dataset, fraction: float = DEFAULT_FRACTION, seed: int = 0) -> tuple[Dataset, Dataset]:
    """Split the training data into ``(fit, val)`` Datasets, stratified by class.

    For each class with ``n`` rows, a permutation seeded by ``seed`` (one generator for
    all the classes, in class order) sends ``round(fraction * n)`` rows to validation,
    at least 1 and at most ``n - 1``, so that every class is both fitted and
    validated.  Both parts keep the rows in their original order and the data's
    ``classes``, ``features`` and ``label``; their ``path`` is ``<path>[fit]`` /
    ``<path>[validation]`` and their ``sha256`` is that of the X bytes and the y bytes.

    Raises :class:`~annc.errors.DataError` when a class has a single row (it cannot be
    in both parts), :class:`~annc.errors.UsageError` for a fraction outside (0, 1) or
    a seed that is not a whole number >= 0.
    """
    if not isinstance(data, Dataset):
        raise UsageError(f"validation_split takes a Dataset, not {type(data).__name__}")
    fit, val = split_rows(data.y, data.classes, fraction, seed, name=data.path)
    return _subset(data, fit, "fit"), _subset(data, val, "validation")


# -- the candidates -----------------------------------------------------------------
def _times(x: float, factor: float) -> float:
    """``x * factor`` to 12 significant digits (0.01 * 0.1 is 0.001, not 0.0010000000000000002);
    ``x`` itself, exactly, for the factor 1 (the setting as written)."""
    return float(x) if factor == 1 else float(f"{x * factor:.12g}")


def _numbers(grid: dict, key: str, ok: Callable[[float], bool], what: str) -> list[float]:
    values = grid[key]
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) == 0:
        raise UsageError(f"grid key {key!r} takes a non-empty list of numbers, not {values!r}")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) or not ok(v):
            raise UsageError(f"grid key {key!r}: {v!r} is not {what}")
        out.append(float(v))
    return out


def _widths(spec: NetworkSpec, factor: float) -> tuple[int, ...]:
    return tuple(max(1, math.ceil(h.units * factor - 1e-9)) for h in spec.hidden)


def _axes(spec: NetworkSpec, grid: dict | None):
    """The values of each axis: penalties ``(kind, weight)``, margins, hidden widths."""
    kind = spec.penalty if spec.penalty != "none" else "l0"
    if grid is None:
        if spec.penalty != "none":
            penalties = [(spec.penalty, _times(spec.penalty_weight, f)) for f in DEFAULT_GRID["penalty_factor"]]
        else:
            penalties = [("none", 0.0) if w == 0 else ("l0", w) for w in DEFAULT_GRID["no_penalty"]]
        margins = [_times(spec.margin, f) for f in DEFAULT_GRID["margin_factor"]] \
            if takes(spec.loss, "margin") else [spec.margin]
        widths = [_widths(spec, f) for f in DEFAULT_GRID["width_factor"]]
        return penalties, margins, widths
    if not isinstance(grid, dict):
        raise UsageError(f"the selection grid must be a dict with keys {', '.join(GRID_KEYS)}, "
                         f"not {type(grid).__name__}")
    for key in grid:
        if key not in GRID_KEYS:
            raise UsageError(f"unknown selection grid key {key!r}: the keys are {', '.join(GRID_KEYS)}")
    penalties = [(spec.penalty, spec.penalty_weight)]
    if "penalty_weight" in grid:
        penalties = [("none", 0.0) if w == 0 else (kind, w)
                     for w in _numbers(grid, "penalty_weight", lambda v: v >= 0, "a penalty weight >= 0")]
    margins = [spec.margin]
    if "margin" in grid:
        if not takes(spec.loss, "margin"):
            raise UsageError(f"grid key 'margin': 'loss {spec.loss}' takes no margin (only "
                             + ", ".join(f"'loss {m}'" for m in with_argument("margin")) + ")")
        margins = _numbers(grid, "margin", lambda v: v > 0, "a margin > 0")
    widths = [_widths(spec, 1.0)]
    if "width_factor" in grid:
        widths = [_widths(spec, f) for f in _numbers(grid, "width_factor", lambda v: 0 < v <= 1,
                                                     "a width factor in (0, 1]")]
    return penalties, margins, widths


def _label(spec: NetworkSpec) -> str:
    parts = ["no penalty" if spec.penalty == "none" else f"{spec.penalty} {spec.penalty_weight:g}"]
    if takes(spec.loss, "margin"):
        parts.append(f"margin {spec.margin:g}")
    if spec.hidden:
        widths = [h.units for h in spec.hidden]
        parts.append(f"width {widths[0]}" if len(widths) == 1 else "widths " + ",".join(map(str, widths)))
    return ", ".join(parts)


def candidates(spec: NetworkSpec, grid: dict | None = None) -> list[tuple[str, NetworkSpec]]:
    """The candidate specs of the selection grid, each with a short label (e.g.
    ``"l0 0.01, margin 0.5, width 4"``); ``grid`` None: the default grid.  See the
    module docstring for both grids.  A bad grid (an unknown key, a value out of range,
    too many candidates) is a :class:`~annc.errors.UsageError` naming the key."""
    if not isinstance(spec, NetworkSpec):
        raise UsageError(f"candidates takes a NetworkSpec, not {type(spec).__name__}")
    penalties, margins, widths = _axes(spec, grid)
    written = ((spec.penalty, spec.penalty_weight), spec.margin, _widths(spec, 1.0))
    found: dict[str, tuple[int, int, NetworkSpec]] = {}  # canonical text: (changes, order, spec)
    for order, (penalty, margin, width) in enumerate(itertools.product(penalties, margins, widths)):
        cand = replace(spec, penalty=penalty[0], penalty_weight=penalty[1], margin=margin,
                       hidden=tuple(replace(h, units=u) for h, u in zip(spec.hidden, width)))
        text = format_spec(cand)
        if text not in found:
            changes = sum(a != b for a, b in zip((penalty, margin, width), written))
            found[text] = (changes, order, cand)
    chosen = sorted(found.values(), key=lambda t: t[:2]) if grid is None else list(found.values())
    if grid is None:
        chosen = chosen[:MAX_DEFAULT_CANDIDATES]
    elif len(chosen) > MAX_CANDIDATES:
        raise UsageError(f"the selection grid has {len(chosen)} candidates; at most {MAX_CANDIDATES} "
                         "(each is one training run)")
    return [(_label(c), c) for _, _, c in chosen]


# -- the selection ------------------------------------------------------------------
@dataclass
class Row:
    """One candidate's run: validation (held-out) and fit accuracy, non-zero weights,
    the training status and seconds; or ``error`` (the message) when it failed."""

    label: str
    spec: str  # format_spec of the candidate
    validation_accuracy: float | None = None
    fit_accuracy: float | None = None
    nonzero_weights: int | None = None
    status: str | None = None
    seconds: float | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict:
        return {"label": self.label, "spec": self.spec, "validation_accuracy": self.validation_accuracy,
                "fit_accuracy": self.fit_accuracy, "nonzero_weights": self.nonzero_weights,
                "status": self.status, "seconds": None if self.seconds is None else round(self.seconds, 3),
                "error": self.error}


@dataclass
class Selection:
    """What :func:`select` measured and chose: one :class:`Row` per candidate, the index
    :attr:`chosen` and its spec :attr:`spec` (to train on all the training data)."""

    rows: list[Row]
    chosen: int
    spec: NetworkSpec
    fraction: float
    seed: int
    fit_rows: int
    validation_rows: int
    specs: list[NetworkSpec] = field(default_factory=list, repr=False)  # the candidates, as the rows

    @property
    def label(self) -> str:
        return self.rows[self.chosen].label

    def heading(self) -> str:
        n = self.fit_rows + self.validation_rows
        return (f"model selection: fit on {self.fit_rows} of {n} training rows ({self.fit_rows / n:.0%}), "
                f"validate on {self.validation_rows} ({self.validation_rows / n:.0%}), stratified by class, "
                f"seed {self.seed}; best validation accuracy, ties to fewer non-zero weights")

    def table_lines(self) -> list[str]:
        """The heading and an aligned table, one line per candidate, the chosen one marked ``*``."""
        head = ["", "candidate", "val acc", "fit acc", "non-zeros", "status", "seconds"]
        cells = []
        for i, r in enumerate(self.rows):
            mark = "*" if i == self.chosen else ""
            if r.ok:
                cells.append([mark, r.label, f"{r.validation_accuracy:.4f}", f"{r.fit_accuracy:.4f}",
                              str(r.nonzero_weights), r.status or "",
                              "" if r.seconds is None else f"{r.seconds:.2f}"])
            else:
                cells.append([mark, r.label, "-", "-", "-", "failed: " + r.error.splitlines()[0], ""])
        width = [max(len(row[k]) for row in [head] + cells) for k in range(len(head))]
        right = {2, 3, 4, 6}

        def line(row):
            out = [c.rjust(w) if k in right else c.ljust(w) for k, (c, w) in enumerate(zip(row, width))]
            return "  ".join(out).rstrip()
        return [self.heading(), line(head)] + [line(r) for r in cells]

    def to_dict(self) -> dict:
        """JSON-able: the split, the rule, every candidate's row and the choice (for the
        exported network's ``meta["selection"]``)."""
        return {"measure": "validation accuracy (held-out part of the training data)",
                "ties": "fewer non-zero weights, then the earlier candidate",
                "fraction": self.fraction, "seed": self.seed, "fit_rows": self.fit_rows,
                "validation_rows": self.validation_rows, "chosen": self.chosen, "chosen_label": self.label,
                "refit": "the chosen spec is trained again on all the training data",
                "candidates": [r.to_dict() for r in self.rows]}


def _status_text(status) -> str:
    return str(getattr(status, "value", status))


def _better(a: Row, b: Row) -> bool:
    """Whether row ``a`` beats row ``b`` (``a`` comes later): strictly higher validation
    accuracy, or equal within :data:`TIE` and strictly fewer non-zero weights."""
    if a.validation_accuracy > b.validation_accuracy + TIE:
        return True
    return abs(a.validation_accuracy - b.validation_accuracy) <= TIE and a.nonzero_weights < b.nonzero_weights


# -- one candidate as a task (parallel selection) ---------------------------------------
@dataclass
class Trial:
    """What a worker sends back for one candidate: what :func:`select` reads of a
    :class:`~annc.training.TrainResult` (``status`` as text, ``nonzero_weights`` counted
    on the worker), or ``error`` when its MIP found no solution."""

    status: str | None = None
    seconds: float = 0.0
    verified: bool = False
    interrupted: bool = False
    test_accuracy: float | None = None  # on the validation part
    train_accuracy: float | None = None  # on the fit part
    nonzero_weights: int | None = None
    error: str | None = None


def train_candidate(item) -> Trial:
    """Train one candidate on a worker: ``item = (spec, fit, val, options)`` with
    ``options`` the keyword arguments of :func:`annc.training.train` (``solver``,
    ``opts``, ...); no files are written.  A MIP without a solution is a Trial with
    ``error``, not an exception (so the task is not retried)."""
    from .training import train
    spec, fit, val, options = item
    try:
        r = train(spec, fit, test=val, **{**options, "out_dir": None})
    except NoSolutionError as e:
        return Trial(error=str(e) or "no solution")
    return Trial(_status_text(r.status), float(r.seconds), bool(r.verified), bool(r.interrupted),
                 float(r.test_accuracy), float(r.train_accuracy), int(r.network.nonzero_weights()))


def _record(row: Row, result) -> bool:
    """Fill ``row`` from a candidate's training result (a TrainResult, a :class:`Trial`
    or a look-alike); whether that run was interrupted."""
    if isinstance(result, Trial) and result.error is not None:
        row.error = result.error
        return False
    row.status = _status_text(result.status)
    row.seconds = float(result.seconds)
    if getattr(result, "verified", True) is False:
        row.error = "the network fails verification"
    else:
        row.validation_accuracy = float(result.test_accuracy)
        row.fit_accuracy = float(result.train_accuracy)
        row.nonzero_weights = int(result.nonzero_weights if isinstance(result, Trial)
                                  else result.network.nonzero_weights())
    return bool(getattr(result, "interrupted", False))


def _log_row(log: Callable, k: int, n: int, row: Row) -> None:
    if row.ok:
        what = f"validation accuracy {row.validation_accuracy:.4f}, {row.nonzero_weights} non-zero weights"
    else:
        what = ("failed: " if row.status is None else "") + row.error.splitlines()[0]
    log(f"[select] {k}/{n} {row.label}: {what}" + (f" ({row.status})" if row.status else ""))


def _train_sequentially(cands, fit: Dataset, val: Dataset, train: Callable, rows: list[Row],
                        log: Callable) -> None:
    """Each candidate in turn in this process; none after one that was interrupted."""
    interrupted = False
    for i, (_label, cand) in enumerate(cands):
        if interrupted:
            rows[i].error = "not trained: an earlier run was interrupted"
            continue
        try:
            result = train(cand, fit, val)
        except NoSolutionError as e:
            rows[i].error = str(e) or "no solution"
        else:
            interrupted = _record(rows[i], result)
        _log_row(log, i + 1, len(cands), rows[i])


def _train_in_parallel(cands, fit: Dataset, val: Dataset, options: dict, workers, scheduler,
                       rows: list[Row], log: Callable) -> None:
    """Every candidate as a task on the executor; rows filled as the tasks finish."""
    from .executor import Executor, TaskFailed
    finished = [False] * len(cands)

    def done(i, result):
        if isinstance(result, TaskFailed):
            rows[i].error = result.message
        else:
            _record(rows[i], result)
        finished[i] = True
        _log_row(log, sum(finished), len(cands), rows[i])

    items = [(cand, fit, val, options) for _, cand in cands]
    try:
        with Executor(workers=min(workers, len(items)) if workers else None, scheduler=scheduler,
                      log=log) as ex:
            ex.run(train_candidate, items, names=[label for label, _ in cands], retries=0, on_result=done)
    except KeyboardInterrupt:
        if not any(finished[i] and rows[i].ok for i in range(len(rows))):
            raise
        log("[select] interrupted: choosing among the candidates that finished")
        for i, row in enumerate(rows):
            if not finished[i]:
                row.error = "not trained: the selection was interrupted"


def select(spec: NetworkSpec, data: Dataset, *, train: Callable | None = None, grid: dict | None = None,
           fraction: float = DEFAULT_FRACTION, seed: int = 0, log: Callable = silent,
           options: dict | None = None, workers: int | None = None, scheduler: str | None = None) -> Selection:
    """Choose among :func:`candidates` by accuracy on a held-out part of ``data``.

    ``data`` is the *training* data; :func:`validation_split` makes ``(fit, val)`` of it.
    Each candidate is trained by ``train(candidate_spec, fit, val)`` -- a callable the
    caller provides (it sets the solver, the time limit, the output folder), returning
    a :class:`~annc.training.TrainResult` or an object with ``.network``, ``.status``,
    ``.test_accuracy`` (here the validation accuracy), ``.train_accuracy`` (the fit
    accuracy) and ``.seconds``.  A candidate whose training raises
    :class:`~annc.errors.NoSolutionError`, or whose network fails verification
    (``.verified`` False), is recorded as failed and skipped.  After a run that was
    interrupted (``.interrupted``, Ctrl-C) no further candidate is trained.

    With ``workers`` (a local Dask cluster of that many processes) or ``scheduler`` (the
    address of a Dask cluster) the candidates are trained in parallel instead, as tasks
    :func:`train_candidate` with ``options`` (the keyword arguments of
    :func:`annc.training.train`, which must be picklable; ``train`` is not used).  A task
    that fails is a failed row, as a candidate without a solution is.

    The highest validation accuracy wins: it estimates how the network does on data the
    MIP never saw, which the training objective does not.  Ties (within 1e-12) go to
    fewer non-zero weights (``network.nonzero_weights()``) -- parsimony, the paper's
    promise -- then to the earlier candidate.  Raises NoSolutionError when every
    candidate failed.  The caller trains :attr:`Selection.spec` on all of ``data``.
    """
    from .executor import check_scheduler, check_workers
    workers, scheduler = check_workers(workers), check_scheduler(scheduler)
    parallel = workers is not None or scheduler is not None
    if parallel and not isinstance(options, dict):
        raise UsageError("parallel selection (workers or scheduler) takes options: a dict of the keyword "
                         "arguments of annc.training.train for every candidate")
    if not parallel and not callable(train):
        raise UsageError(f"train must be a callable, not {type(train).__name__}")
    fit, val = validation_split(data, fraction, seed)
    cands = candidates(spec, grid)
    log(f"[select] {len(cands)} candidates; fitting on {len(fit.y)} rows, validating on {len(val.y)}"
        + (" (in parallel)" if parallel else ""))
    rows = [Row(label, format_spec(cand)) for label, cand in cands]
    if parallel:
        _train_in_parallel(cands, fit, val, options, workers, scheduler, rows, log)
    else:
        _train_sequentially(cands, fit, val, train, rows, log)
    best: int | None = None
    for i, row in enumerate(rows):  # candidate order: the tie-break to the earlier one
        if row.ok and (best is None or _better(row, rows[best])):
            best = i
    if best is None:
        raise NoSolutionError(f"model selection: none of the {len(cands)} candidates gave a verified network: "
                              + "; ".join(f"{r.label}: {r.error.splitlines()[0]}" for r in rows))
    log(f"[select] chose {rows[best].label}")
    return Selection(rows, best, cands[best][1], float(fraction), int(seed), len(fit.y), len(val.y),
                     specs=[c for _, c in cands])
