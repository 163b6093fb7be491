"""Dead weights: a hidden unit that no output reads (all its outgoing weights 0, after the
units after it are cleared) changes nothing the network computes, yet its incoming weights
count under an ``l0`` (or ``l1``) penalty.  A solver stopped at a limit, a start, or a
search may leave such weights non-zero; dropping them is free and lowers the objective.

:func:`drop_dead_weights` zeroes the incoming weights and the bias of every dead hidden
unit (from the last hidden layer back, since clearing a unit can leave units before it
dead), lifts the result into the model (:func:`annc.formulations.lift`, through
:func:`~annc.training.warmstart.pool.point.complete`, which checks it against every row), decodes
and verifies it as any solution (:func:`annc.solve.verify.check`), and keeps it only if it
passes and its objective, recomputed by annc's forward pass, is no higher.  The network
annc exports and reports is then this one; the ``.pruned`` file still removes the dead
units themselves."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...core.network import TrainedNetwork
from ...formulations import export_bias_shifts
from ...solve.compiler import Compiled
from ...solve.decode import decode_network
from ...solve.verify import Verification, check
from ..warmstart.pool.point import complete

TOL = 1e-9


def dead_cleared(weights: list, biases: list, tol: float = TOL) -> tuple[list, list, int]:
    """Copies of ``weights`` and ``biases`` (every layer, the output layer last) with the
    incoming weights and bias of each dead hidden unit set to 0, and how many non-zero
    weights that dropped."""
    W = [np.array(w, dtype=float) for w in weights]
    b = [np.array(v, dtype=float) for v in biases]
    dropped = 0
    for i in range(len(W) - 2, -1, -1):
        dead = np.abs(W[i + 1]).max(axis=1, initial=0.0) <= tol
        dropped += int(np.count_nonzero(np.abs(W[i][:, dead]) > tol))
        W[i][:, dead] = 0.0
        b[i][dead] = 0.0
    return W, b, dropped


def drop_dead_weights(c: Compiled, net: TrainedNetwork, ver: Verification, *, status: str,
                      solver_objective: float | None) -> tuple[TrainedNetwork, Verification, int] | None:
    """``(network, its verification, weights dropped)`` without the dead weights of ``net``
    (verified against ``c`` as the module docstring says), or None when ``net`` has none or
    the network without them does not verify or scores worse."""
    shifts = export_bias_shifts(c.problem.spec)  # the exported biases are shifted from the model's
    W, b, dropped = dead_cleared([L.weight for L in net.layers], [L.bias - s for L, s in zip(net.layers, shifts)])
    if not dropped:
        return None
    y = complete(c.model, c.problem, W, b)
    if y is None:
        return None
    decoded = decode_network(c.varmap, y)
    pruned = replace(net, layers=decoded.layers)
    v = check(c, y, pruned, status=status, solver_objective=solver_objective)
    if not v.ok or v.network_loss > ver.network_loss + 1e-9:
        return None
    return pruned, v, dropped
