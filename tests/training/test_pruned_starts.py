"""Sparse MIP starts: masked SGD, magnitude pruning, SGD's own output layer as a start.

Invariants only (no SGD trajectory is asserted; it depends on the BLAS kernel): a mask
keeps its zeros exactly; pruning keeps at most the fraction asked and only weights that
were non-zero; the output layer moved into its box predicts what SGD's did; the exact
output-layer MIP started from it is never worse; every start is a feasible point.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annc.formulations import formulate
from annc.io.problem import make_problem
from annc.training.warmstart.sgd import SgdSettings, train_sgd
from annc.io.spec import parse_spec
from annc.training.warmstart.pool import complete, output_layer, pruned, sgd_start
from annc.training.context import RunContext
from annc.training.search import mip_start
from annc.training.warmstart.pool.point import hidden_network
from annc.training.warmstart.pool.repair import off_gap, repair_network


def blobs(n=120, d=4, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    centres = rng.uniform(0, 1, (k, d))
    X = np.clip(centres[y] + rng.normal(0, 0.15, (n, d)), 0, 1)
    return X, y


def problem(text, X, y):
    spec = parse_spec(text)
    pb = make_problem(spec, X, y, sorted(set(y.tolist())))
    return formulate(pb, name="p"), pb


SPEC = "input 4\nhidden 4 binary\noutput 3\nloss errors\npenalty l0 0.5\n"


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**16), st.floats(0.05, 0.95))
def test_a_mask_keeps_its_zeros_exactly(seed, density):
    X, y = blobs(seed=seed % 7)
    rng = np.random.default_rng(seed)
    mask = [rng.random((4, 3)) < density, rng.random((3, 3)) < density]
    net = train_sgd(X, y, [3], "binary", settings=SgdSettings(epochs=50, seed=seed, mask=mask))
    for L, m in zip(net.layers, mask):
        assert np.all(L.weight[~m] == 0)
        assert np.all(np.isfinite(L.weight))


def test_a_mask_of_the_wrong_shape_is_refused():
    X, y = blobs()
    with pytest.raises(ValueError, match="mask"):
        train_sgd(X, y, [3], "binary", settings=SgdSettings(epochs=5, mask=[np.ones((4, 3)), np.ones((2, 3))]))


@pytest.mark.parametrize("keep", [0.5, 0.25, 0.01])
def test_pruning_keeps_at_most_the_fraction_asked(keep):
    X, y = blobs()
    _, pb = problem(SPEC, X, y)
    net = train_sgd(pb.X_samples, pb.y, [4], "binary", settings=SgdSettings(epochs=300, seed=1))
    before = [L.weight != 0 for L in net.layers]
    small = pruned(pb, net, keep, epochs=100, seed=1)
    hidden_before = int(before[0].sum())
    assert np.count_nonzero(small.layers[0].weight) <= max(int(np.ceil(keep * hidden_before)), 1)
    assert np.all(small.layers[0].weight[~before[0]] == 0)  # nothing pruned comes back
    assert small.meta["masked"]


@pytest.mark.parametrize("act", ["binary", "relu"])
def test_the_output_layer_moved_into_its_box_predicts_as_sgd_did(act):
    X, y = blobs(seed=3)
    text = SPEC.replace("binary", act)
    m, pb = problem(text, X, y)
    net = train_sgd(pb.X_samples, pb.y, [4], act, settings=SgdSettings(epochs=400, seed=2))
    repaired = repair_network(pb, [L.weight for L in net.layers], [L.bias for L in net.layers])
    assert repaired is not None
    W, b, H, Wo, bo = repaired
    ls = pb.spec.layers[-1]
    assert np.all((Wo >= ls.weight_bounds[0]) & (Wo <= ls.weight_bounds[1]))
    assert np.all((bo >= ls.bias_bounds[0]) & (bo <= ls.bias_bounds[1]))
    # scaled as far as the box allows: some weight or bias is at its bound
    assert np.isclose(np.abs(Wo), max(np.abs(ls.weight_bounds))).any() \
        or np.isclose(np.abs(bo), max(np.abs(ls.bias_bounds))).any()
    # on the repaired hidden activations, the scaled layer ranks the classes as SGD's layer does there
    ours = H @ Wo + bo
    carry_free = H @ (net.layers[-1].weight) + net.layers[-1].bias if act == "binary" else None
    if carry_free is not None:
        assert np.array_equal(np.argmax(ours, 1), np.argmax(carry_free, 1))
    x = complete(m, pb, W + [Wo], b + [bo])
    assert x is not None and m.check(x, 1e-7).ok


def test_the_exact_output_layer_from_a_start_is_never_worse():
    X, y = blobs(seed=5)
    m, pb = problem(SPEC, X, y)
    net = train_sgd(pb.X_samples, pb.y, [4], "binary", settings=SgdSettings(epochs=400, seed=0))
    W, b, H, Wo, bo = repair_network(pb, [L.weight for L in net.layers], [L.bias for L in net.layers])
    x0 = complete(m, pb, W + [Wo], b + [bo])
    out = output_layer(pb, H, RunContext.create(limit=0.5), start=(Wo, bo))  # too short to prove anything
    assert out is not None
    x1 = complete(m, pb, W + [out[0]], b + [out[1]])
    assert x1 is not None
    assert m.objective(x1) <= m.objective(x0) + 1e-9


@pytest.mark.parametrize("prune", [(), (0.5, 0.5)])
def test_sgd_starts_with_and_without_pruning_are_feasible(prune):
    X, y = blobs(seed=1)
    m, pb = problem(SPEC, X, y)
    x = sgd_start(m, pb, seed=0, lasso=False, prune=prune, ctx=RunContext.create(limit=2.0))
    assert x is not None
    assert np.all(np.isfinite(x)) and m.check(x, 1e-7).ok


def test_a_penalised_start_is_no_worse_than_the_unpruned_one():
    """The pruned networks are extra candidates: the objective picks among them, so the
    start with pruning is never worse than SGD's network alone (same seed, same SGD)."""
    X, y = blobs(seed=2)
    m, pb = problem(SPEC, X, y)
    plain = sgd_start(m, pb, seed=0, lasso=False, prune=(), ctx=RunContext.create(limit=2.0))
    more = sgd_start(m, pb, seed=0, lasso=False, prune=(0.5, 0.5), ctx=RunContext.create(limit=2.0))
    assert plain is not None and more is not None
    # the exact output layer is time-limited, so compare the start of the search with pruning
    # to the plain network with its own output layer in its box, which it always considers
    epochs = int(np.clip(2e9 / (pb.num_samples * (4 * 4 + 4 * 3)), 100, 10000))
    net = train_sgd(pb.X_samples, pb.y, [4], "binary", settings=SgdSettings(seed=0, epochs=epochs))
    W, b, _, Wo, bo = repair_network(pb, [L.weight for L in net.layers], [L.bias for L in net.layers])
    own = complete(m, pb, W + [Wo], b + [bo])
    assert own is not None
    assert m.objective(more) <= m.objective(own) + 1e-9


