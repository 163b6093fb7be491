"""``annc compile`` composed: the recipe resolved on the data, the model built, a MIP start
searched for, and the files written, in that order.

The solve layer (:mod:`annc.solve.compiler`) builds and writes a model but makes no choice
that needs training: the default recipe's eps is chosen on the data by a short SGD run
(:func:`annc.training.warmstart.margin.resolve`), and the MIP start is the start pool and its local
search (:func:`annc.training.search.incumbent.budgeted_start`).  This module, above both, composes
them, so that no callable is passed down into the solve layer:

1. :func:`~annc.training.warmstart.margin.resolve` makes the spec concrete (eps) and prepares the data once;
2. :func:`~annc.solve.compiler.build` builds the MIP (nothing written yet);
3. with ``start``, :func:`~annc.training.search.incumbent.budgeted_start` searches for a point within
   ``start_budget`` seconds (a run context of its own, on HiGHS), and
   :func:`~annc.solve.compiler.attach_start` keeps it only if it passes the feasibility check;
4. :func:`~annc.solve.compiler.write_artifacts` writes the model, the start files and the map
   together or not at all.

Everything is checked before the search, and the search ends before the first byte is written.

**Imports.**  Steps 1 and 3 train (SGD, the start pool's scikit-learn separators), and their
modules import scikit-learn with them (and with it pandas and scipy.stats: 3 to 5 s and about
110 MB on a 2-core EPYC), so that no timed step pays for the import.  A compile runs them only
for a spec without an eps (step 1) or with a start (step 3): each is imported where it runs,
before its own clock starts, and ``annc compile --no-start`` of a spec that names its eps
imports none of them (``tests/core/test_imports.py``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ...core.log import silent
from ...core.missing import check_rule
from ...core.rowweights import check_class_weight, with_weights
from ...io.data import Dataset, load_data
from ...io.datacheck import inputs_line, resolve_inputs
from ...io.outputs import check_out_dir
from ...io.spec import NetworkSpec, load_spec_of
from ...solve.compiler import (Compiled, attach_start, build, check_compile_options, check_name, check_scale,
                              with_scale, write_artifacts)
from ...solve.solvers import SolveOptions
from ..context import RunContext

__all__ = ["CompileOptions", "Reading", "compile_files", "compile_model"]


@dataclass(frozen=True)
class CompileOptions:
    """How ``annc compile`` builds and writes the model: the file's format, compression and writer;
    merging equal rows, small big-M values allowed, the non-zeros allowed; a MIP start searched for
    (within ``start_budget`` seconds, None: the default budget)."""

    fmt: str = "mps"
    gzip: bool = False
    writer: str = "annc"
    merge: bool = True
    allow_small_m: bool = False
    max_nonzeros: int | None = None
    start: bool = True
    start_budget: float | None = None

    def check(self, label: str | None = None) -> None:
        """:func:`annc.solve.compiler.check_compile_options` of these options (and the label column)."""
        check_compile_options(fmt=self.fmt, gzip=self.gzip, writer=self.writer, label=label, merge=self.merge,
                              allow_small_m=self.allow_small_m, max_nonzeros=self.max_nonzeros, start=self.start,
                              start_budget=self.start_budget)


@dataclass(frozen=True)
class Reading:
    """How the spec and the data files are read: the label column (None: the last), the input
    scaling, the rule for missing cells (:mod:`annc.core.missing`) and the class weights
    (:mod:`annc.core.rowweights`)."""

    label: str | None = None
    scale: str | None = None
    missing: str | None = None
    class_weight: object = None


def compile_model(spec: NetworkSpec, data: Dataset, *, name: str, out: Path | None = None,
                  options: CompileOptions = CompileOptions(), data_csv: bytes | None = None,
                  progress: Callable | None = None, log: Callable = silent) -> Compiled:
    """Steps 1-4 of the module docstring on a loaded ``spec`` and ``data`` (``options`` already
    checked); with ``out`` None nothing is written.  ``progress`` hears of the start search's
    phases (the command line's progress line).  ``input auto`` is made the data's width first
    (:func:`annc.io.datacheck.resolve_inputs`), and the log says so."""
    o = options
    if spec.inputs is None:
        log(f"input {inputs_line(data)}")
    if data.missing_note:
        log(data.missing_note)
    spec = resolve_inputs(spec, data)
    recipe = prepared = None  # a concrete spec: build reads its recipe off it and prepares the data
    if spec.eps_auto:  # step 1 trains: imported only when it runs (module docstring, "Imports")
        from ..warmstart.margin import resolve
        spec, recipe, prepared = resolve(spec, data, merge=o.merge, max_nonzeros=o.max_nonzeros)
    c = build(spec, data, name=name, merge=o.merge, allow_small_m=o.allow_small_m, max_nonzeros=o.max_nonzeros,
              recipe=recipe, prepared=prepared)
    for setting in c.recipe.settings:  # what is in force, and where it came from
        log(setting.sentence())
    found = None
    if o.start:
        from ..search.incumbent import budgeted_start  # imported before the budget's clock starts
        limit = "the default budget" if o.start_budget is None else f"at most {o.start_budget:g} s"
        log(f"searching for a MIP start: SGD, then fix-and-optimise ({limit}; --no-start skips it)")
        ctx = RunContext.create(options=SolveOptions(progress=progress))
        ctx.report("start pool", candidates=0)
        found = budgeted_start(c.model, c.problem, budget=o.start_budget, ctx=ctx)
    attach_start(c, found)
    if out is not None:
        write_artifacts(c, out, name, fmt=o.fmt, gzip=o.gzip, writer=o.writer, data_csv=data_csv, start=c.start,
                        start_note=c.start_message)
    return c


def compile_files(spec_path, data_path, *, out_dir="out", options: CompileOptions = CompileOptions(),
                  reading: Reading = Reading(), progress: Callable | None = None, log: Callable = silent) -> Compiled:
    """``annc compile``: write ``<out>/<stem>.mps`` (or ``.lp``) and ``<out>/<stem>.map.json``,
    and with ``options.start`` the start files (:func:`compile_model`).  Every option, the output
    folder, the spec and the data (read as ``reading`` says) are checked before anything runs."""
    check_class_weight(reading.class_weight)
    options.check(reading.label)
    check_scale(reading.scale)
    stem = check_name(Path(spec_path).stem)
    out = check_out_dir(out_dir)
    spec = with_scale(load_spec_of(spec_path, data_path), reading.scale)
    data = with_weights(load_data(data_path, label=reading.label, missing=check_rule(reading.missing)),
                        reading.class_weight)
    return compile_model(spec, data, name=stem, out=out, options=options, progress=progress, log=log)
