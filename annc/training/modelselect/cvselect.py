"""Model selection by k-fold cross-validation: the default for real data (issue 36).

The MIP minimises the *training* objective for the settings it is given, and the stronger
the search, the closer it fits the training rows.  What a spec leaves open is therefore
chosen here by how networks trained with each setting do on rows they never saw:

* **open settings** (:func:`open_settings`): a spec of the default recipe (it names no loss)
  leaves open the l0 weight (unless it writes ``penalty``) and the width of its hidden layers
  (the spec's width is the largest tried, the narrowest k - 1 units for k classes); ``eps`` left open is chosen on the data as before
  (:func:`annc.training.warmstart.margin.choose_eps`, once, on all the training rows) and used on every
  fold; under a time limit of :data:`SHORT` seconds or more the other margin (0.1 or 0.001,
  :func:`other_eps`) is tried too, where the hidden units are binary steps.  A spec that names its
  loss, or a spec built in Python, writes everything.
* **when** (:func:`applies`; by default, :data:`CV_BY_DEFAULT`): some setting is open, the hidden
  layers are binary step units (ReLU nets are relaxed models, left as they were), the time limit is
  at least :data:`MIN_LIMIT` seconds (or none), and the data do not merge into a few distinct rows
  (at least :data:`MIN_DISTINCT`; XOR-like data stay as they were); more than :data:`MANY_ROWS`
  rows also need logistic separators to set against the spec (below);
* **the path** (:data:`PENALTY_PATH`, widths ``1, 2, 4, ..`` up to the spec's): every setting
  is scored on every fold by the cheap search of :mod:`annc.training.modelselect.cvpath`;
* **the folds**: scikit-learn's ``StratifiedKFold`` (shuffled, seed 0): :data:`FOLDS` folds,
  :data:`FOLDS_SHORT` above :data:`MANY_ROWS` rows or under a time limit below :data:`SHORT`
  seconds (the plan is sized by the limit the user gives, never by the clock, so the same
  limit gives the same folds under any load); above :data:`MAX_CV_ROWS` rows the folds are
  cut from a stratified sample of that many rows.

**Large data.**  Above :data:`MANY_ROWS` training rows the folds cannot walk the path within a
minute's share on two cores (fair, 4,456 rows: the widths 1, 2 and 4 took 20 s of 20.4, and the
other margin was cut).  There the plan is two-way (:attr:`~annc.training.modelselect.cvpath.Plan.large`): the
spec as written (its width, its l0 weight, the data's eps) against the logistic separators, on the
folds' sample of :data:`MAX_CV_ROWS` rows.  Two savings keep it within the folds' cap at 30 s
(15.3 s): the folds' weight drop solves no LP (the refits that keep a unit's activations were half
the folds' time: fair's split 0, 10.3 s of 21), and no whole-set part is scored (its networks would
only seed a training on other rows).  Fair's split 0 then takes 10.5 s, moons10k's 9.8 s (21.5 s
and 11.8 s with both), and at 30 s fair scores 72.2% with 14.8 weights over 5 splits, where the
spec trained as written scored 70.7% with 65.4 (``bench/issue36_large30``).  The question the
folds answer is whether the spec's nonlinear units earn their place over a convex surrogate's
hyperplane (fair's split 0: the spec's network scores 0.704 on the folds, L1 logistic regression's
0.719; moons10k's: 0.912 against 0.856); the penalty matters little where errors count in
thousands (a 1,000-row sample was too small: moons10k's folds of 667 rows missed the curve on a
split, 0.844 against 0.845).  The chosen setting trains on all rows (above 10,000 distinct rows,
their weighted representatives) with no weight budget: the folds' networks saw a sample, and their
weights do not carry to all the rows.  A chosen separator is L1 logistic regression fitted again on
all the rows; the spec as written makes its own start there.

**The logistic separators.**  Where the penalty is open, the plan also holds L1 logistic
regression at each C of :data:`LOGISTIC_PATH` (:func:`_logistic_settings`; step 3 of
:mod:`annc.training.modelselect.cvpath`): a network of the spec's class that a convex surrogate finds (one
step unit for two classes; for ``k`` classes a unit for each of the ``k (k - 1) / 2`` pairwise
comparisons of its scores, where the spec's hidden layer is that wide), scored on the same folds by the same rule.
The exact search minimises the training errors; on noisy, nearly linear data its minimiser generalises worse than the surrogate's separator, and
the folds see it.  When the rule chooses a logistic setting (:attr:`CVSelection.keeps`), the final
training keeps its network on all rows as it is (no search and no full MIP replace it, no weight
budget) and annc's lower bounds bound its objective: the verdict says the MIP added a bound.

**The CV estimate.**  Setting ``s`` scores accuracies ``a_{s,1..k}`` on the k held-out folds;
its CV accuracy is ``m_s = (1/k) sum_f a_{s,f}`` and its standard error
``se_s = sd_s / sqrt(k)`` with ``sd_s`` the sample standard deviation over the folds.

**The rule.**  With ``b`` the setting of the highest ``m`` (ties: fewer mean non-zero weights), every
setting with ``m_s >= m_b - max(SE_RULE * se_b, RESOLUTION / v)`` counts as good as ``b`` (``v = rows / k``
a fold's validation rows: a difference under :data:`annc.training.modelselect.cvresults.RESOLUTION` row a fold is below
what the folds resolve), and the simplest of them is chosen: the fewest mean non-zero weights, then the
smaller width, then the larger l0 weight, then the wider margin.  A setting of the MIP path goes before the
logistic separators only where it earns it (:meth:`~annc.training.modelselect.cvresults.CVSelection.separator_first`):
the mean of its paired fold differences with the first separator of that order is above
:data:`~annc.training.modelselect.cvresults.PAIRED_SE` of their standard error and above the resolution.  Where the
penalty is open and no separator fits, the spec as written (``Plan.anchor``) stands in its place.
``SE_RULE`` is 1, the one-standard-error rule (Breiman et al.; ESL 7.10): the best of some 40 noisy CV
scores is optimistic, and the simplest setting within its standard error is chosen.  It was 0 while the
separators were the only simple models (at 1 it chose 2 weights on anes96, 88.3% over 5 splits against
90.1%); with the trees and the thinned twins (:mod:`annc.training.modelselect.cvpath`, steps 4 and 5) it
keeps 19 of the 20 bench sets within a point of the better of L1 logistic regression and STreeD's tree,
against 16 at 0 (:data:`~annc.training.modelselect.cvresults.SE_RULE`).
``m`` of the chosen setting is the CV estimate of the test accuracy (slightly optimistic: the same folds
chose it).

**The weight budget.**  The folds score the cheap path; the final training runs the full search,
which at the same l0 weight fits the training rows closer with more weights, and not the test
rows (``bench/issues36_37_cv/seed_vs_final``).  Where the penalty is open, the chosen spec
therefore also gets ``max_weights K`` (:func:`~annc.training.modelselect.cvrows.budget`): ``K`` the non-zero weights of the folds'
networks of the chosen setting (their mean, rounded up), and at least those of its network on all
rows (the final training's seed, the procedure the folds scored): the full search
lowers the objective among the networks of at most ``K`` weights (L0Learn's cross-validation
chooses the support size likewise).
Where the chosen path setting's network on all rows already fits them at least as well as its
folds' networks fitted theirs (:attr:`~annc.training.modelselect.cvresults.CVSelection.holds`), no search runs:
that network, which the folds validated at that fit, is kept as a separator or a tree is.

Only settings scored on every fold compete; the clock (the share :data:`SELECT_SHARE` of the
time limit) only caps the folds, and a cut-short run says so.  Cut before the spec's width, the
rule chooses only when :meth:`~annc.training.modelselect.cvresults.CVSelection.width_settled` holds (a logistic
separator scored, for two classes on at most :data:`MANY_ROWS` rows; or width had stopped paying);
else the spec is trained as written.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...core.log import silent
from ...core.penalties import PENALTY
from ...io.data import Dataset
from ...io.recipe import _written
from ...io.spec import NetworkSpec
from ..context import RunContext
from ..large.compress import distinct_rows
from ..warmstart.pool.linear import pairs
from .cvpath import FoldScore, Plan, Setting, fold_path, fold_task, spec_at
from .cvresults import CVSelection
from .cvrows import budget, kept_on_rows, realise
from .splits import _subset

__all__ = ["CVSelection", "applies", "cross_validate", "open_settings", "plan_for"]

PENALTY_PATH = (4.0, 2.0, 1.0, 0.5, 0.25, 0.125)  # l0 weights, large to small (factors of 2 around 0.5)
LOGISTIC_PATH = (0.01, 0.1, 0.3, 1.0, 3.0, 10.0)  # C of the folds' separators (smaller: sparser; bench/issue36_grid)
FOLDS, FOLDS_SHORT, SHORT = 5, 3, 60.0  # k, and k under a time limit below SHORT seconds
MANY_ROWS = 1000  # more training rows: FOLDS_SHORT folds too
MAX_CV_ROWS = 2000  # the folds are cut from a stratified sample of at most this many rows
MIN_DISTINCT = 64  # fewer distinct rows: the data merge (the paper's XOR: 32, its 5 binary inputs' patterns), the
# spec is trained as written.  It was 100, and womenlf (184 training rows, 85 distinct: a 3-class survey with a
# 5-category text column) was trained as written: 63.8% over 5 splits with 11.2 weights, train - test 9.7 points,
# where L1 logistic regression scores 67.6%
MIN_LIMIT = 30.0  # under a shorter --time-limit the spec is trained as written: on breast_cancer at 12 s the
# folds scored no setting on a loaded 2-core machine and left the final training 4 s (train accuracy 63%)
CV_BY_DEFAULT = True  # --no-select (select=False) trains the spec as written (off in an earlier version,
# whose folds ran one SGD seed and left no time for the network on all rows: bench/issues36_37)
SELECT_SHARE = 0.6  # of the time limit, at most, for the folds; the final training gets the rest.  At 30 s the
# folds' cap is 15.3 s; without a cap they need 6-18 s on 13 of 14 bench sets (class4 30 s) on a 2-core EPYC
# without AVX-512, and 4 are over it (bench/issue36_work).  0.7 let 3 more finish, and modechoice's completed
# folds then chose denser networks that overfit (77.8% over 5 splits against 82.2% at 0.6); 0.75 with the
# spec trained as written when cut short left breast_cancer's final training 7 s: 88.7% with 58 weights over
# 5 splits, against 95.8% (bench/issue36_cut).  The same share above MANY_ROWS rows (0.4 before the two-way
# plan, whose folds need 18-22 s on a fair split at 60 s, over that share's 20.4 s cap; bench/issue36_large)


def open_settings(spec: NetworkSpec) -> tuple[str, ...]:
    """The settings ``spec`` leaves to selection, of ``("penalty", "width", "eps")`` (eps: the
    default recipe's, left to the data, of step units)."""
    if _written(spec, "loss"):
        return ()
    out = () if _written(spec, "penalty") else ("penalty",)
    out += ("width",) if spec.hidden and max(h.units for h in spec.hidden) > 1 else ()
    return out + (("eps",) if spec.eps_auto and spec.hidden and all(h.activation == "binary" for h in spec.hidden)
                  else ())


def applies(spec: NetworkSpec, data: Dataset, time_limit: float | None = None) -> bool:
    """Whether cross-validation chooses ``spec``'s open settings by default on ``data`` under
    ``time_limit`` (module docstring; checked by the request): any data need at least :data:`MIN_LIMIT` seconds (or none);
    more than :data:`MANY_ROWS` rows also logistic separators to set against the spec as written."""
    if time_limit is not None and time_limit < MIN_LIMIT:
        return False
    from ..warmstart.pool.seeding import sgd_trains
    if not open_settings(spec) or spec.training != "full" or not sgd_trains(spec) \
            or not all(h.activation == "binary" for h in spec.hidden):  # the folds' search: step units
        return False
    if len(data.y) > MANY_ROWS and not _separators_fit(spec, open_settings(spec)):
        return False  # large data: nothing to set against the spec as written
    counts = np.bincount(np.asarray(data.y), minlength=len(data.classes))
    return distinct_rows(np.asarray(data.X, float)) >= MIN_DISTINCT and counts[counts > 0].min() >= 2


def _widths(top: int, classes: int = 2) -> tuple[int, ...]:
    """The widths the path tries: from ``classes - 1`` units (one unit tells two classes apart;
    below ``k - 1`` units a one-hidden-layer net of step units told 4 classes apart at 53% on
    modechoice's folds, against 72% at 4 units) doubling up to ``top``, the spec's."""
    out = [max(1, min(top, classes - 1))]
    while out[-1] * 2 < top:
        out.append(out[-1] * 2)
    return tuple(out + [top]) if top > out[-1] else tuple(out)


def plan_for(spec: NetworkSpec, rows: int, smallest_class: int, eps: float, time_limit: float | None = None) -> Plan:
    """The settings and folds for ``spec`` on ``rows`` training rows under ``time_limit`` (module docstring)."""
    open_ = open_settings(spec)
    large, short = rows > MANY_ROWS, time_limit is not None and time_limit < SHORT
    written, top = spec.penalty_weight if spec.penalty != "none" else 0.0, max(h.units for h in spec.hidden)
    penalties = PENALTY_PATH if "penalty" in open_ and not large else (written,)  # large: the spec as written
    widths = ((top,) if large else _widths(top, spec.classes)) if "width" in open_ else (None,)
    folds = min(FOLDS_SHORT if large or short else FOLDS, smallest_class)
    # eps: the data's rule's, and under a limit of SHORT seconds or more (or none) the other margin too
    epss = (eps,) if "eps" not in open_ or large or short else (eps, other_eps(eps))
    logistic = _logistic_settings(spec, open_, eps, rows)  # eps open: the separators take the narrow margin
    trees = _tree_settings(spec, open_, eps, rows)
    thinned = tuple(replace(s, thinned=True) for s in logistic + trees)  # step 5 of annc.training.modelselect.cvpath
    path = tuple(Setting(w, p, e) for e in epss for w in widths for p in penalties)
    open_ = open_ if len(epss) > 1 else tuple(o for o in open_ if o != "eps")
    anchor = Setting(widths[-1], written, eps) if "penalty" in open_ and not logistic else None
    return Plan(path + logistic + trees + thinned, folds, open_, anchor=anchor, large=large)


def _separators_fit(spec: NetworkSpec, open_: tuple[str, ...]) -> bool:
    """Whether the folds score logistic separators for ``spec`` (:func:`_logistic_settings`): the
    penalty is open, and one unit (two classes) or one hidden layer of the k (k - 1) / 2 pairs fits."""
    if "penalty" not in open_ or not spec.hidden:
        return False
    return spec.classes == 2 or (len(spec.hidden) == 1 and spec.hidden[0].units >= pairs(spec.classes))


def _logistic_settings(spec: NetworkSpec, open_: tuple[str, ...], eps: float, rows: int) -> tuple[Setting, ...]:
    """The logistic separators the folds score beside the path (:data:`LOGISTIC_PATH`), where the
    penalty is open (the objective is the default recipe's): one unit (width 1) for two classes,
    the spec's default l0 weight (the objective the verdict reports) and the narrow margin where eps
    is open (the separator keeps its own hyperplane: a wide gap would move the rows near it).

    For ``k > 2`` classes it is the regression's argmax: a unit for each of the ``k (k - 1) / 2``
    pairwise comparisons of its scores (:func:`~annc.training.warmstart.pool.linear.differences`) and an
    output layer that counts each class's wins (:func:`~annc.training.warmstart.pool.linear.votes`): a
    setting of that width, where one hidden layer of step units is that wide.  (``k`` units
    reading each score's sign lost accuracy where the folds chose them,
    ``bench/issue36_logistic/with_multiclass_*``; one-vs-one regression, sparser, is another
    classifier, and scored 95.2% on wine over 5 splits at 30 s where the regression's argmax
    scores 97.4%, ``bench/issue36_ovr``.)

    Above :data:`MANY_ROWS` rows the margin is the data's ``eps`` where it is narrower than the
    narrow one: a unit's pre-activations on thousands of rows lie closer together than 0.001, so
    no bias clears a gap that wide near the threshold, and the repair moved moons10k's separator
    until it fitted 55-61% of its 7,000 rows, where at the data's 0.0001 it fits 85%, as L1
    logistic regression does."""
    if not _separators_fit(spec, open_):
        return ()
    width = (1 if spec.classes == 2 else pairs(spec.classes)) if "width" in open_ else None
    weight = spec.penalty_weight if PENALTY[spec.penalty].weighted else 0.0
    margin = _margin(open_, eps, rows)
    return tuple(Setting(width, weight, margin, logistic=C) for C in LOGISTIC_PATH)


def _tree_settings(spec: NetworkSpec, open_: tuple[str, ...], eps: float, rows: int) -> tuple[Setting, ...]:
    """The trees the folds score beside the path (:data:`~annc.training.warmstart.pool.trees.DEPTHS`; step 4 of
    :mod:`annc.training.modelselect.cvpath`), where the penalty is open and the spec has one hidden layer of step
    units: CART of each depth, a unit per split, at most the spec's width in splits (the setting's
    width: ``2^depth - 1`` splits, capped there), at the spec's default l0 weight and the margin of
    the logistic separators (a split's threshold lies mid-way between two rows' values: a narrow
    margin keeps it there)."""
    from ..warmstart.pool.trees import DEPTHS
    if "penalty" not in open_ or len(spec.hidden) != 1 or spec.hidden[0].activation != "binary":
        return ()
    top = spec.hidden[0].units
    weight = spec.penalty_weight if PENALTY[spec.penalty].weighted else 0.0
    margin = _margin(open_, eps, rows)
    return tuple(Setting(min(top, 2 ** depth - 1) if "width" in open_ else None, weight, margin, tree=depth)
                 for depth in DEPTHS)


def _margin(open_: tuple[str, ...], eps: float, rows: int) -> float:
    """The kept settings' margin: the narrow one where eps is open (on more than :data:`MANY_ROWS`
    rows the data's, where narrower: :func:`_logistic_settings`), else the spec's."""
    from ..warmstart.margin import NARROW
    return (min(NARROW, eps) if rows > MANY_ROWS else NARROW) if "eps" in open_ else eps


def other_eps(eps: float) -> float:
    """The margin the folds try beside the data's rule's: the wide one, or the narrow one after it."""
    from ..warmstart.margin import NARROW, WIDE
    return NARROW if eps == WIDE else WIDE


def _folds(data: Dataset, plan: Plan):
    """The (fit, validation) Datasets of the plan's stratified folds."""
    from sklearn.model_selection import StratifiedKFold
    skf = StratifiedKFold(n_splits=plan.folds, shuffle=True, random_state=plan.seed)
    return [(_subset(data, tr, f"fold{f}"), _subset(data, va, f"fold{f} validation"))
            for f, (tr, va) in enumerate(skf.split(np.zeros(len(data.y)), data.y))]


def _sample(data: Dataset, seed: int) -> Dataset:
    """At most :data:`MAX_CV_ROWS` rows of ``data``, stratified by class (seeded)."""
    if len(data.y) <= MAX_CV_ROWS:
        return data
    from sklearn.model_selection import train_test_split
    rows, _ = train_test_split(np.arange(len(data.y)), train_size=MAX_CV_ROWS, stratify=data.y, random_state=seed)
    return _subset(data, np.sort(rows), "cv sample")


FOLDS_SHARE = 0.85  # of the selection's share, at most, for the folds and the whole set (the rest: realise's refit)
def _eps(spec: NetworkSpec, data: Dataset, merge: bool) -> float:
    """The eps the folds use: the spec's, or the one the data choose (once, on all rows)."""
    if not spec.eps_auto:
        return float(spec.eps)
    from ..warmstart.margin import resolve
    return float(resolve(spec, data, merge=merge).spec.eps)


def cross_validate(spec: NetworkSpec, data: Dataset, *, time_limit: float | None = None,
                   ctx: RunContext | None = None, merge: bool = True, workers: int | None = None,
                   scheduler: str | None = None, log=silent) -> CVSelection | None:
    """Score every setting of :func:`plan_for` on every fold and choose one (module docstring).
    ``time_limit`` (the user's) sizes the plan; the run context ``ctx`` caps the folds and runs their
    sub-MIPs (None: no cap, HiGHS).  In this
    process the folds run width by width (all folds of width 1, then of width 2, ...), so that a cap
    leaves the narrower settings scored on every fold; with ``workers`` or ``scheduler`` each fold
    (and the whole set) is a task on :class:`annc.training.large.executor.Executor`, fed a worker thread at
    a time and capped, as it starts, at its share of the folds' time
    (:meth:`~annc.training.context.RunContext.slot_cap`).  None when the cap left no setting
    scored on every fold."""
    ctx = ctx or RunContext()
    fold_ctx = ctx.share(FOLDS_SHARE, of_finish=False)  # the rest: the chosen setting's network on all rows
    cv_data = _sample(data, 0)
    counts = np.bincount(np.asarray(cv_data.y), minlength=len(cv_data.classes))
    plan = plan_for(spec, len(data.y), int(counts[counts > 0].min()), _eps(spec, data, merge), time_limit)
    labels = [s.label(spec) for s in plan.settings]
    folds = _folds(cv_data, plan)
    log(f"[select] {plan.folds}-fold cross-validation of {len(labels)} settings on {len(cv_data.y)} rows"
        + (" (in parallel)" if workers is not None or scheduler is not None else ""))
    whole_part = not plan.large  # the whole set, whose networks seed the final training (the two-way plan: none)
    parts = folds + ([(cv_data, cv_data)] if whole_part else [])
    done_parts = f"{len(folds)} folds" + (" and all rows" if whole_part else "")
    if workers is not None or scheduler is not None:
        from ..large.executor import Executor, TaskFailed
        items = [(spec, fit, val, plan, merge, None, ctx.solver, f == len(folds))
                 for f, (fit, val) in enumerate(parts)]

        def prepare(i, item, waiting):  # each part capped, as it starts, at its share of the folds' time
            return item[:5] + (fold_ctx.slot_cap(waiting, ex.slots),) + item[6:]
        with Executor(workers=min(workers, len(items)) if workers else None, scheduler=scheduler, log=log) as ex:
            names = [f"fold {f}" for f in range(len(folds))] + (["all rows"] if whole_part else [])
            results = ex.run(fold_task, items, names=names,
                             retries=0, prepare=prepare if fold_ctx.limited else None,
                             timeout=fold_ctx.task_wait())
        done = [([FoldScore(why=r.message)] * len(labels), {}) if isinstance(r, TaskFailed) else r for r in results]
        per_fold, (whole, networks) = [d[0] for d in done[:len(folds)]], (done[-1] if whole_part else (None, {}))
    else:
        found: list[dict] = [{} for _ in parts]
        states: list[dict] = [{} for _ in parts]
        if plan.kept:  # first: cheap, so no cap leaves them unscored
            for f, (fit, val) in enumerate(parts):
                found[f].update(fold_path(spec, fit, val, plan, ctx=fold_ctx, merge=merge, groups=[], kept=True,
                                          state=states[f]))
            log(f"[select] {done_parts} of the logistic separators and trees done ({ctx.elapsed():.1f}s)")
        for group in plan.groups():
            for f, (fit, val) in enumerate(parts):
                found[f].update(fold_path(spec, fit, val, plan, ctx=fold_ctx, merge=merge, groups=[group],
                                          state=states[f]))
            log(f"[select] {done_parts} of {group[1][0].label(spec).split(', ', 1)[1]} done "
                f"({ctx.elapsed():.1f}s)")
        per_fold = [[d[s] for s in plan.settings] for d in found[:len(folds)]]
        whole, networks = ([found[-1][s] for s in plan.settings], states[-1].get("networks", {})) if whole_part \
            else (None, {})
    if whole is None:  # the two-way plan: the chosen setting's network is made on all rows below
        whole = [FoldScore(why="not scored: the two-way plan scores no whole-set part")] * len(labels)
    scores = [[per_fold[f][i] for f in range(plan.folds)] for i in range(len(labels))]
    capped = any(s.why and "time limit" in s.why for row in scores + [whole] for s in row)
    sel = CVSelection(plan, labels, scores, 0, 0, spec, len(cv_data.y), capped=capped, whole=whole)
    sel.best, sel.chosen = sel.choose()
    if sel.chosen < 0:  # nothing scored on every fold: the caller trains the spec as written
        log("[select] no setting was scored on every fold within the time limit: training the spec as written")
        return None
    # cut before the spec's width; a separator stands in for the path only for two classes (one unit)
    if not sel.width_settled(separators_suffice=len(cv_data.y) <= MANY_ROWS and spec.classes == 2):
        log("[select] the time limit stopped the folds before the spec's width, and what they reached does not "
            "settle the width: training the spec as written")
        return None
    rule = sel.chosen
    if plan.large:  # the rule's choice: a separator is fitted again on all rows, the spec makes its own start
        setting = plan.settings[sel.chosen]
        seed = kept_on_rows(spec, data, setting, ctx, merge) if sel.keeps else None
        if sel.keeps and seed is None:
            log("[select] the chosen logistic separator could not be fitted on all rows: training the spec as written")
            return None
    else:
        setting, seed = realise(sel, spec, cv_data, networks, ctx, merge, log, eps_open="eps" in open_settings(spec))
    sel.seconds = ctx.elapsed()
    if setting is None:
        log("[select] no setting's network on all rows fits them as its folds did: training the spec as written")
        return None
    if sel.chosen != rule:
        order = sel.order(sel.best)
        sel.passed_over = [sel.labels[i] for i in order[:order.index(sel.chosen)]]
    # eps pinned to the folds' (the data's rule, run again on the chosen setting's narrower or sparser
    # spec, may choose another margin: on a breast_cancer split 0.1 for width 1, where the folds had 0.001)
    sel.spec, sel.start_network = spec_at(spec, setting), seed
    if "penalty" in plan.open and spec.max_weights is None and not sel.keeps and not plan.large:
        sel.budget = budget(sel, seed)
        sel.spec = replace(sel.spec, max_weights=sel.budget)
    log(f"[select] chose {sel.label}: CV accuracy {sel.estimate:.4f} +- {sel.se(sel.chosen):.4f}")
    return sel
