"""Text the command line prints: model statistics, verification, matrices, summaries."""
from __future__ import annotations

import math
import textwrap

import numpy as np

from ..core.network import TrainedNetwork
from ..solve.verdict import FLOOR, Verdict
from ..solve.verify import Verification


def stats_lines(stats: dict) -> list[str]:
    s = stats
    m = s["big_m_range"]
    return [
        f"  columns   {s['columns']} ({s['binary']} binary, {s['integer']} integer, {s['continuous']} continuous)",
        f"  rows      {s['rows']}",
        f"  non-zeros {s['nonzeros']}",
        f"  |coefficients| in [{s['coef_range'][0]:.3g}, {s['coef_range'][1]:.3g}]"
        + (f", big-M in [{m[0]:.3g}, {m[1]:.3g}]" if m else ""),
    ]


def _num(v) -> str:
    return "-" if v is None else format(v, ".9g")


WIDTH = 100  # a verdict field's text wraps at this column
LABEL = 19  # the verdict's label column, after two spaces of indent
# every field the verdict of annc train / annc decode (and of ovo and batches) can print, in
# the order annc train prints them; tests/app/test_docs.py checks the docs' sample verdicts and a
# real run against it, so a sample cannot show a field that no longer exists
VERDICT_FIELDS = ("status", "loss", "penalty", "eps", "objective", "lower bound", "gap", "solver", "ended", "large data",
                  "bound note",
                  "network from", "dead weights", "start pool", "found by", "certificate",
                  "the MIP added", "note", "sub-MIPs", "interrupted", "truncated", "wall time", "train accuracy",
                  "test accuracy", "class weights", "non-zero weights", "text columns", "input", "missing cells")

TRAIN_JUDGE_BY = "held-out accuracy (--test, --select)"
DECODE_JUDGE_BY = "held-out accuracy (annc eval WEIGHTS TEST.csv)"
RELAXED_NOTE = ("this model relaxes the products after ReLU layers (piecewise McCormick): the solver's "
                "objective is the relaxation's value, not this network's loss; a proven relaxation optimum "
                "is only a lower bound. `annc train` finishes exactly (best true network from the solver's "
                "hidden layers), or use 'weights [lo, hi] grid K' for an exact model")


def field_line(label: str, text: str) -> str:
    """One verdict field: ``text`` after ``label`` in its column (one line, however long)."""
    return f"  {label:<{LABEL}}{text}"


def note_lines(label: str, text: str) -> list[str]:
    """A note under ``label``: wrapped at :data:`WIDTH` (whole words), continuation lines
    indented under the text."""
    return textwrap.wrap(text, WIDTH, initial_indent=field_line(label, ""), subsequent_indent=" " * (LABEL + 2),
                         break_long_words=False, break_on_hyphens=False)


def verdict_lines(v: Verdict, solver, verified: bool = True) -> list[str]:
    """The verdict on the exported network of ``annc train`` (:mod:`annc.solve.verdict`), with
    what the solver itself reported (``solver``: its SolveResult, or None), labelled as
    the solver's."""
    claim = None
    if solver is not None:
        model = "relaxation (McCormick products): a bound, not a network" if v.relaxed else "MIP"
        claim = (f"{solver.describe()}; objective {_num(solver.objective)}"
                 + (f", bound {_num(solver.bound)} (of the {model})" if verified else " (its claim)"))
    return _verdict(v, claim, verified, TRAIN_JUDGE_BY)


def decoded_verdict_lines(v: Verdict, sol, verified: bool = True) -> list[str]:
    """The verdict on a decoded solution file's network (``sol``: the RawSolution), with
    what the file says, and for a relaxed model what its objective is."""
    claim = f"{sol.status.value} ({sol.status_text}), objective {_num(sol.objective)} (from the file)"
    out = _verdict(v, claim, verified, DECODE_JUDGE_BY)
    return out + (note_lines("note", RELAXED_NOTE) if v.relaxed else [])