def test_mip_start_with_a_penalty_is_feasible_and_finite():
    X, y = blobs(seed=4)
    m, pb = problem(SPEC, X, y)
    x = mip_start(m, pb, budget=3.0)
    assert x is not None and np.all(np.isfinite(x)) and m.check(x, 1e-7).ok


def test_the_refitted_output_layer_is_in_its_box_and_a_feasible_start():
    from annc.training.warmstart.pool.seeding import refit_output
    X, y = blobs(seed=6)
    m, pb = problem(SPEC, X, y)
    net = train_sgd(pb.X_samples, pb.y, [4], "binary", settings=SgdSettings(epochs=300, seed=0))
    W, b, H, _, _ = repair_network(pb, [L.weight for L in net.layers], [L.bias for L in net.layers])
    Wo, bo = refit_output(pb, H, epochs=300, seed=0)
    ls = pb.spec.layers[-1]
    assert np.all(np.isfinite(Wo)) and np.all(np.isfinite(bo))
    assert np.all((Wo >= ls.weight_bounds[0]) & (Wo <= ls.weight_bounds[1]))
    assert np.all((bo >= ls.bias_bounds[0]) & (bo <= ls.bias_bounds[1]))
    x = complete(m, pb, W + [Wo], b + [bo])
    assert x is not None and m.check(x, 1e-7).ok


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dropping_weights_is_never_worse_and_never_adds_one(seed):
    from annc.training.search.local import drop_weights
    X, y = blobs(seed=seed)
    m, pb = problem(SPEC, X, y)
    x = sgd_start(m, pb, seed=seed, lasso=False, ctx=RunContext.create(limit=5))
    assert x is not None
    y2 = drop_weights(m, pb, x, ctx=RunContext.create(limit=30))
    assert m.check(y2).ok
    assert m.objective(y2) <= m.objective(x) + 1e-9
    before, after = (sum(int(np.count_nonzero(np.abs(w) > 1e-9)) for w in hidden_network(m, p)[0]) for p in (x, y2))
    assert after <= before


