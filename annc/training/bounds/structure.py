"""Structural bounds: the fewest errors a network with at most ``p`` non-zero weights makes.

For ``p = 0, 1, ...`` :func:`errors_by_weights` gives ``s(p)``, a lower bound on the
errors (the ``errors`` loss, in samples) of every network of the spec with at most ``p``
non-zero weights, on the problem's rows.  Only counting arguments, no solver.

**Any spec** with ``L`` weight layers: a network with fewer than ``L`` non-zero weights has
a layer whose weights are all zero; that layer outputs its biases, the same on every row,
and so does the network.  On every row at most one class leads by ``eps``, the same one,
so ``errors >= T0 = N - max_j N_j`` (``N_j``: samples of class j).

**One hidden layer of step units** (``binary``, ``sign``: two values per unit), ``J``
classes.  Call a unit *effective* if it has a non-zero input weight and a non-zero output
weight.  A unit without input weights has the same value on every row (its output
weights only shift the output biases); one without output weights changes no output.
So the outputs are ``o_j = sum_{k effective} a_kj h_k + c_j``.  With ``m`` effective units
the network has ``w1 >= m`` non-zero input weights and ``q >= m`` non-zero output weights,
``p >= w1 + q``.  The classes that can win on some row (lead every rival by ``eps``):

* those whose outputs read no effective unit have constant outputs, and of two constant
  outputs at most one ever leads: at most ``q + 1`` classes win;
* the effective units take at most ``2^m`` patterns, one winner each: at most ``2^m``;

so ``r = min(J, q + 1, 2^m)`` classes at most win, and ``errors >= N - (the r largest
N_j)``.  With ``m = 1`` and ``w1 = 1`` the one unit reads one feature: it is a threshold on
that feature, and the rows fall in two intervals of its sorted values, each with one
winner at most: ``errors >= D1``, the least errors of two labelled intervals over every
feature (:func:`one_cut`; cuts between any two distinct values: more than the units can
do, so a lower bound).  Likewise with ``m = 2`` and ``w1 = 2`` each unit is a threshold on
one feature (the same or two): the rows fall in at most four cells of two cuts, each with
one winner at most: ``errors >= D2`` (:func:`two_cuts`, computed while its work, the cells of
every pair's grid, stays under :data:`MAX_CELLS`; else not used).  With ``m = 1``, however many
features the unit reads, ``errors >= H``, the hull packing of :mod:`.hulls` (``hull``, computed
by the caller: disjoint sample sets that no one step unit classifies right).  ``base`` (e.g. the conflict bound, valid for every network) is a
floor on every term.  Then ``s(p)`` is the least of these over every ``(m, w1, q)`` that
``p`` weights allow (``m = 0``: ``T0``).

``s`` never rises with ``p`` (more weights, more networks).  Every count is over samples,
so the bound holds with whole or fractional sample weights alike.
"""
from __future__ import annotations

import math

import numpy as np

from ...core.activations import HIDDEN

MAX_CELLS = 20_000_000  # work limit (about 2 s of numpy) of two_cuts: sum over feature pairs of (values of f) x (values of g) x classes


def one_hidden_step(spec) -> bool:
    """Whether the spec has exactly one hidden layer, of step units."""
    return len(spec.hidden) == 1 and HIDDEN[spec.hidden[0].activation].step


def top_errors(totals: np.ndarray, r: int) -> float:
    """``N - (the r largest class totals)``: the errors when only r classes can win."""
    t = np.sort(np.asarray(totals, float))[::-1]
    return float(t.sum() - t[:max(r, 0)].sum())


def one_cut(X: np.ndarray, counts: np.ndarray) -> float:
    """The least errors over every feature and every cut of its sorted distinct values into
    two intervals (or none), each interval labelled with its majority class."""
    totals = counts.sum(0)
    best = float(totals.sum() - totals.max())
    for f in range(X.shape[1]):
        vals, inv = np.unique(X[:, f], return_inverse=True)
        if len(vals) < 2:
            continue
        per = np.zeros((len(vals), counts.shape[1]))
        np.add.at(per, inv.reshape(-1), counts)
        left = np.cumsum(per, 0)[:-1]  # the first i+1 values on the left
        right = totals[None, :] - left
        err = (left.sum(1) - left.max(1)) + (right.sum(1) - right.max(1))
        best = min(best, float(err.min()))
    return best


