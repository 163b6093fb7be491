"""The benchmark suite's machinery (``bench/run.py``, ``bench/registry.py``, ``bench/results.py``,
``bench/render.py``, ``bench/real/render.py``), never its figures: no test here times anything.

The docs generator runs on a small results folder made here and writes the page's tables and the
README's block between its markers; the real README has those markers; the entry point runs the
``real`` suite's fastest method into the results layout with its header; the registry's scripts
exist; and no path under ``bench/`` is named after a work item.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from bench import render, results as layout  # noqa: E402
from bench.registry import SUITES  # noqa: E402
from bench.run import main as run_main, suite_args  # noqa: E402

WORK_ITEM = re.compile(r"issues?[_-]?\d", re.IGNORECASE)


def _rows(set_name, method, test, weights, seconds, n=2, **extra):
    return [{"set": set_name, "split": i, "method": method, "H": 4, "time_limit": 30.0, "status": "feasible",
             "seconds": seconds + i, "test_accuracy": test, "train_accuracy": test + 0.02,
             "nonzero_weights": weights, **extra} for i in range(n)]


def _write(folder, rows=None, header=None, files=None):
    folder.mkdir(parents=True)
    if rows is not None:
        (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    layout.write_header(folder, **(header or {}))


@pytest.fixture
def small_results(tmp_path):
    res = tmp_path / "results"
    machine = {"platform": "Linux-test", "processor": "x86_64", "cpus": 2, "memory_gb": 24.0, "python": "3.11.7"}
    # an older run with annc and the baselines, then a newer run of annc alone
    _write(res / "2026-01-01_aaaaaaa" / "real",
           _rows("moons", "default", 0.80, 5, 10.0) + _rows("moons", "logreg_l1", 0.84, 2, 0.1)
           + _rows("moons", "mlp_best5", 0.86, 12, 0.5) + _rows("moons", "streed3", 0.88, None, 0.1, proven=True),
           {"command": "python bench/run.py real --sets moons", "date": "2026-01-01", "machine": machine,
            "load": {"before": 0.5, "after": 1.5}})
    _write(res / "2026-02-01_bbbbbbb" / "real", _rows("moons", "default", 0.93, 7, 20.0),
           {"command": "python bench/run.py real --sets moons --methods default", "date": "2026-02-01", "commit": "bbbbbbb",
            "machine": machine, "load": {"before": 0.25, "after": 1.0}})
    _write(res / "2026-02-01_bbbbbbb" / "formulations", None,
           {"command": "python bench/run.py formulations --seeds 1", "date": "2026-02-01", "machine": machine,
            "load": {"before": 0.1, "after": 0.2}},
           {"results.md": "# Formulation benchmark\n\n| net | median time (s) |\n|---|---|\n| 5-5-2 | 1.9 |\n"})
    return res


def test_docs_generator_writes_the_tables_and_the_readme_block(small_results, tmp_path):
    page, readme = tmp_path / "benchmarks.md", tmp_path / "README.md"
    readme.write_text(f"# x\n\nbefore\n\n{render.MARK_START}\nold table\n{render.MARK_END}\n\nafter\n")
    assert run_main(["docs", "--results", str(small_results), "--page", str(page), "--readme", str(readme)]) == 0
    user, text = page.read_text(), (tmp_path / render.LAB_PAGE).read_text()  # the user's tables; the lab's runs
    # every suite of the registry has its section, under its title, on both pages
    for suite in SUITES.values():
        assert f"\n## {suite.title}\n" in text and f"\n## {suite.title}\n" in user
    # the user's page: the current tables, no run headers (commands, machines, loads); the older real
    # suite's per-set table only on the lab page
    assert "| moons | 93.0 / 7.0 |" not in user and "(benchmarks-runs.md#real-data-annc-against-baselines)" in user
    assert "| 5-5-2 | 1.9 |" in user and "1-min load average" not in user and "command:" not in user
    assert f"]({render.LAB_PAGE}#formulation-strength)" in user
    # the lab page: the real suite: annc from the newest run, the baselines kept from the older one
    assert "| moons | 93.0 / 7.0 | 2.0 | 20.5 | 84.0 / 2.0 | 86.0 / 12.0 | 88.0 |" in text
    assert "| moons | streed3 | 2 | 88.0 | 90.0 | 2.0 | - | - | 0.6 | 1.1 | 30 | 2 of 2 | `2026-01-01_aaaaaaa` |" in text
    # each source with its command, machine, date and load
    assert "`python bench/run.py real --sets moons --methods default`" in text
    assert "2026-02-01_bbbbbbb/real`: 2026-02-01, commit bbbbbbb" in text
    assert "1-min load average before 0.25, after 1.0" in text and "2 CPUs, 24.0 GiB" in text
    # a markdown suite: its own table, headings moved down, and its run's header
    assert "### Formulation benchmark" in text and "| 5-5-2 | 1.9 |" in text
    assert "`python bench/run.py formulations --seeds 1`" in text
    # the README: the block between the markers is replaced, the rest kept
    out = readme.read_text()
    assert "old table" not in out and out.startswith("# x\n\nbefore\n") and out.endswith("\n\nafter\n")
    block = out[out.index(render.MARK_START):out.index(render.MARK_END)]
    assert "| moons | 93.0 / 7.0 | 84.0 / 2.0 | 88.0 |" in block  # the README: L1 logreg and STreeD beside annc
    assert "`2026-02-01_bbbbbbb`" in block and "`2026-01-01_aaaaaaa`" in block


def test_docs_generator_refuses_a_readme_without_markers(small_results, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    with pytest.raises(ValueError, match="markers"):
        render.write_docs(small_results, tmp_path / "benchmarks.md", readme)


def test_the_readme_has_the_public_bench_markers():
    text = (ROOT / "README.md").read_text()
    assert text.count(render.PUBLIC_START) == 1 and text.count(render.PUBLIC_END) == 1
    assert text.index(render.PUBLIC_START) < text.index(render.PUBLIC_END)


def test_the_readme_block_of_the_public_bench_is_its_figures_per_half(tmp_path):
    """The public block: the done-when figures of each half that has runs (a report-half set here),
    the run folder named, the per-set table linked; the rest of the README kept."""
    from bench.public.facts import HALVES
    res = tmp_path / "results"
    name = next(n for n, h in HALVES.items() if h == "report")
    rows = (_rows(name, "default", 0.90, 4, 10.0) + _rows(name, "logreg_l1_cv", 0.905, 8, 1.0)
            + _rows(name, "streed3", 0.88, None, 0.1) + _rows(name, "contree3", 0.92, None, 0.1))
    _write(res / "2026-03-01_ccccccc" / "public", rows, {"command": "python bench/run.py public", "date": "2026-03-01"})
    text = f"# x\n\n{render.PUBLIC_START}\nold\n{render.PUBLIC_END}\n\nafter\n"
    out = render.fill_readme_blocks(text, res)
    block = out[out.index(render.PUBLIC_START):out.index(render.PUBLIC_END)]
    assert "old" not in block and out.endswith("\n\nafter\n")
    assert "| within 1 point of max(L1 CV, STreeD 3, ConTree 3) | 0 of 1 (0%) |" in block  # 90.0 < 92.0 - 1
    assert "| weights / L1 CV's (mean ratio) | 0.50 |" in block
    assert "`2026-03-01_ccccccc`" in block and "](docs/benchmarks.md#public-sets" in block
    with pytest.raises(ValueError, match="markers"):
        render.fill_readme_blocks("# none\n", res)


def test_a_former_scripts_command_is_shown_as_the_suite_that_runs_it_today():
    page = render.as_today("`python bench/decomposition.py --seeds 5 --speedup --out /tmp/x` and "
                           "(bench/bounds_bench.py); `python bench/start_bench.py -o bench/old.md --nets xor`")
    assert "`python bench/run.py decomposition --seeds 5 --speedup`" in page
    assert "(bench/suites/bounds.py)" in page
    assert "`python bench/run.py start --nets xor`" in page
    for suite in {render.FORMER_SCRIPTS[k] for k in render.FORMER_SCRIPTS}:
        assert (ROOT / "bench" / SUITES[suite].script).exists(), suite
    assert render.as_today("bench/suites/decomposition.py") == "bench/suites/decomposition.py"


def test_the_registry_names_existing_scripts_with_distinct_titles():
    for suite in SUITES.values():
        assert (ROOT / "bench" / suite.script).is_file(), suite.script
    titles = [s.title for s in SUITES.values()]
    assert len(set(titles)) == len(titles)
    assert {"real", "scaling", "compile", "formulations"} <= set(SUITES)


def test_given_arguments_replace_the_defaults_option_by_option():
    suite = SUITES["real"]
    args = suite_args(suite, ["--sets", "gbsg2", "--splits", "1"])
    assert args[args.index("--sets") + 1] == "gbsg2" and args.count("--sets") == 1
    assert args[args.index("--splits") + 1] == "1"
    assert args[args.index("--time-limit") + 1] == "30"  # a default left alone
    assert suite_args(SUITES["separator_agreement"], ["wine"]) == ["wine"]


def test_the_real_suites_sets_include_every_real_set():
    from bench.real.harness import SET_GROUPS
    from bench.real.sets import REAL_SETS
    assert SET_GROUPS["real"] == list(REAL_SETS)
    assert {"titanic", "creditcard", "default", "oj", "hmda", "carseats", "penguins"} <= set(SET_GROUPS["real"])


def test_the_entry_point_runs_a_suite_into_the_results_layout(tmp_path):
    """The real suite's logistic regression alone on one split: the layout, the header, the rows."""
    res = tmp_path / "results"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "real", "--sets", "moons", "--methods",
                           "logreg_l1", "--splits", "1", "--results", str(res), "--note", "a test"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    (folder,) = res.glob("*/real")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d_[0-9a-z]+", folder.parent.name)
    header = json.loads((folder / "run.json").read_text())
    assert header["exit_code"] == 0 and header["note"] == "a test" and header["suite"] == "real"
    assert header["command"].startswith("python bench/run.py real ") and "--sets moons" in header["command"]
    assert {"platform", "cpus", "python"} <= set(header["machine"]) and "before" in header["load"]
    (row,) = layout.read_jsonl(folder / "runs.jsonl")
    assert row["set"] == "moons" and row["method"] == "logreg_l1"
    assert (folder / "summary.md").exists() and (folder / "log.txt").read_text()
    # a second run into the same folder (another set) keeps the first run's rows and header
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "real", "--sets", "wine", "--methods",
                           "logreg_l1", "--splits", "1", "--results", str(res)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    header = json.loads((folder / "run.json").read_text())
    assert "--sets wine" in header["command"] and "--sets moons" in header["earlier"][0]["command"]
    assert [r["set"] for r in layout.read_jsonl(folder / "runs.jsonl")] == ["moons", "wine"]


