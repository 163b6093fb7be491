"""Hull packing: disjoint sets of samples that no network of one step unit classifies right.

**The networks.**  One hidden layer of step units (``binary``, ``sign``) with at most one
*effective* unit (:mod:`.structure`: a non-zero input and output weight; the others add
constants to the outputs or nothing).  Such a network has two states, ``h = 1`` where the
unit's pre-activation ``z(x) = a . x + c`` is at least its threshold and ``h = 0`` where it is
below, so it predicts at most two classes, one per state, and the rows of one state lie in
one half-space.

**The certificate.**  Let a set ``S`` hold samples of exactly two classes ``A`` and ``B``, and
let points ``z_A`` of the convex hull of its ``A`` rows and ``z_B`` of the hull of its ``B``
rows be close: ``W ||z_A - z_B||_1 < eps``, ``W`` the largest first-layer weight in absolute
value (the conflict radius of :mod:`.conflict`; the hulls meeting is the case ``z_A = z_B``).
If the network classified every sample of ``S`` right, the ``A`` rows would share one state
and the ``B`` rows the other (one state predicts one class).  Say the ``A`` rows are on:
``z >= eps`` on each (a step unit is on from ``eps``, off up to 0: the gap ``(0, eps)`` holds
no row), so ``a . z_A + c >= eps`` (a convex combination), while the ``B`` rows are off,
``a . z_B + c <= 0``.  Then ``eps <= a . (z_A - z_B) <= W ||z_A - z_B||_1 < eps``, a
contradiction; the other way round likewise.  So **every such network errs on a sample of
S**, whatever its output layer, biases and the features it reads.

**The packing.**  Sets ``S_1 .. S_k`` with weights ``w_k``, where no group ``(row u, class j)``
is used by more than its ``c_uj`` samples (``sum_{k : (u, j) in S_k} w_k <= c_uj``): each set
has a wrong group ``g_k``, so ``errors >= sum_g c_g [g wrong] >= sum_k w_k``.  A fractional
packing, so whole and fractional sample weights alike.  The sets are found greedily
(:func:`hull_sets`), in two phases:

1. **local**: rows nearest another class first; for each row ``u``, a small LP over its
   :data:`NEAR` nearest rows,

       min  sum_v d(u, v) (lambda_v + mu_v)   s.t.  sum_A lambda_v x_v = sum_B mu_v x_v,
            sum lambda = sum mu = 1,  lambda, mu >= 0,  lambda_u > 0,

   whose basic optimum reads at most ``d + 2`` rows, close to ``u`` (Radon's theorem in
   ``d`` dimensions);
2. **peeling**: the same LP over every row with samples left, for each pair of classes,
   until the two classes' remaining hulls are apart (then no more set of theirs exists).

A set has up to ``d + 2`` rows, so the packing holds at most ``N / 3`` sets and, in many
dimensions, far fewer: on real sets of 8 to 14 features it bounds 10 to 35 errors where the
best networks of one unit make 50 to 100 (``docs/bounds.md``).  Each set found is checked in floating point by its own combination
(``W ||z_A - z_B||_1 < eps (1 - MARGIN)``): round-off never adds a set.  Work limits decide:
:data:`MAX_LPS` LPs at most.  With one feature this is the classic bound on a threshold's
errors (three rows ``A B A`` in order); with many it is the packing of irreducible
infeasible subsystems of the unit's LP, the no-good cuts of combinatorial Benders
(Codato and Fischetti) counted disjointly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.spatial import cKDTree

from ...solve.lp import solve_lp
from .conflict import MARGIN, radius
from .structure import one_hidden_step

NEAR = 40  # rows per LP: the candidate's nearest (L1), itself included
MAX_LPS = 1500  # work limit: LPs in all (about 1.5 ms each at 8 features)
TRIES = 4  # sets per candidate group at most (its samples may fill several)
LEFT = 1e-9  # capacity below this is spent (round-off of the subtractions)
PEEL_COLUMNS = 400_000  # work limit of the peeling: the LPs' columns in all (each column a row with samples left)


@dataclass(frozen=True, eq=False)  # arrays: compared by identity
class _Packing:
    """What every LP of one packing reads: the rows ``X``, the capacity ``cap`` left of each group
    (rows by classes; spent in place by :func:`_take`), and the certificate's ``W`` and ``eps``."""

    X: np.ndarray
    cap: np.ndarray
    W: float
    eps: float


