"""Class and sample weights (annc.core.rowweights): each sample weighs class weight x sample weight
in the objective, exactly; bad weights are usage errors; balanced accuracy is reported where a
class is a minority."""
import json

import numpy as np
import pytest

from annc.app.api import train_api
from annc.core.errors import UsageError
from annc.core.rowweights import (MINORITY_SHARE, accuracy_text, balanced_accuracy, class_weights, has_minority,
                                  parse_class_weight)
from annc.formulations.common import leads
from conftest import run_cli

TINY = "input 2\nhidden 1 binary\noutput 2\nloss errors\npenalty none\neps 0.01\n"


def _tiny():
    """12 rows, 2 features, two overlapping classes (no network gets them all)."""
    rng = np.random.default_rng(3)
    X = np.round(rng.uniform(-1, 1, size=(12, 2)), 2)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    y[[0, 5, 9]] = 1 - y[[0, 5, 9]]  # label noise: errors are unavoidable
    return X, y


def _errors_by_hand(net, X, y, w, eps):
    """The weights of the samples the network does not win by eps (the errors loss's rule)."""
    lead = leads(net.scores(X))[np.arange(len(y)), y]
    return float(np.sum(w[lead < eps - 1e-9]))


def _train(X, y, **kw):
    return train_api(TINY, (X, y), select=False, time_limit=60, **kw)


def test_weighted_objective_is_the_weight_of_the_misclassified_samples():
    X, y = _tiny()
    sw = np.linspace(0.3, 2.1, len(y))
    r = _train(X, y, class_weight={1: 2.5}, sample_weight=sw)
    w = np.where(y == 1, 2.5, 1.0) * sw
    v = r.verdict
    assert v.objective == pytest.approx(_errors_by_hand(r.network, X, y, w, 0.01), abs=1e-9)
    assert v.objective != pytest.approx(_errors_by_hand(r.network, X, y, np.ones(len(y)), 0.01))
    assert r.steps[0].verification.ok


def test_integer_weight_is_the_same_optimum_as_duplicated_rows():
    X, y = _tiny()
    weighted = _train(X, y, class_weight={1: 3})
    rows = np.concatenate([np.arange(len(y))] + [np.flatnonzero(y == 1)] * 2)  # class 1 three times
    duplicated = _train(X[rows], y[rows], merge=False)
    assert weighted.status.value == duplicated.status.value == "optimal"
    assert weighted.verdict.objective == pytest.approx(duplicated.verdict.objective, abs=1e-6)


def test_fractional_weights_keep_the_exact_optimum():
    """Weight 1.5 on class 1 is half of (class 0 twice, class 1 three times): the proven optimum of
    the fractional problem is half the duplicated one's (no bound rounded up to a whole number)."""
    X, y = _tiny()
    frac = _train(X, y, class_weight={0: 1, 1: 1.5})
    rows = np.concatenate([np.arange(len(y))] * 2 + [np.flatnonzero(y == 1)])
    duplicated = _train(X[rows], y[rows], merge=False)
    assert frac.status.value == duplicated.status.value == "optimal"
    assert 2 * frac.verdict.objective == pytest.approx(duplicated.verdict.objective, abs=1e-6)
    assert frac.verdict.lower_bound <= frac.verdict.objective + 1e-6


def _minority_set(n=200, seed=0):
    """6% positives in a strip where negatives outnumber them: the unweighted optimum is close
    to (or is) the constant classifier."""
    rng = np.random.default_rng(seed)
    pos = int(round(0.06 * n))
    Xn = rng.uniform(0, 1, size=(n - pos, 2))
    Xp = np.column_stack([rng.uniform(0.8, 1, pos), rng.uniform(0, 1, pos)])
    X = np.round(np.vstack([Xn, Xp]), 3)
    return X, np.r_[np.zeros(n - pos, int), np.ones(pos, int)]


def test_balanced_weights_beat_unweighted_on_balanced_accuracy():
    X, y = _minority_set()
    spec = "input 2\noutput 2\nloss errors\npenalty l0 0.5\n"
    plain = train_api(spec, (X, y), select=False, time_limit=30)
    balanced = train_api(spec, (X, y), select=False, time_limit=30, class_weight="balanced")
    p_plain, p_bal = plain.network.predict_index(X), balanced.network.predict_index(X)
    assert len(np.unique(p_bal)) == 2  # not the constant classifier
    assert balanced_accuracy(y, p_bal, 2) > balanced_accuracy(y, p_plain, 2)


