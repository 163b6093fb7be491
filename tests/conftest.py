from pathlib import Path

import pytest

# annc's training modules (and scikit-learn, which they load) imported once per test process:
# a time limit counts from the command's start (annc.training.dispatch), so a test of a short
# limit must not spend it on the first import of a process (seconds on a busy machine)
import annc.training.dispatch  # noqa: F401,E402

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def _own_folder(tmp_path, monkeypatch):
    """Hermetic tests: every test runs in its own empty working folder, so nothing it reads
    or writes through a relative path (``out/``, a map search, a solver's log) depends
    on the checkout or on another test.  Use :data:`ROOT`, :data:`SPECS` and
    :data:`FIXTURES` for the project's files."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def xor_csv(tmp_path):
    """The paper's XOR data (80 samples, seed 0) as a CSV file."""
    from annc.io.datasets import write_csv, xor_data
    X, y = xor_data(80, noise=0.1, seed=0)
    return write_csv(tmp_path / "xor.csv", X, y)


def run_cli(*args):
    """Run ``annc`` in-process; return (exit code, stdout, stderr)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout
    from annc.app.cli import main
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def assert_names(message: str, *parts: str) -> None:
    """``message`` names every one of ``parts``: the key parts of an error (the file, row,
    column, option or number), not its sentence, so rewording a message fails no test."""
    missing = [p for p in parts if str(p) not in message]
    assert not missing, f"{missing} not named in: {message!r}"


def highs_read(path=None, lp=None) -> dict:
    """A model file read by HiGHS (or a ``HighsLp``) as arrays: names, bounds, integrality,
    objective, row bounds and the matrix ``A`` (CSR, explicit zeros dropped)."""
    import highspy
    import numpy as np
    import scipy.sparse as sp
    if lp is None:
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        assert h.readModel(str(path)) == highspy.HighsStatus.kOk, path
        lp = h.getLp()
    a = lp.a_matrix_
    assert a.format_ == highspy.MatrixFormat.kColwise
    A = sp.csc_matrix((np.array(a.value_), np.array(a.index_), np.array(a.start_)),
                      shape=(lp.num_row_, lp.num_col_))
    A.eliminate_zeros()  # an LP reader may keep the "0 x" term of an empty row
    return {
        "cols": list(lp.col_names_), "rows": list(lp.row_names_),
        "lb": np.array(lp.col_lower_), "ub": np.array(lp.col_upper_),
        "integer": np.array([int(t) for t in lp.integrality_], dtype=int) == 1
        if len(lp.integrality_) else np.zeros(lp.num_col_, bool),
        "obj": np.array(lp.col_cost_), "offset": lp.offset_, "sense": lp.sense_,
        "row_lo": np.array(lp.row_lower_), "row_up": np.array(lp.row_upper_), "A": A.tocsr(),
    }


def pytest_terminal_summary(terminalreporter, config):
    """The order the tests ran in (pytest-random-order, on by default: pyproject.toml's
    addopts), printed even under -q, which hides the plugin's header: a failure that
    depends on order is repeated with this seed."""
    seed = str(getattr(config.option, "random_order_seed", "") or "")
    if getattr(config.option, "random_order_enabled", False) and seed:
        terminalreporter.write_line(f"test order: --random-order-seed={seed.removeprefix('default:')}")
