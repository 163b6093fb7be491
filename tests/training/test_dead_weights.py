"""Dead weights: the incoming weights of a hidden unit that no output reads are dropped from
the network annc exports and reports, its objective recomputed (forward pass and lift)."""
import numpy as np

import annc
from annc.io.solutions import Status
from annc.solve.decode import decode_network
from annc.solve.solvers.base import SolveResult
from annc.solve.verify import check
from annc.training.finish.deadweights import dead_cleared, drop_dead_weights
from annc.training.warmstart.pool.point import complete

SPEC = "input 5\nhidden 3 binary\noutput 2\nloss errors\npenalty l0 0.5\neps 0.1\n"
# unit 0 reads x1 and feeds the output; units 1 and 2 (3 non-zero weights in) feed nothing.
# Inputs are 0/1, so every pre-activation is -0.75, -0.25 or 0.25: off the gap (0, eps).
W1 = np.array([[0.5, 0, 0], [0, 0.5, 0], [0, 0.5, 0], [0, 0, 0.5], [0, 0, 0]], float)
B1 = np.array([-0.25, -0.75, -0.25])
W2 = np.array([[-0.5, 0.5], [0, 0], [0, 0]], float)
B2 = np.array([0.25, 0.0])


def test_dead_cleared_goes_back_through_the_layers():
    W = [np.array([[1.0, 2.0]]), np.array([[0.0, 3.0], [4.0, 0.0]]), np.array([[0.0], [5.0]])]
    b = [np.array([1.0, 1.0]), np.array([1.0, 1.0]), np.array([0.0])]
    W2_, b2_, n = dead_cleared(W, b)
    # unit 0 of layer 1 feeds nothing: its weight 4 goes, then unit 1 of layer 0 feeds nothing: 2 goes
    assert n == 2 and W2_[1].tolist() == [[0, 3], [0, 0]] and W2_[0].tolist() == [[1, 0]]
    assert b2_[1].tolist() == [0, 1] and b2_[0].tolist() == [1, 0]
    assert W[1][1, 0] == 4.0  # the inputs are not changed


def test_a_constructed_network_loses_its_dead_weights(xor_csv):
    c = annc.compile(SPEC, xor_csv, start=False)
    x = complete(c.model, c.problem, [W1, W2], [B1, B2])
    assert x is not None
    net = decode_network(c.varmap, x)
    ver = check(c, x, net, status="feasible", solver_objective=None)
    assert ver.ok and net.nonzero_weights() == 6
    net2, ver2, n = drop_dead_weights(c, net, ver, status="feasible", solver_objective=None)
    assert n == 3 and net2.nonzero_weights() == 3 and ver2.ok
    # incoming weights 0, and the bias the model's 0 (exported shifted by -eps/2: off)
    assert np.allclose(net2.layers[0].weight[:, 1:], 0) and np.allclose(net2.layers[0].bias[1:], -0.05)
    assert ver2.network_loss == ver.network_loss - 3 * 0.5  # l0 0.5 per weight, same predictions
    assert (net2.predict(c.data.X) == net.predict(c.data.X)).all()
    assert ver2.point_objective == ver2.network_loss  # the lift agrees with the forward pass


def test_train_exports_and_reports_the_network_without_dead_weights(xor_csv, tmp_path, monkeypatch):
    """A solver that returns the constructed network: the exported network and the verdict's
    objective are those without its dead weights."""
    from annc.solve.solvers import SOLVERS
    c = annc.compile(SPEC, xor_csv, start=False)
    x = complete(c.model, c.problem, [W1, W2], [B1, B2])
    objective = c.model.objective(x)
    highs = type(SOLVERS["highs"])
    real = highs.solve_within

    def solver(driver, model, settings, inputs, budget=None):
        if inputs.progress is None:  # annc's own sub-MIPs (the bounds): solved
            return real(driver, model, settings, inputs, budget)
        assert model.num_cols == c.model.num_cols  # the full MIP: the constructed network
        return SolveResult(driver.name, Status.FEASIBLE, "time limit reached", objective, None, x.copy(), 0.1)

    monkeypatch.setattr(highs, "solve_within", solver)
    r = annc.train(SPEC, xor_csv, warm_start=False, out_dir=tmp_path / "out", time_limit=30)
    assert r.verified
    assert r.network.nonzero_weights() == 3
    assert r.steps[0].verdict.objective == objective - 1.5
    assert r.steps[0].verdict.dead_weights == (3, objective)
    files = sorted(p.name for p in (tmp_path / "out").glob("*.weights.json"))
    assert files, files
    from annc.core.network import TrainedNetwork
    saved = TrainedNetwork.load(tmp_path / "out" / files[0])
    assert saved.nonzero_weights() == 3
