"""The kept models of model selection as networks: a logistic separator or a tree, and its thinned twin.

Steps 3 to 5 of :mod:`annc.training.modelselect.cvpath`: a kept setting (L1 logistic regression at
some ``C``, or a tree of some depth and source) is not searched but placed, as a point of the compiled
model (:func:`kept_point`), and its twin drops every weight the training rows cannot tell from
zero (:func:`thin`).  The folds score both, so whether the dropped weights carried held-out
accuracy is measured.
"""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from ..search.local import drop_weights
from ..warmstart.pool import network_start
from ..warmstart.pool.linear import logistic_network
from ..warmstart.pool.trees import tree_network

__all__ = ["kept_point", "thin"]


def kept_point(c, s, ctx: RunContext):
    """The kept setting ``s``'s network (a :class:`~annc.training.modelselect.cvpath.Setting` with a
    ``logistic`` C or a ``tree`` depth and ``tree_source``) as a point of the compiled ``c``: its logistic separator
    (below) or its tree (:func:`~annc.training.warmstart.pool.trees.tree_network`, each split's bias moved off
    the eps gap the least, the exact output layer reading the splits); None if it cannot be lifted.

    L1 logistic regression's separator at ``C`` as a point of the compiled ``c``
    (:func:`~annc.training.warmstart.pool.linear.logistic_network` on ``c``'s own rows and scaling, the rows
    inside the eps gap repaired by moving the biases alone, its exact output layer), or None.

    The biases alone: the repair's LP refit of a unit that would flip a row
    (:func:`~annc.training.warmstart.pool.repair.refit_unit`) keeps the training rows' signs but not the
    regression's hyperplane (test rows move at the same training accuracy); without it a kept separator predicts as the regression does, up to
    the rows within ``eps/2`` of its boundary: the exported unit keeps the regression's bias unless
    a training row lies that near, and then moves it the least that clears them
    (:func:`~annc.training.warmstart.pool.repair.threshold`'s ``fires_at``)."""
    placed = logistic_network(c.problem, s.logistic) if s.logistic is not None else \
        tree_network(c.problem, s.tree, s.tree_source)
    x = None if placed is None else network_start(c.model, c.problem, *placed, scale=False, refit=False, ctx=ctx)
    return thin(c, x, ctx) if s.thinned and x is not None else x


def thin(c, x: np.ndarray, ctx: RunContext) -> np.ndarray:
    """Step 5 of :mod:`annc.training.modelselect.cvpath`: the point ``x`` of ``c`` with every weight dropped whose removal
    costs no training accuracy.  :func:`~annc.training.search.local.drop_weights` at an l0 weight
    ``lambda < 1`` drops a weight exactly when the training errors (row counts, whole numbers) do not
    rise: ``errors(w without w_i) + lambda (nnz - 1) < errors(w) + lambda nnz`` iff ``errors(w
    without w_i) <= errors(w)``.  The kept settings carry the spec's default l0 weight (0.5); at a
    weight of 1 or more, or another penalty, the point is returned as it is.  The units move off the
    eps gap by their biases alone and no LP refits a unit (``refit_gap=False``, ``keep_activations=False``):
    what is dropped is what the training rows cannot tell from zero, and every pass is one lift per
    weight, a work limit; passes repeat while one drops a weight."""
    spec = c.problem.spec
    if spec.penalty == "l0" and 0.0 < spec.penalty_weight < 1.0:
        return drop_weights(c.model, c.problem, x, ctx=ctx, refit_gap=False, keep_activations=False)
    return x
