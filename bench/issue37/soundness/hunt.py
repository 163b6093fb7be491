"""40 random MIPs (kind, width, l0 weight, eps) of tests/test_soundness.py, each run by HiGHS from annc's start
and by a random solver and stall setting: every bound below every network.  PYTHONPATH=<tree> python hunt.py"""
import sys, itertools, random, json
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / 'tests'))
import test_soundness as T
rng = random.Random(5)
n = 0
for trial in range(40):
    kind = rng.choice(sorted(T.KINDS)); width = rng.choice([1,2,3,4]); lam = rng.choice([0.1,0.25,0.5,1.0,2.0]); eps = rng.choice([0.001,0.01,0.05,0.1])
    runs = [{"time_limit": 2.0}, {"solver": rng.choice(T.AVAILABLE), "stall": rng.choice([True,1,False]), "warm_start": rng.random()<0.5, "time_limit": 3.0}]
    X, y = T.KINDS[kind]()
    try:
        b, o = T.bounds_and_objectives(T.spec_of(X, width, lam, eps), (X, y), runs)
        T.assert_sound(b, o)
        print(json.dumps({"ok": True, "kind": kind, "w": width, "lam": lam, "eps": eps, "maxb": max(x[0] for x in b), "minobj": min(x[0] for x in o)}), flush=True)
    except AssertionError as e:
        print("UNSOUND", kind, width, lam, eps, runs, e, flush=True)
    except Exception as e:
        print("ERROR", kind, width, lam, eps, runs, type(e).__name__, str(e)[:300], flush=True)
