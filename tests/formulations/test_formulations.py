"""Exact sizes of the lowered models, checked against the formulas of the formulations."""
import numpy as np
import pytest

from annc.formulations import formulate
from annc.io.problem import make_problem
from annc.io.spec import parse_spec
from annc.solve.solvers import SolveOptions, solve


def sizes(d, hidden, J, U, P):
    """(columns, binaries, rows) from the formulas in the formulation docstrings."""
    cols = bins = rows = 0
    widths = [d] + [k for k, _ in hidden] + [J]
    acts = ["data"] + [a for _, a in hidden]
    for l in range(len(widths) - 1):
        i, o = widths[l], widths[l + 1]
        cols += i * o + o
        if l > 0:
            cols += U * i * o
            if acts[l] == "binary":
                rows += 4 * U * i * o
            else:
                cols += i * o * P
                bins += i * o * P
                rows += 4 * U * i * o * P + 3 * i * o
        if l < len(hidden):
            act = hidden[l][1]
            cols += U * o * (1 if act == "binary" else 2)
            bins += U * o
            rows += U * o * (2 if act == "binary" else 5)
    pairs = J * (J - 1) // 2
    cols += U * J + U + U * pairs
    bins += U * pairs
    rows += U * J + U * J + U + 2 * U * pairs  # out, om, lf, da/db
    return cols, bins, rows


CASES = [
    ("input 3\nhidden 2 binary\noutput 2\nloss nll", 3, [(2, "binary")], 2),
    ("input 3\nhidden 2 binary\nhidden 3 binary\nhidden 2 binary\noutput 3\nloss nll", 3,
     [(2, "binary"), (3, "binary"), (2, "binary")], 3),
    ("input 2\nhidden 2 relu\nhidden 2 relu\noutput 2\nP 3\nloss nll", 2, [(2, "relu"), (2, "relu")], 2),
    ("input 2\nhidden 2 relu\nhidden 2 binary\noutput 3\nP 2\nloss nll", 2, [(2, "relu"), (2, "binary")], 3),
    ("input 4\noutput 3\nloss nll", 4, [], 3),
]


@pytest.mark.parametrize("text,d,hidden,J", CASES)
def test_counts_match_formulas(text, d, hidden, J):
    spec = parse_spec(text)
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(9, d)).astype(float)
    y = rng.integers(0, J, size=9)
    pb = make_problem(spec, X, y, list(range(J)))
    m = formulate(pb)
    cols, bins, rows = sizes(d, hidden, J, pb.num_rows, spec.partitions)
    st = m.stats()
    assert (st["columns"], st["binary"], st["rows"]) == (cols, bins, rows)
    assert st["integer"] == 0


def test_merging_shares_rows_and_keeps_the_optimum():
    spec = parse_spec("input 2\nhidden 2 binary\noutput 2")
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, float)
    y = np.array([0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0])
    merged, plain = make_problem(spec, X, y, [0, 1]), make_problem(spec, X, y, [0, 1], merge=False)
    assert merged.num_rows == 4 and plain.num_rows == 12
    assert merged.counts.sum() == 12 and merged.counts[2].tolist() == [1, 2]
    a = solve(formulate(merged), "highs", SolveOptions(time_limit=60))
    b = solve(formulate(plain), "highs", SolveOptions(time_limit=60))
    assert a.status.value == b.status.value == "optimal"
    assert a.objective == pytest.approx(b.objective, abs=1e-6)


def test_nll_floor_is_the_sorted_rank_sum():
    from annc.formulations.nll import nll_floor
    c = np.array([[3, 1, 0], [0, 0, 5], [2, 2, 2], [1, 4, 2]])
    # ranks 0, 1, 2 go to the counts sorted down: [3,1,0] -> 1; [5,0,0] -> 0; [2,2,2] -> 6; [4,2,1] -> 4
    assert nll_floor(c, 0.5).tolist() == [0.5, 0.0, 3.0, 2.0]


@pytest.mark.parametrize("J,seed,n", [(2, 0, 24), (2, 1, 24), (3, 2, 16), (3, 3, 12), (4, 4, 8)])
def test_loss_floor_rows_cut_off_no_network(J, seed, n):
    """The optimum is the same with and without the loss-floor rows, and every row's loss
    at the optimum is at least its floor (the rows are valid, not just plausible)."""
    from annc.formulations.nll import nll_floor
    spec = parse_spec(f"input 3\nhidden 2 binary\noutput {J}\neps 0.1\nloss nll")
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 3)).astype(float)
    y = rng.integers(0, J, size=n)
    pb = make_problem(spec, X, y, list(range(J)))
    m = formulate(pb)
    with_floor = solve(m, "highs", SolveOptions(time_limit=120))
    without = solve(m.without_rows("lf"), "highs", SolveOptions(time_limit=120))
    assert with_floor.status.value == without.status.value == "optimal"
    assert with_floor.objective == pytest.approx(without.objective, abs=1e-6)
    o, w = m.values(without.x, "o"), m.values(without.x, "w")
    row_loss = (pb.counts * (w[:, None] - o)).sum(1)
    floor = nll_floor(pb.counts, 0.1)
    assert np.all(row_loss >= floor - 1e-6)
    assert floor.sum() >= 0.2 - 1e-9  # the check has teeth: at least two samples pay eps here