def _ranks(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per feature, the rank of each row's value among the distinct values, and their number."""
    ranks = np.zeros(X.shape, int)
    sizes = np.zeros(X.shape[1], int)
    for f in range(X.shape[1]):
        vals, inv = np.unique(X[:, f], return_inverse=True)
        ranks[:, f], sizes[f] = inv.reshape(-1), len(vals)
    return ranks, sizes


def _wrong(cells: np.ndarray) -> np.ndarray:
    """Errors of cells labelled with their majority class (class counts on the last axis)."""
    return cells.sum(-1) - cells.max(-1)


def two_cuts(X: np.ndarray, counts: np.ndarray, max_cells: int = MAX_CELLS, stop=None) -> float | None:
    """The least errors over every pair of features ``(f, g)`` (``f = g`` too) and every cut
    of each: four cells (``x_f`` below or above its cut, ``x_g`` below or above its own), each
    labelled with its majority class.  None when the work would pass ``max_cells``, or when
    ``stop`` (asked before each feature ``f``: the run's deadline) turns true before the last pair
    (a minimum over some pairs bounds nothing)."""
    ranks, sizes = _ranks(X)
    J, d = counts.shape[1], X.shape[1]
    if sum(int(sizes[f]) * int(sizes[g]) * J for f in range(d) for g in range(f, d)) > max_cells:
        return None
    totals = counts.sum(0)
    best = float(totals.sum() - totals.max())
    for f in range(d):
        if stop is not None and stop():
            return None
        for g in range(f, d):
            grid = np.zeros((sizes[f], sizes[g], J))
            np.add.at(grid, (ranks[:, f], ranks[:, g]), counts)
            C = grid.cumsum(0).cumsum(1)  # C[i, j]: rank_f <= i and rank_g <= j
            C = np.pad(C, ((1, 0), (1, 0), (0, 0)))  # C[i, j]: rank_f < i and rank_g < j
            low_f = C[:, -1:, :]  # rank_f < i, any g
            low_g = C[-1:, :, :]  # rank_g < j, any f
            a = C
            b = low_f - C
            c = low_g - C
            e = totals - a - b - c
            best = min(best, float((_wrong(a) + _wrong(b) + _wrong(c) + _wrong(e)).min()))
    return best


def weight_count(spec) -> int:
    """The most non-zero weights (not biases) a network of the spec has: all of its weights, or
    its weight budget ``max_weights`` if that is fewer."""
    sizes = [spec.inputs] + [ls.units for ls in spec.layers]
    every = int(sum(a * b for a, b in zip(sizes[:-1], sizes[1:])))
    return every if spec.max_weights is None else min(every, int(spec.max_weights))


class Cuts:
    """``D_1`` and ``D_2`` of the module docstring on the rows ``X`` with class counts ``counts``: the
    least errors of ``m`` cuts on single features (``m = 1, 2``), each computed once, when first asked
    (they depend on nothing else); ``max_cells`` is the work limit of :func:`two_cuts` (0: not used),
    ``stop`` its deadline (a ``D_2`` it cuts short counts as 0, the bound every network meets).
    A caller that bounds the same rows several times keeps one."""

    def __init__(self, X: np.ndarray, counts: np.ndarray, max_cells: int = MAX_CELLS, stop=None):
        self.X, self.counts, self.max_cells, self.stop = X, counts, max_cells, stop
        self._least: dict[int, float] = {}

    def least(self, m: int) -> float:
        if m not in self._least:
            found = one_cut(self.X, self.counts) if m == 1 else two_cuts(self.X, self.counts, self.max_cells,
                                                                          self.stop)
            self._least[m] = 0.0 if found is None else found
        return self._least[m]


def errors_by_weights(X: np.ndarray, counts: np.ndarray, spec, pmax: int, base: float = 0.0, *,
                      units: tuple[int, int] | None = None, hull: float = 0.0, cuts: Cuts | None = None) -> np.ndarray:
    """``s(0..pmax)`` of the module docstring for the rows ``X`` with class counts ``counts``
    (never below ``base``, a bound valid for every network on these rows).  ``units = (lo, hi)``:
    only the networks with ``lo <= m <= hi`` effective units (one hidden layer of step units;
    constant outputs count as ``m = 0``), ``inf`` where a budget holds none of them.  ``hull``: the
    hull packing's errors bound on these rows (:mod:`.hulls`), valid for ``m = 1``.  ``cuts``: the
    single-feature cuts of these rows (:class:`Cuts`; None: computed here, :data:`MAX_CELLS` the
    work limit)."""
    totals = counts.sum(0)
    J, L = counts.shape[1], len(spec.layers)
    lo, hi = (0, math.inf) if units is None else units
    t0 = top_errors(totals, 1)
    step = one_hidden_step(spec)
    K = spec.hidden[0].units if step else 0
    cuts = Cuts(X, counts) if cuts is None else cuts
    s = np.full(pmax + 1, math.inf)
    for p in range(pmax + 1):
        best = t0 if lo == 0 else math.inf  # m = 0, and every network below L weights: constant outputs
        if p >= L and not step:
            best = 0.0  # any network: nothing but base
        elif p >= L:
            for m in range(max(lo, 1), int(min(K, p // 2, hi)) + 1):
                # w1 = m: every effective unit reads one feature; q = p - m output weights at most
                one = hull if m == 1 else 0.0  # the hull packing: one effective unit, any features
                single = max(top_errors(totals, min(J, p - m + 1, 2 ** m)), one)
                if m <= 2:
                    single = max(single, cuts.least(m))
                best = min(best, single)
                if p - m - 1 >= m:  # w1 > m: some unit reads two features or more; q <= p - m - 1
                    best = min(best, max(top_errors(totals, min(J, p - m, 2 ** m)), one))
        s[p] = max(best, base)
    return s
