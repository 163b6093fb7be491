"""Where CBC comes from: the ``cbcbox`` package first (PuLP's ``pulp[cbc]``), PuLP's bundled
binary only while PuLP still ships it (deprecated since PuLP 3.3, gone in 4.0)."""
from __future__ import annotations

import os

import pytest

import annc.solve.solvers.cbc as cbc
from annc.core.errors import AnncError
from conftest import SPECS, run_cli


def test_cbc_comes_from_cbcbox():
    import cbcbox
    assert cbc.cbc_path() == os.path.realpath(cbcbox.cbc_bin_path())


@pytest.mark.slow  # over 20 s on a 2-core machine: pytest -m slow
def test_train_with_cbc_without_pulps_bundled_binary(monkeypatch, xor_csv, tmp_path):
    from pulp.apis.coin_api import PULP_CBC_CMD
    monkeypatch.setattr(PULP_CBC_CMD, "pulp_cbc_path", str(tmp_path / "no-such-cbc"), raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no cbc on PATH either
    assert cbc._pulp_bundled_path() == str(tmp_path / "no-such-cbc")
    code, out, err = run_cli("train", str(SPECS / "xor.ann"), str(xor_csv), "--solver", "cbc",
                             "--time-limit", "30", "-q", "-o", str(tmp_path / "out"))
    assert code == 0, err
    assert "verification          passed" in out
    first, status = out.split("summary:\n")[1].splitlines()[:2]
    assert first.startswith("  network: ") and "; proven optimal" in first and "optimal" in status
    assert (tmp_path / "out" / "xor.weights.json").is_file()


def test_without_cbcbox_pulps_bundled_binary_is_the_fallback(monkeypatch, tmp_path):
    monkeypatch.setattr(cbc, "_cbcbox_path", lambda: None)
    bundled = cbc._pulp_bundled_path()
    if bundled is not None and os.access(bundled, os.X_OK):  # PuLP < 4.0
        assert cbc.cbc_path() == os.path.realpath(bundled)
    monkeypatch.setattr(cbc, "_pulp_bundled_path", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(AnncError, match=r'pip install "pulp\[cbc\]"'):
        cbc.cbc_path()
