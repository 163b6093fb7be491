"""An output code in fewer step units than classes (annc.training.warmstart.pool.outputcode): the output
layer decodes every activation pattern to the nearest word, the code's words are distinct, and a
logistic setting of eight classes in three units is that code and fits separable blobs."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from annc.training.warmstart.pool.outputcode import code_bits, code_layer, code_predict, output_code


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 9), st.integers(0, 2**31 - 1))
def test_the_output_layer_decodes_every_pattern_to_the_nearest_word(k, seed):
    """For any k distinct words of L bits and every one of the 2^L activation patterns, the argmax of
    code_layer's scores is the class of the nearest word (ties to the more frequent class), checked by
    brute force against the Hamming distances; the winner leads by at least 1 / (2k + 2)."""
    rng = np.random.default_rng(seed)
    bits = int(np.ceil(np.log2(k))) + int(rng.integers(0, 3))
    words = rng.choice(2 ** bits, size=k, replace=False)
    code = ((words[:, None] >> np.arange(bits)) & 1).astype(int)
    order = [int(c) for c in rng.permutation(k + 1)[:k]]  # one class of k + 1 never named
    Wo, bo = code_layer(code, order, k + 1)
    H = ((np.arange(2 ** bits)[:, None] >> np.arange(bits)) & 1).astype(float)
    scores = H @ Wo + bo
    distance = np.abs(H[:, None, :] - code[None]).sum(axis=2)
    nearest = [order[int(np.flatnonzero(row == row.min())[0])] for row in distance]
    assert np.array_equal(np.argmax(scores, axis=1), nearest)
    assert np.array_equal(code_predict(H, code, order), nearest)
    top2 = np.sort(scores, axis=1)[:, -2:]
    assert np.all(top2[:, 1] - top2[:, 0] >= 1 / (2 * k + 2) - 1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 12), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_the_code_gives_every_class_its_own_word(k, d, seed):
    """output_code on any data: a 0/1 word per class, all distinct, no bit constant over the classes,
    at most code_bits(k, units) bits for any layer that holds ceil(log2 k)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(20 * k, d))
    y = np.repeat(np.arange(k), 20)
    bits = code_bits(k, int(np.ceil(np.log2(k))) + int(rng.integers(0, 4)))
    code = output_code(X, y, list(range(k)), bits)
    assert code.shape[0] == k and 1 <= code.shape[1] <= bits
    assert set(np.unique(code)) <= {0, 1}
    assert len({tuple(w) for w in code}) == k
    assert np.all(code.min(axis=0) != code.max(axis=0))


def test_the_bits_an_output_code_takes():
    """ceil(log2 k) units at least, up to two more where the layer holds them, none where it holds fewer."""
    assert code_bits(10, 3) is None
    assert code_bits(10, 4) == 4 and code_bits(10, 5) == 5 and code_bits(10, 9) == 6
    assert code_bits(5, 3) == 3 and code_bits(3, 1) is None


def test_an_eight_class_logistic_setting_in_three_units_is_an_output_code():
    """Eight well-separated classes at width 3 (neither the 28 pairwise units nor the 7 of a decision
    list fit): the folds' logistic setting has width 3, its network's output layer decodes the three
    units' patterns to the nearest of eight words, and it fits the blobs' rows as a whole."""
    from sklearn.datasets import make_blobs
    from annc.app.api import as_data
    from annc.io.spec import parse_spec
    from annc.solve.compiler import build
    from annc.training.modelselect.cvpath import spec_at
    from annc.training.modelselect.cvselect import plan_for
    from annc.training.warmstart.pool.linear import logistic_network
    centers = np.array([[x, y, z] for x in (-6, 6) for y in (-6, 6) for z in (-6, 6)], float)
    X, y = make_blobs(400, centers=centers, cluster_std=1.0, random_state=0)
    spec = parse_spec("input 3\nhidden 3 binary\noutput 8\n")
    plan = plan_for(spec, 400, 400, 0.1)
    s = next(s for s in plan.logistic if s.logistic == 1.0)
    assert s.width == 3
    problem = build(spec_at(spec, s), as_data((X, y))).problem
    (W1, W2), (b1, b2) = logistic_network(problem, 1.0)
    Xs, ys, w = problem.class_rows()
    H = (Xs @ W1 + b1 >= 0).astype(float)
    said = np.argmax(H @ W2 + b2, axis=1)
    assert np.average(said == ys, weights=w) >= 0.95
    assert len({tuple(h) for h in H}) == 8  # every pattern of the three units names a class