def test_estimator_fit_with_sample_weight():
    pytest.importorskip("sklearn", reason="the estimator needs scikit-learn")
    from annc.app.estimator import MIPNetClassifier
    X, y = _tiny()
    labels = np.where(y == 1, "yes", "no")
    sw = np.linspace(0.5, 1.5, len(y))
    est = MIPNetClassifier(hidden_layer_sizes=(), loss="hinge", penalty="none", time_limit=30,
                           class_weight={"yes": 2.0}, select=False).fit(X, labels, sample_weight=sw)
    w = np.where(y == 1, 2.0, 1.0) * sw
    lead = leads(est.network_.scores(X))[np.arange(len(y)), y]
    hinge = float(np.sum(w * np.maximum(1.0 - lead, 0.0)))
    assert est.result_.verdict.objective == pytest.approx(hinge, rel=1e-6, abs=1e-6)
    with pytest.raises(ValueError, match="(?i)negative"):  # the estimator's inputs: scikit-learn's checks
        MIPNetClassifier(hidden_layer_sizes=(), loss="hinge", time_limit=5).fit(X, labels, sample_weight=-sw)
    with pytest.raises(UsageError, match="sample_weight"):  # annc.train: annc's own
        train_api(TINY, (X, y), select=False, time_limit=5, sample_weight=-sw)
    with pytest.raises(UsageError, match="maybe"):
        MIPNetClassifier(hidden_layer_sizes=(), loss="hinge", time_limit=5,
                         class_weight={"maybe": 2}).fit(X, labels)


@pytest.mark.parametrize("bad, word", [({7: 1.0}, "label"), ({1: -1.0}, ">= 0"), ({1: float("nan")}, ">= 0"),
                                       ("balance", "balanced"), ([1, 2], "balanced"), ({1: "x"}, "number")])
