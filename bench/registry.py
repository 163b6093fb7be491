"""The benchmark suites: one row per suite (``SUITES``), read by ``bench/run.py`` and the docs.

A suite is a script under ``bench/`` with its own arguments.  ``bench/run.py SUITE [ARGS]``
runs it in a fresh process from the repository root, gives it ``DEFAULTS`` where ARGS leaves
them out, tells it where to write (``out``: the option and, for a suite that writes one file,
the file's name in the run folder) and records its console output and a header
(``bench/results.py``).  ``title`` is the suite's heading in docs/benchmarks.md (other pages link
to it by that heading's anchor); ``render`` is how the page shows its newest results:
``"markdown"`` includes the markdown files the suite wrote, ``"real"`` builds the tables from the
runs' JSON lines (``bench/real/render.py``), ``"public"`` likewise with each set's half
(``bench/public/report.py``), ``"log"`` shows its console output.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Suite:
    name: str
    script: str  # path under bench/
    title: str
    what: str  # what it measures and how, in a sentence or two
    defaults: tuple[str, ...] = ()
    out: tuple[str, str] | None = ("--out", "")  # (option, file name; '' = the run folder itself), None: stdout only
    render: str = "markdown"


SUITES: dict[str, Suite] = {s.name: s for s in (
    Suite("real", "real/harness.py", "Real data: annc against baselines",
          "annc's default recipe and the baselines (L1 and L2 logistic regression, a best-of-5 MLP, CART and "
          "STreeD's optimal depth-3 trees) on the real sets of bench/real/sets.py and synthetic sets, on the same "
          "stratified 70/30 splits: test and train accuracy, non-zero weights, wall time against the limit.",
          ("--sets", "real,moons,circles,sparse60,xor,moons10k", "--methods", "guide", "--splits", "5",
           "--time-limit", "30"), render="real"),
    Suite("public", "public/harness.py", "Public sets: a tuning half and a report half",
          "annc's default recipe (and with class_weight balanced) against L1 logistic regression with C by "
          "cross-validation, STreeD and ConTree trees, CART and a best-of-5 MLP on 82 real sets shipped in "
          "installed packages, split by a hash of their names into a tuning half (annc's rules are chosen "
          "there) and a report half (run once per change, quoted as it came out).",
          ("--half", "tuning", "--methods", "all", "--splits", "5", "--time-limit", "30"), render="public"),
    Suite("scaling", "suites/scaling.py", "Scaling: 1,000 to 100,000 rows",
          "annc's default recipe on noisy moons of 1,000 to 100,000 rows, each in a fresh process: wall time, "
          "peak memory, test accuracy, against L1 logistic regression, a best-of-5 MLP and a depth-3 tree.",
          ("--sizes", "1000,10000,100000", "--limits", "60,60,120")),
    Suite("compile", "suites/compile_speed.py", "Compile speed and memory",
          "annc compile against PuLP's writer on XOR, digits-size and MNIST-size problems: stage times, "
          "peak memory, non-zeros per second; medians of fresh processes.",
          out=("--out", "results.md")),
    Suite("formulations", "suites/formulations.py", "Formulation strength",
          "Big-M choices, merging, symmetry breaking, the loss floor and the MIP start on the paper's XOR "
          "instance, solved by HiGHS: proofs, times, root gaps, nodes (medians over seeds).",
          ("--seeds", "3", "--time-limit", "60")),
    Suite("relu", "suites/relu.py", "ReLU nets: what each method delivers",
          "ReLU training on XOR (relaxation and exact finish, refinement, weight grids): the exported "
          "network's accuracy, objective, lower bound and gap (medians over seeds).",
          ("--seeds", "3", "--time-limit", "60")),
    Suite("start", "suites/start_files.py", "MIP start files: each solver with and without its start",
          "Each solver on the MPS file alone, with and without annc's start file: proofs, median time and "
          "objective.", ("--time-limit", "60"), out=("--output", "results.md")),
    Suite("decomposition", "suites/decomposition.py", "Data beyond one MIP: one MIP, ovo, batches and MLPs on 10 classes",
          "One MIP, one-vs-one ensembles and batch training on a synthetic 10-class set, against "
          "scikit-learn's MLPs of the same width: test accuracy, weights, median time."),
    Suite("bounds", "suites/bounds.py", "Lower bounds on real-like data",
          "Each of annc's lower bounds (loss floor, conflict, support, subsets, the whole MIP's dual bound) "
          "on real-like sets: value, work and seconds.", out=("--out", "results.md")),
    Suite("fuzz", "suites/fuzz.py", "Fuzzing: bad and odd input",
          "The fuzz targets of tests/fuzzing.py run thousands of times: exit codes, broken examples.",
          ("--examples", "10000"), out=("--out", "results.md")),
    Suite("cli_time", "suites/cli_time.py", "annc train timed from the shell",
          "The wall time of `annc train` from the shell (imports and exit included) against its "
          "--time-limit, for one or more copies of the code run alternately (medians).",
          ("--code", "now=.", "--sets", "breast_cancer,moons", "--limits", "10,30", "--repeats", "2")),
    Suite("class_weights", "suites/class_weights.py", "Class weights on an imbalanced set",
          "Balanced accuracy on 2,000 rows of `default` (3.3% positives), one split: annc with and without "
          "--class-weight balanced (30 s) against balanced L1 logistic regression.", out=None, render="log"),
    Suite("margin_errors", "suites/margin_errors.py", "Margin errors of SGD's units",
          "Per real-data split, the share of training samples each refitted SGD unit cannot keep clear of "
          "the gap at eps 0.1, and the eps the default recipe chooses.", out=None, render="log"),
    Suite("repair_flips", "suites/repair_flips.py", "Activations the start's repair flips",
          "How many hidden activations of an SGD net the start's repair flips, with and without the LP "
          "refit, and its time.", out=None, render="log"),
    Suite("separator_agreement", "suites/separator_agreement.py", "The kept separator against the regression",
          "Test rows where a logistic setting's network and scikit-learn's L1 logistic regression (same C) "
          "predict different classes, over splits and C.",
          ("gbsg2,whas500,breast_cancer,diabetes,star98",), out=None, render="log"),
    Suite("output_code", "suites/output_code.py", "The output code's words",
          "digits, 10 classes in 4 step units: the output code of annc.training.warmstart.pool.outputcode (class "
          "means on the discriminant directions, assigned to the cube's vertices) against 20 random codes, each "
          "bit L1 logistic regression at C = 1, decoded to the nearest word.", out=None, render="log"),
    Suite("optimal_trees", "suites/optimal_trees.py", "CART against the optimal trees as networks",
          "On each set's first split, the depth-2 and depth-3 trees of CART, ConTree and STreeD (where installed) "
          "written as networks of 7 step units: training and test accuracy, splits, the maker's CPU seconds.",
          ("penguins,womenlf,carseats,mroz",), out=None, render="log"),
    Suite("selection_rules", "suites/selection_rules.py", "Model selection's rule on the test rows",
          "Cross-validation uncapped on each real set's splits, every setting's network on all training rows "
          "scored on the test rows, and the setting each value of the policy's se_rule takes (annc's own rule code): "
          "sets within a point of the better of L1 logistic regression and STreeD, weights, train-test gap.",
          ("--sets", "real", "--splits", "5")),
    Suite("pool_proof", "suites/pool_proof.py", "The start pool's proof test",
          "Training with and without the start pool's proof test, alternating: median wall times, objectives "
          "and statuses.", ("--reps", "3", "--time-limit", "60"), out=None, render="log"),
)}