def _verdict(v: Verdict, claim: str | None, verified: bool, judge_by: str) -> list[str]:
    """The verdict's fields, the solver's ``claim`` (if any) after the gap; a point that
    failed verification gives no network, so no verdict: only the solver's claim."""
    solver = [field_line("solver", claim)] if claim else []
    if not verified:
        return [field_line("status", "no network: the solution failed verification (below)"), *solver]
    g = v.gap
    gap = "-" if g is None else ("inf" if math.isinf(g) else f"{100 * g:.4f}%")
    proof = ("within the gap asked (--gap), not proved: see the gap" if v.status.value == "optimal" and not v.proven
             else "proved: the objective meets the lower bound" if v.status.value == "optimal"
             else "no proof of optimality: see the gap")
    bound = _num(v.lower_bound) + (f" ({v.bound_source})" if v.bound_source else "")
    out = [field_line("status", f"{v.status.value} ({proof})"),
           field_line("objective", f"{_num(v.objective)} (the exported network's, annc's forward pass)"),
           field_line("lower bound", bound), field_line("gap", gap), *solver]
    if v.ended:  # why the run ended: proven, stalled (the stall rule), the solver's limit
        out.append(field_line("ended", v.ended))
    if v.compression:
        k = v.compression
        out.append(field_line("large data", f"the MIP ran on {k['representatives']:,} weighted representatives of "
                              f"{k['rows']:,} distinct rows ({k['method']}): objective {_num(k['objective'])}, "
                              f"lower bound {_num(k['bound'])} there (not bounds of the full problem)"))
    if v.bound_says_nothing:
        out += note_lines("bound note", bound_note(v, judge_by))
    if v.source != "solver":
        out.append(field_line("network from", f"the {v.source} (the solver's own network scored worse)"))
    if v.dead_weights:
        n, before = v.dead_weights
        out.append(field_line("dead weights", f"{n} dropped from hidden units that no output reads (objective "
                                               f"{_num(before)} before; the same predictions)"))
    return out


def _found_by(v: Verdict) -> str:
    """What found the network, in a few words: ``model selection (L1 logistic C=3 ...)``."""
    found = (v.search or {}).get("found_by") or f"the {v.source}"
    kind, _, detail = found.partition(": ")
    detail = detail.removesuffix(", kept")
    return f"{kind} ({detail})" if detail else kind


def _proof(v: Verdict) -> str:
    """What the verdict proves, in words: about the training objective, never about test accuracy."""
    if v.compression:
        return ("nothing proven on all rows: the MIP ran on weighted representatives, and its bounds hold for "
                "them only")
    if v.status.value == "optimal" and v.proven:
        return (f"proven optimal: no network of this spec has a training objective (loss + penalty) below this "
                f"one's {_num(v.objective)} on these rows; a proof about training, not about test accuracy")
    if v.bound_says_nothing:
        return ("not proven optimal, and nothing proven: the lower bound on the training objective is "
                f"{_num(v.lower_bound or 0)}, so how far the best network of this spec is from this one is unknown")
    g = v.gap
    asked = "optimal within the gap asked, " if v.status.value == "optimal" else ""
    return (f"{asked}not proven optimal: no network of this spec has a training objective (loss + penalty) below "
            f"{_num(v.lower_bound)}, this one's is {_num(v.objective)}, so the best is at most {100 * g:.1f}% lower; "
            "a bound on training, not on test accuracy")


def headline(v: Verdict | None, *, train: tuple[float, int], test: tuple[float, int] | None,
             weights: int, verified: bool = True, how: str = "greedy layer-wise training") -> str:
    """The verdict's first line, in plain words: the accuracy to judge the network by (on the
    test rows, else on the training rows), its non-zero weights, what found it, and what is
    proven (:func:`_proof`): ``network: 94.7% on the 171 test rows, ...``.  ``v`` None: many MIPs
    (``how`` says which training), each with its own verdict."""
    if not verified:
        return "network: none: the solver's point failed verification (below); no weights written"
    acc = (f"{100 * test[0]:.1f}% on the {test[1]} test rows ({100 * train[0]:.1f}% on the {train[1]} training rows)"
           if test else f"{100 * train[0]:.1f}% on the {train[1]} training rows (no test rows to judge it by)")
    if v is None:  # greedy, ovo, batches (``how``): one verdict per MIP, below
        return f"network: {acc}, {weights} non-zero weights, {how}: each MIP's verdict below"
    return f"network: {acc}, {weights} non-zero weights, found by {_found_by(v)}; {_proof(v)}"


def search_lines(v: Verdict) -> list[str]:
    """What annc's own search added (``v.search``, :mod:`annc.training.search.incumbent`): the start
    pool, the best linear separator, the certificate, and whether the MIP improved on them."""
    s = getattr(v, "search", None)
    if not s:
        return []
    pool = f"best of {len(s['pool'])} candidates {_num(s['pool_best'])}"
    if s.get("best_linear") is not None:
        pool += f"; best linear separator {_num(s['best_linear'])}"
    out = [f"  start pool         {pool}",
           f"  found by           {s['found_by']}"]
    certs = s.get("certificates")
    if certs is None:  # a weights file of an older annc: the unit descent's and the band's
        certs = [c for c in (s.get("certificate"), s.get("band_certificate")) if c]
    for cert in certs or [{"text": "none (no neighbourhood was proven)"}]:  # each kind's own sentence
        out.append("  certificate        " + cert["text"])
    added = {"improved": "improved on every candidate of the start pool",
             "certificate": "a proven neighbourhood certificate (no improvement on the start pool)",
             "none": "nothing beyond the start pool",
             "proof": "a proof: annc's lower bound meets the start pool's best, so no search ran after it",
             "kept": "a bound: model selection kept the network 'found by' names (the rule's choice on the "
                     "folds: a classic model, or the path's network where it fits all rows as the folds' "
                     "networks fitted theirs), and the MIP search did not replace it"}[s["added"]]
    out.append(f"  the MIP added      {added}")
    if s.get("no_better_than_linear"):
        out.append("  note               this network is no better than the best linear separator found")
    if s.get("capped"):
        out.append("  note               the time limit cut the search short: another run may end elsewhere")
    return out


