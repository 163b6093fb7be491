"""CART against the optimal trees written as networks.
``python bench/run.py optimal_trees penguins,womenlf,carseats,mroz``

For each set, on its first split (``bench/real/sets.py``): the tree of depth 2 and 3 by each maker of
``annc.training.warmstart.pool.treemakers`` (CART; ConTree and STreeD where installed) on the
training rows, written as a network of one hidden layer of 7 step units (a unit per split:
``annc.training.warmstart.pool.trees.tree_network``, the exact output layer reading the splits), and
the network's training and test accuracy, its splits and the seconds the maker took (CPU)."""
import sys, time, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))  # the repository root: bench.real
import numpy as np
from bench.real.sets import splits
from annc.app.api import as_data
from annc.io.spec import parse_spec
from annc.solve.compiler import build
from annc.solve.decode import decode_network
from annc.training.warmstart.pool.candidates import network_start
from annc.training.warmstart.pool.treemakers import TREE_MAKERS, tree_makers
from annc.training.warmstart.pool.trees import splits as tree_splits, tree_network

WIDTH = 7  # a depth-3 tree's splits at most
print(f"{'set':10} {'maker':8} {'depth':>5} {'splits':>6} {'train %':>8} {'test %':>7} {'fit s':>6}")
for name in sys.argv[1].split(","):
    _, Xtr, ytr, Xte, yte = next(splits(name, 1))
    data = as_data((Xtr, ytr)); test = as_data((Xte, yte), like=data); k = len(data.classes)
    c = build(parse_spec(f"input {data.X.shape[1]}\nhidden {WIDTH} binary\noutput {k}\neps 0.001\n"), data, name="t")
    for source in tree_makers():
        for depth in (2, 3):
            t0 = time.process_time()
            found = tree_splits(c.problem, depth, WIDTH, source)
            took = time.process_time() - t0
            placed = None if found is None else tree_network(c.problem, depth, source)
            x = None if placed is None else network_start(c.model, c.problem, *placed, scale=False, refit=False)
            if x is None:
                print(f"{name:10} {TREE_MAKERS[source].name:8} {depth:5} {'-':>6} {'no tree':>8}")
                continue
            net = decode_network(c.varmap, x).with_scaling(c.scaling)
            tr = 100 * np.mean(net.predict_index(data.X) == data.y)
            te = 100 * np.mean(net.predict_index(test.X) == test.y)
            print(f"{name:10} {TREE_MAKERS[source].name:8} {depth:5} {len(found[0]):6} {tr:8.1f} {te:7.1f} {took:6.2f}",
                  flush=True)
