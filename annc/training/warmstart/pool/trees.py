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

The trees come from the makers of :mod:`.treemakers` (:data:`~.treemakers.TREE_MAKERS`), each fitted
on the problem's (scaled) rows weighted by their sample counts, of depth 1 (a stump), 2 and 3 with at
most as many splits as the layer has units: scikit-learn's CART (greedy, deterministic) always, and
where its library is installed an optimal tree of each depth (ConTree's, exact on the continuous
features; STreeD's where ConTree's full tree is wider than the layer, or ConTree is missing:
:func:`~.treemakers.optimal_source`), proven optimal within a work limit.  CART is greedy: where the
best first split is not the root of the best tree (an exclusive or of two features beside a decoy
that alone separates more rows), the optimal tree of the same depth fits the rows better.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from ....formulations import ACTIVATIONS
from ....io.problem import TrainingProblem
from .linear import _targets, placed
from .repair import fit_box
from .treemakers import TREE_MAKERS, Splits, TreeMaker, optimal_source, tree_makers

DEPTHS = (1, 2, 3)  # the trees of the start pool and of model selection: a stump, depth 2, depth 3


def splits(problem: TrainingProblem, depth: int, units: int, source: str = "cart") -> Splits | None:
    """The splits of the tree of ``depth`` with at most ``units`` splits that the maker ``source`` of
    :data:`~.treemakers.TREE_MAKERS` fits on the problem's rows: ``(features, thresholds)``, one entry per
    split in the tree's node order (a row goes right at a split where ``x[feature] > threshold``);
    None when the tree is a single leaf, the maker is not asked for that depth in ``units``
    (:meth:`~.treemakers.TreeMaker.fits`), its library is not installed here (a worker without it) or
    it proved no tree."""
    maker = TREE_MAKERS[source]
    if not maker.fits(depth, units) or not maker.installed():
        return None
    return maker.splits(*problem.class_rows(), depth, units)


def tree_network(problem: TrainingProblem, depth: int, source: str = "cart") -> tuple[list, list] | None:
    """The tree of ``depth`` by the maker ``source`` (:func:`splits`, at most the first layer's width
    in splits) as a network of the spec (module docstring): a step unit per split in the one hidden
    layer, in its box, its boundary at the split's threshold less the export's shift; the output layer is left
    to the caller's exact output-layer MIP (from :func:`~annc.training.warmstart.pool.linear.placed`'s vote).
    None where the spec has not exactly one hidden layer of step units, or the tree no split."""
    if not _takes_trees(problem):
        return None
    found = splits(problem, depth, problem.spec.hidden[0].units, source)
    return None if found is None else _network(problem, *found)


def _takes_trees(problem: TrainingProblem) -> bool:
    """Whether the spec has one hidden layer, of units whose activations a split sets."""
    return len(problem.spec.hidden) == 1 and _targets(problem) is not None


def _network(problem: TrainingProblem, features: np.ndarray, thresholds: np.ndarray) -> tuple[list, list]:
    """The splits as the hidden layer (module docstring) and the vote's output layer (:func:`placed`)."""
    ls = problem.spec.hidden[0]
    d, k = problem.X.shape[1], len(features)
    shift = ACTIVATIONS[ls.activation].export_bias_shift(problem.spec.eps)
    W, b = np.zeros((d, k)), np.zeros(k)
    for u, (f, t) in enumerate(zip(features, thresholds)):
        unit = np.zeros(d + 1)
        unit[f], unit[-1] = 1.0, -t
        wb = fit_box(unit, ls.weight_bounds, ls.bias_bounds)
        W[:, u], b[u] = wb[:-1], wb[-1] - shift
    return placed(problem, W, b, _targets(problem)[0])


def tree_sources(depth: int, units: int, makers: Mapping[str, TreeMaker] | None = None) -> tuple[str, ...]:
    """The makers asked for the tree of ``depth`` in a layer of ``units``: CART, and the optimal
    maker of the installed ones of ``makers`` (:func:`~.treemakers.tree_makers`; ``{}``: none) that
    :func:`~.treemakers.optimal_source` picks."""
    optimal = optimal_source(depth, units, tree_makers(makers))
    return ("cart",) + ((optimal,) if optimal else ())


def tree_name(depth: int, source: str) -> str:
    """A tree's name in the start pool: ``decision tree, depth 2 (ConTree, optimal)``."""
    maker = TREE_MAKERS[source]
    return f"decision tree, depth {depth} ({maker.name}{', optimal' if maker.optimal else ''})"


def tree_networks(problem: TrainingProblem, makers: Mapping[str, TreeMaker] | None = None
                  ) -> Iterator[tuple[str, list, list]]:
    """``(name, weights, biases)`` of the tree of each depth of :data:`DEPTHS` and each maker of
    :func:`tree_sources` (:func:`tree_network`; CART's trees first, then the optimal ones), each
    fitted when it is asked for; a tree whose splits cut the rows as an earlier one's do (a
    deeper CART tree that is the shallower one, an optimal tree that CART found) is left out."""
    if not _takes_trees(problem):
        return
    units = problem.spec.hidden[0].units
    asked = [(source, depth) for depth in DEPTHS for source in tree_sources(depth, units, makers)]
    seen = set()
    for source, depth in sorted(asked, key=lambda a: (a[0] != "cart", a[1])):
        found = splits(problem, depth, units, source)
        if found is None:
            continue
        cuts = frozenset((int(f), (problem.X[:, f] > t).tobytes()) for f, t in zip(*found))
        if cuts in seen:
            continue
        seen.add(cuts)
        yield (tree_name(depth, source), *_network(problem, *found))
