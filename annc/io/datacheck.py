"""The data against its spec: the number of feature columns (after one-hot encoding) and of
classes, each mismatch reported at the spec line that says otherwise, with what to write or
which column may be the label; and ``input auto`` (or no ``input`` line) made the data's
width (:func:`resolve_inputs`), once, where a run first has its spec and its data."""
from __future__ import annotations

import shlex
from dataclasses import replace

import numpy as np

from ..core.categories import encoding_summary, width_summary
from ..core.columns import clipped, listed
from ..core.errors import DataError, UsageError
from .data import Dataset
from .spec import NetworkSpec, located
from .spec.checks import lexicographic_weight


def resolve_inputs(spec: NetworkSpec, data: Dataset) -> NetworkSpec:
    """``spec`` with ``input auto`` (``inputs`` None) made the number of feature columns of
    ``data`` once its text is one-hot encoded (and a ``penalty l0 auto`` that waited for it
    computed); ``spec`` itself when it writes its input count (:func:`check_against_spec`
    then checks it).  The training entry points call it once (``TrainRequest.checked``,
    ``annc compile``), so the map and every weights file record the resolved spec."""
    if spec.inputs is not None:
        return spec
    d = len(data.features)
    weight = lexicographic_weight(spec.penalty, d, spec.hidden, spec.output) if spec.penalty_auto \
        else spec.penalty_weight
    return replace(spec, inputs=d, penalty_weight=weight, penalty_auto=False,
                   text=_resolved_text(spec, d, width_summary(data.features, data.categories)))


def _resolved_text(spec: NetworkSpec, d: int, how: str) -> str:
    """The spec's text with its input count written in (what the weights' ``spec_text``
    records): ``input auto`` becomes ``input 12  # auto: ...`` on its line (padded instead where
    more settings follow on that line, so that every position the spec records stays right),
    and a spec with no ``input`` line gets one at its end."""
    text, where = spec.text, spec.positions.get("input")
    note = f"  # auto: {how}"
    if not text:  # a spec built in Python has no text (annc.io.recipe reads that as "writes every field")
        return text
    if where is None:
        return text + ("" if not text or text.endswith("\n") else "\n") + f"input {d}{note}\n"
    lines = text.split("\n")
    line = lines[where.line - 1]
    at = line.find("auto", where.column - 1)
    if at < 0:  # pragma: no cover - the parser read 'auto' there
        return text
    rest = line[at + 4:]
    lines[where.line - 1] = line[:at] + (f"{d}{note}" if not rest.strip() else f"{d}".ljust(4) + rest)
    return "\n".join(lines)


def inputs_line(data: Dataset) -> str:
    """What ``input auto`` chose on ``data``: ``12 (auto: 5 numeric columns + 7 one-hot columns
    of 3 text columns)``."""
    return f"{len(data.features)} (auto: {width_summary(data.features, data.categories)})"


def _difference(got: int, want: int) -> str:
    n = abs(got - want)
    return f"{n} {'more' if got > want else 'fewer'} than the spec"


def _label_guess(want: int, data: Dataset) -> str:
    """When the label column gives far more classes than the spec's ``output`` (twice as
    many or more): a hint that names the column taken as the label, any feature column with
    exactly ``want`` distinct values, and ``--label``."""
    if len(data.classes) < max(2 * want, want + 2) or data.label is None:
        return ""
    fits = [name for j, name in enumerate(data.features) if len(np.unique(data.X[:, j])) == want]
    other = (f"; column{'s' if len(fits) > 1 else ''} {', '.join(repr(clipped(n)) for n in fits[:3])} "
             f"ha{'ve' if len(fits) > 1 else 's'} {want} distinct values") if fits else ""
    name = shlex.quote(fits[0]) if len(fits) == 1 else "NAME"
    return (f". The label was taken from column '{clipped(data.label)}' (the last column unless --label "
            f"names another){other}: if the label is another column, pass --label {name} (label= in Python)")


def check_against_spec(spec, data: Dataset) -> None:
    """Check the data has ``spec.inputs`` feature columns (after one-hot encoding its text
    columns: the message then says what to write) and ``spec.classes`` classes.

    Each mismatch is reported at the spec line that says otherwise (``input`` or
    ``output``; :func:`annc.io.spec.located`), as a :class:`DataError`."""
    if spec.inputs is None:
        raise UsageError(f"{spec.source}: 'input auto' takes the data's width, and it has not been resolved yet: "
                         "train or compile it with annc.train, annc.compile or the command line, which resolve it "
                         "(annc.io.datacheck.resolve_inputs), or write the input count")
    problems = []
    d = len(data.features)
    if d != spec.inputs:
        problems.append(located(
            spec, "input", None,
            f"the spec says input {spec.inputs} but {data.path} has {d} feature "
            f"column{'s' if d != 1 else ''}{' once its text is one-hot encoded' * bool(data.categories)} "
            f"({_difference(d, spec.inputs)})"
            + (f": write input {d} ({encoding_summary(data.features, data.categories)})" if data.categories else "")))
    k = len(data.classes)
    if k != spec.classes:
        text = [c for c, cats in data.categories.items() if len(cats) == spec.classes] or list(data.categories)
        hint = (f"; column '{clipped(text[0])}' holds text: if it is the label, pass --label {shlex.quote(text[0])} "
                "(label= in Python)") if text else ""
        problems.append(located(
            spec, (), len(spec.hidden),
            f"the spec says output {spec.classes} but {data.path} has {k} "
            f"class{'es' if k != 1 else ''} ({_difference(k, spec.classes)}): "
            + listed(data.classes) + hint + _label_guess(spec.classes, data)))
    if problems:
        raise DataError("\n".join(problems))
