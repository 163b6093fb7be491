"""The cheap search on one fold of cross-validation: a regularisation path per width.

Model selection (:mod:`annc.training.modelselect.cvselect`) asks, for every setting of the plan
(:class:`Plan`: widths, l0 weights, eps values), how a network trained with that setting
does on rows it never saw.  Each fold answers for all the settings at once
(:func:`fold_path`), by staged effort: the cheap part of annc's search here,
the full search and the bounds only on the chosen setting, trained on all the rows.

On the fold's training part, for each eps and each width ``w`` (every hidden layer at most
``w`` units):

1. **the start pool, once per width**: at width 1, the sparse linear separators of
   :mod:`annc.training.warmstart.pool.linear`, each with its exact output layer (a node-limited sub-MIP);
   at every width, the ``w`` units that the output layer weighs most of SGD's network (the best of
   three seeds by objective, trained once per fold at the spec's width; its epochs are a work limit)
   and, where the hidden units are binary steps, of the annealed sigmoids' network (one seed, its
   Adam steps a work limit); and every network of
   width ``w / 2``'s path, padded with units that never fire (the narrower warm-starts the wider);
2. **the path**, from the largest l0 weight down (as scikit-learn's ``LogisticRegressionCV``
   walks C and L0Learn its l0 path): at weight ``lambda_j`` the candidates are the pool and
   the network found at ``lambda_{j-1}``, each scored by the objective
   ``errors + lambda_j * nnz``; the best one is the start of the greedy weight dropping
   (:func:`annc.training.search.local.drop_weights`, one lift per weight and no solve; a unit is
   moved off the eps gap by its bias alone, ``refit_gap=False``, and only the refit that keeps
   its activations is an LP: a third of the folds' time went to the gap's LPs; the two-way plan
   on thousands of rows, :attr:`Plan.large`, leaves that one out too).  The MIPs of
   the path differ only in the penalty's weight, so a point of one is a point of the next:
   the previous network warm-starts the next one, and its objective can only go down along
   the path's own candidates.
3. **the logistic separators** (the plan's :attr:`Plan.logistic` settings): L1
   logistic regression at each ``C`` of the plan as a network of the spec's class
   (:func:`~annc.training.warmstart.pool.linear.logistic_network`: one step unit for two classes; for more,
   a unit per pairwise comparison of its scores and an output layer that counts the wins; scaled
   into its box, the rows inside the eps gap repaired, its exact output layer), not refitted and
   not thinned.  The
   path minimises the training objective ``errors + lambda * nnz``; on noisy, nearly linear data
   the folds see the convex surrogate's separator generalise better than the exact minimiser of
   the errors, and the rule may choose it: the network the user gets is then that separator, and
   the MIP bounds it (:mod:`annc.training.modelselect.cvselect`).
4. **the trees** (the plan's :attr:`Plan.trees` settings): scikit-learn's CART tree of each depth
   of the plan and, where its library is installed, the optimal tree of that depth
   (:attr:`Setting.tree_source`: ConTree's or STreeD's, :mod:`~annc.training.warmstart.pool.treemakers`),
   a step unit per split (:func:`~annc.training.warmstart.pool.trees.tree_network`), its exact
   output layer reading the splits; like the separators, kept as they are where chosen.  CART's
   trees also join step 1's pool at every width they fit, so the path starts from them too (the
   optimal ones do not: :func:`_pool`).
5. **the kept models thinned** (each kept setting's twin with :attr:`Setting.thinned`): the separator or
   the tree of steps 3 and 4, then every weight whose removal costs no training accuracy dropped
   (:func:`~annc.training.modelselect.kept.thin`).  A regression's L1 path zeroes a weight only where the convex surrogate loses by
   it, so weights that change no training row's class survive: the pairwise units of a multi-class
   regression read the union of two classes' supports, and a tree's output layer reads splits it
   does not need.  The
   thinned twin is scored on the folds like any setting, so whether the dropped weights carried
   held-out accuracy is measured, not assumed: the rule prefers the twin (fewer weights) only where
   its CV accuracy is as good (:meth:`~annc.training.modelselect.cvresults.CVSelection.order`).

Every decision is a work limit (seeds, epochs, node limits, passes that stop when they drop
nothing, and the policy's ``path_groups``); the run context's deadline
(:class:`~annc.training.context.RunContext`) only caps: a fold cut short by it scores only the
settings whose work it finished, and marks the others with why they stopped (:class:`Stop`), so a
score never depends on the machine's load.  The same data give the same scores under any load.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...core.rowweights import constant_score, fold_score
from ...io.data import Dataset
from ...io.spec import NetworkSpec
from ...solve.compiler import build
from ...solve.decode import decode_network
from ..context import RunContext
from ..search.local import drop_weights
from ..warmstart.pool import complete, feasible, hidden_network, network_start, sgd_start
from ..warmstart.pool.linear import separator_networks
from ..warmstart.pool.seeding import annealed_start, annealed_trains
from ..warmstart.pool.trees import tree_networks
from .kept import kept_point, thin
from .settings import FoldScore, FoldState, FoldTask, Plan, Setting, Stop, spec_at

__all__ = ["fold_path", "fold_task"]


def _accuracy(net, data: Dataset) -> float:
    """The fold score: accuracy, or balanced accuracy when the run has class weights
    (:func:`annc.core.rowweights.fold_score`)."""
    return fold_score(data.y, net.predict_index(data.X), len(data.classes), data.class_weight is not None)


def _padded(c, layers) -> np.ndarray | None:
    """The point of ``c`` of a narrower network (``layers``: its ``(W, b)`` per layer at a point of
    the narrower model, :func:`~annc.training.warmstart.pool.point.hidden_network`, on the same scaled rows): each
    layer's weights and biases copied into zeros of the wider shape.  A unit with no weights
    and bias 0 has pre-activation 0, so it is off, and the output layer reads it with weight 0:
    the same predictions, the same objective."""
    W, b = [], []
    for weight, bias, spec_layer in zip(*layers, c.problem.spec.layers):
        w = np.zeros((weight.shape[0] if not W else W[-1].shape[1], spec_layer.units))
        w[:weight.shape[0], :weight.shape[1]] = weight
        v = np.zeros(spec_layer.units)
        v[:len(bias)] = bias
        W.append(w)
        b.append(v)
    return complete(c.model, c.problem, W, b)


FOLD_EPOCHS = 3000  # at most, per SGD network of a fold (the start pool's takes up to 10,000)
SGD_SEEDS = (0, 1, 2)  # the fold's SGD seeds, in order, until one's network beats the constant network


def _wide_layers(spec: NetworkSpec, s: Setting, fit: Dataset, merge: bool, ctx: RunContext) -> list:
    """The fold's networks at the spec's own widths, once per fold, as ``(W, b)`` per layer at a
    point of the spec-width model: SGD's (:func:`_sgd_layers`) and, where the hidden units are binary
    steps (:func:`~annc.training.warmstart.pool.seeding.annealed_trains`), the annealed sigmoids' (one seed,
    rounded to step units and given its exact output layer as the pool does): SGD's step units stay
    near a linear separator on curved classes, where the annealed network reads the curve.  It is
    here even where the final training's pool leaves it out for too few samples per weight: its
    units are only candidates, and the path's l0 weights and the folds judge them."""
    c = build(spec_at(spec, replace(s, width=None)), fit, name="fold", merge=merge)
    out = [_sgd_layers(c, ctx)]
    if annealed_trains(c.problem.spec) and not ctx.stopped():
        x = annealed_start(c.model, c.problem, seeds=1, ctx=ctx, prune=False)
        out.append(None if x is None else hidden_network(c.model, x))
    return [layers for layers in out if layers is not None]