def test_bad_class_weight_is_a_usage_error(tmp_path, bad, word):
    X, y = _tiny()
    with pytest.raises(UsageError, match=word):
        train_api(TINY, (X, y), select=False, time_limit=5, class_weight=bad, out_dir=tmp_path / "out")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def _csv(path, X, y):
    path.write_text("a,b,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, y)))
    return path


@pytest.mark.parametrize("flag, word", [("1=-2", "class_weight"), ("balanc", "class-weight"), ("9=2", "label")])
def test_bad_class_weight_on_the_command_line_exits_2_and_writes_nothing(tmp_path, flag, word):
    X, y = _tiny()
    data = _csv(tmp_path / "d.csv", X, y)
    (tmp_path / "n.ann").write_text(TINY)
    for command in ("train", "compile"):
        code, out, err = run_cli(command, tmp_path / "n.ann", data, "--class-weight", flag, "-o", tmp_path / "o")
        assert code == 2 and word in err and "Traceback" not in err
        assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_summary_and_eval_print_balanced_accuracy_for_a_minority(tmp_path):
    X, y = _minority_set(100, seed=1)
    data = _csv(tmp_path / "d.csv", X, y)
    (tmp_path / "n.ann").write_text("input 2\noutput 2\nloss errors\npenalty l0 0.5\n")
    code, out, _ = run_cli("train", tmp_path / "n.ann", data, "--class-weight", "balanced", "--no-select",
                           "--time-limit", "30", "-q", "-o", tmp_path / "o")
    assert code == 0
    assert "balanced accuracy" in next(line for line in out.splitlines() if "train accuracy" in line)
    assert "class weights" in out
    vmap = json.loads((tmp_path / "o" / "n.map.json").read_text())
    assert vmap["weights"]["class_weight"] == pytest.approx(list(class_weights("balanced", y, [0, 1])))
    meta = json.loads((tmp_path / "o" / "n.weights.json").read_text())["meta"]
    assert meta["weights"]["class_weight"] == pytest.approx(vmap["weights"]["class_weight"])
    code, out, _ = run_cli("eval", tmp_path / "o" / "n.weights.json", data)
    assert code == 0 and "balanced accuracy" in out


def test_map_weights_rebuild_the_weighted_problem(tmp_path):
    from annc.app.api import compile_api
    from annc.io.mapfile import load_map
    from annc.solve.verify import rebuild
    X, y = _tiny()
    c = compile_api(TINY, (X, y), out_dir=tmp_path, name="w", class_weight={1: 2.5}, start=False)
    again = rebuild(load_map(tmp_path / "w.map.json"), map_path=tmp_path / "w.map.json")
    assert np.allclose(again.problem.counts, c.problem.counts)
    assert again.problem.counts.sum() == pytest.approx(np.sum(np.where(y == 1, 2.5, 1.0)))
    assert np.allclose(again.model.obj, c.model.obj)  # the MPS objective carries the weights


def test_balanced_weights_and_balanced_accuracy_match_scikit_learn():
    sk = pytest.importorskip("sklearn.utils.class_weight", reason="compared with scikit-learn")
    from sklearn.metrics import balanced_accuracy_score
    y = np.array([0] * 17 + [1] * 3 + [2] * 5)
    assert np.allclose(class_weights("balanced", y, [0, 1, 2]), sk.compute_class_weight("balanced", classes=np.arange(3), y=y))
    pred = np.roll(y, 2)
    assert balanced_accuracy(y, pred, 3) == pytest.approx(balanced_accuracy_score(y, pred))
    assert has_minority(y, 3) and not has_minority(np.array([0, 1] * 10), 2)
    assert "balanced" in accuracy_text(y, pred, 3) and "balanced" not in accuracy_text(y[:2] * 0 + [0, 1], [0, 1], 2)
    assert 0 < MINORITY_SHARE < 0.5
    assert parse_class_weight("1=10,0=1") == {"1": 10.0, "0": 1.0}


def test_class_weight_with_a_decomposition_is_a_usage_error():
    X, y = _tiny()
    with pytest.raises(UsageError, match="class_weight"):
        train_api(TINY, (X, y), ensemble="ovo", class_weight="balanced", time_limit=5)


def test_report_shows_the_class_weights_and_recomputes_the_weighted_objective(tmp_path):
    pytest.importorskip("jinja2", reason="the HTML report needs jinja2")
    from annc.export.html_report import context, render
    from annc.io.data import load_data
    X, y = _tiny()
    data = _csv(tmp_path / "d.csv", X, y)
    r = train_api(TINY, str(data), select=False, time_limit=30, class_weight={1: 2.5})
    ctx = context(r.network, data=load_data(data))
    assert "2.5" in ctx["class_weights"]
    assert ctx["recomputed"]["agrees"]  # the forward pass with the recorded class weights
    assert 'id="class-weights"' in render(r.network, data=load_data(data))


def test_conflict_bound_with_fractional_weights_is_the_exact_cover_not_rounded():
    """Two classes on close rows: with whole counts the bound is a maximum flow; with every weight
    halved it is the LP cover (König: the same cover), half as large, never rounded up."""
    from annc.io.problem import make_problem
    from annc.io.spec import parse_spec
    from annc.training.bounds import conflict_bound
    rng = np.random.default_rng(0)
    X = np.round(rng.uniform(0, 1, size=(40, 2)) / 0.02) * 0.02  # a fine lattice: many rows within eps/W
    y = rng.integers(0, 2, len(X))
    spec = parse_spec("input 2\nhidden 2 binary\noutput 2\nloss errors\npenalty none\neps 0.2\n"
                      "weights [-1, 1]\nscale none\n")
    whole = conflict_bound(make_problem(spec, X, y, [0, 1]))
    half = conflict_bound(make_problem(spec, X, y, [0, 1], weights=np.full(len(y), 0.5)))
    assert whole.value >= 1 and not make_problem(spec, X, y, [0, 1], weights=np.full(len(y), 0.5)).whole
    assert whole.value / 2 - 1e-5 <= half.value <= whole.value / 2  # lowered by the LP's tolerance only


def test_the_held_out_grid_scores_balanced_accuracy_with_class_weights():
    from dataclasses import dataclass
    from annc.core.rowweights import with_weights
    from annc.app.api import as_data
    from annc.training.modelselect.selection import scored

    class Constant:  # always class 0
        def predict_index(self, X):
            return np.zeros(len(X), int)

    @dataclass
    class Result:
        network: object
        test_accuracy: float = 0.9
        train_accuracy: float = 0.9

    y = np.array([0] * 9 + [1])
    data = as_data((np.arange(10.0)[:, None], y))
    assert scored(Result(Constant()), data, data).test_accuracy == 0.9  # no class weights: as trained
    weighted = with_weights(data, "balanced")
    assert scored(Result(Constant()), weighted, weighted).test_accuracy == pytest.approx(0.5)


def test_selection_with_class_weights_scores_and_names_balanced_accuracy():
    """With class weights the folds score balanced accuracy, so the selection says so, and the constant
    network it weighs the settings against scores 1 / classes there, not the majority's share."""
    from annc.app.api import as_data
    from annc.core.rowweights import with_weights
    from annc.io.spec import parse_spec
    from annc.training.modelselect.cvselect import cross_validate

    X, y = _minority_set(120)
    spec = parse_spec("input 2\nhidden 2 binary\noutput 2\npenalty l0 0.5\n")  # the width open: a short path
    plain = cross_validate(spec, as_data((X, y)))
    weighted = cross_validate(spec, with_weights(as_data((X, y)), "balanced"))
    assert plain.measure == "accuracy" and plain.chance == pytest.approx(np.mean(y == 0))
    assert weighted.measure == "balanced accuracy" and weighted.chance == pytest.approx(0.5)
    text = "\n".join(weighted.table_lines())
    assert "CV estimate of test balanced accuracy" in text and "CV bal. acc" in text
    assert weighted.to_dict()["measure"].endswith("cross-validation balanced accuracy")
    assert "balanced" not in "\n".join(plain.table_lines())
