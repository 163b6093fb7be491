"""Model selection's rule measured on the test rows: which setting each rule would take, and how it does.

``python bench/run.py selection_rules`` (``--sets real --splits 5 --rules 0,0.5,0.75,1,1.5,2``).

For each set of ``bench/real/sets.py`` and each of its splits, annc's cross-validation runs on the
training rows with no time cap (its work limits alone: the same scores on any machine), and every
setting's network on all the training rows is scored on the split's test rows: a kept setting's
(separator or tree, thinned or not: ``kept.kept_point`` on all rows) and a path setting's network
of the whole-set part (what the final training starts from; its full search then fits closer, so
for those this is a proxy).  Then for each value of the policy's ``se_rule`` the rule's choice is made by
annc's own code (``CVSelection.choose`` and ``order``, and ``cvrows.realised``, the check that the network on
all rows fits them as the folds promised), and its test accuracy and non-zero weights are set
against L1 logistic regression and STreeD's depth-3 tree on the same split
(``bench/real/baselines.py``).  Above 1,000 rows the two-way plan has no whole-set part: where a
rule takes the spec as written there, its test accuracy is unknown and the set is counted apart.

The rule is chosen on these same splits, so the figures favour the chosen value somewhat.
Writes ``runs.jsonl`` (one line per set and split: every setting's CV scores and test accuracy,
and each rule's choice) and ``results.md``; ``--summarise`` writes ``results.md`` again from a run
folder's ``runs.jsonl`` without training.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: bench.real

import numpy as np

from bench.real.baselines import run_logreg_l1, run_streed3
from bench.real.sets import REAL_SETS, SETS, splits

BASELINES = {"logreg_l1": run_logreg_l1, "streed3": run_streed3}


def _network_scores(c, x, test, data) -> dict:
    from annc.solve.decode import decode_network
    from annc.training.modelselect.cvpath import _accuracy
    net = decode_network(c.varmap, x).with_scaling(c.scaling)
    return {"test": _accuracy(net, test), "train": _accuracy(net, data), "nnz": int(net.nonzero_weights())}


def one_split(name: str, split: int, Xtr, ytr, Xte, yte) -> dict:
    """Cross-validation on the split's training rows (uncapped), each setting's network on all rows on the test rows."""
    from annc.app.api import as_data
    from annc.io.spec import parse_spec
    from annc.solve.compiler import build
    from annc.training.context import RunContext
    from annc.training.modelselect import cvselect
    from annc.training.modelselect.settings import spec_at
    from annc.training.modelselect.kept import kept_point
    from annc.training.warmstart.pool.point import complete

    data, test = as_data((Xtr, ytr)), as_data((Xte, yte))
    spec = parse_spec(f"input {data.inputs}\nhidden {SETS[name][1]} binary\noutput {len(set(ytr))}\n")
    seen: dict = {}
    realise = cvselect.realise

    def spy(sel, spec_, cv_data, networks, ctx, merge, log, eps_open):  # the whole-set part's networks, as the rule sees them
        seen.update(networks=networks, rows=len(cv_data.y))
        return realise(sel, spec_, cv_data, networks, ctx, merge, log, eps_open)
    cvselect.realise = spy
    t0 = time.perf_counter()
    try:
        sel = cvselect.cross_validate(spec, data)
    finally:
        cvselect.realise = realise
    out = {"set": name, "split": split, "seconds": round(time.perf_counter() - t0, 1), "settings": []}
    if sel is None:
        return out
    ctx = RunContext()
    for i, s in enumerate(sel.plan.settings):
        row = {"label": sel.labels[i], "kept": s.kept, "cv": sel.mean(i), "se": sel.se(i),
               "folds": [f.to_dict() for f in sel.scores[i]], "whole": sel.whole[i].to_dict()}
        if s.kept:
            c = build(spec_at(spec, s), data, name="kept", merge=True)
            x = kept_point(c, s, ctx)
        elif s in seen.get("networks", {}) and seen["rows"] == len(data.y):
            (W, b), _ = seen["networks"][s]
            c = build(spec_at(spec, s), data, name="path", merge=True)
            x = complete(c.model, c.problem, W, b)
        else:
            x = None
        if x is not None:
            row.update(_network_scores(c, x, test, data))
        out["settings"].append(row)
    out["sel"] = sel
    return out


def choices(out: dict, rules) -> dict:
    """Each rule's setting (its index), by annc's own rule code with the policy's ``se_rule`` set to the rule."""
    from dataclasses import replace
    from annc.training.modelselect import cvrows
    sel, picked = out["sel"], {}
    policy = sel.policy
    try:
        for r in rules:
            sel.policy = replace(policy, se_rule=float(r))
            best, _ = sel.choose()
            order = sel.order(best) if best >= 0 else []
            ok = order[:1] if sel.plan.large else [i for i in order if cvrows.realised(sel, i)][:1]
            picked[str(r)] = ok[0] if ok else None
    finally:
        sel.policy = policy
    return picked


