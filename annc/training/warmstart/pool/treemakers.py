"""The tree makers of the start pool and model selection: CART, and optimal trees where a library is installed.

A maker fits a decision tree of depth ``d`` with at most ``units`` splits on a problem's rows
(:meth:`~annc.io.problem.TrainingProblem.class_rows`: its distinct rows, each with its sample count)
and returns its splits ``(features, thresholds)`` in the tree's node order (preorder; a row goes
right at a split where ``x[feature] > threshold``), which :mod:`.trees` writes as step units.
:data:`TREE_MAKERS` is the registry, in order of preference:

* ``cart``: scikit-learn's greedy CART (always there), with the rows' counts as sample weights and
  at most ``units`` splits by best-first growth (``max_leaf_nodes = units + 1``);
* ``contree``: ConTree (``pycontree``), the tree of least training misclassifications among all
  trees of depth ``<= d`` on the continuous features themselves (every threshold between two rows'
  values), two or more classes.  It takes no cap on its splits: it is asked only for a depth whose
  full tree (``2^d - 1`` splits) fits the layer (:meth:`TreeMaker.fits`);
* ``streed``: STreeD (``pystreed``), optimal over binary tests, so over the thresholds of
  :func:`binary_tests` (each feature's :data:`STREED_THRESHOLDS` quantile cuts, every cut of a
  feature with fewer values), with at most ``units`` splits (``max_num_nodes``).

**Weighted rows.**  Neither optimal library takes sample weights: the distinct rows are repeated
by their counts (the samples themselves, so the tree is optimal for the problem's own error
count), and where there are more than the work limit allows (:func:`work_rows`), a stratified
sample of that many (seed 0, every class in proportion; deterministic).  The limit is work, not
wall clock, and each library's own:

* ConTree searches every threshold of the rows, so its work grows with the samples: at most
  :data:`OPTIMAL_ROWS` samples, and for depth 3, whose search grows with the square of the
  features, at most :data:`DEPTH3_WORK` samples times features squared (ConTree on 800 rows of 20
  features: 1.9 s of CPU on a 2-core EPYC; of 40: 10.8 s; of 80: past 35 s).  A depth that leaves
  fewer than :data:`MIN_ROWS` samples gets no optimal tree.
* STreeD searches its binary tests, so its work grows with their number and hardly with the
  samples: at most :data:`STREED_ROWS` samples, and a tree of depth 3 only where classes times
  tests cubed is at most :data:`STREED_WORK` (on a 2-core EPYC, 2 classes and 200 tests on 2,000
  rows: 0.7 s of CPU; 10 classes and 160 tests: 4.4 s; 10,000 rows of 4 classes and 120 tests:
  1.5 s; digits' 10 classes and 309 tests: 17.6 s on 100 rows, 20.5 s on 400).  Until 2026-12-06
  STreeD had ConTree's limits: on hmda, credit_data and healthinsurance (tuning half, split 0)
  its depth-3 tree on all the training rows fits them 0.4, 3.6 and 1.9 points better than on
  ConTree's sample, in 0.02-0.07 s.

The libraries' own time limit, :data:`SAFETY_SECONDS`, is a safety net only: a tree the library did not prove optimal is
dropped, so what is returned never depends on the machine's load.  A sample's thresholds are
moved to the mid-point of the problem's own neighbouring values (:func:`snapped`): the same
split of every row, clear of all of them.

**Fewer splits, same predictions.**  An optimal tree may split where both children then say the
same class (the error count is the same either way); such a split is merged into a leaf
(:func:`_collapsed`) before the splits are counted against the layer.
"""
from __future__ import annotations

import hashlib
import importlib.util
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

OPTIMAL_ROWS = 1000  # samples fed to an optimal-tree library at most (ConTree depth 3 on hmda's 1,666: 1.2 s)
DEPTH3_WORK = 320_000  # depth 3: samples x features^2 at most (800 samples of 20 features)
MIN_ROWS = 100  # an optimal tree of fewer samples (a sample of wider data) is not fitted
SAFETY_SECONDS = 30.0  # the libraries' time limit: never reached within the work limits; a tree cut by it is dropped
STREED_THRESHOLDS = 8  # STreeD's binary tests per feature at most (quantile cuts; bench's STreeD baseline: 5)
STREED_ROWS = 10_000  # samples fed to STreeD at most (its work grows with its tests, hardly with the samples)
STREED_WORK = 30_000_000  # STreeD's depth 3: classes x binary tests^3 at most (module docstring)
SPLITS_CACHE = 64  # optimal trees remembered (a fold's pool asks for the same tree at every width)

