"""``annc experiment table1``: reproduce Table 1 of Patil & Mintz.

The package follows the sweep from its definition to its report:

* :mod:`.definitions`: the nine methods, the depth and width sweeps, the settings and
  the key of a run;
* :mod:`.planning`: the runs cut into tasks, one worker process each;
* :mod:`.tasks`: one task run (the MIP methods through ``annc train``'s training
  chain, :mod:`annc.training.mip.chain`; the SGD methods through :mod:`annc.training.warmstart.sgd`);
* :mod:`.jsonl` and :mod:`.runner`: the sweep run or resumed, in a process pool, its
  runs appended to ``table1.jsonl`` as they finish;
* :mod:`.report` and :mod:`.plots`: ``table1.md`` and ``table1_{depth,width}.{png,svg}``;
* :mod:`.cli`: the command line, the only part that prints.
"""
from .cli import add_parser, cmd_table1
from .definitions import (DEPTH_SWEEP_WIDTH, DEPTHS, JSONL_NAME, METHOD_IDS, METHOD_NAMES, METHODS, MIP_METHODS, NOISE,
                          PAPER, SGD_METHODS, STATUS_NO_SOLUTION, STATUS_TRAINED, SWEEPS, TARGET, WIDTH_SWEEP_DEPTH,
                          WIDTHS, Config, arch_label, run_key, settings_for)
from .jsonl import read_jsonl
from .planning import Task, plan
from .plots import plot
from .report import Cell, minimum, report
from .runner import run_table1
from .tasks import run_task

__all__ = [
    "DEPTH_SWEEP_WIDTH", "DEPTHS", "JSONL_NAME", "METHOD_IDS", "METHOD_NAMES", "METHODS", "MIP_METHODS", "NOISE",
    "PAPER", "SGD_METHODS", "STATUS_NO_SOLUTION", "STATUS_TRAINED", "SWEEPS", "TARGET", "WIDTH_SWEEP_DEPTH",
    "WIDTHS", "Cell", "Config", "Task", "add_parser", "arch_label", "cmd_table1", "minimum", "plan", "plot",
    "read_jsonl", "report", "run_key", "run_table1", "run_task", "settings_for",
]
