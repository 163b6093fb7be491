"""Class weights on an imbalanced set: balanced accuracy on ``default`` (ISLR, 3.3% positives),
subsampled to 2,000 rows (stratified, seed 0), one stratified 75/25 split, annc's bench spec with
and without ``class_weight="balanced"`` (30 s limit, 1 thread) against L1 logistic regression
(liblinear, ``class_weight="balanced"``, standardised numbers, one-hot text).

    python bench/run.py class_weights            # annc without and with balanced weights
    python -m bench.suites.class_weights balanced  # only the balanced run
"""
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, balanced_accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: bench.real
from bench.real.recipes import spec_text  # noqa: E402
from bench.real.sets import SETS  # noqa: E402

from annc.app.api import train_api  # noqa: E402


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    d, y = SETS["default"][0]()
    idx, _ = train_test_split(np.arange(len(y)), train_size=2000, stratify=y, random_state=0)
    d, y = d.iloc[idx].reset_index(drop=True), y[idx]
    tr, te = train_test_split(np.arange(len(y)), test_size=0.25, stratify=y, random_state=0)
    Xtr, Xte, ytr, yte = d.iloc[tr].reset_index(drop=True), d.iloc[te].reset_index(drop=True), y[tr], y[te]
    print(f"default subsample: {len(y)} rows, {y.mean():.3%} positives; train {len(ytr)} ({ytr.sum()} pos), "
          f"test {len(yte)} ({yte.sum()} pos)")

    def line(name, ptr, pte, extra=""):
        print(f"{name:32s} train acc {accuracy_score(ytr, ptr):.4f} bal {balanced_accuracy_score(ytr, ptr):.4f} | "
              f"test acc {accuracy_score(yte, pte):.4f} bal {balanced_accuracy_score(yte, pte):.4f} {extra}", flush=True)

    text = [c for c in Xtr.columns if Xtr[c].dtype == object]
    num = [c for c in Xtr.columns if c not in text]
    lr = make_pipeline(ColumnTransformer([("n", StandardScaler(), num), ("t", OneHotEncoder(), text)]),
                       LogisticRegression(penalty="l1", solver="liblinear", class_weight="balanced"))
    lr.fit(Xtr, ytr)
    coef = int(np.count_nonzero(lr[-1].coef_))
    line("L1 logreg balanced", lr.predict(Xtr), lr.predict(Xte), f"non-zero coef {coef}")

    spec = spec_text(4, 4, 2)  # the bench's default spec: 4 inputs once one-hot encoded, hidden 4 binary
    for cw in [None, "balanced"] if not argv else [None if a == "none" else a for a in argv]:
        t0 = time.time()
        r = train_api(spec, (Xtr, ytr), (Xte, yte), time_limit=30, threads=1, class_weight=cw)
        net = r.network
        line(f"annc class_weight={cw}", net.predict_index(Xtr), net.predict_index(Xte),
             f"weights {net.nonzero_weights()} status {r.status.value} objective {r.verdict.objective:.4g} "
             f"{time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
