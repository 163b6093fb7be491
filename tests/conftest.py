from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def xor_csv(tmp_path):
    """The paper's XOR data (80 samples, seed 0) as a CSV file."""
    from annc.datasets import write_csv, xor_data
    X, y = xor_data(80, noise=0.1, seed=0)
    return write_csv(tmp_path / "xor.csv", X, y)


def run_cli(*args):
    """Run ``annc`` in-process; return (exit code, stdout, stderr)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout
    from annc.cli import main
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()
