"""Model selection by k-fold cross-validation (:mod:`annc.training.modelselect.cvselect`,
:mod:`annc.training.modelselect.cvpath`): which settings are open, when it applies, the rule (best,
or one standard error), scikit-learn's ``cv_results_`` layout, the same choice on a quiet and a busy
machine, and the command line."""
from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from dataclasses import replace

from annc.app.api import as_data
from annc.core.errors import UsageError
from annc.io.spec import parse_spec
from annc.training.modelselect.cvselect import CVSelection, applies, cross_validate, open_settings
from annc.training.modelselect.policy import DEFAULT_POLICY
from annc.training.modelselect.settings import FoldScore, FoldState, Plan, Setting, Stop

RECIPE = "input 2\nhidden 2 binary\noutput 2\n"
WIDTH_ONLY = RECIPE + "penalty l0 0.5\n"  # only the width is open: two settings, a quick path
ZERO_SE = replace(DEFAULT_POLICY, se_rule=0.0)  # the best CV accuracy, ties to the sparsest
XOR_SPEC = Path(__file__).resolve().parents[2] / "specs" / "xor.ann"


LIMIT = 30  # seconds: the user's limit in the end-to-end tests (it sizes the plan; the folds are uncapped, and
# the final training, at --gap 1, ends at its first network: on a machine loaded 3-fold the folds alone took
# 10 s, and a limit of 10 s left the final training 0.1 s and no network)


@pytest.fixture
def uncapped_folds(monkeypatch):
    """The command line's and the estimator's cross-validation with the folds stopped by their work
    limits alone: the end-to-end tests check what the default does when the folds finish, on a quiet or
    a busy machine alike (a clock that caps them would make the outcome depend on the load).  The cap
    itself is checked by its own arithmetic and by the quiet-against-busy test."""
    import annc.training.modelselect.strategy as strategy
    from annc.core.deadline import Deadline
    real, real_applies = strategy.cross_validate, strategy.applies
    policy = replace(DEFAULT_POLICY, min_limit=5.0)  # these tests' limits select (the default needs 30 s)

    def folds_by_work(*args, ctx, **kwargs):
        return real(*args, ctx=replace(ctx, deadline=Deadline(None)), **{**kwargs, "policy": policy})
    monkeypatch.setattr(strategy, "cross_validate", folds_by_work)
    monkeypatch.setattr(strategy, "applies", lambda spec, data, limit, _policy: real_applies(spec, data, limit, policy))


def moons(n=150, seed=0):
    from sklearn.datasets import make_moons
    X, y = make_moons(n_samples=n, noise=0.25, random_state=seed)
    return X, y


@pytest.fixture(scope="module")
def recipe_cv():
    """The default recipe's cross-validation on 100 moons rows under a 30 s limit, shared by the
    tests that only read it (each cross-validation costs seconds)."""
    return cross_validate(parse_spec(RECIPE), as_data(moons(100)))


@pytest.fixture(scope="module")
def width_only_cv():
    """The same with only the width open (a written penalty), shared likewise."""
    return cross_validate(parse_spec(WIDTH_ONLY), as_data(moons(100)))


def test_open_settings_are_what_the_spec_leaves_unwritten():
    assert open_settings(parse_spec(RECIPE)) == ("penalty", "width", "eps")
    assert open_settings(parse_spec(RECIPE + "penalty l0 0.5\neps 0.01\n")) == ("width",)
    assert open_settings(parse_spec("input 2\nhidden 1 binary\noutput 2\neps 0.01\n")) == ("penalty",)
    assert open_settings(parse_spec("input 2\nhidden 2 relu\noutput 2\n")) == ("penalty", "width")  # eps: steps only
    assert open_settings(parse_spec(RECIPE + "loss nll\n")) == ()  # a spec that names its loss writes everything
    from dataclasses import replace
    built = replace(parse_spec(RECIPE), positions={}, text="")  # built in Python: every field written
    assert open_settings(built) == ()


def test_applies_to_real_data_not_to_xor():
    from annc.io.datasets import xor_data
    X, y = xor_data(1000, noise=0.1, seed=0)  # 32 distinct rows: trained as written
    assert not applies(parse_spec("input 5\nhidden 5 binary\noutput 2\n"), as_data((X, y)))
    assert not applies(parse_spec(XOR_SPEC.read_text()), as_data((X, y)))
    assert applies(parse_spec(RECIPE), as_data(moons()))
    assert not applies(parse_spec(RECIPE + "loss errors\n"), as_data(moons()))
    assert not applies(parse_spec("input 2\nhidden 2 relu\noutput 2\n"), as_data(moons()))
    many = as_data(moons(1200))
    assert applies(parse_spec(RECIPE), many) and applies(parse_spec(RECIPE), many, 30)
    assert not applies(parse_spec(RECIPE), many, 29.9)  # under MIN_LIMIT: as written, at any size
    assert not applies(parse_spec("input 2\nhidden 4 binary\noutput 2\npenalty l0 0.5\n"), many)  # no separator


