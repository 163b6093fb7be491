"""Does a kept logistic separator predict what L1 logistic regression predicts?
``python bench/run.py separator_agreement gbsg2,whas500,breast_cancer,diabetes,star98``

For each set and each of its 5 splits (``bench/real/sets.py``) and C in 0.1, 1, 10: the fold's
network of the setting ``L1 logistic C`` (``annc.training.modelselect.kept.kept_point`` on all the
training rows, exported) against scikit-learn's L1 logistic regression (liblinear, the same C,
``random_state=0``) on the baselines' min-max scaled features: the test rows where the two predict
different classes, and the network's correct test rows less the regression's."""
import sys, numpy as np, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))  # the repository root: bench.real
from bench.real.sets import splits
from bench.real.recipes import spec_text
from bench.real.baselines import features
from annc.app.api import as_data, as_spec
from annc.training.modelselect.settings import Setting, spec_at
from annc.training.modelselect.kept import kept_point
from annc.solve.compiler import build
from annc.solve.decode import decode_network
from annc.training.context import RunContext
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
tot = {}
for name in sys.argv[1].split(","):
  for i, Xtr, ytr, Xte, yte in splits(name, 5):
    data = as_data((Xtr, ytr)); k = len(np.unique(ytr))
    spec = as_spec(spec_text(data.inputs, 4, k), data)
    f = features(Xtr)
    out = []
    for C in (0.1, 1.0, 10.0):
        s = Setting(width=1 if k == 2 else None, penalty=0.5, eps=spec.eps, logistic=C)
        c = build(spec_at(spec, s), data, name="fold", merge=True)
        x = kept_point(c, s, RunContext())
        if x is None: out.append("none"); continue
        net = decode_network(c.varmap, x).with_scaling(c.scaling)
        lr = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=C, max_iter=5000, random_state=0)
        lr = (OneVsRestClassifier(lr) if k > 2 else lr).fit(f.transform(Xtr), ytr)
        pa = np.asarray(net.predict(Xte)); pl = lr.predict(f.transform(Xte))
        d = int(np.sum(pa != pl)); ga = int(np.sum(pa == np.asarray(yte))) - int(np.sum(pl == np.asarray(yte)))
        tot[name] = tot.get(name, 0) + d
        out.append(f"C{C:g}: {d} diff, annc-lr rows {ga:+d}")
    print(name, i, " | ".join(out), flush=True)
print(tot)
