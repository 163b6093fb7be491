"""Output folders, atomic artifacts, what a failed run leaves, and the checks of options
and Python API arguments (issue 10, items 3, 5 and 7).

Every failure here must be one of annc's own errors with its documented exit code, and
leave exactly the files the rules say: nothing, or (a failed solve) the model and its map.
"""
import math
import os
import re
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import SPECS, run_cli, assert_names

import annc
from annc.io import outputs
from annc.io.datasets import write_csv, xor_data
from annc.core.errors import AnncError, DataError, NoSolutionError, OutputError, UsageError
from annc.solve.solvers.cbc import cbc_path

SAMPLE = SPECS / "xor_sample.csv"
INFEASIBLE = "input 5\noutput 2\nweights [0, 0]\nbias [0, 0]\nloss nll\n"  # the outputs tie: no solution


def files(folder: Path) -> set[str]:
    """Every file below ``folder``, hidden ones included (relative names)."""
    return {str(p.relative_to(folder)) for p in Path(folder).rglob("*") if p.is_file()} if folder.exists() else set()


def no_temps(folder: Path) -> bool:
    return not any("annc-tmp" in f or f.endswith(".tmp") for f in files(folder))


@pytest.fixture
def regular_file(tmp_path):
    path = tmp_path / "file"
    path.write_text("not a folder\n")
    return path


