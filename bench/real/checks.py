"""The done-when checks of ``bench/real/harness.py``'s summary, and the MIP search table beside them.

:func:`issue30_checks`: issue 30's checks on one recipe's runs, per set and per run (:data:`CHECKS`);
:func:`search_table`: per (set, annc recipe), the start search and what the MIP added;
:func:`done_when`: the earlier check (the recipe within 1 point of a reference with at most half its
non-zero weights, and above chance).
"""
from __future__ import annotations

import re
import statistics

from bench.real.recipes import METHODS
from bench.real.rows import is_annc, means, median, ordered, train_mean
from bench.real.sets import SETS, chance as set_chance, split_chance, splits


def done_when(records, check: str = "default") -> list[str]:
    """Per set and reference (mlp, mlp_best5, logreg_l1): is ``check`` within 1 point of the
    reference with at most half its non-zero weights, and more than 5 points above chance?"""
    lines = []
    for name in ordered(records, "set", SETS):
        rs = [r for r in records if r["set"] == name]
        for ref in ("mlp", "mlp_best5", "logreg_l1"):
            label = name if ref == "mlp" else f"{name} vs {ref}"
            (a_acc, a_nnz), (m_acc, m_nnz) = (means([r for r in rs if r["method"] == m]) for m in (check, ref))
            if None in (a_acc, a_nnz, m_acc, m_nnz):
                lines.append(f"- {label}: n/a (needs runs of both {check} and {ref})")
                continue
            ok_acc = a_acc >= m_acc - 0.01
            ok_nnz = a_nnz <= 0.5 * m_nnz
            chance = set_chance(name)
            ok_chance = a_acc >= chance + 0.05
            lines.append(f"- {label}: {'PASS' if ok_acc and ok_nnz and ok_chance else 'FAIL'}: accuracy "
                         f"{100 * a_acc:.1f} vs {100 * m_acc:.1f} ({'within' if ok_acc else 'not within'} 1 point), "
                         f"non-zero weights {a_nnz:.1f} vs {m_nnz:.1f} ({'at most' if ok_nnz else 'more than'} half), "
                         f"chance {100 * chance:.1f} ({'above' if ok_chance else 'NEAR CHANCE: within 5 points of'} "
                         "the majority class)")
    return lines


# -- issue 30: what the MIP search does, and its done-when checks ----------------------
BOUND_TOL = 1e-6  # a lower bound above this is "> 0" (annc.solve.verdict.ABS_TOL)


def _f(x, fmt="{:.6g}") -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return fmt.format(x)


