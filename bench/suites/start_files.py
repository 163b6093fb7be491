"""MIP start files (issue 13): each solver from the MPS file alone, with and without its start.

For each net (``specs/xor.ann``, ``specs/deep3.ann``) and seed (0, 1, 2) it makes the
data as ``annc data xor --n 1000 --seed S`` does, compiles it as ``annc compile`` does
(the model, the map and the start files ``<stem>.start.*``, the start found by the same
search and budget: SGD, then fix-and-optimise, 20 s at most), and then solves the MPS
file with each of HiGHS, SCIP, CBC, Xpress and Gurobi, one thread, a 60 s limit, once
without and once with the solver's start file, in the same run.  Every solve runs in
its own process, one at a time; its time is the wall time from reading the model (and
the start) to the end of the solve.  "Proved" is the solver's own verdict (optimal
within its default gap).  The table goes to ``--output`` (its rows as JSON lines beside it).

    python bench/run.py start [--nets xor,deep3] [--seeds 0,1,2] [--time-limit 60]
                              [--solvers highs,scip,cbc,xpress,gurobi]

Each solver reads its start as the README's *MIP start files* section shows
(:func:`solve_one`; CBC through its command line, the others through their Python API).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOLVERS = ("highs", "scip", "cbc", "xpress", "gurobi")
START_FILE = {"highs": "highs", "scip": "sol", "cbc": "cbc", "xpress": "slx", "gurobi": "sol"}


# -- one solve (in a child process) ---------------------------------------------------------
def solve_one(solver: str, model: str, start: str | None, limit: float) -> dict:
    """Read ``model`` (and the start file ``start``), solve with one thread for at most
    ``limit`` seconds: ``{status, objective, bound, seconds}``."""
    t0 = time.perf_counter()
    r = globals()[f"_{solver}"](model, start, limit)
    r["seconds"] = round(time.perf_counter() - t0, 3)
    return r


def _highs(model, start, limit):
    import highspy
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(model)
    if start:
        assert h.readSolution(start, 0) == highspy.HighsStatus.kOk
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", float(limit))
    h.run()
    info = h.getInfo()
    proved = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    obj = info.objective_function_value if info.primal_solution_status == 2 else None
    return {"status": "optimal" if proved else h.modelStatusToString(h.getModelStatus()),
            "objective": obj, "bound": info.mip_dual_bound}


def _scip(model, start, limit):
    from pyscipopt import Model
    m = Model()
    m.hideOutput()
    m.readProblem(model)
    if start:
        m.readSol(start)
    m.setParam("limits/time", float(limit))
    m.setParam("lp/threads", 1)
    m.optimize()
    return {"status": m.getStatus(), "objective": m.getObjVal() if m.getNSols() else None,
            "bound": m.getDualbound()}


def _gurobi(model, start, limit):
    import gurobipy as gp
    with gp.Env(empty=True) as env:
        env.setParam("OutputFlag", 0)
        env.start()
        m = gp.read(model, env)
        if start:
            m.read(start)
        m.Params.Threads = 1
        m.Params.TimeLimit = float(limit)
        m.optimize()
        names = {gp.GRB.TIME_LIMIT: "time limit", gp.GRB.INFEASIBLE: "infeasible"}
        r = {"status": "optimal" if m.Status == gp.GRB.OPTIMAL else names.get(m.Status, f"status {m.Status}"),
             "objective": m.ObjVal if m.SolCount else None, "bound": m.ObjBound}
        m.dispose()
    return r


def _xpress(model, start, limit):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import xpress as xp
        p = xp.problem()
    p.setControl("outputlog", 0)
    p.readProb(model)
    if start:
        p.readSlxSol(start)
    p.setControl("threads", 1)
    p.setControl("timelimit", float(limit))
    p.optimize()
    a = p.attributes
    names = {3: "stopped, no solution", 4: "stopped with a solution", 5: "infeasible"}
    return {"status": "optimal" if a.mipstatus == xp.mip_optimal else names.get(a.mipstatus, f"mipstatus {a.mipstatus}"),
            "objective": a.mipobjval if a.mipsols else None, "bound": a.bestbound}


def _cbc(model, start, limit):
    """CBC 2.10.3 as bundled with PuLP: serial by default (no ``-threads``)."""
    from annc.solve.solvers.cbc import cbc_path
    with tempfile.TemporaryDirectory() as d:
        cmd = [cbc_path(), model, *(["-mips", start] if start else []), "-sec", str(limit),
               "-timeMode", "elapsed", "-solve", "-solu", str(Path(d) / "cbc.sol")]
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
    result = re.search(r"^Result - (.*)$", out, re.M)
    obj = re.search(r"^Objective value:\s+(\S+)", out, re.M)
    bound = re.search(r"^Lower bound:\s+(\S+)", out, re.M)
    status = result.group(1).strip() if result else "no result line"
    proved = status.startswith("Optimal solution found")
    objective = float(obj.group(1)) if obj and "no integer solution" not in out.lower() else None
    if objective is not None and abs(objective) >= 1e49:
        objective = None
    return {"status": "optimal" if proved else status, "objective": objective,
            "bound": objective if proved else (float(bound.group(1)) if bound else None)}


# -- the run -------------------------------------------------------------------------------
def compile_instance(net: str, seed: int, work: Path) -> dict:
    """``annc data xor --n 1000 --seed S`` then ``annc compile`` with its start, in-process."""
    from annc.training.mip.compiling import CompileOptions, compile_files
    from annc.io.datasets import write_csv, xor_data
    from annc.formulations import floor
    from annc.training.search.incumbent import budgeted_start
    folder = work / f"{net}_s{seed}"
    X, y = xor_data(1000, noise=0.1, seed=seed)
    data = write_csv(folder / "xor.csv", X, y)
    t0 = time.perf_counter()
    c = compile_files(ROOT / "specs" / f"{net}.ann", data, out_dir=folder / "out",
                      options=CompileOptions(start=budgeted_start))
    took = time.perf_counter() - t0
    assert c.start is not None, c.start_message
    return {"net": net, "seed": seed, "model": str(c.model_path), "stem": c.model_path.name.split(".")[0],
            "start_objective": c.model.objective(c.start), "floor": floor(c.problem),
            "search_seconds": round(c.start_seconds, 2), "compile_seconds": round(took, 2),
            "columns": c.model.num_cols, "rows": c.model.num_rows}


def run_solve(solver: str, inst: dict, with_start: bool, limit: float) -> dict:
    model = inst["model"]
    start = str(Path(model).with_name(f"{inst['stem']}.start.{START_FILE[solver]}")) if with_start else None
    cmd = [sys.executable, __file__, "--solve", solver, model, "--time-limit", str(limit)]
    cmd += ["--start", start] if start else []
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit + 120, env=env)
        r = json.loads(p.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        r = {"status": "killed (no answer within the limit + 120 s)", "objective": None, "bound": None,
             "seconds": limit + 120}
    except (IndexError, ValueError):
        licence = any(t in p.stderr for t in ("size-limited license", "too many rows and columns"))
        why = "refused by the size-limited licence" if licence else f"crashed: {p.stderr.strip()[-200:]}"
        r = {"status": why, "objective": None, "bound": None, "seconds": None}
    return {"net": inst["net"], "seed": inst["seed"], "solver": solver, "start": with_start, **r}


def _median(values):
    return statistics.median(values) if values else None


def _fmt(v, digits=4):
    return "-" if v is None else f"{v:.{digits}g}"


def report(instances: list[dict], runs: list[dict], args, started: str, load: tuple) -> str:
    versions = solver_versions()
    lines = ["# MIP start files: each solver from the MPS file, with and without the start", "",
             f"Made by `python bench/suites/start_files.py --nets {args.nets} --seeds {args.seeds} "
             f"--time-limit {args.time_limit:g} --solvers {args.solvers}` on {started}.", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}, Python "
             f"{platform.python_version()}; load average {load[0]:.2f} before, {load[1]:.2f} after. "
             "Each solve ran alone, one thread, in its own process.", "",
             "Solvers: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".", "",
             "Data: `annc data xor --n 1000 --seed S` (noise 0.1). Model and start: `annc compile SPEC DATA` "
             "(the start's search: SGD, then fix-and-optimise, at most 20 s). Time: wall seconds from "
             "reading the model (and the start file) to the end of the solve; a run not proved counts "
             f"as the limit ({args.time_limit:g} s). Proved: the solver's own optimal status.", "",
             "## The starts", "",
             "| net | seed | columns | rows | start objective | lower bound (loss floor) | search s | compile s |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for i in instances:
        lines.append(f"| {i['net']} | {i['seed']} | {i['columns']} | {i['rows']} | {i['start_objective']:.6g} | "
                     f"{i['floor']:.6g} | {i['search_seconds']:.1f} | {i['compile_seconds']:.1f} |")
    lines += ["", "## Summary (median over seeds)", "",
              "| net | solver | start | proved | median time to proof (s) | median objective | median bound |",
              "|---|---|---|---|---:|---:|---:|"]
    nets = list(dict.fromkeys(r["net"] for r in runs))
    solvers = list(dict.fromkeys(r["solver"] for r in runs))
    for net in nets:
        for solver in solvers:
            for start in (False, True):
                rs = [r for r in runs if r["net"] == net and r["solver"] == solver and r["start"] == start]
                if not rs:
                    continue
                if all(r["status"].startswith("refused") for r in rs):
                    lines.append(f"| {net} | {solver} | {'with' if start else 'without'} | - | "
                                 "refused: the model is over this machine's size-limited licence | - | - |")
                    continue
                proved = [r for r in rs if r["status"] == "optimal"]
                times = [r["seconds"] if r["status"] == "optimal" else args.time_limit for r in rs]
                objs = [r["objective"] for r in rs if r["objective"] is not None]
                bounds = [r["bound"] for r in rs if r["bound"] is not None]
                limit = f" (limit {args.time_limit:g})" if len(proved) < len(rs) else ""
                lines.append(f"| {net} | {solver} | {'with' if start else 'without'} | {len(proved)}/{len(rs)} | "
                             f"{_fmt(_median(times), 3)}{limit} | {_fmt(_median(objs))}"
                             f"{'' if len(objs) == len(rs) else f' ({len(objs)} with a solution)'} | "
                             f"{_fmt(_median(bounds))} |")
    lines += ["", "## Every run", "", "| net | seed | solver | start | status | objective | bound | time (s) |",
              "|---|---|---|---|---|---:|---:|---:|"]
    for r in runs:
        lines.append(f"| {r['net']} | {r['seed']} | {r['solver']} | {'with' if r['start'] else 'without'} | "
                     f"{r['status']} | {_fmt(r['objective'], 6)} | {_fmt(r['bound'], 6)} | "
                     f"{_fmt(r['seconds'], 3)} |")
    return "\n".join(lines) + "\n"


def solver_versions() -> dict:
    out = {}
    try:
        import highspy
        out["HiGHS"] = highspy.Highs().version()
    except Exception:  # noqa: BLE001 - a missing solver is reported, not fatal
        pass
    try:
        import pyscipopt
        out["SCIP"] = f"{pyscipopt.Model().version()} (pyscipopt {pyscipopt.__version__})"
    except Exception:  # noqa: BLE001
        pass
    try:
        from annc.solve.solvers.cbc import cbc_path
        text = subprocess.run([cbc_path(), "-quit"], capture_output=True, text=True).stdout
        m = re.search(r"Version:\s*(\S+)", text)
        out["CBC"] = (m.group(1) if m else "?") + " (bundled with PuLP)"
    except Exception:  # noqa: BLE001
        pass
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import xpress
        out["Xpress"] = xpress.__version__
    except Exception:  # noqa: BLE001
        pass
    try:
        import gurobipy
        out["Gurobi"] = ".".join(map(str, gurobipy.gurobi.version()))
    except Exception:  # noqa: BLE001
        pass
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nets", default="xor,deep3")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--solvers", default=",".join(SOLVERS))
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--work", help="folder for data, models and start files (default: a temporary one)")
    ap.add_argument("--solve", nargs=2, metavar=("SOLVER", "MODEL"), help=argparse.SUPPRESS)
    ap.add_argument("--start", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.solve:  # the child: one solve, one JSON line
        print(json.dumps(solve_one(args.solve[0], args.solve[1], args.start, args.time_limit)))
        return 0
    started = date.today().isoformat()
    load0 = os.getloadavg()[0]
    tmp = None if args.work else tempfile.TemporaryDirectory(prefix="annc-start-bench-")
    work = Path(args.work or tmp.name)
    instances, runs = [], []
    for net in args.nets.split(","):
        for seed in map(int, args.seeds.split(",")):
            inst = compile_instance(net, seed, work)
            instances.append(inst)
            print(f"{net} seed {seed}: start {inst['start_objective']:.6g} (floor {inst['floor']:.6g}, "
                  f"{inst['search_seconds']:.1f} s)", flush=True)
            for solver in args.solvers.split(","):
                for with_start in (False, True):
                    r = run_solve(solver, inst, with_start, args.time_limit)
                    runs.append(r)
                    print(f"  {solver:7s} {'with' if with_start else 'without':7s} {r['status']:30.30s} "
                          f"obj {_fmt(r['objective'], 6):>10s} bound {_fmt(r['bound'], 6):>10s} "
                          f"{_fmt(r['seconds'], 3):>7s} s", flush=True)
    text = report(instances, runs, args, started, (load0, os.getloadavg()[0]))
    Path(args.output).write_text(text)
    Path(args.output).with_suffix(".jsonl").write_text("".join(json.dumps(r) + "\n" for r in instances + runs))
    print(f"wrote {args.output}")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