def sub_mip_lines(v: Verdict) -> list[str]:
    """Which solver ran annc's own sub-MIPs (``v.sub_mips``, :mod:`annc.training.context`), and
    why HiGHS stood in for the user's solver if it did."""
    k = getattr(v, "sub_mips", None)
    if not k or not k.get("by_solver"):
        return []
    ran = ", ".join(f"{n} on {s}" for s, n in k["by_solver"].items())
    return note_lines("sub-MIPs", ran + (f" ({k['fallback']})" if k.get("fallback") else ""))


def time_line(wall: float | None, parts: dict) -> str:
    """The verdict's ``wall time`` field: the run's wall time, then each part that took time
    (``parts``: seconds by name, in order, as :meth:`annc.training.results.TrainResult.times`
    gives them) and what is left (reading the data, files, the export)."""
    shown = [f"{name} {seconds:.2f} s" for name, seconds in parts.items() if seconds >= 0.005]
    total = sum(parts.values())
    if wall is None:
        return field_line("time", f"{total:.2f} s (" + ", ".join(shown) + ")")
    rest = wall - total
    if rest >= 0.005:
        shown.append(f"the rest {rest:.2f} s")
    return field_line("wall time", f"{wall:.2f} s (" + ", ".join(shown) + ")")


def bound_note(v: Verdict, judge_by: str) -> str:
    """Why a lower bound of 0 (or none) proves nothing, and how to judge the network instead."""
    if v.lower_bound is None:
        return f"there is no lower bound: nothing is proven about how good this network is: judge it by {judge_by}"
    why = ("the MIP ran on weighted representatives, whose bounds hold for them only, and the loss floor of "
           "every row is 0" if v.compression else
           "a solution file records no solver bound, and the formulation's floor is 0 on these data"
           if v.bound_source == FLOOR else
           "the LP relaxation of the big-M rows reaches 0 on these data")
    return (f"the lower bound is 0: nothing is proven beyond 'the objective cannot be negative' ({why}), "
            f"so the gap says nothing about how good this network is: judge it by {judge_by}")


def verification_lines(v: Verification) -> list[str]:
    out = [f"  training samples      {v.samples}"]
    if v.solver_objective is not None:
        out.append(f"  solver objective      {v.solver_objective:.9g}")
    out += [
        f"  objective of point    {v.point_objective:.9g}",
        f"  loss of exported net  {v.network_loss:.9g}",
        f"  training accuracy     {v.train_accuracy:.4f} (forward pass of the exported network)",
    ]
    if v.mccormick_gap is not None:
        out.append(f"  accuracy of point     {v.solver_accuracy:.4f} (its outputs o: a solver's are relaxed, "
                   "a network's lift exact)")
        out.append(f"  McCormick gap         {v.mccormick_gap:.3g} (largest |z - alpha * h_relu|)")
    for layer, (bad, total) in v.activation_mismatch.items():
        out.append(f"  {f'layer {layer} activations':<22}{total - bad}/{total} equal to the solver's")
    viol = v.violations
    out.append("  violations            "
               + ", ".join(f"{k} {viol[k]['max']:.2g}" for k in ("integrality", "bound", "row")))
    out.append("  verification          " + ("passed" if v.ok else "FAILED"))
    out += [f"    - {p}" for p in v.problems]
    return out


def network_lines(net: TrainedNetwork) -> list[str]:
    out = [f"classes: {', '.join(str(c) for c in net.classes)}"]
    with np.printoptions(precision=4, suppress=True, linewidth=120):
        for i, L in enumerate(net.layers):
            out.append(f"layer {i}: {L.activation}, {L.weight.shape[0]} inputs -> {L.units} units")
            out.append("  weight =\n" + "\n".join("    " + r for r in str(L.weight).splitlines()))
            out.append(f"  bias   = {L.bias}")
    return out


def confusion_lines(classes: list, y: np.ndarray, pred: np.ndarray) -> list[str]:
    J = len(classes)
    cm = np.zeros((J, J), dtype=int)
    np.add.at(cm, (y, pred), 1)
    width = max(6, *(len(str(c)) + 1 for c in classes))
    head = "true\\pred".ljust(width + 3) + "".join(str(c).rjust(width) for c in classes)
    rows = [str(c).ljust(width + 3) + "".join(str(v).rjust(width) for v in cm[i]) for i, c in enumerate(classes)]
    return [head] + rows
