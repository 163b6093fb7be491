"""Property tests: annc on bad and odd input ends cleanly (see ``tests/fuzzing.py``).

CI runs a modest number of examples per target: ``EXAMPLES`` times ``ANNC_FUZZ_FRACTION``
(default 0.1, at least 2 each; set it to 1 for the full per-target counts);
``python bench/run.py fuzz`` runs thousands and records the tally under ``bench/results/``.
"""
import os

import pytest
from hypothesis import HealthCheck, given, settings

import fuzzing

EXAMPLES = {"spec": 60, "csv": 40, "solution": 40, "other-solution": 30, "map": 40, "weights": 30,
            "data": 25, "train": 8}
FRACTION = float(os.environ.get("ANNC_FUZZ_FRACTION", "0.1"))


def _property(name):
    strategy, runner = fuzzing.targets()[name]

    @settings(max_examples=max(2, round(EXAMPLES[name] * FRACTION)), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def prop(args):
        r, bad = runner(*args)
        assert bad is None, f"{bad}\nargs: {args!r}\nstdout: {r.out[-800:]}\nstderr: {r.err[-800:]}"
    return prop


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_every_outcome_is_documented_and_clean(name):
    _property(name)()


def test_the_harness_sees_success_on_valid_input():
    """The properties above would pass vacuously if every run failed early (say on an
    option the harness passes): valid inputs must succeed through the same runners."""
    b = fuzzing.base()
    spec = (fuzzing.SPECS / "xor.ann").read_text()
    for fmt in ("mps", "lp", "mps.gz"):
        r, bad = fuzzing.run_compile_spec(spec, fmt)
        assert (r.code, bad) == (0, None), r.err
    r, bad = fuzzing.run_compile_csv(((fuzzing.SPECS / "xor_sample.csv").read_text(), 5, 2))
    assert (r.code, bad) == (0, None), r.err
    for sol in b.solutions:
        r, bad = fuzzing.run_decode(sol.read_text(), sol.name)
        assert (r.code, bad) == (0, None), r.out + r.err
    import json
    r, bad = fuzzing.run_decode_map(json.loads(b.map.read_text()), search=True)
    assert (r.code, bad) == (0, None), r.out + r.err
    r, bad = fuzzing.run_eval(json.loads(b.weights.read_text()))
    assert (r.code, bad) == (0, None), r.err
    r, bad = fuzzing.run_data("10", "0.1", "3", "plain")
    assert (r.code, bad) == (0, None), r.err
    r, bad = fuzzing.run_train("output_only.ann", "30", "0", "1", "same")
    assert (r.code, bad) == (0, None), r.out + r.err