def _selection(means_se_nnz, folds=4, rows=100_000, widths=None, policy=DEFAULT_POLICY):
    """A CVSelection whose setting i has fold accuracies with the given mean and standard error, on
    ``rows`` rows (many by default: a validation row a fold far below the differences), at width
    ``widths[i]`` (default ``1 + i % 2``) and l0 weight ``4 / (1 + i)``."""
    settings, scores = [], []
    for i, (mean, se, nnz) in enumerate(means_se_nnz):
        sd = se * np.sqrt(folds)
        dev = np.array([1, -1] * (folds // 2), float) * sd * np.sqrt((folds - 1) / folds)  # sample sd = sd
        settings.append(Setting(widths[i] if widths else 1 + i % 2, 4.0 / (1 + i), 0.1))
        scores.append([FoldScore(mean + d, 1.0, nnz) for d in dev])
    plan = Plan(tuple(settings), folds, ("penalty", "width"))
    sel = CVSelection(plan, [f"s{i}" for i in range(len(settings))], scores, 0, 0, parse_spec(RECIPE), rows,
                      policy=policy)
    sel.best, sel.chosen = sel.choose()
    return sel


def test_a_difference_under_one_validation_row_a_fold_is_no_evidence():
    """4 folds of 25 validation rows: RESOLUTION (0.75) rows a fold is 0.03 of CV accuracy, and a
    setting less than that below the best counts as good as the best (the sparsest of them is chosen)."""
    assert DEFAULT_POLICY.resolution == 0.75
    settings = [(0.90, 0.01, 12), (0.88, 0.01, 5), (0.86, 0.01, 3)]
    sel = _selection(settings, rows=100)
    assert sel.best == 0 and sel.resolution() == pytest.approx(0.03) and sel.floor(0) == pytest.approx(0.87)
    assert sel.chosen == 1  # 0.88 >= 0.90 - 0.03 with 5 weights; 0.86 is 1 row a fold below
    assert "less 0.75 validation row a fold (0.0300)" in "\n".join(sel.table_lines())
    assert sel.to_dict()["floor"] == pytest.approx(0.87)
    assert _selection(settings, rows=400).chosen == 0  # 100 rows a fold: 0.02 is 2 rows a fold


def test_at_zero_standard_errors_the_rule_takes_the_best_cv_accuracy_ties_to_the_sparsest():
    sel = _selection([(0.80, 0.01, 3), (0.90, 0.02, 12), (0.885, 0.01, 8), (0.90, 0.02, 9)], widths=[1, 2, 1, 4],
                     policy=ZERO_SE)
    assert sel.best == 3 and sel.chosen == 3  # 0.90 twice: 9 weights before 12
    assert "rule: best CV accuracy 0.9000" in "\n".join(sel.table_lines())


def test_at_one_width_the_largest_l0_weight_as_good_as_the_best_stands_for_the_smaller():
    """glmnet's choice of lambda: of the settings as good as the best at one width, the largest l0
    weight; a smaller weight whose folds happened to keep fewer weights does not go before it (the
    final training's full search fits closer at a smaller weight: modechoice chose l0 0.125 on
    22.3 weights over l0 0.5 on 23.7 and trained to 98% of its rows, 81% on the test rows).  Across
    widths the sparsest still goes first (at 0 standard errors: the settings' noise aside)."""
    sel = _selection([(0.70, 0.01, 3), (0.90, 0.02, 12), (0.885, 0.01, 8), (0.90, 0.02, 9)], widths=[2, 2, 1, 2],
                     policy=ZERO_SE)
    assert sel.best == 3 and sel.chosen == 1  # l0 2 before l0 1 at width 2, with 12 weights against 9
    sel = _selection([(0.70, 0.01, 3), (0.90, 0.02, 12), (0.90, 0.01, 8), (0.90, 0.02, 9)], widths=[2, 2, 1, 2],
                     policy=ZERO_SE)
    assert sel.chosen == 2  # width 1's 8 weights go first across widths


def test_the_default_rule_takes_the_sparsest_within_half_a_standard_error_of_the_best():
    sel = _selection([(0.80, 0.01, 3), (0.885, 0.02, 5), (0.90, 0.02, 12), (0.892, 0.01, 8)])
    assert sel.best == 2
    assert abs(sel.se(2) - 0.02) < 1e-9 and abs(sel.mean(2) - 0.90) < 1e-9
    assert sel.chosen == 3  # 0.892 >= 0.90 - 0.5 * 0.02 with 8 weights; 0.885 is outside, 0.80 too
    assert sel.estimate == pytest.approx(0.892)
    lines = "\n".join(sel.table_lines())
    assert "less 0.5 standard error" in lines and "CV estimate of test accuracy 0.8920" in lines


def test_settings_not_scored_on_every_fold_do_not_compete():
    sel = _selection([(0.80, 0.01, 3), (0.95, 0.01, 2)])
    sel.scores[1][0] = FoldScore(why="not reached: the time limit")
    sel.best, sel.chosen = sel.choose()
    assert (sel.best, sel.chosen) == (0, 0)
    sel.scores[0][1] = FoldScore(why="not reached: the time limit")
    assert sel.choose() == (-1, -1)


def _path_and_separator(path_folds, separator_folds, path_weights=9, rows=300):
    """A path setting (width 2) and a logistic separator (width 1, 3 weights) on 3 folds with the
    given accuracies; 300 rows: the resolution is 0.75 row of a fold's 100, 0.0075."""
    settings = (Setting(2, 0.5, 0.1), Setting(1, 0.5, 0.001, logistic=1.0))
    scores = [[FoldScore(a, a, path_weights) for a in path_folds], [FoldScore(a, a, 3) for a in separator_folds]]
    sel = CVSelection(Plan(settings, 3, ("penalty", "width")), ["path", "separator"], scores, 0, 0,
                      parse_spec(RECIPE), rows)
    sel.best, sel.chosen = sel.choose()
    return sel


def test_the_path_goes_before_the_separator_only_where_it_earns_it():
    """The path's setting must beat the separator on the same folds by more than half the standard
    error of the paired differences, and by more than the resolution."""
    assert DEFAULT_POLICY.paired_se == 0.5
    separator = [0.80, 0.80, 0.84]
    one_fold = _path_and_separator([0.80, 0.90, 0.80], separator)  # d = 0, +0.10, -0.04
    mean, se = one_fold.paired(0, 1)
    assert mean == pytest.approx(0.02) and se == pytest.approx(np.std([0, 0.1, -0.04], ddof=1) / np.sqrt(3))
    assert one_fold.best == 0 and mean < 0.5 * se  # the best CV accuracy, carried by one fold of three
    assert one_fold.chosen == 1 and one_fold.keeps
    lines = "\n".join(one_fold.table_lines())
    assert "kept behind the chosen separator (1 of the path scored higher on the folds, not by the paired rule's " \
        "margin): path (+2.0 points, paired se 4.2)" in lines
    assert one_fold.to_dict()["behind_separator"] == ["path (+2.0 points, paired se 4.2)"]
    steady = _path_and_separator([0.83, 0.84, 0.85], separator)  # d = +0.03, +0.04, +0.01
    assert steady.earns(0, 1) and steady.chosen == 0 and steady.behind_separator() == []
    tie = _path_and_separator([a + 0.005 for a in separator], separator, path_weights=2)  # sparser, +0.5 row a fold
    assert tie.paired(0, 1)[1] == pytest.approx(0, abs=1e-12) and not tie.earns(0, 1)  # under the resolution
    assert tie.chosen == 1
    alone = _path_and_separator([0.80, 0.90, 0.80], separator)
    alone.plan = Plan(alone.plan.settings[:1], 3, alone.plan.open)  # no separator scored: the rule as before
    alone.labels, alone.scores = alone.labels[:1], alone.scores[:1]
    assert alone.choose() == (0, 0)


def test_without_a_separator_the_spec_as_written_is_what_the_path_must_beat():
    """Where the penalty is open and no separator fits (6 classes, 2 units: neither the 15 pairs, the
    5 units of a decision list nor the 3 bits of an output code), the plan's anchor is the spec as written (its width, its l0
    weight, the data's eps), and a setting of higher CV accuracy goes before it only where its
    paired fold differences earn it, as against a separator (modechoice, before the decision list:
    79.7% over 5 splits to 83.2%, train-test gap 10.9 to 8.4 points)."""
    from annc.training.modelselect.cvselect import plan_for
    spec = parse_spec("input 5\nhidden 2 binary\noutput 6\n")
    plan = plan_for(spec, 150, 30, 0.001)
    assert not plan.logistic and plan.anchor == Setting(2, spec.penalty_weight, 0.001)
    assert plan.anchor in plan.settings
    assert plan_for(parse_spec(RECIPE), 150, 30, 0.001).anchor is None  # a separator fits

    def sel(*folds):
        scores = [[FoldScore(a, a, 5 - n) for a in f] for n, f in enumerate(folds)]
        settings = (plan.anchor, Setting(3, 0.25, 0.001), Setting(4, 0.125, 0.001))[:len(folds)]
        out = CVSelection(Plan(settings, 4, ("penalty", "width"), anchor=plan.anchor), ["a", "b", "c"][:len(folds)],
                          scores, 0, 0, spec, 100_000)
        out.best, out.chosen = out.choose()
        return out
    noisy = sel([0.80] * 4, [0.90, 0.70, 0.90, 0.78])  # CV 0.82 with fewer weights, paired mean 0.02 +- 0.05
    assert noisy.best == 1 and noisy.chosen == 0
    clear = sel([0.80] * 4, [0.90, 0.70, 0.90, 0.78], [0.86, 0.85, 0.86, 0.85])  # +0.055 on every fold
    assert clear.chosen == 2


def test_a_classic_model_scored_on_every_fold_is_kept_when_the_spec_width_was_cut():
    """Anytime: the rule chooses among the settings scored on every fold; the spec's width, cut by the
    clock on one fold, is no candidate, and the separator scored on every fold is not thrown away."""
    sel = _selection([(0.80, 0.01, 3), (0.95, 0.01, 2)])  # settings: width 1, width 2 (the spec's)
    logistic = Setting(1, 0.5, 0.001, logistic=1.0)
    sel.plan = Plan(sel.plan.settings + (logistic,), sel.plan.folds, sel.plan.open)
    sel.labels.append("L1 logistic C=1")
    sel.scores.append([FoldScore(0.9, 0.9, 4) for _ in range(sel.plan.folds)])
    sel.scores[1][0] = FoldScore.unscored(Stop.TIME_LIMIT, "not reached: the time limit")
    sel.best, sel.chosen = sel.choose()
    assert sel.chosen == 2 and not sel.complete(1)  # the separator, not the cut width 2
    assert sel.not_reached() == {Stop.TIME_LIMIT: [sel.labels[1]]}
    for i in (0, 2):
        sel.scores[i][1] = FoldScore.unscored(Stop.WORK_LIMIT, "not reached: the plan's work limit")
    assert sel.choose() == (-1, -1)  # nothing on every fold: the spec as written
    assert set(sel.not_reached()) == {Stop.TIME_LIMIT, Stop.WORK_LIMIT}


def test_a_constant_network_alone_does_not_stand_against_the_spec_when_the_clock_cut_a_classic_model():
    """Where no setting scored on every fold beats a constant network (no weight on any fold, or a CV
    accuracy at most the majority class's share) and the clock stopped a classic model, the spec is
    trained as written (choose() gives (-1, -1)); where a setting that beats it was scored beside it,
    where nothing was cut by the clock, or where every classic model was scored (only the spec's
    own setting was cut: lending_club), the constant stands."""
    def selection(rows, cut, stop=Stop.TIME_LIMIT, chance=0.0):
        """``rows``: (mean, nnz, kept) per setting; ``cut``: the setting the clock (or ``stop``) cut."""
        settings = tuple(Setting(1, 0.5, 0.1, logistic=0.01 * (i + 1)) if kept else Setting(2, 0.5, 0.1)
                         for i, (_, _, kept) in enumerate(rows))
        scores = [[FoldScore(mean + d, 1.0, nnz) for d in (0.01, -0.01, 0.01, -0.01)] for mean, nnz, _ in rows]
        scores[cut][0] = FoldScore.unscored(stop, "not reached")
        sel = CVSelection(Plan(settings, 4, ("penalty", "width")), [f"s{i}" for i in range(len(rows))], scores, 0, 0,
                          parse_spec(RECIPE), 100_000, chance=chance)
        return sel.choose()
    constant, classic = (0.10, 0, True), (0.95, 3, True)
    assert selection([constant, classic], cut=1) == (-1, -1)  # the clock cut a separator that might beat it
    assert selection([constant, classic], cut=1, stop=Stop.WORK_LIMIT) == (0, 0)  # the plan's work limit: it stands
    flat = [(0.9475, 0, True), (0.9475, 3, True), (0.9475, 8, False)]  # lending_club: nothing beats the majority
    assert selection(flat, cut=2, chance=0.9475) == (0, 0)  # every classic model scored: the constant stands
    assert selection(flat, cut=1, chance=0.9475) == (-1, -1)  # one cut by the clock: the spec as written
    with_weights = [(0.50, 0, True), (0.40, 2, True), (0.95, 3, True)]
    assert selection(with_weights, cut=2)[0] == 0  # scored beside a network with weights: it stands on its folds
    assert selection(with_weights, cut=2, chance=0.6) == (-1, -1)  # ... unless none of them beats the majority


@pytest.mark.parametrize("classes", [2, 3])
def test_a_path_cut_by_a_work_limit_still_chooses_among_what_every_fold_scored(classes):
    """The policy's work limit (``path_groups``) cuts the path after its first width: the wider settings
    are unscored (Stop.WORK_LIMIT, not the clock: ``capped`` stays False) and the rule chooses among the
    settings every fold scored, for two classes and for more, instead of training the spec as written."""
    from sklearn.datasets import make_blobs
    X, y = make_blobs(150, centers=classes, n_features=2, cluster_std=2.0, random_state=0)
    spec = parse_spec(f"input 2\nhidden 4 binary\noutput {classes}\n")
    sel = cross_validate(spec, as_data((X, y)), policy=replace(DEFAULT_POLICY, path_groups=1))
    assert sel is not None and not sel.capped
    path = [i for i, s in enumerate(sel.plan.settings) if not s.kept]
    first = sel.plan.settings[path[0]].width
    cut = [i for i in path if sel.plan.settings[i].width != first]
    assert cut and all(f.stop is Stop.WORK_LIMIT for i in cut for f in sel.scores[i])
    assert sel.complete(sel.chosen) and sel.chosen not in cut
    assert any(sel.complete(i) for i in range(len(sel.labels)) if sel.plan.settings[i].kept)
    assert json.dumps(sel.to_dict()) and sel.to_dict()["candidates"][cut[0]]["folds"][0]["stop"] == "work limit"


def test_multi_class_data_above_many_rows_get_a_selection_with_trees():
    """More than ``many_rows`` rows of 3 classes and a hidden layer narrower than the 3 pairwise units:
    the separators as a decision list of 2 units fit, and the trees; the two-way plan sets the spec as
    written against them."""
    from sklearn.datasets import make_blobs
    from annc.training.modelselect.cvselect import plan_for
    policy = replace(DEFAULT_POLICY, many_rows=100, max_cv_rows=200)
    X, y = make_blobs(300, centers=3, n_features=2, cluster_std=2.0, random_state=1)
    spec, data = parse_spec("input 2\nhidden 2 binary\noutput 3\n"), as_data((X, y))
    assert applies(spec, data, 30, policy)
    plan = plan_for(spec, 300, 100, 0.001, policy)
    assert plan.large and plan.trees and {s.width for s in plan.logistic} == {2} and plan.anchor is None
    sel = cross_validate(spec, data, policy=policy)
    assert sel is not None and sel.rows == 200 and sel.plan.large and sel.complete(sel.chosen)
    assert not applies(parse_spec("input 2\nhidden 2 binary\noutput 3\npenalty l0 0.5\n"), data, 30, policy)
    X5, y5 = make_blobs(300, centers=5, n_features=2, cluster_std=2.0, random_state=1)
    assert not applies(parse_spec("input 2\nhidden 2 binary\noutput 5\n"), as_data((X5, y5)), 30, policy)  # a tree
    # of 2 splits tells 3 of 5 classes apart, 2 units have 4 patterns: nothing to set against the spec as written
    assert applies(parse_spec("input 2\nhidden 2 binary\noutput 5\n"), as_data((X5, y5)), 30)  # the path on fewer rows
    X4, y4 = make_blobs(300, centers=4, n_features=2, cluster_std=2.0, random_state=1)
    assert applies(parse_spec("input 2\nhidden 2 binary\noutput 4\n"), as_data((X4, y4)), 30, policy)  # 4 words
    # of 2 bits: an output code


def test_a_stopped_context_scores_nothing_and_says_why():
    """Why a setting went unscored is a Stop, not words to match: a context past its deadline (or
    interrupted) leaves every setting of the fold unscored with that reason."""
    from annc.core.deadline import Deadline
    from annc.training.context import RunContext
    from annc.training.modelselect.cvpath import fold_path
    from annc.training.modelselect.cvselect import plan_for
    data = as_data(moons(60))
    plan = plan_for(parse_spec(RECIPE), 60, 30, 0.1)
    expired = replace(RunContext(), deadline=Deadline(0.0))
    scores = fold_path(parse_spec(RECIPE), data, data, plan, ctx=expired)
    assert set(scores) == set(plan.settings)
    assert all(f.accuracy is None and f.stop is Stop.TIME_LIMIT for f in scores.values())
    assert FoldScore(0.9, 0.9, 3).stop is Stop.DONE


def test_the_policy_gives_every_number_a_line_and_refuses_nonsense():
    """Every field of the policy has its one line for the docs' table; a policy of one fold or a share
    outside (0, 1] is annc's usage error."""
    from annc.training.modelselect.policy import SelectionPolicy
    rows = DEFAULT_POLICY.rows()
    assert {name for name, _, _ in rows} >= {"se_rule", "many_rows", "min_limit", "select_share", "folds"}
    assert all(doc and value == getattr(DEFAULT_POLICY, name) for name, value, doc in rows)
    for bad in (dict(folds=1), dict(select_share=0.0), dict(folds_share=1.5)):
        with pytest.raises(UsageError):
            SelectionPolicy(**bad)


def test_the_strategies_are_what_select_names():
    """select None: Auto; False: Off; True: cross-validation falling back to the held-out grid; a dict:
    that grid; a strategy object: itself (with its own policy)."""
    from annc.training.modelselect.strategy import Auto, CrossValidation, Grid, Off, strategy_for
    assert strategy_for(None) == Auto() and strategy_for(False) == Off()
    assert strategy_for(True) == CrossValidation(fallback=Grid())
    assert strategy_for({"width_factor": [1.0]}).grid == {"width_factor": [1.0]}
    mine = Auto(replace(DEFAULT_POLICY, by_default=False))
    assert strategy_for(mine) is mine and mine.choose(None, None, None) is None  # not by default: as written
    assert Off().choose(None, None, None) is None


def test_cv_results_has_scikit_learns_layout():
    sel = _selection([(0.80, 0.01, 3), (0.90, 0.02, 12), (0.885, 0.01, 8)])
    r = sel.cv_results()
    for key in ("params", "param_width", "param_penalty_weight", "mean_test_score", "std_test_score",
                "rank_test_score", "split0_test_score", "split3_test_score", "mean_train_score", "mean_nonzero_weights"):
        assert key in r
    assert list(r["rank_test_score"]) == [3, 1, 2]
    assert r["mean_test_score"] == pytest.approx([0.80, 0.90, 0.885])
    assert r["params"][1] == {"width": 2, "penalty_weight": 2.0, "logistic_C": None, "tree_depth": None,
                               "thinned": False}
    json.dumps(sel.to_dict())  # the weights file records the whole path


BUSY = "import time\nt = time.time()\nwhile time.time() - t < 120:\n    pass\n"


def test_the_same_choice_on_a_quiet_and_a_busy_machine(recipe_cv):
    """Work limits decide: the path and the choice do not depend on the machine's load."""
    spec, data, quiet = parse_spec(RECIPE), as_data(moons(100)), recipe_cv
    busy = subprocess.Popen([sys.executable, "-c", BUSY])
    try:
        loaded = cross_validate(spec, data)
    finally:
        busy.kill()
        busy.wait()
    from annc.training.warmstart.pool.trees import DEPTHS
    assert [s.tree for s in quiet.plan.trees if s.tree_source == "cart"] == list(DEPTHS)  # and any optimal ones
    assert quiet.plan.folds == 3 and len(quiet.labels) == 12 + 2 * (len(DEFAULT_POLICY.logistic_path) + len(quiet.plan.trees))
    # widths 1, 2; six l0; the Cs; the trees; their thinned twins
    assert loaded.label == quiet.label and loaded.chosen == quiet.chosen
    assert loaded.budget == quiet.budget == loaded.spec.max_weights and loaded.keeps == quiet.keeps  # the budget too
    assert [[f.__dict__ for f in row] for row in loaded.scores] == [[f.__dict__ for f in row] for row in quiet.scores]
    assert all(quiet.complete(i) for i in range(len(quiet.labels)))
    assert all(np.array_equal(a, b) for a, b in zip(quiet.start_network[0] + quiet.start_network[1],
                                                  loaded.start_network[0] + loaded.start_network[1]))


def test_the_path_warm_starts_each_penalty_from_the_last(recipe_cv):
    """Along the path the l0 weight falls, so the fold networks grow no sparser: a network the
    drop kept at a larger weight is kept at a smaller one (mean non-zero weights never fall)."""
    sel = recipe_cv
    for width in (1, 2):
        path = [i for i, s in enumerate(sel.plan.settings) if s.width == width and not s.kept]
        for f in range(sel.plan.folds):
            nnz = [sel.scores[i][f].nonzero_weights for i in path]
            assert nnz == sorted(nnz), (width, f, nnz)


def test_cli_default_cross_validates_and_no_select_does_not(tmp_path, capsys, uncapped_folds):
    from annc.app.cli import main
    from annc.io.datasets import write_csv
    X, y = moons(120)
    write_csv(tmp_path / "d.csv", X, y)
    (tmp_path / "n.ann").write_text(WIDTH_ONLY)
    out = tmp_path / "out"
    assert main(["train", str(tmp_path / "n.ann"), str(tmp_path / "d.csv"), "--time-limit", str(LIMIT), "-q",
                 "--gap", "1", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "3-fold stratified cross-validation" in text and "CV estimate of test accuracy" in text
    meta = json.loads((out / "n.weights.json").read_text())["meta"]
    assert [c["width"] for c in meta["selection"]["candidates"]] == [1, 2]
    assert meta["selection"]["cv_estimate"] > 0.5 and meta["recipe"]["penalty"]["source"] == "spec"
    assert main(["train", str(tmp_path / "n.ann"), str(tmp_path / "d.csv"), "--time-limit", str(LIMIT), "-q",
                 "--gap", "1", "--no-select", "-o", str(tmp_path / "plain")]) == 0  # LIMIT: a 2 s limit found no
    # network on a machine loaded 6-fold (exit 3), a race with the clock; --gap 1: it ends at its first network
    assert "cross-validation" not in capsys.readouterr().out
    assert "selection" not in json.loads((tmp_path / "plain" / "n.weights.json").read_text())["meta"]
    assert main(["train", str(tmp_path / "n.ann"), str(tmp_path / "d.csv"), "--select", "--no-select"]) == 2
    assert "either --select or --no-select" in capsys.readouterr().err


def test_estimator_exposes_cv_results(uncapped_folds):
    from annc.app.estimator import MIPNetClassifier
    X, y = moons(120)
    clf = MIPNetClassifier(hidden_layer_sizes=(2,), penalty="l0", penalty_weight=0.5, time_limit=LIMIT,
                           gap=1.0).fit(X, y)
    assert clf.cv_results_ is not None and [p["width"] for p in clf.cv_results_["params"]] == [1, 2]
    assert {k: v for k, v in clf.best_params_.items() if k != "max_weights"} in clf.cv_results_["params"]
    plain = MIPNetClassifier(hidden_layer_sizes=(2,), penalty="l0", penalty_weight=0.5, time_limit=LIMIT,
                             select=False, gap=1.0)  # no selection; it ends at its first network
    assert plain.fit(X, y).cv_results_ is None
    with pytest.raises(UsageError, match="select must be"):
        MIPNetClassifier(select="yes").fit(X, y)


def test_the_plan_is_sized_by_the_rows_never_by_the_limit_or_the_clock():
    """The plan depends on the spec and the rows alone: every time limit gets the same folds and
    settings (a longer one only scores more of them), and the clock never changes it."""
    from annc.training.modelselect.cvfolds import sample as _sample
    from annc.training.modelselect.cvselect import plan_for
    MAX_CV_ROWS = DEFAULT_POLICY.max_cv_rows
    spec = parse_spec("input 2\nhidden 4 binary\noutput 2\n")
    assert "time_limit" not in inspect.signature(plan_for).parameters
    assert "time_limit" not in inspect.signature(cross_validate).parameters
    assert plan_for(spec, 400, 200, 0.1).folds == DEFAULT_POLICY.folds == 3
    assert plan_for(spec, 5000, 2000, 0.1).folds == 3  # many rows: the same k
    assert plan_for(spec, 400, 2, 0.1).folds == 2  # never more folds than the smallest class has rows
    assert plan_for(spec, 400, 200, 0.1, replace(DEFAULT_POLICY, folds=5)).folds == 5
    plan = plan_for(spec, 400, 200, 0.1)
    assert sorted({s.width for s in plan.settings if not s.kept}) == [1, 2, 4] and plan.open == ("penalty", "width")
    assert [s.penalty for s in plan.settings if s.width == 1 and not s.kept] == [4.0, 2.0, 1.0, 0.5, 0.25,
                                                                                          0.125]
    assert {s.eps for s in plan.settings if not s.kept} == {0.1}  # the data's rule's margin, one
    X, y = moons(2500)
    sample = _sample(as_data((X, y)), MAX_CV_ROWS)
    assert len(sample.y) == MAX_CV_ROWS and abs(np.mean(sample.y) - np.mean(y)) < 0.01  # stratified
    assert np.array_equal(_sample(as_data((X, y)), MAX_CV_ROWS).X, sample.X)  # seeded


def test_the_chosen_settings_network_on_all_rows_joins_the_final_start_pool(width_only_cv):
    """The final training's pool gets the cheap path's network of the chosen setting on all the
    rows (on a breast_cancer split the trainer's own pool at width 1 found only the constant network)."""
    from annc.solve.compiler import build
    from annc.training.warmstart.margin import resolve
    from annc.training.search.incumbent import search_incumbent
    from annc.training.warmstart.pool.candidates import SEED_NAME, seed_point
    data, sel = as_data(moons(100)), width_only_cv
    spec = resolve(sel.spec, data).spec
    c = build(spec, data)
    y = seed_point(c, sel.start_network)
    assert y is not None
    # the pool and its local search (the neighbourhood search after them starts from the same best)
    record = search_incumbent(c.model, c.problem, given=((SEED_NAME, y),), neighbourhoods=False)
    assert (SEED_NAME, c.model.objective(y)) in record.pool  # a candidate of the pool
    assert record.start_objective <= c.model.objective(y) + 1e-9  # the search starts at the best
    assert c.model.objective(record.x) <= record.start_objective + 1e-9


def test_above_many_rows_the_spec_as_written_faces_the_separators_on_a_sample():
    """Large data (here MANY_ROWS lowered to 150 so that 300 rows are many): the plan is the spec as
    written (its width, its l0 weight, the data's eps) and the logistic separators, on a stratified
    sample of MAX_CV_ROWS rows (here 200), with no whole-set part; where the spec's setting wins (moons:
    the curve) it trains with no weight budget and makes its own start on all rows, as the folds'
    networks saw only the sample.  Without separators to set against the spec (a written penalty)
    cross-validation does not apply there."""
    import annc.training.modelselect.cvselect as cvselect
    # se_rule 0: the curve (0.93) by more than its noise: at one standard error the depth-2 tree (0.91 with 6
    # weights against 8) is as good on these 200 rows
    policy = replace(DEFAULT_POLICY, se_rule=0.0, many_rows=150, max_cv_rows=200)
    MIN_LIMIT, LOGISTIC_PATH = policy.min_limit, policy.logistic_path
    spec, data = parse_spec("input 2\nhidden 4 binary\noutput 2\n"), as_data(moons(300, seed=1))
    assert applies(spec, data, MIN_LIMIT, policy) and not applies(spec, data, MIN_LIMIT - 1, policy)  # as on fewer
    assert not applies(parse_spec("input 2\nhidden 4 binary\noutput 2\npenalty l0 0.5\n"), data, MIN_LIMIT, policy)
    sel = cross_validate(spec, data, policy=policy)
    path = [s for s in sel.plan.settings if not s.kept]
    assert [(s.width, s.penalty) for s in path] == [(4, spec.penalty_weight)]
    assert [s.logistic for s in sel.plan.logistic] == list(LOGISTIC_PATH)
    assert sel.rows == 200 and sel.plan.folds == policy.folds and sel.plan.large
    assert sel.plan.settings[sel.chosen] == path[0]  # the curve earns its place over the hyperplanes
    assert sel.budget is None and sel.spec.max_weights is None and sel.start_network is None
    assert all(w.fit_accuracy is None and w.stop is Stop.SKIPPED for w in sel.whole)  # no whole-set part
    assert not cvselect.plan_for(spec, 150, 75, 0.1, policy).large  # at many_rows rows: the path


def test_the_two_way_plans_weight_drop_solves_no_lp(monkeypatch):
    """Step 2 of the two-way plan (``keep_activations=False``, ``refit_gap=False``): lifts alone, no
    LP, and never worse than its start (the same pass keeping activations solves the refits' LPs)."""
    import annc.training.warmstart.pool.repair as repair
    from annc.solve.compiler import build
    from annc.training.warmstart.pool import sgd_start
    from annc.training.search.local import drop_weights
    c = build(parse_spec(RECIPE + "eps 0.001\n"), as_data(moons(200)))
    x = sgd_start(c.model, c.problem, seed=0, lasso=False)
    calls = []
    real = repair.solve_lp
    monkeypatch.setattr(repair, "solve_lp", lambda *a, **k: calls.append(1) or real(*a, **k))
    cheap = drop_weights(c.model, c.problem, x, refit_gap=False, keep_activations=False)
    assert not calls and c.model.objective(cheap) <= c.model.objective(x) + 1e-9
    full = drop_weights(c.model, c.problem, x, refit_gap=False)
    assert calls and c.model.objective(full) <= c.model.objective(x) + 1e-9  # the kept pattern's LPs ran


def test_a_short_limit_trains_the_spec_as_written():
    """Under MIN_LIMIT seconds the folds would leave the final training too little: no selection."""
    from annc.app.api import as_data, parse_spec
    from annc.training.modelselect.cvselect import applies
    MIN_LIMIT = DEFAULT_POLICY.min_limit
    spec, data = parse_spec(WIDTH_ONLY), as_data(moons(120))
    assert applies(spec, data, None) and applies(spec, data, MIN_LIMIT)
    assert not applies(spec, data, MIN_LIMIT - 1)


def test_an_open_penalty_bounds_the_final_training_by_the_scored_networks_weights(width_only_cv):
    """Where the penalty is open the final training gets ``max_weights``: the folds' mean non-zero
    weights of the chosen setting rounded up, at least those of its network on all rows, which is
    then a feasible start; a written penalty leaves the spec without a budget.  (The path's settings
    only: a chosen logistic separator is kept as it is, with no budget.)"""
    from annc.solve.compiler import build
    from annc.training.warmstart.margin import resolve
    from annc.training.warmstart.pool.candidates import seed_point
    from annc.formulations.l0 import count
    data = as_data(moons(100))
    path_only = replace(DEFAULT_POLICY, logistic_path=(), tree_depths=())  # the path's settings alone
    sel = cross_validate(parse_spec(RECIPE), data, policy=path_only)
    folds = int(np.ceil(sel.nonzeros(sel.chosen) - 1e-9))
    assert sel.budget == max(count(sel.start_network[0]), folds) == sel.spec.max_weights
    assert any("weight budget: at most" in line for line in sel.table_lines())
    assert sel.to_dict()["budget"] == sel.budget
    c = build(resolve(sel.spec, data).spec, data)
    y = seed_point(c, sel.start_network)
    assert y is not None and c.model.check(y).ok  # within the budget row nmax
    written = width_only_cv
    assert written.budget is None and written.spec.max_weights is None


def test_the_folds_pool_holds_the_annealed_network_of_step_units():
    """At the spec's width each fold trains SGD's network and, for binary step units, the annealed
    sigmoids' one, even with fewer samples per weight than the final training's pool asks
    (``annealed_applies``, 8 a weight: 16 weights here); each is a feasible point of the fold's
    model at every width, through the units its output layer weighs most."""
    from annc.solve.compiler import build
    from annc.training.context import RunContext
    from annc.training.modelselect.cvpath import _pool, _wide_layers, spec_at
    from annc.training.warmstart.pool import feasible
    spec, s = parse_spec("input 2\nhidden 4 binary\noutput 2\n"), Setting(None, 0.5, 0.001)
    many, few = as_data(moons(400)), as_data(moons(60))
    assert len(_wide_layers(spec, s, many, True, RunContext())) == 2
    from annc.training.warmstart.pool.seeding import annealed_applies
    assert not annealed_applies(build(spec_at(spec, s), few).problem)  # the final training's pool would not hold it
    assert len(_wide_layers(spec, s, few, True, RunContext())) == 2  # the folds' does
    relu = parse_spec("input 2\nhidden 4 relu\noutput 2\n")
    assert len(_wide_layers(relu, s, few, True, RunContext())) == 1  # SGD's only: no annealed ReLU
    narrow = Setting(2, 0.5, 0.001)
    c = build(spec_at(spec, narrow), many, name="fold")
    state = FoldState().at(narrow.eps)
    points = _pool(c, 2, state, lambda: _wide_layers(spec, s, many, True, RunContext()), RunContext())
    wide = [p for p in points if p is not None]
    assert len(state.wide) == 2 and len(wide) >= 2 and all(feasible(c.model, x) for x in wide)


def noisy_line(n=300, flip=0.2, seed=0):
    """Two classes split by a line through 2 of 5 uniform features, a ``flip`` share of labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, np.where(rng.random(n) < flip, 1 - y, y)


def test_the_folds_score_logistic_separators_where_the_penalty_is_open():
    """Beside the path, L1 logistic regression at each C of LOGISTIC_PATH: one unit for two
    classes, the spec's default l0 weight and the narrow margin; none where the spec writes its
    penalty.  For k classes k (k - 1) / 2 units (a unit per pair of classes) where the spec's one
    hidden layer is that wide, else k - 1 (a decision list) where it holds them, else the bits of an
    output code where it holds ceil(log2 k), else none."""
    from annc.training.modelselect.cvselect import plan_for
    LOGISTIC_PATH = DEFAULT_POLICY.logistic_path
    from annc.training.warmstart.margin import NARROW
    plan = plan_for(parse_spec("input 2\nhidden 4 binary\noutput 2\n"), 400, 200, 0.1)
    assert [s.logistic for s in plan.logistic] == list(LOGISTIC_PATH)
    assert {(s.width, s.penalty, s.eps) for s in plan.logistic} == {(1, 0.5, NARROW)}
    assert all(not s.kept for _, path in plan.groups() for s in path)  # not in the path's pools
    assert not plan_for(parse_spec(WIDTH_ONLY), 400, 200, 0.1).logistic  # a written penalty: its objective
    assert {s.width for s in plan_for(parse_spec("input 2\nhidden 4 binary\noutput 3\n"), 400, 100, 0.1).logistic} \
        == {3}
    assert {s.width for s in plan_for(parse_spec("input 2\nhidden 3 binary\noutput 3\n"), 400, 100, 0.1).logistic} \
        == {3}
    # narrower than the pairs but k - 1 units: a decision list of k - 1 units or an output code, as wide as
    # the wider of them (the reading chosen may leave units off)
    for between, width in (("hidden 2 binary\noutput 3", 2), ("hidden 4 binary\noutput 4", 4),
                            ("hidden 5 binary\noutput 5", 5), ("hidden 3 binary\noutput 4", 3)):
        assert {s.width for s in plan_for(parse_spec(f"input 2\n{between}\n"), 400, 50, 0.1).logistic} == {width}
    for fewer, k, bits in (("hidden 3 binary\noutput 5", 5, 3), ("hidden 4 binary\noutput 10", 10, 4),
                           ("hidden 2 binary\noutput 4", 4, 2)):  # an output code
        assert {s.width for s in plan_for(parse_spec(f"input 2\n{fewer}\n"), 400, 50, 0.1).logistic} == {bits}
    for narrow in ("hidden 1 binary\noutput 3", "hidden 2 binary\noutput 5", "hidden 4 binary\nhidden 4 binary\noutput 3"):
        assert not plan_for(parse_spec(f"input 2\n{narrow}\n"), 400, 50, 0.1).logistic, narrow
    assert {s.width for s in plan_for(parse_spec("input 2\nhidden 1 binary\noutput 2\n"), 400, 100, 0.1).logistic} \
        == {None}  # width not open: the spec's
    assert "L1 logistic C=0.1, width 1, eps 0.001" in [s.label(parse_spec(RECIPE)) for s in plan.logistic]
    # above 1,000 rows the data's margin where it is narrower (no gap of 0.001 among thousands of rows)
    spec4 = parse_spec("input 2\nhidden 4 binary\noutput 2\n")
    assert {s.eps for s in plan_for(spec4, 2000, 900, 0.0001).logistic} == {0.0001}
    assert {s.eps for s in plan_for(spec4, 2000, 900, 0.1).logistic} == {NARROW}
    assert {s.eps for s in plan_for(spec4, 900, 400, 0.0001).logistic} == {NARROW}


def _logistic_only(spec, C=1.0):
    from annc.training.modelselect.cvselect import plan_for
    plan = plan_for(spec, 300, 100, 0.1)
    s = next(s for s in plan.logistic if s.logistic == C)
    return Plan((s,), plan.folds, plan.open), s


def test_a_logistic_setting_is_logistic_regressions_own_separator():
    """The fold's network of a logistic setting: one step unit whose weights are L1 logistic
    regression's, fitted on the fold's scaled rows, times a positive factor (its support and
    direction), so it reads the rows as the regression does; it is not thinned by the path."""
    from annc.solve.compiler import build
    from annc.training.modelselect.cvpath import fold_path, spec_at
    from annc.training.warmstart.pool.regression import logistic
    spec = parse_spec("input 5\nhidden 4 binary\noutput 2\n")
    data = as_data(noisy_line())
    plan, s = _logistic_only(spec)
    state = FoldState()
    score = fold_path(spec, data, data, plan, state=state)[s]
    (W, b), _scaling = state.networks[s]
    c = build(spec_at(spec, s), data)
    X, y, w = c.problem.class_rows()
    lr = logistic(1.0).fit(X, (y != np.bincount(y, weights=w).argmax()).astype(int), sample_weight=w)
    coef = np.ravel(lr.coef_)
    assert W[0].shape == (5, 1) and np.array_equal(W[0][:, 0] != 0, coef != 0)  # its support
    cos = W[0][:, 0] @ coef / np.linalg.norm(W[0][:, 0]) / np.linalg.norm(coef)
    assert cos > 1 - 1e-9  # its direction: a positive multiple
    assert score.nonzero_weights == int(np.count_nonzero(coef)) + int(np.count_nonzero(W[1]))
    agree = np.mean((X @ coef + lr.intercept_[0] > 0) == (X @ W[0][:, 0] + b[0] >= 0))
    assert agree >= 0.95  # only rows the repair moved off the narrow gap may differ
    # the exported unit (bias b - eps/2) fires where the regression says 1, but on the rows between
    # the two boundaries: its bias moved the least that clears the rows within eps/2 of its own
    f = (W[0][:, 0] @ coef) / (coef @ coef)  # the positive factor into the box
    unit, regression = X @ W[0][:, 0] + b[0] - spec.eps / 2, f * (X @ coef + lr.intercept_[0])
    moved = float(abs(np.ravel(b[0])[0] - spec.eps / 2 - f * lr.intercept_[0]))
    differ = (unit >= 0) != (regression >= 0)
    assert np.all(np.abs(regression[differ]) <= moved + 1e-12)
    if not np.any(np.abs(regression) < spec.eps / 2):
        assert moved < 1e-12
    else:  # on these rows one lies within eps/2 (0.3 eps) and the least move is 0.19 eps; the
        assert moved <= spec.eps  # middle of the gap around 0 moved it 2.7 eps


def test_a_separator_chosen_on_a_sample_is_fitted_on_all_rows():
    """Where the folds were cut from a sample, the kept separator is L1 logistic regression fitted
    on all the rows (on their own scaling), not the sample's lifted onto rows it never saw: its
    direction on all rows is the regression's on all rows."""
    from annc.solve.compiler import build
    from annc.training.context import RunContext
    from annc.training.modelselect.cvpath import spec_at
    from annc.training.modelselect.cvrows import kept_on_rows
    from annc.training.warmstart.pool.regression import logistic
    spec = parse_spec("input 5\nhidden 4 binary\noutput 2\n")
    data = as_data(noisy_line())
    _plan, s = _logistic_only(spec)
    W, b = kept_on_rows(spec, data, s, RunContext(), True)  # on raw inputs
    c = build(spec_at(spec, s), data)
    X, y, w = c.problem.class_rows()
    coef = np.ravel(logistic(1.0).fit(X, (y != np.bincount(y, weights=w).argmax()).astype(int), sample_weight=w).coef_)
    scaled = W[0][:, 0] * c.scaling.width  # the raw network's unit on the scaled inputs
    assert np.array_equal(scaled != 0, coef != 0)
    assert scaled @ coef / np.linalg.norm(scaled) / np.linalg.norm(coef) > 1 - 1e-9


def test_a_kept_logistic_separator_is_the_network_and_the_mip_bounds_it(tmp_path):
    """When model selection chooses a logistic separator (``keeps``), the final training exports
    its network on all rows as it is: no search and no full MIP replace it, the verdict says so,
    and annc's lower bound, valid for every network, stays at or below its objective."""
    from types import SimpleNamespace
    from annc.training.modelselect.cvpath import fold_path
    from annc.training.modelselect.cvrows import raw_network
    from annc.training.modelselect.cvresults import CLASSIC_KEPT
    from annc.training.request import TrainRequest
    from annc.training.search.incumbent import kept_why
    from annc.training.trainer import fit
    spec = parse_spec("input 5\nhidden 4 binary\noutput 2\n")
    X, y = noisy_line()
    data = as_data((X, y))
    plan, s = _logistic_only(spec)
    state = FoldState()
    fold_path(spec, data, data, plan, state=state)
    seed = raw_network(*state.networks[s])
    from annc.training.modelselect.cvpath import spec_at
    label = s.label(spec)
    chosen = SimpleNamespace(start_network=seed, keeps=True, label=label, kept_reason=CLASSIC_KEPT, to_dict=lambda: {"chosen_label": label})
    from annc.solve.solvers import SolveOptions
    request = TrainRequest(spec_at(spec, s), data, None, opts=SolveOptions(time_limit=30), out_dir=tmp_path)
    r = fit(request.checked(), selection=chosen)
    v = r.verdict
    assert v.search["added"] == "kept" and v.ended == kept_why(label, CLASSIC_KEPT) and r.verified
    # no full MIP ran: the network is the one kept, and its point's objective is its network's
    assert v.search["found_by"] == f"model selection: {label}, kept" and "L1 logistic" in label
    assert v.search["final_objective"] == pytest.approx(v.search["start_objective"])
    pre = X @ seed[0][0] + seed[1][0]  # the seed's unit on the raw rows
    assert np.array_equal(r.network.forward(X)[0][:, 0] > 0.5, pre[:, 0] >= 0)  # the same unit, row for row
    errors = int(np.sum(r.network.predict(X) != y))
    assert v.objective == pytest.approx(errors + 0.5 * r.network.nonzero_weights())
    assert v.lower_bound is not None and v.lower_bound <= v.objective + 1e-9
    assert (tmp_path / "spec.weights.json").exists()


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(0, 2**31 - 1))
def test_the_vote_layer_chooses_a_class_with_the_most_wins(m, seed):
    """pool.readings.votes: for any outcome of the m (m - 1) / 2 pairwise step units (not only
    transitive ones), the output's maximum is the largest number of wins, and every class of the
    argmax has that many (the classes in any order, a class without units never chosen); where the
    units compare scores, h_ij = 1[s_i >= s_j], it is the class of the largest score, won by a
    whole vote."""
    from annc.training.warmstart.pool.readings import _units, pairs, votes
    rng = np.random.default_rng(seed)
    classes = m + 1
    targets = [int(c) for c in rng.permutation(classes)[:m]]
    Wo, bo = votes(targets, classes)
    assert Wo.shape == (pairs(m), classes)
    H = rng.integers(0, 2, size=(64, pairs(m))).astype(float)  # any tournament
    wins = np.zeros((64, m))
    for u, (i, j) in enumerate(_units(m)):
        wins[:, i] += H[:, u]
        wins[:, j] += 1 - H[:, u]
    o = H @ Wo + bo
    assert np.array_equal(o.max(axis=1), wins.max(axis=1) - (m - 1) / 2)
    assert np.array_equal(wins[np.arange(64), [targets.index(c) for c in np.argmax(o, axis=1)]], wins.max(axis=1))
    s = rng.normal(size=(64, m))  # transitive: scores
    H = np.column_stack([(s[:, i] >= s[:, j]).astype(float) for i, j in _units(m)])
    o = H @ Wo + bo
    assert np.array_equal(np.argmax(o, axis=1), np.asarray(targets)[np.argmax(s, axis=1)])
    ranked = np.sort(o, axis=1)
    assert np.all(ranked[:, -1] - ranked[:, -2] >= 1 - 1e-9)


def logistic_fold_network(rows: int, classes: int, *, cluster_std: float, seed: int):
    """``(score, (W, b), problem)``: the fold network of the L1 logistic setting C = 1 that model
    selection scores for blobs of ``classes`` classes in 4 features at width 4 (three classes' 3
    pairwise comparisons; four classes' reading in fewer units than the pairs, 4 wide), on all ``rows`` rows as both
    fit and validation rows; ``problem`` is that setting's training problem."""
    from sklearn.datasets import make_blobs
    from annc.solve.compiler import build
    from annc.training.modelselect.cvpath import fold_path, spec_at
    from annc.training.modelselect.cvselect import plan_for
    from annc.training.warmstart.pool.readings import separator_width
    X, y = make_blobs(rows, centers=classes, n_features=4, cluster_std=cluster_std, random_state=seed)
    spec = parse_spec(f"input 4\nhidden 4 binary\noutput {classes}\n")
    data = as_data((X, y))
    plan = plan_for(spec, rows, 80, 0.1)
    s = next(s for s in plan.logistic if s.logistic == 1.0)
    assert s.width == separator_width(classes, 4)
    state = FoldState()
    score = fold_path(spec, data, data, Plan((s,), plan.folds, plan.open), state=state)[s]
    (W, b), _ = state.networks[s]
    assert W[0].shape == (4, s.width)
    return score, (W, b), build(spec_at(spec, s), data).problem


def test_a_three_class_logistic_setting_predicts_as_logistic_regression():
    """The fold's network of a logistic setting for three classes: three step units (the pairwise
    comparisons of L1 logistic regression's one-vs-rest scores on the fold's scaled rows) and an
    exact output layer; on the fold's rows it predicts the regression's class (the argmax of its
    scores), but for the rows the repair moved off the narrow eps gap."""
    from annc.training.warmstart.pool.regression import logistic
    score, (W, b), problem = logistic_fold_network(240, 3, cluster_std=2.5, seed=3)
    Xs, ys, w = problem.class_rows()
    scores = np.column_stack([  # one-vs-rest, as scikit-learn's liblinear fits it
        (lambda m: Xs @ np.ravel(m.coef_) + m.intercept_[0])(
            logistic(1.0).fit(Xs, (ys == k).astype(int), sample_weight=w)) for k in range(3)])
    regression_says = np.argmax(scores, axis=1)
    net_says = np.argmax(np.where(Xs @ W[0] + b[0] >= 0, 1.0, 0.0) @ W[1] + b[1], axis=1)
    assert np.mean(net_says == regression_says) >= 0.95
    assert score.nonzero_weights == int(np.count_nonzero(np.abs(W[0]) > 1e-9) + np.count_nonzero(W[1]))
    assert score.fit_accuracy >= np.mean(regression_says == ys) - 0.05


def _held(whole_fit, fold_fits, kept=False, refit_eps=None):
    """A one-setting selection (a path setting, or a kept separator) whose folds fitted their rows at
    ``fold_fits`` and whose network on all rows fits them at ``whole_fit``."""
    s = Setting(1, 0.5, 0.001, logistic=1.0) if kept else Setting(2, 0.5, 0.1)
    scores = [[FoldScore(0.8, f, 3) for f in fold_fits]]
    sel = CVSelection(Plan((s,), len(fold_fits), ("penalty", "width")), [s.label(parse_spec(RECIPE))], scores, 0, 0,
                      parse_spec(RECIPE), 400, whole=[FoldScore(whole_fit, whole_fit, 3)], refit_eps=refit_eps)
    return sel


@pytest.mark.parametrize("whole_fit, fold_fits, kept, refit_eps, held", [
    (0.841, [0.82, 0.83, 0.82, 0.826], False, None, True),   # fits all rows better than the folds did theirs
    (0.825, [0.825, 0.825, 0.825, 0.825], False, None, True),  # as well
    (0.876, [0.96, 0.97, 0.95, 0.968], False, None, False),  # worse: the search closes the gap
    (0.99, [0.9, 0.9, 0.9, 0.9], True, None, False),  # a kept separator is kept for its own reason
    (0.99, [0.9, 0.9, 0.9, 0.9], False, 0.001, False),  # made at another margin than the folds'
    (None, [0.9, 0.9, 0.9, 0.9], False, None, False),  # no network on all rows
])
def test_a_path_network_that_fits_all_rows_as_its_folds_did_is_kept(whole_fit, fold_fits, kept, refit_eps, held):
    """CVSelection.holds: the chosen path setting's network on all rows is kept (no final search) exactly
    when it fits them at least as well as the setting's networks fitted their folds' rows (mean fit
    accuracy); the reason the verdict gives names both fits."""
    from annc.training.modelselect.cvresults import CLASSIC_KEPT
    sel = _held(whole_fit, fold_fits, kept, refit_eps)
    assert sel.holds is held
    assert sel.fold_fit(0) == pytest.approx(np.mean(fold_fits))
    assert sel.keeps is (held or kept)
    if held:
        assert f"{whole_fit:.4f}" in sel.kept_reason and f"{np.mean(fold_fits):.4f}" in sel.kept_reason
        assert "kept" in sel.to_dict()["refit"] and sel.to_dict()["holds"] is True
    else:
        assert sel.kept_reason == (CLASSIC_KEPT if kept else None)
    assert sel.behind_separator() == []  # only a kept separator has settings behind it


def test_a_held_path_network_is_the_network_and_the_mip_bounds_it(tmp_path):
    """A path setting whose network on all rows holds (:attr:`~annc.training.modelselect.cvresults.CVSelection.holds`):
    the final training exports that network as it is (its training accuracy and weights are the
    ones the path scored on all rows), the verdict says why, and annc's lower bound stays at or
    below its objective."""
    from annc.solve.solvers import SolveOptions
    from annc.training.modelselect.cvpath import fold_path, spec_at
    from annc.training.modelselect.cvrows import raw_network
    from annc.training.request import TrainRequest
    from annc.training.search.incumbent import kept_why
    from annc.training.trainer import fit
    spec = parse_spec("input 5\nhidden 2 binary\noutput 2\n")
    X, y = noisy_line()
    data = as_data((X, y))
    s = Setting(2, 0.5, 0.1)
    plan = Plan((s,), 3, ("penalty", "width"))
    state = FoldState()
    scored = fold_path(spec, data, data, plan, state=state)[s]
    sel = CVSelection(plan, [s.label(spec)], [[scored] * 3], 0, 0, spec_at(spec, s), len(y), whole=[scored])
    sel.start_network = raw_network(*state.networks[s])
    assert sel.holds  # its network on all rows fits them as its (here: the same) folds' networks did
    request = TrainRequest(spec_at(spec, s), data, None, opts=SolveOptions(time_limit=30), out_dir=tmp_path)
    r = fit(request.checked(), selection=sel)
    v = r.verdict
    assert v.search["added"] == "kept" and v.ended == kept_why(s.label(spec), sel.kept_reason) and r.verified
    assert v.search["found_by"] == f"model selection: {s.label(spec)}, kept"
    assert r.train_accuracy == pytest.approx(scored.fit_accuracy)
    assert r.network.nonzero_weights() <= scored.nonzero_weights
    errors = int(np.sum(r.network.predict(X) != y))
    assert v.objective == pytest.approx(errors + 0.5 * r.network.nonzero_weights())
    assert v.lower_bound is not None and v.lower_bound <= v.objective + 1e-9


def test_a_kept_classic_models_fit_on_all_rows_is_capped_by_the_whole_run_not_selections_share(monkeypatch):
    """On large data the chosen separator or tree is fitted again on all rows and kept as it is; that
    fit is work-limited, so the strategy caps it by the run's own context (``kept_ctx``), not by
    selection's share of the limit, which a loaded machine had used up (hpc_data: 49 weights, not 29)."""
    import annc.training.modelselect.strategy as strategy
    from annc.training.context import RunContext
    from annc.training.modelselect.strategy import Auto
    seen = {}

    def fake(spec, data, *, ctx, kept_ctx=None, **kw):
        seen.update(ctx=ctx, kept_ctx=kept_ctx)
        return None
    monkeypatch.setattr(strategy, "cross_validate", fake)
    monkeypatch.setattr(strategy, "applies", lambda *a, **k: True)

    class Request:  # the fields Auto.choose reads
        spec, data, merge, workers, scheduler, log = parse_spec(RECIPE), None, True, None, None, staticmethod(print)

        class opts:
            time_limit = 30.0
    whole = RunContext.create(limit=30.0)
    Auto().choose(Request(), whole, train=None)
    assert seen["kept_ctx"] is whole and seen["ctx"] is not whole
    assert seen["ctx"].left() < whole.left() - 5  # selection's share: 60% of the 30 s