def test_no_path_under_bench_is_named_after_a_work_item():
    tracked = subprocess.run(["git", "ls-files", "bench"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    paths = tracked or [str(p.relative_to(ROOT)) for p in (ROOT / "bench").rglob("*")]
    named = [p for p in paths if any(WORK_ITEM.search(part) for part in p.split("/"))]
    assert not named, f"bench/ paths named after work items: {named[:10]}"


def test_the_selection_rules_summary_counts_sets_within_a_point_and_weights_against_l1():
    """``bench/suites/selection_rules.py``'s summary on two hand-made sets: a rule's choice within a
    point of the better baseline counts, one below does not, and a choice with no test accuracy (the
    two-way plan's spec as written) is counted apart."""
    from bench.suites.selection_rules import summary

    def line(name, split, tests, rule_pick, l1=(0.80, 4), streed=0.82):
        settings = [{"label": f"s{i}", "test": t, "train": None if t is None else t + 0.02, "nnz": 2 * (i + 1)}
                    for i, t in enumerate(tests)]
        return {"set": name, "split": split, "settings": settings, "rules": rule_pick,
                "baselines": {"logreg_l1": {"test_accuracy": l1[0], "nonzero_weights": l1[1]},
                              "streed3": {"test_accuracy": streed}}}
    lines = [line("a", s, [0.815, 0.70], {"0.0": 1, "1.0": 0}) for s in range(2)]  # at 1: 81.5 >= 82 - 1
    lines += [line("b", s, [None, 0.90], {"0.0": 1, "1.0": 0}) for s in range(2)]  # at 1: unknown
    text = summary(lines, [0.0, 1.0])
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.split("|")[2:-1]] for r in text.splitlines()[2:4]}
    assert rows["0"][:2] == ["1 of 2", "0"]  # a: 70.0 (-12), b: 90.0 (+8)
    assert rows["1"][:2] == ["1 of 1", "1"]
    assert rows["1"][2] == "0.50"  # 2 weights against L1's 4
    assert rows["0"][5].startswith("2.0 (")  # train = test + 2 points


def test_the_selection_rules_suite_summarises_a_run_folder_without_training(tmp_path):
    """``--summarise`` reads the run folder's ``runs.jsonl`` and writes ``results.md``; it trains
    nothing (the folder holds no set the suite could train on), and the largest split gap names its
    set and split."""
    import json

    from bench.suites.selection_rules import main

    def line(split, test, train):
        return {"set": "a", "split": split, "rules": {"0.0": 0},
                "settings": [{"label": "s0", "test": test, "train": train, "nnz": 3}],
                "baselines": {"logreg_l1": {"test_accuracy": 0.8, "nonzero_weights": 3},
                              "streed3": {"test_accuracy": 0.8}}}
    (tmp_path / "runs.jsonl").write_text("\n".join(json.dumps(line(s, 0.8, tr)) for s, tr in
                                                   enumerate([0.85, 0.95, 0.81])) + "\n")
    assert main(["--out", str(tmp_path), "--summarise", "--rules", "0"]) == 0
    text = (tmp_path / "results.md").read_text()
    row = [r for r in text.splitlines() if r.startswith("| 0 |")][0]
    assert "1 of 1" in row and "15.0 (a 1)" in row