def test_small_user_m_is_refused_with_the_rows_named():
    from annc.core.errors import ModelError
    spec = parse_spec("input 2\nhidden 2 binary\noutput 2\nM 1.5")
    pb = make_problem(spec, np.array([[0, 1], [1, 1.0]]), np.array([0, 1]), [0, 1])
    with pytest.raises(ModelError) as e:
        formulate(pb)
    msg = str(e.value)
    assert "rows on0: M = 1.5" in msg and "--allow-small-m" in msg
    m = formulate(pb, allow_small_m=True)
    assert any("kept on request" in w for w in m.warnings)


def test_small_user_m_points_at_the_setting_that_sets_it():
    from annc.core.errors import ModelError
    spec = parse_spec("input 2\nhidden 2 binary { M 1.2 }\noutput 2\nM 1.5\nloss nll\n", "m.ann")
    pb = make_problem(spec, np.array([[0, 1], [1, 1.0]]), np.array([0, 1]), [0, 1])
    with pytest.raises(ModelError) as e:
        formulate(pb)
    msg = str(e.value)
    block, top = msg.index("m.ann:2:19: error: big-M is below"), msg.index("m.ann:4:1: error: big-M is below")
    assert block < msg.index("rows on0: M = 1.2") < top < msg.index("rows da: M = 1.5")
    assert "\n    hidden 2 binary { M 1.2 }\n                      ^\n" in msg
    assert msg.endswith("--allow-small-m to keep it anyway")


def test_large_m_warns_about_integrality_tolerance():
    spec = parse_spec("input 2\nhidden 2 binary\noutput 2\nM 100000\neps 0.01")
    pb = make_problem(spec, np.array([[0, 1], [1, 1.0]]), np.array([0, 1]), [0, 1])
    m = formulate(pb)
    assert any("integrality tolerance" in w for w in m.warnings)


@pytest.mark.parametrize("extra", ["loss errors", "loss hinge 0.5", "penalty l1 0.01\neps 0.001", "loss hinge\npenalty l0 0.05",
                                   "loss hinge\npenalty l1 0.1"])
def test_losses_and_penalties_match_the_exported_network(extra):
    """The objective the solver reports is the loss recomputed from the exported weights."""
    from annc.solve.compiler import build
    from annc.io.data import Dataset
    from annc.io.datasets import xor_data
    from annc.solve.decode import decode_network
    from annc.solve.verify import check
    spec = parse_spec("input 5\nhidden 2 binary\noutput 2\n" + extra)
    X, y = xor_data(16, noise=0.1, seed=2)
    data = Dataset(X, y, [0, 1], [f"x{i}" for i in range(5)], "label", "<xor>", "0")
    c = build(spec, data)
    r = solve(c.model, "highs", SolveOptions(time_limit=60))
    assert r.status.value == "optimal"
    net = decode_network(c.varmap, r.x)
    v = check(c, r.x, net, status="optimal", solver_objective=r.objective)
    assert v.ok, v.problems
    assert v.network_loss == pytest.approx(r.objective, abs=1e-6)
    if "errors" in extra:  # an exact count of misclassified samples
        assert r.objective == pytest.approx(round(r.objective)) and r.objective == round((1 - v.train_accuracy) * 16)
    if "l0" in extra:
        assert v.network_loss >= 0.05 * net.nonzero_weights() - 1e-6


def test_max_weights_holds_in_the_solved_network_and_verification_checks_it():
    """``max_weights 2``: HiGHS's network has at most 2 non-zero weights, passes verification, and
    the same point checked against the model without room for it (``max_weights 1``) fails, by the
    row ``nmax`` and by the network's own count."""
    from dataclasses import replace
    from annc.solve.compiler import build
    from annc.io.data import Dataset
    from annc.io.datasets import xor_data
    from annc.solve.decode import decode_network
    from annc.solve.verify import check
    X, y = xor_data(16, noise=0.1, seed=2)
    data = Dataset(X, y, [0, 1], [f"x{i}" for i in range(5)], "label", "<xor>", "0")
    spec = parse_spec("input 5\nhidden 2 binary\noutput 2\nloss errors\npenalty l0 0.05\nmax_weights 2\n")
    c = build(spec, data)
    r = solve(c.model, "highs", SolveOptions(time_limit=60))
    net = decode_network(c.varmap, r.x)
    assert r.status.value == "optimal" and 0 < net.nonzero_weights() <= 2
    assert check(c, r.x, net, status="optimal", solver_objective=r.objective).ok
    tight = build(replace(spec, max_weights=net.nonzero_weights() - 1), data)
    v = check(tight, r.x, net, status="optimal", solver_objective=r.objective)
    assert any("nmax" in p for p in v.problems), v.problems
    assert any("more than the spec's max_weights" in p for p in v.problems), v.problems