def summary(lines: list[dict], rules) -> str:
    by_set: dict = {}
    for ln in lines:
        by_set.setdefault(ln["set"], []).append(ln)
    out = ["| rule (standard errors) | sets within 1 point of max(L1 logreg, STreeD) | sets unknown | "
           "mean weights / L1's (mean of ratios) | ratio of mean weights | mean train - test (points) | "
           "largest train - test of a split (points) |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    per_rule_rows = {}
    for r in rules:
        within = n = unknown = 0
        ratios, ours, l1s, gaps, worst, rows = [], 0.0, 0.0, [], [], []
        for name, ls in by_set.items():
            chosen = [ln["settings"][ln["rules"][str(r)]] if ln["rules"].get(str(r)) is not None else None for ln in ls]
            if any(c is None or c.get("test") is None for c in chosen):
                unknown += 1
                rows.append(f"| {name} | unknown | | | |")
                continue
            acc = 100 * statistics.fmean(c["test"] for c in chosen)
            w = statistics.fmean(c["nnz"] for c in chosen)
            l1 = statistics.fmean(ln["baselines"]["logreg_l1"]["test_accuracy"] for ln in ls) * 100
            l1w = statistics.fmean(ln["baselines"]["logreg_l1"]["nonzero_weights"] for ln in ls)
            st = statistics.fmean(ln["baselines"]["streed3"]["test_accuracy"] for ln in ls) * 100
            ref = max(l1, st)
            n += 1
            within += acc >= ref - 1
            ratios.append(w / l1w if l1w else math.nan)
            ours, l1s = ours + w, l1s + l1w
            split_gaps = [100 * (c["train"] - c["test"]) for c in chosen]
            gaps.append(statistics.fmean(split_gaps))
            worst += [(g, f"{name} {ln['split']}") for g, ln in zip(split_gaps, ls)]
            rows.append(f"| {name} | {acc:.1f} ({acc - ref:+.1f}) | {w:.1f} | {l1:.1f} / {l1w:.1f} | {st:.1f} |")
        per_rule_rows[r] = rows
        if not n:
            out.append(f"| {r:g} | 0 of 0 | {unknown} | | | | |")
            continue
        gap, where = max(worst)
        out.append(f"| {r:g} | {within} of {n} | {unknown} | {np.nanmean(ratios):.2f} | {ours / l1s:.2f} | "
                   f"{statistics.fmean(gaps):.1f} | {gap:.1f} ({where}) |")
    for r in rules:
        out += ["", f"At {r:g} standard errors, per set (means over the splits; test % (against the better of "
                    "L1 logreg and STreeD), weights, L1 logreg test % / weights, STreeD test %):", "",
                "| set | test % | weights | L1 logreg | STreeD depth 3 |", "|---|---:|---:|---:|---:|"]
        out += per_rule_rows[r]
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="real", help="comma-separated set names, or real (bench/real/sets.py)")
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--rules", default="0,0.5,0.75,1,1.5,2", help="values of the policy's se_rule to compare")
    ap.add_argument("--out", required=True, help="the run folder: runs.jsonl and results.md")
    ap.add_argument("--summarise", action="store_true",
                    help="train nothing: write results.md again from the run folder's runs.jsonl")
    a = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    rules = [float(r) for r in a.rules.split(",")]
    names = list(REAL_SETS) if a.sets == "real" else a.sets.split(",")
    folder = Path(a.out)
    folder.mkdir(parents=True, exist_ok=True)
    if a.summarise:
        lines = [json.loads(ln) for ln in (folder / "runs.jsonl").read_text().splitlines() if ln.strip()]
        return _write_results(folder, lines, rules, a)
    lines = []
    with (folder / "runs.jsonl").open("w") as f:
        for name in names:
            for split, Xtr, ytr, Xte, yte in splits(name, a.splits):
                out = one_split(name, split, Xtr, ytr, Xte, yte)
                if "sel" not in out:
                    print(f"{name} {split}: cross-validation does not apply", flush=True)
                    continue
                out["rules"] = choices(out, rules)
                del out["sel"]
                out["baselines"] = {m: fn(Xtr, ytr, Xte, yte, SETS[name][1], split, 30.0) for m, fn in BASELINES.items()}
                f.write(json.dumps(out, default=float) + "\n")
                f.flush()
                lines.append(out)
                print(f"{name} {split}: {out['seconds']} s; " + ", ".join(
                    f"{r}: {out['settings'][i]['label'] if i is not None else None}" for r, i in out["rules"].items()),
                    flush=True)
    return _write_results(folder, lines, rules, a)


def _write_results(folder: Path, lines: list[dict], rules, a) -> int:
    text = ("# Selection rules on the test rows\n\n" + summary(lines, rules)
            + f"\nReproduce: `python bench/run.py selection_rules --sets {a.sets} --splits {a.splits} --rules {a.rules}`\n")
    (folder / "results.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
