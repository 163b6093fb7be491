"""The default recipe's eps, chosen on the training data (:mod:`annc.training.warmstart.margin`).

Data are built so that the answer holds for any SGD run: two clusters 0.6 apart along a
diagonal admit a gap of 0.1 around any separating unit; labels drawn at random do not
(no hyperplane keeps a random labelling of 200 rows clear of a wide gap).
"""
import json

import numpy as np
import pytest

import annc
from conftest import run_cli

from annc.app.api import as_data, as_spec, train_api
from annc.core.errors import UsageError
from annc.io.recipe import DATA
from annc.io.spec import format_spec, parse_spec
from annc.io.varmap import map_spec
from annc.solve.compiler import build
from annc.training.warmstart.margin import NARROW, NU, WIDE, margin_errors, resolve
from annc.training.warmstart.pool.seeding import sgd_net
from annc.training.warmstart.sgd import SgdSettings

DEFAULT = "input 4\nhidden 2 binary\noutput 2\n"


def clusters(n=60, seed=0):
    """Two clusters of ``n`` rows each in [0, 1]^4, 0.6 apart on every axis (minmax scaling
    keeps them so); classes 0 and 1."""
    rng = np.random.default_rng(seed)
    X = np.r_[rng.uniform(0.0, 0.2, (n, 4)), rng.uniform(0.8, 1.0, (n, 4))]
    X[0], X[-1] = 0.0, 1.0  # the box's corners: scaling leaves the data as it is
    return X, np.r_[np.zeros(n, int), np.ones(n, int)]


def noise(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(0, 1, (n, 4)), rng.integers(0, 2, n)


def built(text, data):
    """The compiled model of ``text`` on ``data``, its recipe resolved as every entry point does."""
    spec, recipe, prepared = resolve(as_spec(text), as_data(data))
    return build(spec, as_data(data), recipe=recipe, prepared=prepared)


def test_separated_clusters_get_the_wide_margin_and_the_map_records_it():
    c = built(DEFAULT, clusters())
    assert parse_spec(DEFAULT).eps_auto and c.spec.eps == WIDE and not c.spec.eps_auto
    assert c.problem.spec.eps == WIDE and map_spec(c.varmap).eps == WIDE
    again = parse_spec(format_spec(c.spec))  # the canonical text names the eps in force
    assert again.eps == WIDE and not again.eps_auto
    # eps is stored once in the map: in the spec's text (the recipe says where it came from)
    assert "eps" not in c.varmap and all("bias_shift" not in L for L in c.varmap["layers"])
    assert c.varmap["recipe"]["eps"]["source"] == DATA and "value" not in c.varmap["recipe"]["eps"]
    assert json.dumps(c.varmap).count(f"eps {WIDE:g}") == 1


def test_the_compiler_refuses_a_recipe_still_to_resolve():
    """The eps of the default recipe is chosen at the entry point (resolve), never quietly by
    the compiler: build refuses the spec until it is concrete."""
    with pytest.raises(UsageError, match="compile it with annc.compile"):
        build(as_spec(DEFAULT), as_data(clusters()))
    spec, recipe, prepared = resolve(as_spec(DEFAULT + "eps 0.05\n"), as_data(clusters()))  # an eps named: as it is
    assert spec.eps == 0.05 and recipe.eps.source != DATA and prepared is None  # nothing prepared: build does it
    spec, recipe, prepared = resolve(as_spec(DEFAULT), as_data(clusters()))  # prepared once, for this spec only
    assert prepared.problem.spec is spec and build(spec, as_data(clusters()), prepared=prepared).spec.eps == WIDE
    with pytest.raises(ValueError, match="prepared for another spec"):
        build(as_spec(DEFAULT + "eps 0.05\n"), as_data(clusters()), prepared=prepared)


def test_compile_by_the_cli_and_the_api_choose_alike(tmp_path):
    X, y = clusters()
    np.savetxt(tmp_path / "d.csv", np.c_[X, y], delimiter=",", header="a,b,c,d,label", comments="", fmt="%.17g")
    (tmp_path / "net.ann").write_text(DEFAULT)
    code, _, err = run_cli("compile", tmp_path / "net.ann", tmp_path / "d.csv", "--out", tmp_path / "cli", "--no-start")
    assert code == 0, err
    assert map_spec(json.loads((tmp_path / "cli" / "net.map.json").read_text())).eps == WIDE
    assert annc.compile(DEFAULT, (X, y), out_dir=None, start=False).spec.eps == WIDE


def test_random_labels_keep_the_narrow_clearance():
    assert built(DEFAULT, noise()).spec.eps == NARROW


@pytest.mark.parametrize("text, eps", [(DEFAULT + "eps 0.05\n", 0.05),  # an eps named is kept
                                       (DEFAULT + "loss errors\n", 0.01),  # a loss named: no recipe
                                       ("input 4\nhidden 2 relu\noutput 2\n", NARROW)])  # no step units
def test_the_data_choose_only_where_the_spec_leaves_eps_to_the_recipe(text, eps):
    c = built(text, clusters())
    assert c.spec.eps == eps and map_spec(c.varmap).eps == eps


def test_margin_errors_are_shares_of_samples():
    for data, wide in ((clusters(), True), (noise(), False)):
        p = build(as_spec(DEFAULT + "eps 0.1\n"), as_data(data)).problem
        errors = margin_errors(p, sgd_net(p, seed=0), WIDE)
        assert len(errors) == 2 and all(0.0 <= e <= 1.0 for e in errors)
        assert (max(errors) <= NU) == wide


def test_a_wide_margin_network_trains_and_verifies(tmp_path):
    X, y = clusters()
    r = train_api(DEFAULT, (X, y), time_limit=20, threads=1, out_dir=tmp_path)
    assert r.verified and r.train_accuracy == 1.0
    vmap = json.loads(next(tmp_path.glob("*.map.json")).read_text())
    assert map_spec(vmap).eps == WIDE


def test_the_pool_takes_the_eps_choices_sgd_network_without_training_it_again(monkeypatch):
    """The eps choice and the start pool's first candidate train the same seed-0 SGD network of
    the same rows: the second is remembered from the first (one SGD run, not two), equal to a
    network trained afresh, and a caller's change to it does not reach the memory."""
    import annc.training.warmstart.pool.seeding as seeding
    X, y = noise(seed=3)
    p = build(as_spec(DEFAULT + "eps 0.001\n"), as_data((X, y))).problem
    trained = []
    real = seeding.train_sgd
    monkeypatch.setattr(seeding, "train_sgd", lambda *a, **k: trained.append(1) or real(*a, **k))
    seeding.SGD_MEMO.clear()  # what earlier tests trained is forgotten
    resolve(as_spec(DEFAULT), as_data((X, y)))  # the eps choice: one SGD run
    first = sgd_net(p, seed=0)
    assert len(trained) == 1
    first.layers[0].weight[:] = 0.0  # a caller's change
    again = sgd_net(p, seed=0)
    fresh = real(*p.class_rows()[:2], [2], "binary", classes=[0, 1],
                 settings=SgdSettings(epochs=seeding.sgd_epochs(p), seed=0), sample_weight=p.class_rows()[2])
    assert len(trained) == 1
    for a, b in zip(again.layers, fresh.layers):
        assert np.array_equal(a.weight, b.weight) and np.array_equal(a.bias, b.bias)
    sgd_net(p, seed=1)  # another seed is another network
    assert len(trained) == 2
