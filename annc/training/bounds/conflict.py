"""The conflict bound: sample groups that no network of the class can tell apart.

**Indistinguishable rows.**  Let the first hidden layer have step units (``binary`` or
``sign``: ``h = 1`` iff ``pre >= eps``, ``h = 0`` iff ``pre <= 0``, nothing in between)
with weights in ``[wl, wu]``, ``W = max(|wl|, |wu|)``.  Two rows ``u, v`` share the bias,
so for every unit ``|pre_u - pre_v| = |(x_u - x_v) . a| <= W ||x_u - x_v||_1``.  If that is
``< eps``, no unit has ``h_u != h_v`` (that needs one ``pre >= eps`` and the other
``<= 0``, a difference ``>= eps``), so every later layer and the outputs are equal on
``u`` and ``v``.  A sample of class ``j`` is classified correctly only where ``j`` leads
every rival by ``eps > 0``, so two samples of different classes on such rows are never
both correct.  With other first-layer units only rows with equal inputs are
indistinguishable (:func:`radius` 0).  The network may see the inputs through some
features ``F`` only (:mod:`.support`): then the distance is that of the projections.

**The bound.**  A *group* ``g = (u, j)`` holds the ``c_g`` samples of class ``j`` on row
``u``; all of them are right or all wrong.  The conflict graph joins groups of different
classes on indistinguishable rows (on one row too: ``u = v``).  The groups a network gets
right are independent in that graph, so those it gets wrong form a vertex cover:
``errors >= tau``, the least weight ``sum c_g`` of a vertex cover.  Computed (:func:`cover`):

* two classes: the graph is bipartite (class 0 against class 1), so ``tau`` is the
  largest matching of *samples* (each group matched at most ``c_g`` times; König-Egerváry),
  a maximum flow with integer capacities (scipy's ``maximum_flow``), exact;
* more classes: the LP relaxation of the vertex cover with, per row, the clique row
  ``sum_j y_uj >= k_u - 1`` (the ``k_u`` classes of one row conflict pairwise), rounded
  up when the weights are whole (errors are then whole).  The LP optimum is at most ``tau``; it dominates every sample
  matching (its dual is a fractional one) and, through the clique rows, the loss floor.

Within-row conflicts are edges like the others, so the bound includes the loss floor
``sum_u (n_u - max_j c_uj)`` (the least cover of each row's clique) and never counts it
twice.  It bounds the loss only; the penalty is ``>= 0``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix, vstack
from scipy.sparse.csgraph import maximum_flow
from scipy.spatial import cKDTree

from ...core.activations import HIDDEN
from ...core.errors import ModelError
from ...core.losses import LOSS
from ...solve.lp import solve_lp
from .bound import TOL, Bound

MARGIN = 1e-9  # a pair counts only if W ||x_u - x_v||_1 < eps (1 - MARGIN): round-off never adds one


def applies(spec) -> bool:
    """Whether the conflict argument holds for ``spec``: the ``errors`` loss and at least
    one hidden layer (else there are no units to share)."""
    return LOSS[spec.loss].counts_errors and len(spec.hidden) > 0


def radius(spec) -> float:
    """Rows closer than this in L1 are indistinguishable: ``eps / W`` for step units in the
    first hidden layer (``inf`` when ``W = 0``), else 0 (equal rows only)."""
    first = spec.hidden[0]
    if not HIDDEN[first.activation].step:  # annc.core.activations: binary, sign
        return 0.0
    W = max(abs(first.weight_bounds[0]), abs(first.weight_bounds[1]))
    return math.inf if W == 0 else spec.eps / W


def conflict_bound(problem) -> Bound | None:
    """The bound of the module docstring on the whole problem, or None where it does not
    apply: another loss, or a first hidden layer without step units (its equal rows are
    the loss floor's business; :mod:`.support` still uses them)."""
    spec = problem.spec
    if not applies(spec) or not HIDDEN[spec.hidden[0].activation].step:
        return None
    r = radius(spec)
    value, edges = errors_bound(problem.X, problem.counts, r)
    rule = "every row alike: W = 0" if math.isinf(r) else f"rows closer than eps/W = {r:.4g} in L1"
    return Bound(value, "conflict", f"least cover of {edges} conflicting pairs of sample groups ({rule})")


def errors_bound(X: np.ndarray, counts: np.ndarray, r: float) -> tuple[float, int]:
    """``(tau, edges)``: the cover bound on the errors when rows closer than ``r`` in L1 (or
    equal, for ``r = 0``) are indistinguishable, and the number of conflict edges."""
    if math.isinf(r):  # W = 0: every row looks the same
        merged = counts.sum(0, keepdims=True)
        return float(merged.sum() - merged.max()), 0
    X, counts = merge_equal(X, counts)
    u, v = close_pairs(X, r)
    return cover(counts, u, v)


def merge_equal(X: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equal rows merged (their counts added): they are one row to any network."""
    if len(X) == 0:
        return X, counts
    U, inverse = np.unique(X, axis=0, return_inverse=True)
    if len(U) == len(X):
        return X, counts
    merged = np.zeros((len(U), counts.shape[1]))
    np.add.at(merged, inverse.reshape(-1), counts)
    return U, merged


def close_pairs(X: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``u < v`` of distinct rows with ``||x_u - x_v||_1 < r (1 - MARGIN)``."""
    if r <= 0 or len(X) < 2:
        return np.zeros(0, int), np.zeros(0, int)
    limit = r * (1 - MARGIN)
    if X.shape[1] == 1:  # sorted: each row's neighbours within the limit follow it
        order = np.argsort(X[:, 0], kind="stable")
        x = X[order, 0]
        ends = np.searchsorted(x, x + limit, side="left")  # first index with x >= x_i + limit
        reach = ends - np.arange(len(x)) - 1
        i = np.repeat(np.arange(len(x)), reach)
        j = i + 1 + (np.arange(reach.sum()) - np.repeat(np.cumsum(reach) - reach, reach))
        a, b = order[i], order[j]
    else:
        pairs = cKDTree(X).query_pairs(limit, p=1, output_type="ndarray")
        a, b = pairs[:, 0], pairs[:, 1]
        keep = np.abs(X[a] - X[b]).sum(1) < limit
        a, b = a[keep], b[keep]
    return np.minimum(a, b), np.maximum(a, b)


def group_edges(counts: np.ndarray, u: np.ndarray, v: np.ndarray):
    """The groups ``(row, class)`` with samples, and the conflict edges between them: for
    every pair ``(u, v)`` and on every row itself, each two groups of different classes.
    Returns ``(gid, a, b)``: ``gid[u, j]`` the group index (-1: none), edges ``a[e] - b[e]``."""
    U, J = counts.shape
    present = counts > 0
    gid = np.full((U, J), -1)
    gid[present] = np.arange(int(present.sum()))
    a, b = [], []
    for j in range(J):
        for k in range(J):
            if j == k:
                continue
            m = present[u, j] & present[v, k]
            a.append(gid[u[m], j])
            b.append(gid[v[m], k])
            if j < k:  # the row's own groups: one edge per pair of classes
                rows = np.flatnonzero(present[:, j] & present[:, k])
                a.append(gid[rows, j])
                b.append(gid[rows, k])
    a = np.concatenate(a) if a else np.zeros(0, int)
    b = np.concatenate(b) if b else np.zeros(0, int)
    return gid, a, b


def cover(counts: np.ndarray, u: np.ndarray, v: np.ndarray) -> tuple[float, int]:
    """``(tau, edges)``: the least vertex cover bound of the conflict graph of the rows'
    groups, with the pairs ``(u, v)`` of indistinguishable rows (module docstring)."""
    gid, a, b = group_edges(counts, u, v)
    if len(a) == 0:
        return 0.0, 0
    weight = counts[counts > 0]
    J = counts.shape[1]
    cls = np.nonzero(counts > 0)[1]  # the class of each group, in gid order (row-major)
    if J == 2 and np.all(weight == np.round(weight)):  # whole counts: a maximum flow; weighted: the LP
        return float(_bipartite(weight, cls, a, b)), len(a)
    return _lp_cover(weight, gid, a, b), len(a)


def _bipartite(weight: np.ndarray, cls: np.ndarray, a: np.ndarray, b: np.ndarray) -> int:
    """The largest sample matching between class-0 and class-1 groups: a maximum flow
    source -> class-0 group (capacity c_g) -> class-1 group (unbounded) -> sink (c_g)."""
    if not np.all(weight == np.round(weight)):
        raise ModelError("the conflict bound needs whole sample counts")
    w = weight.astype(np.int64)
    if w.sum() >= 2**31 - 1:
        raise ModelError("the conflict bound's flow needs fewer than 2^31 samples")
    zero_first = cls[a] == 0
    left, right = np.where(zero_first, a, b), np.where(zero_first, b, a)
    G = len(weight)
    s, t = G, G + 1
    big = int(w.sum()) + 1
    zeros, ones = np.flatnonzero(cls == 0), np.flatnonzero(cls == 1)
    rows = np.concatenate([np.full(len(zeros), s), left, ones])
    cols = np.concatenate([zeros, right, np.full(len(ones), t)])
    cap = np.concatenate([w[zeros], np.full(len(left), big), w[ones]]).astype(np.int32)
    graph = coo_matrix((cap, (rows, cols)), shape=(G + 2, G + 2)).tocsr()  # duplicates add up
    graph.data = np.minimum(graph.data, big).astype(np.int32)
    return int(maximum_flow(csr_matrix(graph), s, t).flow_value)


def _lp_cover(weight: np.ndarray, gid: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The vertex cover LP with the rows' clique rows (module docstring): HiGHS's optimum
    lowered by :data:`TOL` (its tolerance), then rounded up when the weights are whole."""
    G, E = len(weight), len(a)
    rows = [coo_matrix((-np.ones(2 * E), (np.repeat(np.arange(E), 2), np.column_stack([a, b]).ravel())),
                       shape=(E, G))]
    rhs = [-np.ones(E)]
    multi = np.flatnonzero((gid >= 0).sum(1) >= 3)  # two classes on a row: its edge says it all
    if len(multi):
        g = gid[multi]
        r, j = np.nonzero(g >= 0)
        rows.append(coo_matrix((-np.ones(len(r)), (r, g[r, j])), shape=(len(multi), G)))
        rhs.append(-((g >= 0).sum(1) - 1.0))
    x = solve_lp(weight, vstack(rows), np.concatenate(rhs), 0.0, 1.0)
    if x is None:
        raise ModelError("the conflict bound's LP failed: HiGHS ended without an optimum")
    value = float(np.asarray(weight, float) @ x)
    return float(math.ceil(value - TOL)) if np.all(weight == np.round(weight)) else max(value - TOL, 0.0)