def _sgd_layers(c, ctx: RunContext):
    """SGD once per fold on ``c`` (the fold compiled at the spec's own widths): seeds of
    :data:`SGD_SEEDS` in order until one's network fits the fold better than the constant network
    (a work limit); the ``(W, b)`` per layer of the least objective at the path's first setting
    among them, or None."""
    fit = c.data
    constant = constant_score(fit.y, len(fit.classes), fit.class_weight is not None)  # always the largest class
    best = None
    for seed in SGD_SEEDS:
        if ctx.stopped():
            break
        x = sgd_start(c.model, c.problem, seed=seed, lasso=False, ctx=ctx, epochs=FOLD_EPOCHS)
        if x is None:
            continue
        if best is None or c.model.objective(x) < c.model.objective(best):
            best = x
        if _accuracy(decode_network(c.varmap, x).with_scaling(c.scaling), fit) > constant:
            break
    return None if best is None else hidden_network(c.model, best)


def _units(c, layers) -> np.ndarray | None:
    """The point of ``c`` (one hidden layer of ``w`` units) of the ``w`` units of the wider
    network ``layers`` that its output layer weighs most (``max_j |W_out[u, j]|``, ties to
    the first): each unit keeps its weights and bias, so its activations and eps gap."""
    (W0, Wo), (b0, bo) = layers
    w = c.problem.spec.hidden[0].units
    keep = np.sort(np.argsort(-np.abs(Wo).max(axis=1), kind="stable")[:w])
    return complete(c.model, c.problem, [W0[:, keep], Wo[keep, :]], [b0[keep], bo])


