"""One MIP, one-vs-one ensembles and batch training on a synthetic 10-class set, against
scikit-learn's MLP of the same width.

Data: ``make_classification(n_samples=6000, n_features=20, n_informative=10,
n_redundant=5, n_classes=10, n_clusters_per_class=1, class_sep=1.5, random_state=seed)``,
one draw per seed; the training rows are the first ``rows_per_class`` of each class (BeMi's
few-shot protocols: 10 and 40 rows per class; ``large``: 200 rows per class, 2,000 rows),
the test rows are 1,000 others (stratified).  Every method sees the raw features (annc
scales them itself, min-max fitted on the training rows; the MLP gets the same min-max).

Methods, each with one hidden layer of ``H = 4`` units (BeMi's members have [4, 4]):

  mip      one MIP of the whole 10-class network, the spec as written (``trainer.train``: no
           model selection), ``--mip-time-limit`` seconds;
  annc     what ``annc train SPEC DATA --time-limit S`` does with it (``annc.app.api.train_api``:
           model selection by cross-validation where it applies, then the chosen setting's
           training), ``--mip-time-limit`` seconds for the whole run;
  ovo      45 pair MIPs of the same spec with 2 outputs, ``--time-limit`` seconds for the whole
           ensemble (as ``annc train --ensemble ovo --time-limit S``: each pair MIP gets its
           slot of what is left; the run of 2026-11-23 gave each pair its own 3 s),
           on ``--workers`` Dask worker processes, combined by vote;
  batches  ``K`` batch MIPs (K = rows / 100, at least 2), ``--time-limit`` seconds for them all,
           validation-weighted average or best batch (a heuristic);
  mlp      ``MLPClassifier(hidden_layer_sizes=(4,), max_iter=5000, random_state=seed)``;
  mlp_best5  the best of 5 such MLPs (seeds ``100 seed + r``, r < 5) by training accuracy:
           width 4 is unstable under SGD (some seeds stall near chance), so this is the
           fairer single-MLP baseline;
  mlp_ovo  45 one-vs-one MLPs of width 4 (``OneVsOneClassifier``): the same decomposition
           with SGD instead of MIPs.

Per run: test accuracy, train accuracy, non-zero weights (|w| > 1e-9, biases not
counted), status (annc's verdict) and wall time.  One JSON line per run in
``<out>/runs.jsonl`` (resumable); ``<out>/summary.md`` has the table.  ``--speedup`` also
times ovo on the 10-per-class protocol with 1 and 2 workers (same seed).

    python bench/run.py decomposition [--protocols 10,40,large] [--seeds 5] [--time-limit 90]
                                  [--mip-time-limit 30] [--workers 2]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
import warnings
from datetime import date
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.multiclass import OneVsOneClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import MinMaxScaler

from annc.app.api import train_api
from annc.io.data import Dataset, array_digest
from annc.training.context import RunContext
from annc.training.decompose.decomposition import Decomposition, train_batches, train_ovo
from annc.core.errors import AnncError
from annc.solve.solvers import SolveOptions
from annc.io.spec import parse_spec
from annc.training.trainer import train

H = 4
CLASSES = 10
FEATURES = 20
PROTOCOLS = {"10": 10, "40": 40, "large": 200}
SPEC = f"input {FEATURES}\nhidden {H} binary\noutput {CLASSES}\n"  # the default recipe


def split(seed: int, per_class: int):
    X, y = make_classification(n_samples=6000, n_features=FEATURES, n_informative=10, n_redundant=5,
                               n_classes=CLASSES, n_clusters_per_class=1, class_sep=1.5, random_state=seed)
    train_rows = np.concatenate([np.flatnonzero(y == c)[:per_class] for c in range(CLASSES)])
    rest = np.setdiff1d(np.arange(len(y)), train_rows)
    test_rows = np.concatenate([np.flatnonzero(y[rest] == c)[:100] for c in range(CLASSES)])
    test_rows = rest[test_rows]
    return X[train_rows], y[train_rows], X[test_rows], y[test_rows]


def dataset(X, y, name):
    X = np.ascontiguousarray(X, dtype=float)
    y = np.asarray(y, dtype=int)
    return Dataset(X, y, list(range(CLASSES)), [f"f{i}" for i in range(FEATURES)], "y", name, array_digest(X, y))


def mlp_nonzero(m) -> int:
    return int(sum(np.count_nonzero(np.abs(c) > 1e-9) for c in m.coefs_))


def run(method, seed, protocol, a):
    Xtr, ytr, Xte, yte = split(seed, PROTOCOLS[protocol])
    spec = parse_spec(SPEC, "<bench>")
    rec = {"protocol": protocol, "seed": seed, "method": method, "rows": int(len(ytr)), "H": H}
    t0 = time.perf_counter()
    try:
        if method in ("mlp", "mlp_best5", "mlp_ovo"):
            sc = MinMaxScaler().fit(Xtr)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                base = MLPClassifier(hidden_layer_sizes=(H,), max_iter=5000, random_state=seed)
                if method == "mlp_best5":
                    fits = [MLPClassifier(hidden_layer_sizes=(H,), max_iter=5000, random_state=100 * seed + r)
                            .fit(sc.transform(Xtr), ytr) for r in range(5)]
                    m = max(fits, key=lambda f: f.score(sc.transform(Xtr), ytr))  # first best on ties
                else:
                    m = (OneVsOneClassifier(base) if method == "mlp_ovo" else base).fit(sc.transform(Xtr), ytr)
            rec.update(test_accuracy=float(np.mean(m.predict(sc.transform(Xte)) == yte)),
                       train_accuracy=float(np.mean(m.predict(sc.transform(Xtr)) == ytr)),
                       nonzero_weights=(sum(mlp_nonzero(e) for e in m.estimators_) if method == "mlp_ovo"
                                        else mlp_nonzero(m)), status="trained")
        else:
            data, test = dataset(Xtr, ytr, f"<{protocol} seed {seed}>"), dataset(Xte, yte, "<test>")
            if method == "annc":
                r = train_api(SPEC, (Xtr, ytr), test=(Xte, yte), time_limit=a.mip_time_limit, threads=1,
                              out_dir=None)
            elif method == "mip":
                r = train(spec, data, test=test, opts=SolveOptions(time_limit=a.mip_time_limit, threads=1),
                          out_dir=None)
            elif method == "ovo":
                how = RunContext.create(options=SolveOptions(time_limit=a.time_limit, threads=1))
                r = train_ovo(spec, data, Decomposition(train, how, test=test, workers=a.workers))
            else:
                K = max(2, len(ytr) // 100)
                how = RunContext.create(options=SolveOptions(time_limit=a.time_limit, threads=1))
                r = train_batches(spec, data, Decomposition(train, how, test=test, workers=a.workers), K, seed=seed)
                rec["K"] = K
            rec.update(test_accuracy=r.test_accuracy, train_accuracy=r.train_accuracy,
                       nonzero_weights=r.network.nonzero_weights(), status=r.status.value)
    except AnncError as e:
        rec.update(status="error", error=str(e)[:300])
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    return rec


def summary(out: Path, a) -> None:
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines() if line.strip()]
    lines = [f"# Decomposition benchmark: one MIP, ovo, batches vs. MLP (10 classes, H = {H})", "",
             f"{date.today()}, {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
             "HiGHS, one thread per MIP. Accuracy in % over seeds (mean +- std).", "",
             "Command: `" + " ".join(a.argv) + "`", "",
             "| protocol | rows | method | test acc. % | train acc. % | non-zero weights | statuses | median time (s) |",
             "|---|---|---|---|---|---|---|---|"]
    order = ["annc", "mip", "ovo", "batches", "mlp", "mlp_best5", "mlp_ovo"]
    for protocol in PROTOCOLS:
        for method in order:
            rs = [r for r in runs if r["protocol"] == protocol and r["method"] == method and "speedup" not in r]
            if not rs:
                continue
            acc = [100 * r["test_accuracy"] for r in rs if r.get("test_accuracy") is not None]
            tr = [100 * r["train_accuracy"] for r in rs if r.get("train_accuracy") is not None]
            nz = [r["nonzero_weights"] for r in rs if r.get("nonzero_weights") is not None]
            st = {}
            for r in rs:
                st[r["status"]] = st.get(r["status"], 0) + 1

            def ms(v):
                return "-" if not v else f"{statistics.mean(v):.1f} +- {statistics.pstdev(v):.1f}"
            nzs = f"{statistics.mean(nz):.0f}" if nz else "-"
            sts = ", ".join(f"{k} {v}" for k, v in sorted(st.items()))
            lines.append(f"| {protocol} | {rs[0]['rows']} | {method} | {ms(acc)} ({len(acc)} seeds) | {ms(tr)} | "
                         f"{nzs} | {sts} | {statistics.median(r['seconds'] for r in rs):.1f} |")
    sp = [r for r in runs if "speedup" in r]
    if sp:
        lines += ["", "ovo wall time on the 10-per-class protocol, seed 0, by number of Dask workers:", ""]
        lines += [f"- {r['workers']} worker(s): {r['seconds']:.1f} s" for r in sorted(sp, key=lambda r: r["workers"])]
    (out / "summary.md").write_text("\n".join(lines) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--protocols", default="40,10,large")
    p.add_argument("--methods", default="mlp,mlp_ovo,ovo,mip,batches")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--large-seeds", type=int, default=1)
    p.add_argument("--time-limit", type=float, default=90.0)  # ovo's and batches' whole run
    p.add_argument("--mip-time-limit", type=float, default=30.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--speedup", action="store_true")
    p.add_argument("--summary-only", action="store_true")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    a.argv = ["python", "bench/suites/decomposition.py", *(argv if argv is not None else __import__("sys").argv[1:])]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "runs.jsonl"
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                done.add((r["protocol"], r["seed"], r["method"], r.get("workers")))
    if not a.summary_only:
        for protocol in a.protocols.split(","):
            for seed in range(a.large_seeds if protocol == "large" else a.seeds):
                for method in a.methods.split(","):
                    if (protocol, seed, method, None) in done:
                        continue
                    rec = run(method, seed, protocol, a)
                    print(json.dumps(rec), flush=True)
                    with path.open("a") as f:
                        f.write(json.dumps(rec) + "\n")
        if a.speedup:
            for w in (1, 2):
                if ("10", 0, "ovo", w) in done:
                    continue
                rec = run("ovo", 0, "10", argparse.Namespace(**{**vars(a), "workers": w}))
                rec.update(speedup=True, workers=w)
                print(json.dumps(rec), flush=True)
                with path.open("a") as f:
                    f.write(json.dumps(rec) + "\n")
    summary(out, a)


if __name__ == "__main__":
    main()
