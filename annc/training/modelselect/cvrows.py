"""A setting of model selection as a network on all the training rows (:mod:`annc.training.modelselect.cvselect`).

The folds score each setting on parts of the rows; the final training starts from (or keeps) the
chosen setting's network on all of them.  Each function here gives that network on the **raw**
inputs, since the final training scales the inputs its own way: :func:`raw_network` converts a
network fitted on scaled inputs, :func:`path_on_rows` runs the folds' cheap path on all rows,
and :func:`kept_on_rows` fits a logistic separator or a tree there.  :func:`realise` finds the
first setting of the rule's order whose network on all rows fits them as its folds promised, and
:func:`budget` the final training's weight budget from the folds' networks where that network is
not kept as it is (:attr:`~annc.training.modelselect.cvresults.CVSelection.holds`).
"""
from __future__ import annotations

import math
from dataclasses import replace

from ...formulations import l0
from ...io.data import Dataset
from ...io.spec import NetworkSpec
from ...solve.compiler import build
from ..context import RunContext
from ..warmstart.pool import hidden_network
from .cvpath import fold_path
from .cvresults import CVSelection
from .kept import kept_point
from .settings import FoldState, Plan, Setting, spec_at

__all__ = ["budget", "kept_on_rows", "path_on_rows", "raw_network", "realise", "realised"]


def raw_network(layers, scaling) -> tuple[list, list]:
    """A network ``(W, b)`` per layer on the scaled inputs ``x' = (x - c) / w`` as the same network
    on the **raw** inputs (the final training scales them its own way):
    ``pre = W0' x' + b0 = (W0' / w) x + (b0 - (c / w) W0')``."""
    W, b = layers
    W0 = W[0] / scaling.width[:, None]
    return [W0] + list(W[1:]), [b[0] - scaling.center @ W0] + list(b[1:])


def path_on_rows(spec: NetworkSpec, data: Dataset, plan: Plan, i: int, ctx: RunContext):
    """Setting ``i``'s network by the folds' cheap path on all of ``data`` (every narrower width's
    path of the same eps, then the setting's width down to its l0 weight, as on the folds: a width's
    pool holds the narrower width's networks padded with dead units): ``(network on raw inputs,
    its accuracy on data)``, or None when the cap stopped it."""
    s = plan.settings[i]
    narrower = [(key, path) for key, path in plan.groups()
                if key[0] == s.eps and (s.width is None or (key[1] is not None and key[1] < s.width))]
    group = narrower + [(key, [t for t in path if t.penalty >= s.penalty]) for key, path in plan.groups() if s in path]
    state = FoldState()
    accuracy = fold_path(spec, data, data, plan, ctx=ctx, groups=group, state=state)[s].accuracy
    return None if accuracy is None else (raw_network(*state.networks[s]), accuracy)


def kept_on_rows(spec: NetworkSpec, data: Dataset, s: Setting, ctx: RunContext, merge: bool):
    """The kept setting ``s``'s network fitted on all of ``data`` (on raw inputs), for folds cut
    from a sample (the policy's ``max_cv_rows``): as cross-validation refits the
    chosen setting on all the data, L1 logistic regression at the setting's C (or the tree of its
    depth) is fitted on every row and its units repaired off the eps gap on those rows
    (:func:`~annc.training.modelselect.kept.kept_point`), rather than the sample's network lifted onto rows it
    never saw.  None when it cannot be lifted."""
    c = build(spec_at(spec, s), data, name="kept", merge=merge)
    x = kept_point(c, s, ctx)
    return None if x is None else raw_network(hidden_network(c.model, x), c.scaling)


def realised(sel: CVSelection, i: int) -> bool:
    """Whether setting ``i``'s network on all the rows fits them within the policy's ``seed_slack`` of its CV
    accuracy (a margin the folds keep may not be kept on all rows: denser rows fill the gap)."""
    w = sel.whole[i]
    return w.fit_accuracy is not None and w.fit_accuracy >= sel.mean(i) - sel.policy.seed_slack


def realise(sel: CVSelection, spec: NetworkSpec, data: Dataset, networks: dict, ctx: RunContext, merge: bool,
            log, eps_open: bool) -> tuple[Setting | None, tuple | None]:
    """The setting trained on all rows and its network there (on raw inputs), ``sel.chosen`` set:
    the first of :meth:`~annc.training.modelselect.cvresults.CVSelection.order` whose network on the
    whole set fits it as its folds promised (:func:`realised`); if none, the rule's choice at the
    narrow margin, by its path on all rows, when eps is open (``eps_open``) and the setting's is the wide one
    (``sel.refit_eps``); else ``(None, None)``."""
    from ..warmstart.margin import NARROW, WIDE
    order = sel.order(sel.best)
    for i in order:
        if realised(sel, i):
            sel.chosen = i
            return sel.plan.settings[i], raw_network(*networks[sel.plan.settings[i]])
        w = sel.whole[i]
        log(f"[select] {sel.labels[i]} fits all rows at "
            + ("no network" if w.fit_accuracy is None else f"{w.fit_accuracy:.4f}")
            + f", below its CV accuracy {sel.mean(i):.4f}")
    i = order[0]
    if not eps_open or sel.plan.settings[i].eps != WIDE:
        return None, None
    narrow = replace(sel.plan, settings=tuple(replace(t, eps=NARROW) for t in sel.plan.settings))
    done = path_on_rows(spec, data, narrow, i, ctx)
    if done is None or done[1] < sel.mean(i) - sel.policy.seed_slack:
        return None, None
    sel.chosen, sel.refit_eps = i, NARROW
    return narrow.settings[i], done[0]


def budget(sel: CVSelection, seed) -> int:
    """The final training's ``max_weights``: the non-zero weights the folds scored for the chosen
    setting (their mean, rounded up), and at least those of its network on all rows ``seed`` (the
    final training's start, which must stay feasible): the network on all rows may fit them worse,
    with fewer weights, than the folds' networks fitted theirs."""
    folds = sel.nonzeros(sel.chosen)
    scored = int(math.ceil(folds - 1e-9)) if math.isfinite(folds) else 0
    return max(l0.count(seed[0]), scored)