def _pool(c, width: int | None, state: FoldState, wide_layers, ctx: RunContext) -> list[np.ndarray]:
    """Step 1: the feasible points of the pool on the compiled fold ``c``: the separators at
    the first width, the trees of :mod:`~annc.training.warmstart.pool.trees` at every width, the spec-width networks of :func:`_wide_layers` (with one hidden layer, at every
    width: their units the output layer weighs most; deeper, SGD at widths >= 2), and the networks
    of the narrower width's path, padded.  ``wide_layers()`` computes the former, once per eps."""
    points, narrower = [], state.narrower
    if not narrower:
        for _name, W, b in separator_networks(c.problem):
            x = network_start(c.model, c.problem, W, b, scale=False, ctx=ctx)
            if x is not None:
                points.append(x)
    # CART's trees alone (no optimal maker): the optimal trees are scored as kept settings (step 4).  In the
    # pool they gave the path a start of lower objective that generalised worse: on a 200-row moons sample
    # (tests/training/test_cvselect.py, large data) the path's network scored 0.915 on the folds against 0.930
    for _name, W, b in tree_networks(c.problem, {}):  # at every width: a wider one holds a larger tree
        x = network_start(c.model, c.problem, W, b, scale=False, refit=False, ctx=ctx)
        if x is not None:
            points.append(x)
    if len(c.problem.spec.hidden) == 1 or width is None or width >= 2:
        if len(c.problem.spec.hidden) == 1:
            if state.wide is None:
                state.wide = wide_layers()
            points += [x for x in (_units(c, layers) for layers in state.wide) if x is not None]
        else:  # deeper nets: SGD at this width
            x = sgd_start(c.model, c.problem, seed=0, lasso=False, ctx=ctx)
            if x is not None:
                points.append(x)
    points += [x for x in (_padded(c, layers) for layers in narrower) if x is not None]
    return points


def _kept_scores(spec: NetworkSpec, fit: Dataset, val: Dataset, settings, ctx: RunContext, merge: bool,
                 state: FoldState, scores: dict) -> None:
    """Steps 3 to 5 of the module docstring: each kept setting's network (a logistic separator or a
    tree, thinned or not) on the fold, scored into ``scores`` and kept in ``state.networks``.  A
    thinned twin thins its setting's point of the fold where that was placed already."""
    compiled, placed = state.compiled, state.placed
    for s in settings:
        if ctx.stopped():
            return
        key = (s.width, s.eps)
        c = compiled[key] = compiled.get(key) or build(spec_at(spec, s), fit, name="fold", merge=merge)
        base = replace(s, thinned=False)
        if s.thinned and base in placed:
            x = None if placed[base] is None else thin(c, placed[base], ctx)
        else:
            x = kept_point(c, s, ctx)
            if not s.thinned:
                placed[s] = x
        if ctx.stopped():  # its output layer (or the thinning) may have been cut short
            return
        if x is None:
            scores[s] = FoldScore.unscored(Stop.FAILED, "no network: the classic model could not be lifted")
            continue
        net = decode_network(c.varmap, x).with_scaling(c.scaling)
        scores[s] = FoldScore(_accuracy(net, val), _accuracy(net, fit), int(net.nonzero_weights()))
        state.networks[s] = (hidden_network(c.model, x), c.scaling)