Splits = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class TreeMaker:
    """A source of trees: ``name`` (as the candidates' names say it), the ``library`` it needs
    (None: scikit-learn, always there), whether its trees are proven ``optimal``, whether it takes
    a cap on its splits (``sized``), and ``fit(X, y, weight, depth, units) -> Splits | None``."""

    name: str
    library: str | None
    optimal: bool
    sized: bool
    fit: Callable[..., Splits | None]

    def installed(self) -> bool:
        return self.library is None or importlib.util.find_spec(self.library) is not None

    def fits(self, depth: int, units: int) -> bool:
        """Whether a tree of ``depth`` is asked of this maker for a layer of ``units``: always where
        it caps its splits, else where its full tree fits."""
        return self.sized or 2 ** depth - 1 <= units

    def splits(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray, depth: int, units: int) -> Splits | None:
        """The splits of this maker's tree (None: a single leaf, or no proven tree), an optimal
        maker's remembered by the rows' digest (:data:`SPLITS_CACHE`)."""
        if not self.optimal:
            return self.fit(X, y, weight, depth, units)
        key = (self.name, _digest(X, y, weight), depth, units if self.sized else None)
        if key not in _CACHE:
            _CACHE[key] = self.fit(X, y, weight, depth, units)
            while len(_CACHE) > SPLITS_CACHE:
                _CACHE.popitem(last=False)
        return _CACHE[key]


_CACHE: OrderedDict = OrderedDict()


def _digest(*arrays: np.ndarray) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.shape, a.dtype.str)).encode())
        h.update(a.tobytes())
    return h.digest()


def cart_splits(X, y, weight, depth: int, units: int) -> Splits | None:
    """CART's tree (``random_state=0``: deterministic), the rows' counts as sample weights."""
    from sklearn.tree import DecisionTreeClassifier  # here: annc compile imports no scikit-learn
    tree = DecisionTreeClassifier(max_depth=depth, max_leaf_nodes=max(units, 1) + 1, random_state=0)
    tree.fit(X, y, sample_weight=weight)
    inner = np.flatnonzero(tree.tree_.children_left >= 0)
    if not len(inner):
        return None
    return tree.tree_.feature[inner].astype(int), tree.tree_.threshold[inner].astype(float)


def contree_splits(X, y, weight, depth: int, units: int) -> Splits | None:
    """ConTree's optimal tree of ``depth`` on the work-limited samples (module docstring)."""
    from pycontree.ccontree import Config, solve
    fed = work_rows(X, y, weight, depth)
    if fed is None:
        return None
    Xs, ys = fed[0], np.unique(fed[1], return_inverse=True)[1]  # classes 0..k-1, as ConTree counts them
    config = Config()
    config.max_depth = depth
    tree = solve(np.ascontiguousarray(Xs, float), ys.astype(np.int32), config, SAFETY_SECONDS)
    if not config.is_within_time_limit():
        return None

    def node(t):
        if t.is_leaf_node():
            return int(t.get_label())
        return (int(t.get_split_feature()), float(t.get_split_threshold()), node(t.get_left()), node(t.get_right()))
    return _found(X, node(tree), units)


