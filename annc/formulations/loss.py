"""Training objectives over the output columns ``o`` (U x J) with class counts ``c``.

``nll`` (Proposition 1): ``omega_u >= o_uj`` for all j (rows ``om``) and

    min  sum_u sum_j c_uj (omega_u - o_uj)

which is within ``N log J`` of the softmax negative log-likelihood; the diversifying
rows keep the outputs of a row apart by eps (see :mod:`.output`).
"""
from __future__ import annotations

import numpy as np

from .common import Lowering
from .output import add_diversifying


def add_nll(low: Lowering, o: np.ndarray, spec_layer) -> None:
    b = low.builder
    c = low.problem.counts
    lb, ub = b.var_bounds(o)
    U, J = o.shape
    w = b.var("w", (U,), lb.max(1), ub.max(1), role="omega")
    b.rows("om", (U, J), "G", 0.0, [(w[:, None], 1.0), (o, -1.0)], role="omega")
    b.minimize(w, c.sum(1))
    b.minimize(o, -c)
    add_diversifying(low, o, spec_layer)


LOSSES = {"nll": add_nll}


def network_loss(spec, scores: np.ndarray, counts: np.ndarray) -> float:
    """The training objective evaluated on a network's output ``scores`` (U x J).

    ``counts[u, j]`` samples of class j have output row u; for ``nll`` this is
    ``sum_u sum_j c_uj (max_j' o_uj' - o_uj)``, the MIP objective at its optimal omega.
    """
    if spec.loss == "nll":
        return float(np.sum(counts * (scores.max(1, keepdims=True) - scores)))
    raise ValueError(spec.loss)
