"""What model selection measured and chose (:mod:`annc.training.modelselect.cvselect`): the scores of every
setting on every fold, the CV estimate, the rule's threshold, and the reports of the path: the
verdict's table (:meth:`CVSelection.table_lines`), the weights file's record
(:meth:`CVSelection.to_dict`) and scikit-learn's ``cv_results_`` (:meth:`CVSelection.cv_results`).

Setting ``s`` scores accuracies ``a_{s,1..k}`` on the k held-out folds; its CV accuracy is
``m_s = (1/k) sum_f a_{s,f}`` and its standard error ``se_s = sd_s / sqrt(k)``.  Every setting with
``m_s >= m_b - max(SE_RULE * se_b, RESOLUTION / v)`` (``b`` the best, ``v = rows / k`` the validation
rows of a fold) counts as good as the best (:meth:`CVSelection.floor`).  A setting of the MIP path goes
before the logistic separators only where it earns it (:meth:`CVSelection.earns`): its paired differences
with the first separator of the rule's order, fold by fold, have a mean above the policy's ``paired_se`` of
their standard error and above the resolution.  ``SE_RULE`` is the policy's ``se_rule`` (0.5: half of
the one-standard-error rule of Breiman et al. and glmnet's ``lambda.1se``; the best of some 40 noisy CV
scores is optimistic, and the simplest setting within part of its noise is chosen; 0.5 was chosen on the
public bench's tuning half, docs/decisions.md), ``RESOLUTION`` its ``resolution``
(one validation row a fold moves a mean by ``1 / v``: less is no evidence against a setting).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...io.spec import NetworkSpec
from .chosen import Chosen
from .policy import DEFAULT_POLICY, SelectionPolicy
from .settings import FoldScore, Plan, Stop

__all__ = ["CVSelection"]

CLASSIC_KEPT = "the MIP's minimiser of the training objective scored lower on the folds"  # why a tree or separator is kept


@dataclass
class CVSelection(Chosen):
    """What :func:`cross_validate` measured and chose; ``scores[i][f]`` is setting ``i`` on fold ``f``."""

    plan: Plan
    labels: list[str]
    scores: list[list[FoldScore]]
    chosen: int
    best: int
    spec: NetworkSpec  # the chosen setting written into the spec: what is trained on all rows
    rows: int  # the training rows the folds were cut from
    capped: bool = False
    seconds: float = 0.0
    specs: list = field(default_factory=list, repr=False)
    start_network: tuple | None = field(default=None, repr=False)  # the chosen setting's network on all rows
    budget: int | None = None  # max_weights of the final training (annc.training.modelselect.cvselect.budget)
    refit_eps: float | None = None  # the margin the chosen setting is trained at on all rows, if not its own
    whole: list = field(default_factory=list)  # each setting's FoldScore on the whole set (fit: all rows)
    passed_over: list = field(default_factory=list)  # settings before the chosen one whose network on all
    # rows fitted them far worse than their CV accuracy
    policy: SelectionPolicy = field(default=DEFAULT_POLICY, repr=False)  # the rule's numbers
    chance: float = 0.0  # the constant classifier's score: the most frequent class's share of the rows
    # (accuracy), or 1 / classes (balanced accuracy: the constant's recall is 1 on one class, 0 on the rest)
    balanced: bool = False  # the run has class weights: the folds score balanced accuracy (rowweights.fold_score)

    @property
    def measure(self) -> str:
        """What the folds score, as the table, the log and the weights' record name it."""
        return "balanced accuracy" if self.balanced else "accuracy"

    @property
    def label(self) -> str:
        return self.labels[self.chosen]

    @property
    def keeps(self) -> bool:
        """Whether the final training keeps the chosen setting's network on all rows (the MIP bounds it)
        instead of searching the objective's minimiser: the setting is a kept one, a logistic separator
        or a tree, or a setting of the path whose network on all rows :attr:`holds`."""
        return self.plan.settings[self.chosen].kept or self.holds

    @property
    def holds(self) -> bool:
        """Whether the chosen setting of the path keeps its network on all rows as it is (no final
        search; the MIP bounds it, as for a kept separator or tree): that network, made by the folds'
        own cheap path, fits all ``n`` rows at least as well as the setting's networks fitted their
        folds' rows, ``fit_all >= (1/k) sum_f fit_f``.  The folds validated that procedure at that fit;
        a search that fits the rows closer goes past what they measured.  Not where the network on all
        rows was made at another margin (:attr:`refit_eps`) or no whole-set part was scored (the
        two-way plan: no fit on all rows).  A search that fits the rows closer than the folds did
        went past what they measured on the bench (docs/decisions.md)."""
        i = self.chosen
        if self.plan.settings[i].kept or self.refit_eps is not None or i >= len(self.whole):
            return False
        fit_all, fit_folds = self.whole[i].fit_accuracy, self.fold_fit(i)
        return fit_all is not None and math.isfinite(fit_folds) and fit_all >= fit_folds - 1e-12

    @property
    def kept_reason(self) -> str | None:
        """Why the final training keeps the chosen setting's network (for the verdict), or None."""
        if self.plan.settings[self.chosen].kept:
            return CLASSIC_KEPT
        if self.holds:
            return (f"it fits all rows at {self.whole[self.chosen].fit_accuracy:.4f}, at least as well as the "
                    f"folds' networks fitted theirs ({self.fold_fit(self.chosen):.4f}): the network the folds "
                    "validated, which a search fitting closer would take past them")
        return None

    def fold_fit(self, i: int) -> float:
        """Setting ``i``'s fit accuracy on the folds' fit rows, their mean (nan if a fold has none)."""
        fits = [f.fit_accuracy for f in self.scores[i]]
        return float(np.mean(fits)) if fits and all(a is not None for a in fits) else math.nan

    def not_reached(self) -> dict[Stop, list[str]]:
        """The settings not scored on every fold, by why their work stopped (the first fold's
        reason that is not :attr:`Stop.DONE`): what the log says was not reached."""
        out: dict[Stop, list[str]] = {}
        for i, label in enumerate(self.labels):
            stops = [f.stop for f in self.scores[i] if f.accuracy is None]
            if stops:
                out.setdefault(stops[0], []).append(label)
        return out

    def _acc(self, i: int) -> np.ndarray:
        return np.array([f.accuracy for f in self.scores[i] if f.accuracy is not None], float)

    def complete(self, i: int) -> bool:
        return all(f.accuracy is not None for f in self.scores[i])

    def mean(self, i: int) -> float:
        a = self._acc(i)
        return float(a.mean()) if len(a) else float("nan")

    def se(self, i: int) -> float:
        a = self._acc(i)
        return float(a.std(ddof=1) / np.sqrt(len(a))) if len(a) > 1 else float("nan")

    def nonzeros(self, i: int) -> float:
        n = [f.nonzero_weights for f in self.scores[i] if f.nonzero_weights is not None]
        return float(np.mean(n)) if n else float("nan")

    def resolution(self) -> float:
        """The policy's ``resolution`` rows of a fold's validation part, as accuracy: ``resolution * k / rows``."""
        return self.policy.resolution * self.plan.folds / self.rows if self.rows else 0.0

    def paired(self, i: int, ref: int) -> tuple[float, float]:
        """The mean and the standard error of setting ``i``'s fold accuracies less ``ref``'s, fold by
        fold: ``d_f = a_{i,f} - a_{ref,f}``, ``(mean d, sd(d) / sqrt(k))`` (the folds are the same,
        so the differences cancel the folds' own difficulty, as a paired t statistic does)."""
        d = self._acc(i) - self._acc(ref)
        return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else 0.0

    def earns(self, i: int, ref: int) -> bool:
        """Whether setting ``i`` beats ``ref`` on the folds by more than their noise: the mean of
        the paired differences (:meth:`paired`) above the policy's ``paired_se`` standard errors and above the
        :meth:`resolution`.  The MIP path's minimiser of the training objective must earn its place
        before the convex surrogate's separator, which generalises well on noisy, nearly linear data."""
        mean, se = self.paired(i, ref)
        return mean > max(self.policy.paired_se * se, self.resolution())

    def separator_first(self, order: list[int]) -> list[int]:
        """``order`` (the rule's, complete settings) with the first logistic separator moved before
        every setting of the path ahead of it that does not :meth:`earns` its place against it; where
        the plan has no separator, the plan's ``anchor`` (the spec as written) likewise."""
        s = self.plan.settings
        k = next((n for n, i in enumerate(order) if s[i].kept or s[i] == self.plan.anchor), None)
        if k is None:
            return order
        ref = order[k]
        earned = {i: self.earns(i, ref) for i in order[:k]}
        return [i for i in earned if earned[i]] + [ref] + [i for i in earned if not earned[i]] + order[k + 1:]

    def behind_separator(self) -> list[str]:
        """The path's settings of a higher CV accuracy than the chosen logistic separator that did
        not earn their place before it (for the verdict)."""
        c, s = self.chosen, self.plan.settings
        if not s[c].kept:
            return []
        out = []
        for i in range(len(self.labels)):
            if not s[i].kept and self.complete(i) and self.mean(i) > self.mean(c) and not self.earns(i, c):
                mean, se = self.paired(i, c)
                out.append(f"{self.labels[i]} ({100 * mean:+.1f} points, paired se {100 * se:.1f})")
        return out

    def choose(self) -> tuple[int, int]:
        """``(best, chosen)``: the highest CV accuracy (ties: fewer mean non-zero weights), and the
        rule's choice, the first of :meth:`order`; ``(-1, -1)`` when no setting is complete, or when
        no complete setting does better than a constant network (none has a non-zero weight on any
        fold or a CV accuracy above :attr:`chance`) and the clock stopped a classic model: a constant
        stands against the spec only where a setting that beats it was scored beside it, or where
        every classic model was scored and none did (a 10-class set of 2,000 rows at 30 s scored only
        L1 logistic regression at C = 0.01 in time, its units off, and exported a constant at 10% where
        the spec as written reaches 60-66%; on lending_club, 94.8% of one class, every separator and
        tree scored as the constant does, the clock cut only the spec as written, and training it
        as written exported 105 weights for the same accuracy)."""
        ok = [i for i in range(len(self.labels)) if self.complete(i)]
        if not ok or (self._clock_cut_a_classic_model()
                      and all(self.nonzeros(i) == 0 or self.mean(i) <= self.chance + 1e-12 for i in ok)):
            return -1, -1
        best = min(ok, key=lambda i: (-self.mean(i), self.nonzeros(i), i))
        return best, self.order(best)[0]

    def _clock_cut_a_classic_model(self) -> bool:
        """Whether the time limit left a kept setting (a separator or a tree) unscored on some fold."""
        return any(s.kept and any(f.stop is Stop.TIME_LIMIT for f in self.scores[i] if f.accuracy is None)
                   for i, s in enumerate(self.plan.settings))

    def order(self, best: int) -> list[int]:
        """The complete settings in the order the choice takes them: those as good as ``best``
        (:meth:`floor`), simplest first (fewest mean non-zero weights, then the narrower, the larger l0
        weight, the wider margin), then the rest by CV accuracy; the path's settings ahead of the first
        separator that do not earn their place go behind it (:meth:`separator_first`).  At one width
        and eps, the largest l0 weight as good as the best stands for the smaller ones (glmnet's choice
        of lambda): they go with the rest, whatever their folds' weights (the full search at a smaller
        weight fits the rows closer)."""
        s = self.plan.settings
        ok = [i for i in range(len(self.labels)) if self.complete(i)]
        floor = self.floor(best)
        near = [i for i in ok if self.mean(i) >= floor - 1e-12]

        def stands_for(j: int, i: int) -> bool:  # j, a larger l0 weight of i's width and eps on the path
            return (not s[i].kept and not s[j].kept and s[j].penalty > s[i].penalty
                    and (s[j].width, s[j].eps) == (s[i].width, s[i].eps))
        near = sorted((i for i in near if not any(stands_for(j, i) for j in near)),
                      key=lambda i: (self.nonzeros(i), s[i].width or 0, -s[i].penalty, -s[i].eps, i))
        rest = sorted((i for i in ok if i not in near), key=lambda i: (-self.mean(i), self.nonzeros(i), i))
        return self.separator_first(near + rest)

    def floor(self, best: int) -> float:
        """The least CV accuracy as good as ``best``'s within the noise and the resolution of the
        folds: ``m_b - max(se_rule * se_b, resolution / v)`` (the policy's), ``v`` a fold's validation rows."""
        se = self.se(best)
        return self.mean(best) - max(self.policy.se_rule * se if np.isfinite(se) else 0.0, self.resolution())

    @property
    def estimate(self) -> float:
        """The CV estimate of the test accuracy: the chosen setting's mean fold accuracy."""
        return self.mean(self.chosen)

    def heading(self) -> list[str]:
        b, c, se_rule, rows_a_fold, paired_se = self.best, self.chosen, *self._rule()
        rule = (f"best CV {self.measure} {self.mean(b):.4f} ({self.labels[b]})" + (
            f" less {se_rule:g} standard error {self.se(b):.4f}" if se_rule else "")
                + (f" less {rows_a_fold:g} validation row a fold ({self.resolution():.4f})" if rows_a_fold else "")
                + f": the simplest setting at or above {self.floor(b):.4f}")
        behind = self.behind_separator()
        return [f"model selection: {self.plan.folds}-fold stratified cross-validation on {self.rows} training rows, "
                f"{len(self.labels)} settings ({', '.join(self.plan.open)} open), {self.seconds:.1f} s"
                + (", cut short by the time limit" if self.capped else ""),
                f"rule: {rule} (fewest non-zero weights, then width, then larger l0); a setting of the MIP path "
                f"goes before the logistic separators only if it beats the first of them on the same folds by more "
                f"than {paired_se:g} standard error of their paired differences and the resolution",
                f"chosen: {self.labels[c]}; CV estimate of test {self.measure} {self.estimate:.4f} "
                f"+- {self.se(c):.4f}" + ("" if self.refit_eps is None else
                                          f"; trained on all rows at eps {self.refit_eps:g} (at its own margin "
                                          "the network on all rows fitted them far worse than on the folds)")
                + ("" if not self.passed_over else
                   "; passed over (their networks on all rows fit far below their CV accuracy): "
                   + ", ".join(self.passed_over))] + ([] if self.budget is None else [
                    f"weight budget: at most {self.budget} non-zero weights (max_weights {self.budget}: what the folds "
                    "scored for the chosen setting, and at least its network on all rows; the full search lowers "
                    "the objective within it)"]) + ([] if not behind else [
                    f"kept behind the chosen separator ({len(behind)} of the path scored higher on the folds, not by "
                    f"the paired rule's margin): " + ", ".join(behind[:3])
                    + (f" and {len(behind) - 3} more (meta.selection lists them)" if len(behind) > 3 else "")])

    def table_lines(self) -> list[str]:
        """The heading and one line per setting: CV accuracy +- its standard error, the fit
        accuracy, the mean non-zero weights, the accuracy of its network on all the rows (the
        whole set's path); ``*`` the chosen setting, ``b`` the best.  Each is balanced accuracy where
        the run has class weights (:attr:`balanced`)."""
        acc = "bal. acc" if self.balanced else "acc"
        head = ["", "setting", f"CV {acc}", "+- se", f"fit {acc}", "non-zeros", "all rows"]
        cells = []
        for i, label in enumerate(self.labels):
            mark = "*" if i == self.chosen else "b" if i == self.best else ""
            fit = [f.fit_accuracy for f in self.scores[i] if f.fit_accuracy is not None]
            if not self.complete(i):
                cells.append([mark, label, "-", "-", "-", "not on every fold", "-"])
                continue
            whole = self.whole[i].fit_accuracy if i < len(self.whole) else None
            cells.append([mark, label, f"{self.mean(i):.4f}", f"{self.se(i):.4f}", f"{np.mean(fit):.4f}",
                          f"{self.nonzeros(i):.1f}", "-" if whole is None else f"{whole:.4f}"])
        width = [max(len(r[k]) for r in [head] + cells) for k in range(len(head))]

        def line(row):
            return "  ".join(c.rjust(w) if k >= 2 else c.ljust(w) for k, (c, w) in enumerate(zip(row, width))).rstrip()
        return self.heading() + [line(head)] + [line(r) for r in cells]

    def _rule(self) -> tuple[float, float, float]:
        return self.policy.se_rule, self.policy.resolution, self.policy.paired_se

    def to_dict(self) -> dict:
        """JSON-able, for the weights' ``meta["selection"]`` (and so the report): the whole path."""
        se_rule, rows_a_fold, paired_se = self._rule()
        return {"measure": f"{self.plan.folds}-fold stratified cross-validation {self.measure}",
                "rule": f"the fewest mean non-zero weights within {se_rule:g} standard errors of the best"
                        f" and {rows_a_fold:g} validation row a fold; a path setting goes before the logistic"
                        f" separators only if it beats them by {paired_se:g} paired standard error and the resolution",
                "se_rule": se_rule, "paired_se": paired_se, "behind_separator": self.behind_separator(),
                "resolution_rows": rows_a_fold, "floor": self.floor(self.best),
                "folds": self.plan.folds, "rows": self.rows, "open": list(self.plan.open),
                "chosen": self.chosen, "chosen_label": self.label, "best": self.best,
                "cv_estimate": self.estimate, "capped": self.capped, "refit_eps": self.refit_eps,
                "passed_over": list(self.passed_over), "seconds": round(self.seconds, 3),
                "budget": self.budget,
                "holds": self.holds,
                "refit": ("the chosen classic model (logistic separator or tree) is fitted on all the training "
                          "rows and kept; the MIP bounds its objective" if self.plan.settings[self.chosen].kept else
                          "the chosen setting's network on all the training rows fits them as its folds' networks "
                          "fitted theirs, and is kept; the MIP bounds its objective" if self.holds else
                          "the chosen setting is trained on all the training rows by the full search"
                          + ("" if self.budget is None else f", with at most {self.budget} non-zero weights")),
                "candidates": [{"label": self.labels[i], "width": s.width, "penalty": s.penalty, "eps": s.eps,
                                "logistic_C": s.logistic, "tree_depth": s.tree,
                                "thinned": s.thinned, "cv_accuracy": self.mean(i) if self.complete(i) else None,
                                "se": self.se(i) if self.complete(i) else None,
                                "mean_nonzero_weights": self.nonzeros(i),
                                "all_rows": self.whole[i].to_dict() if i < len(self.whole) else None,
                                "folds": [f.to_dict() for f in self.scores[i]]}
                               for i, s in enumerate(self.plan.settings)]}

    def cv_results(self) -> dict:
        """scikit-learn's ``cv_results_`` layout: ``params``, ``param_*``, ``split<f>_test_score``,
        ``mean/std/rank_test_score``, the same for ``train``, and ``mean_nonzero_weights``."""
        n, k = len(self.labels), self.plan.folds
        out: dict = {"params": [{"width": s.width, "penalty_weight": s.penalty, "logistic_C": s.logistic,
                                 "tree_depth": s.tree, "thinned": s.thinned} for s in self.plan.settings]}
        for name, attr in (("width", "width"), ("penalty_weight", "penalty"), ("logistic_C", "logistic"),
                           ("tree_depth", "tree"), ("thinned", "thinned")):
            vals = [getattr(s, attr) for s in self.plan.settings]
            out[f"param_{name}"] = np.ma.MaskedArray(np.array(vals, dtype=object), mask=[v is None for v in vals])
        for part, attr in (("test", "accuracy"), ("train", "fit_accuracy")):
            m = np.array([[np.nan if getattr(f, attr) is None else getattr(f, attr) for f in row]
                          for row in self.scores])
            for f in range(k):
                out[f"split{f}_{part}_score"] = m[:, f]
            out[f"mean_{part}_score"] = m.mean(axis=1)
            out[f"std_{part}_score"] = m.std(axis=1)
        means = np.nan_to_num(out["mean_test_score"], nan=-np.inf)
        out["rank_test_score"] = (1 + np.array([(means > v).sum() for v in means])).astype(np.int32)
        out["mean_nonzero_weights"] = np.array([self.nonzeros(i) for i in range(n)])
        return out
