"""What L1 logistic regression with C chosen on 5 folds of each training part scores on the real
sets, beside annc's cross-validated run (bench/issue39/fold_anneal_all/real): the offline check that
motivated the logistic settings.  python bench/issue36_logistic/lrsim.py"""
import json, sys, numpy as np, warnings
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from realdata_sets import splits
from realdata_baselines import features
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_score
warnings.filterwarnings("ignore")
runs = [json.loads(l) for l in open(__import__("pathlib").Path(__file__).resolve().parents[1] / "issue39/fold_anneal_all/real/runs.jsonl")]
base = {}
for r in runs: base[(r["set"], r["split"], r["method"])] = r
sets = sorted({r["set"] for r in runs})
out = {}
for s in sets:
    if s == "fair": continue
    res = []
    for i, Xtr, ytr, Xte, yte in splits(s, 5):
        f = features(Xtr); A, B = f.transform(Xtr), f.transform(Xte)
        best = None
        for C in (0.01, 0.03, 0.1, 0.3, 1, 3, 10):
            lr = LogisticRegression(penalty="l1", solver="liblinear", C=C, max_iter=5000)
            m = OneVsRestClassifier(lr) if len(np.unique(ytr)) > 2 else lr
            cv = cross_val_score(m, A, ytr, cv=StratifiedKFold(5, shuffle=True, random_state=0)).mean()
            if best is None or cv > best[0] + 1e-9: best = (cv, C)
        cv, C = best
        lr = LogisticRegression(penalty="l1", solver="liblinear", C=C, max_iter=5000)
        m = OneVsRestClassifier(lr) if len(np.unique(ytr)) > 2 else lr
        m.fit(A, ytr); te = m.score(B, yte)
        a = base[(s, i, "default")]; l1 = base.get((s, i, "logreg_l1"))
        res.append((a["cv_estimate"] or 0, a["test_accuracy"], cv, te, C, l1["test_accuracy"] if l1 else np.nan))
        print(s, i, "annc cv %.3f test %.3f | LR cv %.3f test %.3f C %g | L1(C=1) test %.3f" % res[-1], flush=True)
    r = np.array(res)
    pick = np.where(r[:, 2] > r[:, 0], r[:, 3], r[:, 1])
    print(f"== {s}: annc {r[:,1].mean()*100:.1f}  LRcv {r[:,3].mean()*100:.1f}  L1C1 {np.nanmean(r[:,5])*100:.1f}  pick-by-cv {pick.mean()*100:.1f}", flush=True)