def streed_splits(X, y, weight, depth: int, units: int) -> Splits | None:
    """STreeD's optimal tree of ``depth`` with at most ``units`` splits over :func:`binary_tests`
    on the work-limited samples (module docstring)."""
    import warnings

    from pystreed import STreeDClassifier
    fed = work_rows(X, y, weight, depth, cap=STREED_ROWS)
    if fed is None:
        return None
    Xs, ys = fed
    features, thresholds = binary_tests(Xs)
    if not len(features) or (depth >= 3 and len(np.unique(ys)) * len(features) ** 3 > STREED_WORK):
        return None
    B = (Xs[:, features] > thresholds).astype(int)
    clf = STreeDClassifier(max_depth=depth, max_num_nodes=min(units, 2 ** depth - 1), optimization_task="accuracy",
                           time_limit=SAFETY_SECONDS, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "No feasible tree found": no fit_result, handled below
        clf.fit(B, ys)
    if not hasattr(clf, "fit_result") or not clf.fit_result.is_optimal():
        return None

    def node(t):
        if t.is_leaf_node():
            return int(t.label)
        j = int(t.feature)  # B's column j: right where it holds
        return (int(features[j]), float(thresholds[j]), node(t.left_child), node(t.right_child))
    return _found(X, node(clf.get_tree()), units)


TREE_MAKERS: dict[str, TreeMaker] = {
    "cart": TreeMaker("CART", None, optimal=False, sized=True, fit=cart_splits),
    "contree": TreeMaker("ConTree", "pycontree", optimal=True, sized=False, fit=contree_splits),
    "streed": TreeMaker("STreeD", "pystreed", optimal=True, sized=True, fit=streed_splits),
}


def tree_makers(makers: Mapping[str, TreeMaker] | None = None) -> dict[str, TreeMaker]:
    """CART and the optimal makers of ``makers`` (None: :data:`TREE_MAKERS`) whose library is
    installed, in the registry's order.  ``{}`` (no optimal maker) leaves CART alone."""
    makers = TREE_MAKERS if makers is None else makers
    out = {"cart": TREE_MAKERS["cart"]}
    out.update((k, m) for k, m in makers.items() if k != "cart" and m.installed())
    return out


def optimal_source(depth: int, units: int, makers: Mapping[str, TreeMaker]) -> str | None:
    """The optimal maker of ``makers`` asked for the tree of ``depth`` in a layer of ``units``: the
    first that :meth:`~TreeMaker.fits` it (ConTree's exact thresholds before STreeD's quantiles;
    STreeD where ConTree's full tree is wider than the layer), or None."""
    return next((k for k, m in makers.items() if m.optimal and m.fits(depth, units)), None)


def missing_note(makers: Mapping[str, TreeMaker] | None = None) -> str | None:
    """What the optimal makers not in ``makers`` (None: those installed) would add, as one
    sentence naming their libraries, or None when none is missing."""
    have = tree_makers(makers)
    gone = [m for k, m in TREE_MAKERS.items() if m.optimal and k not in have]
    if not gone:
        return None
    libs = " and ".join(m.library for m in gone)
    what = "optimal trees" if len(gone) == sum(m.optimal for m in TREE_MAKERS.values()) else \
        " and ".join(f"{m.name}'s optimal trees" for m in gone)
    return (f"{libs} {'is' if len(gone) == 1 else 'are'} not installed: {what} (pip install annc[trees]) "
            "are not among the candidates")


def work_rows(X: np.ndarray, y: np.ndarray, weight: np.ndarray, depth: int,
              cap: int | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """The samples an optimal-tree library is fed for a tree of ``depth`` (module docstring): the
    distinct rows ``X`` (classes ``y``) repeated by their counts ``weight``, or a stratified sample
    (seed 0) of the work limit's size, ``cap`` samples (None: ConTree's limits); None where that
    limit leaves fewer than :data:`MIN_ROWS` and the data have more."""
    counts = np.maximum(np.rint(np.asarray(weight, float)), 1).astype(int)
    index = np.repeat(np.arange(len(y)), counts)
    if cap is None:
        cap = OPTIMAL_ROWS if depth < 3 else min(OPTIMAL_ROWS, DEPTH3_WORK // max(X.shape[1], 1) ** 2)
    if len(index) > cap:
        if cap < MIN_ROWS:
            return None
        index = _stratified(index, y[index], cap)
    return X[index], y[index]


def _stratified(index: np.ndarray, labels: np.ndarray, n: int) -> np.ndarray:
    """``n`` of ``index``, each class's share in proportion (largest remainders), drawn with seed 0."""
    rng = np.random.default_rng(0)
    classes, sizes = np.unique(labels, return_counts=True)
    share = sizes * n / len(labels)
    take = np.floor(share).astype(int)
    take[np.argsort(-(share - take), kind="stable")[:n - take.sum()]] += 1
    picked = [rng.permutation(index[labels == c])[:t] for c, t in zip(classes, take)]
    return np.sort(np.concatenate(picked))


def binary_tests(X: np.ndarray, cuts: int = STREED_THRESHOLDS) -> Splits:
    """STreeD's binary tests ``x[f] > t``: for each feature, every mid-point between consecutive
    distinct values where there are at most ``cuts``, else the mid-points just above its
    ``i / (cuts + 1)`` quantiles of the rows (``i = 1..cuts``; repeated ones once)."""
    features, thresholds = [], []
    for f in range(X.shape[1]):
        values = np.unique(X[:, f])
        mids = (values[:-1] + values[1:]) / 2
        if len(mids) > cuts:
            q = np.quantile(X[:, f], np.arange(1, cuts + 1) / (cuts + 1), method="lower")
            mids = np.unique(mids[np.minimum(np.searchsorted(values, q), len(mids) - 1)])
        features += [f] * len(mids)
        thresholds += list(mids)
    return np.array(features, int), np.array(thresholds, float)


def snapped(column: np.ndarray, t: float) -> float:
    """The mid-point between ``column``'s largest value at most ``t`` and its smallest above: the
    same split of every row of ``column`` as ``t``, half-way between its neighbours."""
    below, above = column[column <= t], column[column > t]
    if not len(below) or not len(above):
        return float(t)
    return float((below.max() + above.min()) / 2)


def _collapsed(tree):
    """``tree`` (a leaf's class, or ``(feature, threshold, left, right)``) with every split whose two
    children are leaves of one class merged into that leaf, bottom up."""
    if not isinstance(tree, tuple):
        return tree
    f, t, left, right = tree[0], tree[1], _collapsed(tree[2]), _collapsed(tree[3])
    if not isinstance(left, tuple) and left == right:
        return left
    return (f, t, left, right)


def _found(X: np.ndarray, tree, units: int) -> Splits | None:
    """The splits of ``tree`` (collapsed, preorder, thresholds :func:`snapped` to the problem's rows
    ``X``); None for a single leaf or more splits than ``units``."""
    out: list = []

    def walk(n):
        if isinstance(n, tuple):
            out.append((n[0], snapped(X[:, n[0]], n[1])))
            walk(n[2])
            walk(n[3])
    walk(_collapsed(tree))
    if not out or len(out) > units:
        return None
    return np.array([f for f, _ in out], int), np.array([t for _, t in out], float)