@dataclass(frozen=True)
class HullSet:
    """One set of the packing: its groups ``(row, class)`` and its weight."""

    groups: tuple[tuple[int, int], ...]
    weight: float


def applies(spec) -> bool:
    """One hidden layer of step units, eps > 0 and first-layer weights that may be non-zero (the
    certificate's radius is positive and finite; with ``W = 0`` every network is constant, the
    conflict bound's case)."""
    return one_hidden_step(spec) and spec.eps > 0 and 0 < radius(spec) < math.inf


def hull_sets(X: np.ndarray, counts: np.ndarray, spec, *, near: int = NEAR, max_lps: int = MAX_LPS,
              stop=None) -> list[HullSet]:
    """The greedy packing of the module docstring on rows ``X`` (scaled as the problem's) with
    class counts ``counts`` (rows by classes); ``[]`` where it does not apply.  ``stop()`` (a
    deadline) ends it early: the sets found so far are a packing too."""
    X, counts = np.asarray(X, float), np.asarray(counts, float)
    U, J = counts.shape
    if not applies(spec) or U < 2 or J < 2:
        return []
    cap = counts.copy()
    pack = _Packing(X, cap, spec.eps / radius(spec), spec.eps)
    dist, idx, other = nearest_other(X, counts, near)
    sets, lps = [], 0
    halt = (lambda: False) if stop is None else stop
    for u in np.argsort(other, kind="stable"):
        if not math.isfinite(other[u]):
            break  # no other class among its neighbours: nor for the rows after it
        nb, dn = idx[u], dist[u]
        for A in np.flatnonzero(cap[u] > LEFT):
            for B in _near_classes(counts[nb], dn, A):
                for _ in range(TRIES):
                    if cap[u, A] <= LEFT or lps >= max_lps or halt():
                        break
                    lps += 1
                    found = _one_set(pack, nb, dn, u, A, B)
                    if found is None:
                        break
                    _take(sets, cap, found)
        if lps >= max_lps or halt():
            break
    columns = 0
    for A in range(J):  # phase 2: peeling, every pair of classes over all rows left
        for B in range(A + 1, J):
            while lps < max_lps and columns < PEEL_COLUMNS and not halt():
                lps += 1
                a, b = np.flatnonzero(cap[:, A] > LEFT), np.flatnonzero(cap[:, B] > LEFT)
                columns += len(a) + len(b)
                found = _hull_lp(pack, a, b, np.ones(len(a) + len(b)), None, (A, B))
                if found is None:
                    break
                _take(sets, cap, found)
    return sets


def _take(sets: list[HullSet], cap: np.ndarray, found: HullSet) -> None:
    """Add ``found`` to the packing: its weight spent from each of its groups' capacity."""
    sets.append(found)
    for g in found.groups:
        cap[g] -= found.weight


def nearest_other(X: np.ndarray, counts: np.ndarray, k: int):
    """``(dist, idx, other)``: each row's ``k`` nearest rows in L1 (itself first; at most all of
    them), their distances, and the distance to the nearest of them whose majority class differs
    from its own (``inf`` if none; ``-1`` for a row holding several classes)."""
    U = len(X)
    k = min(U, k)
    dist, idx = cKDTree(X).query(X, k=k, p=1)
    dist, idx = np.asarray(dist, float).reshape(U, k), np.asarray(idx, int).reshape(U, k)
    label = counts.argmax(1)
    other = np.where(label[idx] != label[:, None], dist, np.inf).min(1)
    other[(counts > 0).sum(1) > 1] = -1.0
    return dist, idx, other


