"""Model selection by k-fold cross-validation: the default for real data.

The MIP minimises the *training* objective for the settings it is given, and the stronger the
search, the closer it fits the training rows.  What a spec leaves open is therefore chosen here by
how networks trained with each setting do on rows they never saw.  Every number below is a field of
the :class:`~annc.training.modelselect.policy.SelectionPolicy` passed down (default
:data:`~annc.training.modelselect.policy.DEFAULT_POLICY`):

* **open settings** (:func:`open_settings`): a spec of the default recipe (it names no loss)
  leaves open the l0 weight (unless it writes ``penalty``) and the width of its hidden layers
  (the spec's width is the largest tried, the narrowest k - 1 units for k classes); ``eps`` left
  open is chosen on the data once (:func:`annc.training.warmstart.margin.choose_eps`) and used on
  every fold (the classic models take the narrow margin, :func:`_margin`).  A spec that names its
  loss, or one built in Python, writes everything.
* **when** (:func:`applies`; by default, ``by_default``): some setting is open, the hidden layers are
  binary step units (ReLU nets are relaxed models), the time limit is at least ``min_limit`` seconds
  (or none), the data do not merge into fewer than ``min_distinct`` distinct rows, and on more than
  ``many_rows`` rows a classic model (a logistic separator or a tree) fits the spec, to set against it.
* **the path** (``penalty_path``, widths ``1, 2, 4, ..`` up to the spec's): every setting is scored
  on every fold by the cheap search of :mod:`annc.training.modelselect.cvpath`, beside the classic
  models: L1 logistic regression at each C of ``logistic_path`` (:func:`_logistic_settings`), CART
  trees (:func:`_tree_settings`) and their thinned twins.
* **the folds** (:mod:`annc.training.modelselect.cvfolds`): ``folds`` stratified folds (at most the
  smallest class's rows), cut from a stratified sample of at most ``max_cv_rows`` rows.  The plan
  depends on the spec and the rows, never on the time limit or the clock: a longer limit scores more
  of the same settings, so it can only add candidates.  (Until 2026-12-06 a limit of 60 s or more
  also brought five folds and a second margin; on split 0 of the report half that chose other
  networks on small sets, and four of them lost 1-5 points at 120 s against 30 s: docs/decisions.md.)

**Large data.**  Above ``many_rows`` training rows the plan is two-way (:attr:`Plan.large`): the
spec as written (its width, its l0 weight, the data's eps) against the classic models, on the
sample; the folds' weight drop solves no LP and no whole-set part is scored, so the plan fits the
folds' share of a 30 s limit.  The folds answer whether the spec's nonlinear units earn their place
over a convex surrogate's hyperplane or a tree.  For ``k > 2`` classes whose hidden layer is narrower
than the ``k (k - 1) / 2`` pairwise units of the regression's argmax the trees (at most the spec's
width in splits) are the classic models.  A chosen classic model is fitted again on all rows
(:func:`~annc.training.modelselect.cvrows.kept_on_rows`); the spec as written makes its own start.

**The rule** (:mod:`annc.training.modelselect.cvresults`): the simplest setting within ``se_rule``
standard errors (and ``resolution`` validation rows a fold) of the best CV accuracy; a path setting
goes before the first classic model only where it beats it on the paired folds by ``paired_se``.

**Anytime.**  Only settings scored on every fold compete, and every one that was competes: the clock
(``select_share`` of the time limit, ``folds_share`` of that for the folds) only caps the folds, a
setting it cut is not a candidate, and the log says what was not reached and why
(:class:`~annc.training.modelselect.settings.Stop`).  A classic model scored on every fold is never
discarded because a wider path setting was cut; the spec as written is trained as written only when
no setting was scored on every fold, or where it wins on the folds.

**The weight budget.**  Where the penalty is open and the chosen path setting's network on all rows
is not kept as it is (:attr:`~annc.training.modelselect.cvresults.CVSelection.holds`), the final
training gets ``max_weights K`` (:func:`~annc.training.modelselect.cvrows.budget`): the folds scored
the cheap path, and the full search at the same l0 weight fits the training rows closer with more
weights, not the test rows.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...core.log import silent
from ...core.penalties import PENALTY
from ...core.rowweights import constant_score
from ...io.data import Dataset
from ...io.recipe import _written
from ...io.spec import NetworkSpec
from ..context import RunContext
from ..large.compress import distinct_rows
from ..warmstart.pool.readings import separator_width
from ..warmstart.pool.treemakers import missing_note
from .cvfolds import FoldRun, folds, run_folds, sample
from .cvresults import CVSelection
from .cvrows import budget, kept_on_rows, realise
from .policy import DEFAULT_POLICY, SelectionPolicy
from .settings import Plan, Setting, spec_at

__all__ = ["CVSelection", "applies", "cross_validate", "open_settings", "plan_for"]


def open_settings(spec: NetworkSpec) -> tuple[str, ...]:
    """The settings ``spec`` leaves to selection, of ``("penalty", "width", "eps")`` (eps: the
    default recipe's, left to the data, of step units)."""
    if _written(spec, "loss"):
        return ()
    out = () if _written(spec, "penalty") else ("penalty",)
    out += ("width",) if spec.hidden and max(h.units for h in spec.hidden) > 1 else ()
    return out + (("eps",) if spec.eps_auto and spec.hidden and all(h.activation == "binary" for h in spec.hidden)
                  else ())


def applies(spec: NetworkSpec, data: Dataset, time_limit: float | None = None,
            policy: SelectionPolicy = DEFAULT_POLICY) -> bool:
    """Whether cross-validation chooses ``spec``'s open settings on ``data`` under ``time_limit``
    (module docstring; the request checked it): at least ``policy.min_limit`` seconds (or none), step units, a setting open,
    data that do not merge; above ``policy.many_rows`` rows also a classic model to set against the
    spec as written (a logistic separator, or a tree that can tell every class apart), for any number
    of classes."""
    if time_limit is not None and time_limit < policy.min_limit:
        return False
    from ..warmstart.pool.seeding import sgd_trains
    open_ = open_settings(spec)
    if not open_ or spec.training != "full" or not sgd_trains(spec) \
            or not all(h.activation == "binary" for h in spec.hidden):  # the folds' search: step units
        return False
    if len(data.y) > policy.many_rows and not (_separators_fit(spec, open_) or _trees_fit(spec, open_)):
        return False  # large data: nothing to set against the spec as written
    counts = np.bincount(np.asarray(data.y), minlength=len(data.classes))
    return distinct_rows(np.asarray(data.X, float)) >= policy.min_distinct and counts[counts > 0].min() >= 2


def _widths(top: int, classes: int = 2) -> tuple[int, ...]:
    """The widths the path tries: from ``classes - 1`` units (below ``k - 1`` step units tell ``k``
    classes apart poorly) doubling up to ``top``, the spec's."""
    out = [max(1, min(top, classes - 1))]
    while out[-1] * 2 < top:
        out.append(out[-1] * 2)
    return tuple(out + [top]) if top > out[-1] else tuple(out)


def plan_for(spec: NetworkSpec, rows: int, smallest_class: int, eps: float,
             policy: SelectionPolicy = DEFAULT_POLICY) -> Plan:
    """The settings and folds for ``spec`` on ``rows`` training rows (module docstring): the same
    under every time limit."""
    open_ = open_settings(spec)
    large = rows > policy.many_rows
    written, top = spec.penalty_weight if spec.penalty != "none" else 0.0, max(h.units for h in spec.hidden)
    penalties = policy.penalty_path if "penalty" in open_ and not large else (written,)  # large: as written
    widths = ((top,) if large else _widths(top, spec.classes)) if "width" in open_ else (None,)
    k = min(policy.folds, smallest_class)
    logistic = _logistic_settings(spec, open_, eps, large, policy.logistic_path)  # eps open: the narrow margin
    trees = _tree_settings(spec, open_, eps, large, policy.tree_makers, policy.tree_depths)
    thinned = tuple(replace(s, thinned=True) for s in logistic + trees)  # step 5 of annc.training.modelselect.cvpath
    path = tuple(Setting(w, p, eps) for w in widths for p in penalties)  # eps: the data's rule's (or the spec's)
    open_ = tuple(o for o in open_ if o != "eps")
    anchor = Setting(widths[-1], written, eps) if "penalty" in open_ and not logistic else None
    return Plan(path + logistic + trees + thinned, k, open_, anchor=anchor, large=large,
                path_groups=policy.path_groups)


def _separators_fit(spec: NetworkSpec, open_: tuple[str, ...]) -> bool:
    """Whether the folds score logistic separators for ``spec`` (:func:`_logistic_settings`): the
    penalty is open, and one unit (two classes) or one hidden layer of at least the ``ceil(log2 k)``
    units of an output code fits (:func:`~annc.training.warmstart.pool.readings.separator_width`)."""
    if "penalty" not in open_ or not spec.hidden:
        return False
    return spec.classes == 2 or (len(spec.hidden) == 1
                                 and separator_width(spec.classes, spec.hidden[0].units) is not None)


def _trees_fit(spec: NetworkSpec, open_: tuple[str, ...]) -> bool:
    """Whether trees can stand against ``spec`` as written (:func:`_tree_settings`): the penalty is
    open, the spec has one hidden layer of step units, and it holds the ``k - 1`` splits a tree needs to
    tell its ``k`` classes apart (a tree of ``s`` splits has ``s + 1`` leaves: 10 classes at width 4, a
    tree predicts at most 5 of them, and the folds would only spend the spec's time)."""
    return "penalty" in open_ and len(spec.hidden) == 1 and spec.hidden[0].activation == "binary" \
        and spec.hidden[0].units >= spec.classes - 1


def _logistic_settings(spec: NetworkSpec, open_: tuple[str, ...], eps: float, large: bool,
                       cs: tuple[float, ...]) -> tuple[Setting, ...]:
    """The logistic separators the folds score beside the path (L1 logistic regression at each C of
    ``cs``), where the penalty is open: one unit (width 1) for two classes, the spec's default l0
    weight and the narrow margin where eps is open (the separator keeps its own hyperplane).

    For ``k > 2`` classes it is the regression's argmax: a unit for each of the ``k (k - 1) / 2``
    pairwise comparisons of its scores (:func:`~annc.training.warmstart.pool.readings.differences`) and an
    output layer that counts each class's wins (:func:`~annc.training.warmstart.pool.readings.votes`),
    where one hidden layer of step units is that wide; where it holds fewer but at least ``k - 1``,
    its one-vs-rest hyperplanes as a decision list
    (:mod:`~annc.training.warmstart.pool.decisionlist`); where it holds fewer but at least
    ``ceil(log2 k)``, an output code (:mod:`~annc.training.warmstart.pool.outputcode`).  On large data the margin is the data's eps
    where narrower (:func:`_margin`)."""
    if not _separators_fit(spec, open_):
        return ()
    k = spec.classes
    width = separator_width(k, spec.hidden[0].units) if "width" in open_ else None
    weight = spec.penalty_weight if PENALTY[spec.penalty].weighted else 0.0
    margin = _margin(open_, eps, large)
    return tuple(Setting(width, weight, margin, logistic=C) for C in cs)


def _tree_settings(spec: NetworkSpec, open_: tuple[str, ...], eps: float, large: bool,
                   makers=None, depths: tuple[int, ...] | None = None) -> tuple[Setting, ...]:
    """The trees the folds score beside the path (of ``depths``, None:
    :data:`~annc.training.warmstart.pool.trees.DEPTHS`; step 4 of
    :mod:`annc.training.modelselect.cvpath`), where the penalty is open and the spec has one hidden layer of step
    units: CART of each depth, a unit per split, at most the spec's width in splits (the setting's
    width: ``2^depth - 1`` splits, capped there), at the spec's default l0 weight and the margin of
    the logistic separators (a split's threshold lies mid-way between two rows' values: a narrow
    margin keeps it there).  Then, where a library is installed (of ``makers``, None: the registry's;
    ``{}``: none), the optimal tree of each depth (:func:`~annc.training.warmstart.pool.trees.tree_sources`:
    ConTree's where its full tree fits the spec's width, else STreeD's, capped there)."""
    from ..warmstart.pool.trees import DEPTHS, tree_sources
    if "penalty" not in open_ or len(spec.hidden) != 1 or spec.hidden[0].activation != "binary":
        return ()
    top = spec.hidden[0].units
    weight = spec.penalty_weight if PENALTY[spec.penalty].weighted else 0.0
    margin = _margin(open_, eps, large)
    asked = [(source, depth) for depth in (DEPTHS if depths is None else depths)
             for source in tree_sources(depth, top, makers)]
    return tuple(Setting(min(top, 2 ** depth - 1) if "width" in open_ else None, weight, margin, tree=depth,
                         tree_source=source) for source, depth in sorted(asked, key=lambda a: (a[0] != "cart", a[1])))


def _margin(open_: tuple[str, ...], eps: float, large: bool) -> float:
    """The classic models' margin: the narrow one where eps is open (on large data the data's, where
    narrower: a unit's pre-activations on thousands of rows lie closer together than the narrow gap),
    else the spec's."""
    from ..warmstart.margin import NARROW
    return (min(NARROW, eps) if large else NARROW) if "eps" in open_ else eps


def _eps(spec: NetworkSpec, data: Dataset, merge: bool) -> float:
    """The eps the folds use: the spec's, or the one the data choose (once, on all rows)."""
    if not spec.eps_auto:
        return float(spec.eps)
    from ..warmstart.margin import resolve
    return float(resolve(spec, data, merge=merge).spec.eps)


def cross_validate(spec: NetworkSpec, data: Dataset, *, ctx: RunContext | None = None, merge: bool = True,
                   parallel: dict | None = None, log=silent, policy: SelectionPolicy = DEFAULT_POLICY,
                   kept_ctx: RunContext | None = None) -> CVSelection | None:
    """Score every setting of :func:`plan_for` on every fold and choose one (module docstring).
    The run context ``ctx`` caps the folds and runs their
    sub-MIPs (None: no cap, HiGHS); ``kept_ctx`` (None: ``ctx``) caps a kept classic model's fit on
    all the rows of large data, which the run keeps as it is (the caller passes the whole run's
    context: that fit is work-limited, and under selection's share the clock cut it on a loaded
    machine, hpc_data's kept separator ending with 49 weights instead of 29); ``parallel`` (the executor's ``workers`` and ``scheduler``) runs
    each fold as an executor task (:mod:`annc.training.modelselect.cvfolds`).  None when no setting was scored on every fold (the
    caller trains the spec as written).  Where an optimal-tree library of ``policy.tree_makers`` is
    missing and the plan holds trees, ``log`` hears once what it would add."""
    ctx = ctx or RunContext()
    fold_ctx = ctx.share(policy.folds_share, of_finish=False)  # the rest: the chosen setting on all rows
    cv_data = sample(data, policy.max_cv_rows)
    counts = np.bincount(np.asarray(cv_data.y), minlength=len(cv_data.classes))
    plan = replace(plan_for(spec, len(data.y), int(counts[counts > 0].min()), _eps(spec, data, merge), policy),
                   merge=merge)
    labels = [s.label(spec) for s in plan.settings]
    log(f"[select] {plan.folds}-fold cross-validation of {len(labels)} settings on {len(cv_data.y)} rows"
        + (" (in parallel)" if parallel else ""))
    if plan.trees and (note := missing_note(policy.tree_makers)):
        log(f"[select] {note}")
    whole_part = not plan.large  # the whole sample, whose networks seed the final training (two-way plan: none)
    parts = folds(cv_data, plan) + ([(cv_data, cv_data)] if whole_part else [])
    run = run_folds(spec, parts, plan, fold_ctx, whole_part=whole_part, parallel=parallel, log=log)
    balanced = cv_data.class_weight is not None  # the folds score balanced accuracy (rowweights.fold_score)
    sel = CVSelection(plan, labels, run.scores, 0, 0, spec, len(cv_data.y), capped=run.capped, whole=run.whole,
                      policy=policy, chance=constant_score(cv_data.y, len(cv_data.classes), balanced), balanced=balanced)
    sel.best, sel.chosen = sel.choose()
    _say_not_reached(sel, log)
    if sel.chosen < 0:
        scored = any(sel.complete(i) for i in range(len(sel.labels)))
        log("[select] no setting scored on every fold before the time limit beats a constant network: training the spec "
            "as written" if scored else "[select] no setting was scored on every fold: training the spec as written")
        return None
    return _finish(sel, data, cv_data, run, ctx, kept_ctx or ctx, merge, log)


def _say_not_reached(sel: CVSelection, log) -> None:
    """A line for each reason (:class:`~annc.training.modelselect.settings.Stop`) that left settings
    unscored on some fold: they are not candidates."""
    for stop, labels in sel.not_reached().items():
        log(f"[select] not scored on every fold ({stop.value}), so not candidates: {len(labels)} settings, "
            + ", ".join(labels[:3]) + (" ..." if len(labels) > 3 else ""))


def _finish(sel: CVSelection, data: Dataset, cv_data: Dataset, run: FoldRun, ctx: RunContext,
            kept_ctx: RunContext, merge: bool, log) -> CVSelection | None:
    """The rule's choice made trainable on all rows: the network the final training starts from or
    keeps, the spec at the chosen setting (``sel.spec``, the spec as given until then), its weight
    budget; None where no network fits."""
    plan, rule, spec = sel.plan, sel.chosen, sel.spec
    if plan.large:  # a classic model is fitted again on all rows; the spec makes its own start
        setting = plan.settings[sel.chosen]
        seed = kept_on_rows(spec, data, setting, kept_ctx, merge) if sel.keeps else None
        if sel.keeps and seed is None:
            log("[select] the chosen classic model could not be fitted on all rows: training the spec as written")
            return None
    else:
        setting, seed = realise(sel, spec, cv_data, run.networks, ctx, merge, log,
                                eps_open="eps" in open_settings(spec))
    sel.seconds = ctx.elapsed()
    if setting is None:
        log("[select] no setting's network on all rows fits them as its folds did: training the spec as written")
        return None
    if sel.chosen != rule:
        order = sel.order(sel.best)
        sel.passed_over = [sel.labels[i] for i in order[:order.index(sel.chosen)]]
    # eps pinned to the folds' (the data's rule, run again on the chosen setting's spec, may choose another)
    sel.spec, sel.start_network = spec_at(spec, setting), seed
    if "penalty" in plan.open and spec.max_weights is None and not sel.keeps and not plan.large:
        sel.budget = budget(sel, seed)
        sel.spec = replace(sel.spec, max_weights=sel.budget)
    log(f"[select] chose {sel.label}: CV {sel.measure} {sel.estimate:.4f} +- {sel.se(sel.chosen):.4f}")
    return sel