def test_a_weight_on_a_useless_input_is_dropped_and_the_objective_falls_by_its_penalty():
    """Input 1 is constant 0 on every row: its weights change no pre-activation, so each
    costs the penalty and buys nothing; the drop pass removes every one of them."""
    from annc.training.search.local import drop_weights
    X, y = blobs(seed=4)
    X[:, 1] = 0.0
    m, pb = problem(SPEC, X, y)
    x = sgd_start(m, pb, seed=0, lasso=False, ctx=RunContext.create(limit=5))
    W, b = hidden_network(m, x)
    W[0][1, :] = 0.5  # every unit now pays for a weight on the useless input
    x = complete(m, pb, W, b)
    assert x is not None
    y2 = drop_weights(m, pb, x, ctx=RunContext.create(limit=30))
    W2, _ = hidden_network(m, y2)
    assert np.all(W2[0][1, :] == 0)
    assert m.objective(y2) <= m.objective(x) - 4 * 0.5 + 1e-9


def test_the_folds_drop_pass_moves_units_off_the_gap_by_their_biases_alone(monkeypatch):
    """With ``refit_gap=False`` (cross-validation's folds) the gap after a drop is cleared by the
    biases alone: the repair's LP (``off_gap``'s refit) is never solved; the one LP of a try is
    the refit that keeps the unit's activations (``_kept_pattern``), and the result is still a
    point the model accepts, never worse."""
    import annc.training.warmstart.pool.repair as repair
    from annc.training.search import local

    def no_lp(*args, **kwargs):
        raise AssertionError("the gap repair solved an LP")
    X, y = blobs(seed=7)
    m, pb = problem(SPEC.replace("output 3", "output 3\neps 0.05"), X, y)  # a wide gap: drops land in it
    x = sgd_start(m, pb, seed=0, lasso=False, ctx=RunContext.create(limit=5))
    assert x is not None
    kept = []
    keep = local._kept_pattern
    monkeypatch.setattr(repair, "refit_unit", no_lp)
    monkeypatch.setattr(local, "_kept_pattern", lambda *a: kept.append(1) or keep(*a))
    y2 = local.drop_weights(m, pb, x, ctx=RunContext.create(limit=60), refit_gap=False)
    assert kept and m.check(y2).ok and m.objective(y2) <= m.objective(x) + 1e-9


def test_a_spent_budget_drops_nothing():
    from annc.training.search.local import drop_weights
    X, y = blobs(seed=5)
    m, pb = problem(SPEC, X, y)
    x = sgd_start(m, pb, seed=0, lasso=False, ctx=RunContext.create(limit=5))
    assert np.array_equal(drop_weights(m, pb, x, ctx=RunContext.create(limit=1e-9)), x)


def test_a_weight_on_a_duplicated_input_goes_and_the_activations_stay():
    """Inputs 0 and 1 are equal: a unit using both can use one at twice the weight.  Dropping
    one alone changes where the unit switches (rows change side, the loss moves); the drop
    pass refits the unit's other weights and bias to keep every activation, so the duplicate
    goes at no loss and the objective falls by at least the penalty per unit."""
    from annc.training.search.local import drop_weights
    X, y = blobs(seed=6)
    X[:, 1] = X[:, 0]
    m, pb = problem(SPEC, X, y)
    x = sgd_start(m, pb, seed=0, lasso=False, ctx=RunContext.create(limit=5))
    W, b = hidden_network(m, x)
    W[0][0, :] = W[0][1, :] = 0.45 * np.sign(W[0][0, :] + W[0][1, :] + 1e-12)  # both, equal
    moved = off_gap(pb, W[:-1], b[:-1], scale=False)
    assert moved is not None
    W, b = moved[0] + [W[-1]], moved[1] + [b[-1]]
    x = complete(m, pb, W, b)
    assert x is not None
    y2 = drop_weights(m, pb, x, ctx=RunContext.create(limit=60))
    W2, _ = hidden_network(m, y2)
    assert np.all((W2[0][0, :] == 0) | (W2[0][1, :] == 0))  # each unit keeps at most one of the two
    assert m.objective(y2) <= m.objective(x) - 4 * 0.5 + 1e-9
    assert m.check(y2).ok
