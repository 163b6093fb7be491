"""Shallow decision trees as networks of the spec's class: one step unit per split.

Where a few axis-aligned thresholds beat any hyperplane (an optimal depth-3 tree beat L1 logistic
regression by 2-5 points on 3 of 13 real sets), the start pool and model selection must hold those
thresholds, or the MIP never sees them.  A split ``x_f > t`` of a tree is a step unit that reads one
feature:

    h = 1[w (x_f - t) + eps/2 >= eps/2],   w > 0,

its weight row zero but for ``w`` on feature ``f`` and its bias ``-w t``, scaled by a positive
factor into the layer's box (which changes no step: :func:`~annc.training.warmstart.pool.repair.fit_box`)
and lowered by the export's shift, so that the exported unit (on iff ``pre >= eps/2``) fires where
the tree goes right; the caller's repair moves a bias off the MIP's eps gap the least, as for the
logistic separators (:func:`~annc.training.warmstart.pool.linear.logistic_network`).  A tree of ``k`` splits
takes ``k`` units of the first hidden layer (the rest are off) and one weight each.

**The output layer reads the splits.**  With one hidden layer the class scores are linear in the
split bits, ``o_c = sum_u W[u, c] h_u + b_c``, and the exact output-layer MIP (step 3 of
:mod:`~annc.training.warmstart.pool.candidates`) finds the read of least objective.  Every tree whose leaves'
classes are a threshold function of its split bits is then reproduced on the training rows: every
decision list (each split has a leaf child: ``if A then c1 else if B then c2 ...``, a threshold
function with weights that halve down the list), every tree whose sibling leaves agree, every
stump.  A tree whose leaves need an exclusive or of two splits (``if A then B else not C``) is
not; the MIP then reads its splits as well as one layer can, and that network, not the tree, is
what the folds score and the user gets.

The trees are scikit-learn's CART (:class:`~sklearn.tree.DecisionTreeClassifier`, ``random_state=0``:
deterministic) fitted on the problem's (scaled) rows with their sample counts as weights, of depth
1 (a stump), 2 and 3, each with at most as many splits as the layer has units (best-first growth,
``max_leaf_nodes = units + 1``).
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ....formulations import ACTIVATIONS
from ....io.problem import TrainingProblem
from .linear import _targets, placed
from .repair import fit_box

DEPTHS = (1, 2, 3)  # the trees of the start pool and of model selection: a stump, depth 2, depth 3


def splits(problem: TrainingProblem, depth: int, units: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The splits of the CART tree of ``depth`` with at most ``units`` splits, fitted on the problem's
    rows: ``(features, thresholds)``, one entry per split in the tree's node order (a row goes right
    at a split where ``x[feature] > threshold``); None when the tree is a single leaf."""
    from sklearn.tree import DecisionTreeClassifier  # here: annc compile imports no scikit-learn
    X, y, weight = problem.class_rows()
    tree = DecisionTreeClassifier(max_depth=depth, max_leaf_nodes=max(units, 1) + 1, random_state=0)
    tree.fit(X, y, sample_weight=weight)
    inner = np.flatnonzero(tree.tree_.children_left >= 0)
    if not len(inner):
        return None
    return tree.tree_.feature[inner].astype(int), tree.tree_.threshold[inner].astype(float)


def tree_network(problem: TrainingProblem, depth: int) -> tuple[list, list] | None:
    """The CART tree of ``depth`` (:func:`splits`, at most the first layer's width in splits) as a
    network of the spec (module docstring): a step unit per split in the one hidden layer, in its
    box, its boundary at the split's threshold less the export's shift; the output layer is left
    to the caller's exact output-layer MIP (from :func:`~annc.training.warmstart.pool.linear.placed`'s vote).
    None where the spec has not exactly one hidden layer of step units, or the tree no split."""
    got = _targets(problem)
    if got is None or len(problem.spec.hidden) != 1:
        return None
    ls = problem.spec.hidden[0]
    found = splits(problem, depth, ls.units)
    if found is None:
        return None
    features, thresholds = found
    d, k = problem.X.shape[1], len(features)
    shift = ACTIVATIONS[ls.activation].export_bias_shift(problem.spec.eps)
    W, b = np.zeros((d, k)), np.zeros(k)
    for u, (f, t) in enumerate(zip(features, thresholds)):
        unit = np.zeros(d + 1)
        unit[f], unit[-1] = 1.0, -t
        wb = fit_box(unit, ls.weight_bounds, ls.bias_bounds)
        W[:, u], b[u] = wb[:-1], wb[-1] - shift
    return placed(problem, W, b, got[0])


def tree_networks(problem: TrainingProblem) -> Iterator[tuple[str, list, list]]:
    """``(name, weights, biases)`` of the tree of each depth of :data:`DEPTHS` (:func:`tree_network`),
    each fitted when it is asked for; a deeper tree whose splits are the shallower one's is left out."""
    seen = set()
    for depth in DEPTHS:
        placed_ = tree_network(problem, depth)
        if placed_ is None:
            continue
        key = (placed_[0][0].tobytes(), placed_[1][0].tobytes())  # the first layer's units
        if key in seen:
            continue
        seen.add(key)
        yield (f"decision tree, depth {depth} (CART)", *placed_)