def fold_path(spec: NetworkSpec, fit: Dataset, val: Dataset, plan: Plan, *, ctx: RunContext | None = None,
              groups=None, state: FoldState | None = None, kept=None) -> dict:
    """Steps 1-5 of the module docstring on one fold: a :class:`FoldScore` per setting of the
    plan's ``groups`` (default: all; each ``((eps, width), path)`` of :meth:`Plan.groups`, in
    order, widths increasing) and, with ``kept`` (default: when ``groups`` is; or a tuple of them), of
    its kept settings (logistic separators and trees), first (they are cheap), as a dict.  ``state`` carries
    what a later group of the same fold reuses.  ``ctx`` (a run context; None: no cap, HiGHS for the
    sub-MIPs) caps the work and runs the sub-MIPs; the settings not reached once it has stopped, or
    past the plan's work limit (:attr:`Plan.path_groups`), are unscored with their :class:`Stop`."""
    ctx = ctx or RunContext()
    kept = (groups is None) if kept is None else kept
    kept = kept if isinstance(kept, tuple) else plan.kept if kept else ()
    groups = plan.groups() if groups is None else groups
    state = FoldState() if state is None else state
    asked = kept + tuple(s for _, path in groups for s in path)
    scores: dict = {}
    if kept:
        _kept_scores(spec, fit, val, kept, ctx, plan.merge, state, scores)
    for group in groups:
        if plan.path_groups is not None and state.groups_walked >= plan.path_groups:
            scores.update({s: FoldScore.unscored(Stop.WORK_LIMIT, "not reached: the plan's work limit")
                           for s in group[1]})
            continue
        if ctx.stopped() or not _walk(spec, fit, val, plan, group, state.at(group[0][0]), ctx, scores):
            break
        state.groups_walked += 1
    return {s: scores[s] if s in scores else FoldScore.cut(ctx) for s in asked}


def _walk(spec: NetworkSpec, fit: Dataset, val: Dataset, plan: Plan, group, state: FoldState,
          ctx: RunContext, scores: dict) -> bool:
    """Step 2 on one ``group`` of :meth:`Plan.groups`, ``((eps, width), path)``: its path from the largest l0 weight down, each setting scored into
    ``scores``; False when the run context stopped it (a pool or a drop cut short is not the
    work-limited one: nothing is scored from it)."""
    (_eps, width), path = group
    merge = plan.merge
    first = build(spec_at(spec, path[0]), fit, name="fold", merge=merge)
    pool = _pool(first, width, state, lambda: _wide_layers(spec, path[0], fit, merge, ctx), ctx)
    if ctx.stopped():
        return False
    prev, fixpoint, state.narrower = None, False, []
    for s in path:
        if ctx.stopped():
            return False
        c = first if s is path[0] else build(spec_at(spec, s), fit, name="fold", merge=merge)
        cands = [x for x in pool + ([prev] if prev is not None else []) if feasible(c.model, x)]
        if not cands:
            scores[s] = FoldScore.unscored(Stop.FAILED, "no network: the fold's start pool is empty")
            continue
        x = min(cands, key=c.model.objective)
        # a weight the drop kept at a larger l0 weight earns its place at a smaller one too:
        # the previous network, a fixpoint of the drop there, is one here (skip the pass)
        if c.problem.spec.penalty == "l0" and c.problem.spec.penalty_weight > 0 and not (fixpoint and x is prev):
            x = drop_weights(c.model, c.problem, x, ctx=ctx, refit_gap=False,  # cheap: biases alone
                             keep_activations=not plan.large)
            if ctx.stopped():
                return False
        net = decode_network(c.varmap, x).with_scaling(c.scaling)
        scores[s] = FoldScore(_accuracy(net, val), _accuracy(net, fit), int(net.nonzero_weights()))
        prev, fixpoint = x, True
        state.narrower.append(hidden_network(c.model, x))
        state.networks[s] = (state.narrower[-1], c.scaling)
    return True


def fold_task(task: FoldTask) -> tuple[list[FoldScore], dict]:
    """One fold as an executor task (:class:`FoldTask`), in a run context of its own capped at
    ``task.until`` seconds from its start (the sub-MIPs on ``task.solver`` where its driver serves
    them).  The scores in the plan's order, and with ``task.keep`` each setting's network
    (``((W, b), scaling)``; ``{}`` without)."""
    state = FoldState()
    ctx = RunContext.create(task.solver, limit=task.until)
    scores = fold_path(task.spec, task.fit, task.val, task.plan, ctx=ctx, state=state)
    return [scores[s] for s in task.plan.settings], (state.networks if task.keep else {})