def _pts(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _counts(values) -> str:
    counts = {}
    for v in values:
        if v is not None:
            counts[v] = counts.get(v, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) if counts else "-"


def _lb_positive(r) -> bool:
    lb = r.get("lower_bound")
    return lb == "inf" or (isinstance(lb, (int, float)) and lb > BOUND_TOL)


_CHANCE_CACHE: dict = {}


def _run_chance(r) -> float | None:
    """The run's ``chance`` (majority class of its training part, on its test part); rows written
    before it was recorded get it recomputed from their split."""
    if r.get("chance") is not None:
        return r["chance"]
    key = (r["set"], r["split"])
    if key not in _CHANCE_CACHE:
        _CHANCE_CACHE[key] = None
        if r["set"] in SETS:
            for split, _, ytr, _, yte in splits(r["set"], r["split"] + 1):
                if split == r["split"]:
                    _CHANCE_CACHE[key] = split_chance(ytr, yte)
    return _CHANCE_CACHE[key]


def search_table(records) -> str:
    """Per (set, annc recipe): the start search and what the MIP added (``meta["steps"][0]["search"]``)."""
    out = [("| set | method | runs | median start obj. | median best linear | median final obj. "
            "| median training obj. | found by | added: improved / certificate / none / kept / not recorded "
            "| lower bound > 0 | bound sources | median wall time (s) |"),
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in ordered(records, "set", SETS):
        for method in ordered([r for r in records if r["set"] == name and is_annc(r["method"])], "method",
                               METHODS):
            rs = [r for r in records if r["set"] == name and r["method"] == method]
            added = [r.get("added") for r in rs]
            ad = " / ".join(str(sum(a == k for a in added)) for k in ("improved", "certificate", "none", "kept"))
            ad += f" / {sum(a is None for a in added)}"
            out.append(f"| {name} | {method} | {len(rs)} | {_f(median(r.get('start_objective') for r in rs))} | "
                       f"{_f(median(r.get('best_linear') for r in rs))} | "
                       f"{_f(median(r.get('final_objective') for r in rs))} | "
                       f"{_f(median(r.get('objective') for r in rs))} | {_counts(r.get('found_by') for r in rs)} | "
                       f"{ad} | {sum(_lb_positive(r) for r in rs)} of {len(rs)} | "
                       f"{_counts(r.get('bound_source') for r in rs)} | "
                       f"{statistics.median(r['seconds'] for r in rs):.1f} | {max(r['seconds'] for r in rs):.1f} | "
                       f"{train_mean(rs)} |")
    return "\n".join(out)


def _certificate_ok(cert) -> bool:
    """A certificate of at least one hidden unit plus the output layer, judged from its ``size``
    text: empty, naming only the output layer, or starting with "0 hidden" does not count."""
    if not isinstance(cert, dict) or not cert.get("size"):
        return False
    size = str(cert["size"]).strip().lower()
    if re.match(r"0\s*hidden", size):
        return False
    return not ("output" in size and "hidden" not in size and "unit" not in size)


def _run_verdicts(records, check):
    """Per set: [(split, {check number: (verdict 'PASS'/'FAIL'/'n/a', text)})] for the ``check`` runs."""
    l1 = {(r["set"], r["split"]): r.get("test_accuracy") for r in records if r["method"] == "logreg_l1"}
    per_set = {}
    for name in ordered(records, "set", SETS):
        rows = []
        for r in sorted((r for r in records if r["set"] == name and r["method"] == check), key=lambda r: r["split"]):
            v = {}
            obj, bl = r.get("objective"), r.get("best_linear")
            if obj is None or bl is None or isinstance(bl, str):
                v[1] = ("n/a", f"objective {_f(obj)}, best linear {_f(bl)} (not recorded)")
            else:
                ok = obj <= bl + 1e-6 * max(1.0, abs(bl))
                v[1] = ("PASS" if ok else "FAIL", f"objective {obj:.6g} {'<=' if ok else '>'} best linear {bl:.6g}")
            acc, ch, ref = r.get("test_accuracy"), _run_chance(r), l1.get((name, r["split"]))
            if acc is None or ch is None or ref is None:
                v[2] = ("n/a", f"accuracy {_pts(acc)}, chance {_pts(ch)}, logreg_l1 {_pts(ref)} "
                               f"({'no network' if acc is None else 'needs logreg_l1 on this split'})")
            else:
                near, ref_above = acc <= ch + 0.02 + 1e-9, ref >= ch + 0.10 - 1e-9
                v[2] = ("FAIL" if near and ref_above else "PASS",
                        f"accuracy {_pts(acc)}, chance {_pts(ch)} ({'within' if near else 'more than'} 2 points), "
                        f"logreg_l1 {_pts(ref)} ({'>=' if ref_above else '<'} 10 points above chance)")
            added, cert = r.get("added"), r.get("certificate")
            if added is None:
                v[3] = ("n/a", "added not recorded")
            elif added == "kept":  # model selection kept a logistic separator: the MIP bounds it
                v[3] = ("n/a", "added kept: model selection kept the logistic separator")
            else:
                ok = added == "improved" or (added == "certificate" and _certificate_ok(cert))
                size = f" (size {cert.get('size')!r}, {cert.get('sub_mips')} sub-MIPs)" if isinstance(cert, dict) else ""
                v[3] = ("PASS" if ok else "FAIL", f"added {added}{size}")
            lb = r.get("lower_bound")
            v[4] = ("PASS" if _lb_positive(r) else "FAIL",
                    f"lower bound {_f(lb)}" + (f" ({r['bound_source']})" if r.get("bound_source") else "")
                    + (" (error: no network)" if r.get("status") == "error" else ""))
            rows.append((r["split"], v))
        if rows:
            per_set[name] = rows
    return per_set


CHECKS = {
    1: "no run's exported network has a higher training objective than best_linear (where recorded)",
    2: "no run ends within 2 points of the majority class where logreg_l1 is >= 10 points above it",
    3: ("in >= 2/3 of the runs the MIP added something: 'improved', or 'certificate' of at least one hidden "
        "unit plus the output layer"),
    4: f"the lower bound is > 0 (> {BOUND_TOL:g}) on every run of every set",
}


def issue30_checks(records, check: str = "default") -> list[str]:
    """Issue 30's done-when checks on the ``check`` recipe: per set and per run, PASS/FAIL lines."""
    per_set = _run_verdicts(records, check)
    if not per_set:
        return [f"n/a: no runs of {check}"]
    lines = []
    for c, what in CHECKS.items():
        lines += [f"#### {c}. {what}", ""]
        set_verdicts, all_marks = [], []
        for name, rows in per_set.items():
            marks = [v[c][0] for _, v in rows]
            judged = [m for m in marks if m != "n/a"]
            all_marks += marks
            if c == 3:
                if judged:
                    k = judged.count("PASS")
                    sv = "PASS" if k >= 2 / 3 * len(judged) else "FAIL"
                    text = f"{k} of {len(judged)} recorded runs added something (needs >= 2/3)"
                else:
                    sv, text = "n/a", "added not recorded"
            else:
                sv = "FAIL" if "FAIL" in judged else ("PASS" if judged else "n/a")
                text = f"{judged.count('PASS')} of {len(judged)} judged runs pass" if judged else "no run judged"
            if len(judged) < len(marks):
                text += f"; {len(marks) - len(judged)} of {len(marks)} runs n/a"
            set_verdicts.append(sv)
            lines.append(f"- {name}: {sv}: {text}")
            lines += [f"  - split {split}: {v[c][0]}: {v[c][1]}" for split, v in rows]
        judged = [m for m in all_marks if m != "n/a"]
        if c == 3 and judged:
            k = judged.count("PASS")
            overall = "PASS" if k >= 2 / 3 * len(judged) else "FAIL"
            lines.append(f"- all runs: {overall}: {k} of {len(judged)} recorded runs added something (needs >= 2/3)")
        else:
            sj = [v for v in set_verdicts if v != "n/a"]
            overall = "FAIL" if "FAIL" in sj else ("PASS" if sj else "n/a")
            lines.append(f"- all sets: {overall}: {sj.count('PASS')} of {len(set_verdicts)} sets pass"
                         + (f", {len(set_verdicts) - len(sj)} n/a" if len(sj) < len(set_verdicts) else ""))
        lines.append("")
    return lines