@pytest.fixture
def unwritable(monkeypatch, tmp_path):
    """``tmp_path / 'ro'``, a folder that annc must see as not writable (tests run as root,
    where chmod does not stop writing: ``os.access`` is what annc asks)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    real = os.access

    def access(path, mode, *a, **k):
        if Path(path) == folder and mode & os.W_OK:
            return False
        return real(path, mode, *a, **k)

    monkeypatch.setattr(outputs.os, "access", access)
    return folder


# -- annc data xor -----------------------------------------------------------------------
@pytest.mark.parametrize("option,value,words", [
    ("--n", "-5", "--n (samples) -5 is out of range"),
    ("--n", "0", "--n (samples) 0 is out of range"),
    ("--n", "9" * 400, "(400 digits) is out of range"),
    ("--noise", "2", "--noise 2 is out of range"),
    ("--noise", "nan", "--noise nan is out of range"),
    ("--seed", "-1", "--seed -1 is out of range"),
])
def test_data_refuses_bad_options(tmp_path, option, value, words):
    code, out, err = run_cli("data", "xor", option, value, "-o", tmp_path / "x.csv")
    assert code == 2 and words in err, err
    assert files(tmp_path) == set()


def test_data_creates_a_missing_folder_like_compile(tmp_path):
    target = tmp_path / "no" / "such" / "x.csv"
    code, out, err = run_cli("data", "xor", "--n", "7", "-o", target)
    assert code == 0, err
    assert files(tmp_path) == {"no/such/x.csv"}
    assert len(target.read_text().splitlines()) == 8


def test_data_refuses_a_folder_or_a_file_as_folder(tmp_path, regular_file):
    code, _, err = run_cli("data", "xor", "-o", tmp_path)
    assert code == 2
    assert_names(err, "folder", "file")
    code, _, err = run_cli("data", "xor", "-o", regular_file / "x.csv")
    assert code == 2
    assert_names(err, str(regular_file / "x.csv"), "not a folder")
    assert files(tmp_path) == {"file"}


def test_data_refuses_an_unwritable_folder(unwritable):
    code, _, err = run_cli("data", "xor", "-o", unwritable / "x.csv")
    assert code == 2 and "is not writable" in err and str(unwritable) in err
    assert files(unwritable) == set()


# -- output folders of compile and train --------------------------------------------------
COMMANDS = {
    "compile": lambda out: run_cli("compile", "--no-start", SPECS / "xor.ann", SAMPLE, "-o", out),
    "train": lambda out: run_cli("train", SPECS / "xor.ann", SAMPLE, "-q", "--no-warm-start", "-o", out),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_output_folder_that_is_a_file(command, tmp_path, regular_file):
    code, out, err = COMMANDS[command](regular_file)
    assert code == 2
    assert_names(err, f"output folder {regular_file}", "not a folder")
    code, out, err = COMMANDS[command](regular_file / "sub")
    assert code == 2 and f"cannot create output folder {regular_file / 'sub'}" in err, err
    assert "internal error" not in err and files(tmp_path) == {"file"}


@pytest.mark.parametrize("command", COMMANDS)
def test_output_folder_that_is_not_writable(command, unwritable):
    code, out, err = COMMANDS[command](unwritable)
    assert code == 2
    assert_names(err, f"output folder {unwritable}", "not writable")
    code, out, err = COMMANDS[command](unwritable / "new")
    assert code == 2 and f"cannot create output folder {unwritable / 'new'}" in err, err
    assert files(unwritable) == set() and not (unwritable / "new").exists()


def test_prepare_out_dir_is_the_helper_for_other_commands(tmp_path, regular_file):
    assert outputs.prepare_out_dir(tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert (tmp_path / "a" / "b").is_dir()
    with pytest.raises(OutputError, match="not a folder"):
        outputs.prepare_out_dir(regular_file / "x")
    with pytest.raises(UsageError, match="must be a path"):
        outputs.check_out_dir(3)


# -- train checks everything before writing anything ------------------------------------
def test_train_checks_the_test_csv_before_writing(tmp_path):
    wide = tmp_path / "wide.csv"
    wide.write_text("a,b,label\n1,2,0\n1,0,1\n")
    out = tmp_path / "out"
    code, stdout, err = run_cli("train", SPECS / "xor.ann", SAMPLE, "--test", wide, "-o", out, "-q")
    assert code == 2 and "wide.csv: missing columns 'x1'" in err and "extra columns 'a', 'b'" in err, err
    assert not out.exists() and "solving" not in stdout


@pytest.mark.parametrize("option,value,words", [
    ("--threads", "1000000", "threads 1000000 is out of range: give 1 to 1024"),
    ("--threads", "0", "threads 0 is out of range"),
    ("--time-limit", "nan", "time limit nan is out of range"),
    ("--time-limit", "inf", "time limit inf is out of range"),
    ("--time-limit", "-1", "time limit -1 is out of range"),
    ("--gap", "nan", "gap nan is out of range"),
    ("--gap", "-1", "gap -1 is out of range"),
    ("--gap", "2", "gap 2 is out of range"),
])
def test_train_refuses_bad_options_before_writing(tmp_path, option, value, words):
    out = tmp_path / "out"
    code, stdout, err = run_cli("train", SPECS / "xor.ann", SAMPLE, option, value, "-o", out, "-q")
    assert code == 2 and words in err, err
    assert "time limit" not in err or option == "--time-limit"  # no misleading second message
    assert not out.exists() and "solving" not in stdout


def test_solver_cmd_template_is_checked_before_writing(tmp_path):
    out = tmp_path / "out"
    code, _, err = run_cli("train", SPECS / "xor.ann", SAMPLE, "--solver-cmd", "cbc {model}", "-o", out)
    assert code == 2 and "needs both {model} and {sol}" in err and not out.exists()


# -- what a failed run leaves ----------------------------------------------------------------
def test_failed_solve_keeps_the_model_and_its_map_only(tmp_path):
    spec = tmp_path / "zero.ann"
    spec.write_text(INFEASIBLE)
    out = tmp_path / "out"
    code, stdout, err = run_cli("train", spec, SAMPLE, "--solver", "cbc", "-o", out, "-q")
    assert code == 3, stdout + err
    assert "the MIP is infeasible" in err
    assert f"kept the model and its map for another solver: {out / 'zero.mps'}, {out / 'zero.map.json'}" in err
    assert files(out) == {"zero.mps", "zero.map.json"}  # not CBC's solution file
    # valid artifacts: another solver takes them as they are
    code, _, err = run_cli("compile", "--no-start", spec, SAMPLE, "-o", tmp_path / "again")
    assert code == 0 and (tmp_path / "again" / "zero.mps").read_bytes() == (out / "zero.mps").read_bytes()


def test_failed_greedy_layer_keeps_only_that_layers_model_map_and_inputs(tmp_path):
    script = tmp_path / "solver.sh"  # CBC, except that the second layer's MIP is "infeasible"
    script.write_text(f'#!/bin/bash\ncase "$1" in\n  *layer1*) echo "Infeasible - objective value 0" > "$2";;\n'
                      f'  *) "{cbc_path()}" "$1" -solve -solu "$2";;\nesac\n')
    script.chmod(0o755)
    out = tmp_path / "out"
    code, stdout, err = run_cli("train", SPECS / "xor_greedy.ann", SAMPLE, "-o", out,  # no -q: layer 0's log
                                "--solver-cmd", f"{script} {{model}} {{sol}}")
    assert code == 3, stdout + err
    assert "[xor_greedy.layer0]" in stdout
    assert_names(err, "[xor_greedy.layer1] cmd: ", "infeasible")
    assert files(out) == {"xor_greedy.layer1.csv", "xor_greedy.layer1.mps", "xor_greedy.layer1.map.json"}


def test_verification_failure_writes_no_weights(tmp_path):
    h = annc.compile(SPECS / "xor.ann", SAMPLE, start=False).model.col_names().index("h0_0_0")  # a binary column
    bogus = tmp_path / "bogus.sol"
    bogus.write_text("Optimal - objective value 0.00000000\n"
                     f"{h:7d} h0_0_0                0.5                       0\n")
    script = tmp_path / "fake.sh"
    script.write_text(f'#!/bin/bash\ncp "{bogus}" "$2"\n')
    script.chmod(0o755)
    out = tmp_path / "out"
    code, stdout, err = run_cli("train", SPECS / "xor.ann", SAMPLE, "-o", out, "-q",
                                "--solver-cmd", f"{script} {{model}} {{sol}}")
    assert code == 4, stdout + err
    assert "no weights written" in stdout
    assert files(out) == {"xor.mps", "xor.map.json"}


def test_other_failures_during_a_run_leave_nothing(tmp_path):
    out = tmp_path / "out"
    code, stdout, err = run_cli("train", SPECS / "xor.ann", SAMPLE, "-o", out, "-q",
                                "--solver-cmd", "false {model} {sol}")
    assert code == 2 and "failed with exit code 1" in err, err
    assert files(out) == set()


# -- atomic artifacts and temporary files ---------------------------------------------------
def dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_stale_temporary_files_are_removed_by_the_next_write(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    stale = [out / f".annc-tmp-{dead_pid()}-0123abcd.xor.mps",  # SIGKILLed run
             out / f".xor.mps.{dead_pid()}.89abcdef.tmp"]  # older annc versions
    old = out / f".annc-tmp-{os.getpid()}-0badf00d.xor.map.json"  # a live pid, but long untouched
    live = out / f".annc-tmp-{os.getpid()}-00c0ffee.other.mps"  # being written right now
    others = [out / ".annc-tmp-notes.txt", out / ".keep", out / "xor.tmp.txt"]
    fresh_dead = out / f".annc-tmp-{dead_pid()}-feedf00d.xor.mps"  # its writer may be alive elsewhere
    for p in stale + [old, live, fresh_dead] + others:
        p.write_text("x" * 1000)
    for p in stale:  # a while ago, as from a killed run
        then = time.time() - outputs.DEAD_AFTER - 60
        os.utime(p, (then, then))
    then = time.time() - outputs.STALE_AFTER - 60
    os.utime(old, (then, then))
    soon = time.time() + 3600  # "just written", however slow this machine is
    os.utime(fresh_dead, (soon, soon))
    code, _, err = run_cli("compile", "--no-start", SPECS / "xor.ann", SAMPLE, "-o", out)
    assert code == 0, err
    assert files(out) == {"xor.mps", "xor.map.json", live.name, fresh_dead.name} | {p.name for p in others}


def test_temporary_names_are_recognisable(tmp_path, monkeypatch):
    from annc.io.writers import mps as mpsw
    seen = []
    real = mpsw.write_mps

    def spy(model, fh, **kw):
        seen.extend(p.name for p in tmp_path.iterdir())
        real(model, fh, **kw)

    monkeypatch.setattr(mpsw, "write_mps", spy)
    annc.compile(SPECS / "xor.ann", SAMPLE, out_dir=tmp_path, start=False)
    assert seen and all(re.fullmatch(rf"\.annc-tmp-{os.getpid()}-[0-9a-f]{{8}}\..*xor\.mps", n) for n in seen), seen
    assert files(tmp_path) == {"xor.mps", "xor.map.json"}


def test_model_and_map_appear_together_or_not_at_all(tmp_path, monkeypatch):
    real = os.replace

    def replace(src, dst):
        if str(dst).endswith(".map.json"):
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(outputs.os, "replace", replace)
    out = tmp_path / "out"
    code, _, err = run_cli("compile", "--no-start", SPECS / "xor.ann", SAMPLE, "-o", out)
    assert code == 2
    assert_names(err, str(out / "xor.map.json"), "No space left on device")
    assert files(out) == set()


def test_a_failing_writer_leaves_neither(tmp_path, monkeypatch):
    from annc.io.writers import mps as mpsw

    def broken(model, fh, **kw):
        fh.write("NAME half\n")
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(mpsw, "write_mps", broken)
    code, _, err = run_cli("compile", "--no-start", SPECS / "xor.ann", SAMPLE, "-o", tmp_path)
    assert code == 2 and "Input/output error" in err and "xor.mps" in err, err
    assert files(tmp_path) == set()


# -- the Python API --------------------------------------------------------------------------
X24, Y24 = xor_data(24, noise=0.1, seed=1)


@pytest.mark.parametrize("kw,error,words", [
    (dict(fmt="bogus"), UsageError, "unknown model format 'bogus'"),
    (dict(writer="bogus"), UsageError, "unknown writer 'bogus'"),
    (dict(name="../escape"), UsageError, "cannot name a file inside the output folder"),
    (dict(name="a/b"), UsageError, "cannot name a file"),
    (dict(name=".."), UsageError, "cannot name a file"),
    (dict(name=3), UsageError, "name must be text"),
    (dict(gzip="yes"), UsageError, "gzip must be True or False"),
    (dict(label=5), UsageError, "label must be a column name"),
    (dict(max_nonzeros=0), UsageError, "max_nonzeros"),
    (dict(spec=42), UsageError, "spec must be a NetworkSpec"),
    (dict(data=[X24, Y24]), UsageError, "data must be a Dataset, a CSV path or a pair"),
    (dict(data=(X24[None], Y24)), DataError, "X must be 2-D"),
    (dict(data=(X24[:0], Y24[:0])), DataError, "X has no samples"),
    (dict(data=(X24.astype(str).astype(object) + "z", Y24)), DataError, "X must be a 2-D array of numbers"),
    (dict(data=(X24, np.full(24, 1))), DataError, "training needs at least two classes"),
])
def test_compile_api_bad_arguments(tmp_path, kw, error, words):
    args = {"spec": SPECS / "xor.ann", "data": (X24, Y24), "out_dir": tmp_path / "out", **kw}
    with pytest.raises(error, match=re.escape(words)):
        annc.compile(args.pop("spec"), args.pop("data"), **args)
    assert files(tmp_path) == set()


def test_compile_api_out_dir_that_is_a_file(tmp_path, regular_file):
    with pytest.raises(OutputError, match="not a folder"):
        annc.compile(SPECS / "xor.ann", (X24, Y24), out_dir=regular_file)
    assert files(tmp_path) == {"file"}


def test_compile_api_writes_data_model_and_map_together(tmp_path):
    c = annc.compile(SPECS / "xor.ann", (X24, Y24), out_dir=tmp_path, name="mine", start=False)
    assert files(tmp_path) == {"mine.data.csv", "mine.mps", "mine.map.json"}
    assert c.varmap["data"]["file"] == str((tmp_path / "mine.data.csv").resolve())


@pytest.mark.parametrize("kw,words", [
    (dict(time_limit=-1), "time limit -1 is out of range"),
    (dict(time_limit=math.nan), "time limit nan is out of range"),
    (dict(time_limit="60"), "time limit (time_limit / --time-limit) must be a number"),
    (dict(gap=-1), "gap -1 is out of range"),
    (dict(threads=0), "threads 0 is out of range"),
    (dict(threads=1_000_000), "threads 1000000 is out of range"),
    (dict(threads=2.5), "must be a whole number"),
    (dict(solver="bogus"), "unknown solver 'bogus'"),
    (dict(solver=3), "solver must be a solver's name"),
    (dict(solver_cmd="cbc {model}"), "needs both {model} and {sol}"),
    (dict(solver="cbc", solver_cmd="x {model} {sol}"), "not both"),
    (dict(name="../escape"), "cannot name a file inside the output folder"),
    (dict(name=""), "cannot name a file inside the output folder"),
    (dict(progress=5), "progress must be a callable"),
    (dict(greedy="yes"), "greedy must be True or False"),
])
def test_train_api_bad_arguments(tmp_path, kw, words):
    with pytest.raises(UsageError, match=re.escape(words)):
        annc.train(SPECS / "xor.ann", (X24, Y24), out_dir=tmp_path / "out", **kw)
    assert files(tmp_path) == set()


def test_train_api_test_arrays_of_another_width(tmp_path):
    with pytest.raises(DataError, match="has 3 feature columns"):
        annc.train(SPECS / "xor.ann", (X24, Y24), test=(X24[:, :3], Y24), out_dir=tmp_path / "out")
    assert files(tmp_path) == set()


def test_train_api_no_solution_keeps_model_and_map(tmp_path):
    with pytest.raises(NoSolutionError, match="kept the model and its map") as e:
        annc.train(INFEASIBLE, (X24, Y24), out_dir=tmp_path, name="zero", warm_start=False)
    assert e.value.exit_code == 3
    assert files(tmp_path) == {"zero.csv", "zero.mps", "zero.map.json"}  # the map names the CSV


def test_api_errors_are_anncs_own():
    for bad in (lambda: annc.compile(SPECS / "xor.ann", (X24, Y24), fmt="bogus"),
                lambda: annc.train(SPECS / "xor.ann", (X24, Y24), time_limit=-1)):
        with pytest.raises(AnncError) as e:
            bad()
        assert not isinstance(e.value, (TypeError, ValueError, IndexError, OSError))


def test_write_csv_is_atomic(tmp_path):
    X, y = xor_data(5, seed=0)
    path = write_csv(tmp_path / "deep" / "x.csv", X, y)
    assert files(tmp_path) == {"deep/x.csv"} and path.read_text().startswith("x1,x2,x3,x4,x5,label")


def test_api_misspelt_keyword_names_the_right_one():
    with pytest.raises(UsageError, match="'time_limt'.*'time_limit'"):
        annc.train(SPECS / "xor.ann", (X24, Y24), time_limt=3)
    with pytest.raises(UsageError, match="unknown keyword 'out'"):
        annc.compile(SPECS / "xor.ann", (X24, Y24), out="x")
