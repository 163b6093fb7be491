"""Run: python bench/issue36_budget/compare.py (from the repository root).

annc's default recipe before the weight budget (bench/issues36_37_cv/final_rules, main at b70a689),
with a budget of the chosen setting's network's weights on all rows (bench/issue36_budget/seed_count,
a first version), and with the budget as landed (bench/issue36_budget/real: the folds' mean, at least
that network's), per set: mean test and train accuracy, their gap, non-zero
weights, median relative gap, proven runs, median wall time; L1 logistic regression and STreeD from
the after run (the same splits).  Issue 36's lines: annc >= L1 - 1 and >= STreeD - 1, gap <= 3,
weights <= 1.2 x L1."""
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RUNS = {"before": ROOT / "issues36_37_cv/final_rules/runs.jsonl", "seed count": ROOT / "issue36_budget/seed_count/runs.jsonl",
        "after": ROOT / "issue36_budget/real/runs.jsonl"}


def load(path):
    out = defaultdict(list)
    for line in open(path):
        d = json.loads(line)
        out[(d["set"], d["method"])].append(d)
    return out


def mean(rows, key):
    v = [r[key] for r in rows if r.get(key) is not None]
    return 100 * float(np.mean(v)) if key.endswith("accuracy") else float(np.mean(v)) if v else float("nan")


if __name__ == "__main__":
    before, first, after = (load(p) for p in RUNS.values())
    sets = list(dict.fromkeys(s for s, _ in after))
    print("| set | before: test / train−test / weights | seed count | after | L1: test / weights "
          "| STreeD test | after: median gap / proven / median s | lines met after (L1−1, STreeD−1, gap≤3, w≤1.2 L1) |")
    print("|---|---|---|---|---|---|---|---|")
    met = np.zeros(4, int)
    for s in sets:
        b, f, a = before[(s, "default")], first[(s, "default")], after[(s, "default")]
        l1, st = after[(s, "logreg_l1")], after[(s, "streed3")]
        if not a:
            continue
        cols = []
        for rows in (b, f, a):
            t, tr, w = mean(rows, "test_accuracy"), mean(rows, "train_accuracy"), mean(rows, "nonzero_weights")
            cols.append(f"{t:.1f} / {tr - t:.1f} / {w:.1f}")
        t, tr, w = mean(a, "test_accuracy"), mean(a, "train_accuracy"), mean(a, "nonzero_weights")
        lt, lw, stt = mean(l1, "test_accuracy"), mean(l1, "nonzero_weights"), mean(st, "test_accuracy")
        lines = [t >= lt - 1, t >= stt - 1, tr - t <= 3, w <= 1.2 * lw]
        met += lines
        gaps = [r["gap"] for r in a if isinstance(r.get("gap"), (int, float))]
        proven = sum(r["status"] == "optimal" for r in a)
        secs = np.median([r["seconds"] for r in a])
        print(f"| {s} | {' | '.join(cols)} | {lt:.1f} / {lw:.1f} | {stt:.1f} | "
              f"{100 * np.median(gaps):.1f}% / {proven} of {len(a)} / {secs:.1f} | "
              + ", ".join("yes" if x else "no" for x in lines) + " |")
    print(f"\nlines met on {len(sets)} sets: L1−1 {met[0]}, STreeD−1 {met[1]}, gap≤3 {met[2]}, weights≤1.2 L1 {met[3]}")