def _near_classes(counts: np.ndarray, dn: np.ndarray, A: int) -> list[int]:
    """The classes other than ``A`` among the neighbours, nearest first."""
    first = {}
    for row, d in zip(counts, dn):
        for j in np.flatnonzero(row > 0):
            if j != A and j not in first:
                first[int(j)] = d
    return sorted(first, key=first.get)


def _one_set(pack: _Packing, nb, dn, u, A, B) -> HullSet | None:
    """The LP of the module docstring around row ``u`` (class ``A`` against ``B``, the
    neighbours ``nb`` with capacity left), its set checked; None if none."""
    cap = pack.cap
    a = nb[cap[nb, A] > LEFT]
    if u not in a:
        return None  # u must take part: it is the candidate
    b = nb[cap[nb, B] > LEFT]
    near = dict(zip(nb.tolist(), dn.tolist()))
    cost = np.array([near[v] for v in a] + [near[v] for v in b]) + 1e-3
    return _hull_lp(pack, a, b, cost, int(np.flatnonzero(a == u)[0]), (A, B))


def _hull_lp(pack: _Packing, a, b, cost, inner, classes: tuple[int, int]) -> HullSet | None:
    """The LP of the module docstring over the ``A`` rows ``a`` and the ``B`` rows ``b`` (``classes``
    is ``(A, B)``; column costs ``cost``; ``inner``: the index in ``a`` of a row that must take part,
    or None), its set checked; None if none."""
    if len(a) == 0 or len(b) == 0:
        return None
    X, cap, W, eps = pack.X, pack.cap, pack.W, pack.eps
    A, B = classes
    d, na, n = X.shape[1], len(a), len(a) + len(b)
    D = np.concatenate([X[a].T, -X[b].T], axis=1)  # z_A - z_B = sum_A lambda x - sum_B mu x
    eye = np.eye(d)
    sums = np.zeros((2, n + d))
    sums[0, :na], sums[1, na:n] = 1.0, 1.0
    rows = [np.hstack([D, -eye]), np.hstack([-D, -eye]), sums, -sums]  # |z_A - z_B| <= t, the sums 1
    rhs = [np.zeros(2 * d), np.ones(2), -np.ones(2)]
    rows.append(np.concatenate([np.zeros(n), np.ones(d)])[None, :])  # ||z_A - z_B||_1 = sum t <= half the
    rhs.append([0.5 * eps / W])  # radius: the check below keeps the other half for round-off
    lower = np.zeros(n + d)
    if inner is not None:
        lower[inner] = 1e-6  # the candidate row is in the set
    x = solve_lp(np.concatenate([cost, np.zeros(d)]), sp.csr_matrix(np.vstack(rows)), np.concatenate(rhs),
                 lower, np.concatenate([np.ones(n), np.full(d, np.inf)]))
    if x is None:
        return None
    lam, mu = x[:na], x[na:n]
    ka, kb = np.flatnonzero(lam > 1e-9), np.flatnonzero(mu > 1e-9)
    if len(ka) == 0 or len(kb) == 0:
        return None
    zA = lam[ka] @ X[a[ka]] / lam[ka].sum()
    zB = mu[kb] @ X[b[kb]] / mu[kb].sum()
    if not W * float(np.abs(zA - zB).sum()) < eps * (1 - MARGIN):
        return None  # round-off: no certificate
    groups = tuple((int(v), int(A)) for v in a[ka]) + tuple((int(v), int(B)) for v in b[kb])
    weight = float(min(cap[g] for g in groups))
    return HullSet(groups, weight) if weight > LEFT else None


def packed(sets: list[HullSet], leave_out=None) -> float:
    """The packing's bound, ``sum_k w_k``, over the sets that use none of the rows ``leave_out``."""
    out = set() if leave_out is None else {int(v) for v in np.ravel(leave_out)}
    return float(sum(s.weight for s in sets if not any(g[0] in out for g in s.groups)))
