"""Each real solver run on an MPS file, writing its own solution file: ``SOLVERS`` lists
(name, run(mps, solution), solution file extension, the status its file reports).  Used by
``tests/solve/test_roundtrip.py`` and ``tests/fuzzing.py``."""
import shutil
import subprocess


def solve_cbc(mps, sol):
    import pulp
    subprocess.run([pulp.apis.PULP_CBC_CMD().path, str(mps), "-solve", "-solu", str(sol)],
                   check=True, capture_output=True)


def solve_glpk(mps, sol, gap=None):
    """GLPK on ``mps``; with ``gap``, it stops at the first incumbent within that relative gap
    (a rule of its search, not of the clock)."""
    exe = shutil.which("glpsol")
    assert exe, "glpsol missing: CI must install glpk-utils"
    subprocess.run([exe, "--freemps", str(mps), "-w", str(sol)] + ([] if gap is None else ["--mipgap", str(gap)]),
                   check=True, capture_output=True)


def solve_highs(mps, sol):
    import highspy
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(mps))
    h.run()
    h.writeSolution(str(sol), 0)


def solve_scip(mps, sol):
    from pyscipopt import Model
    m = Model()
    m.hideOutput()
    m.readProblem(str(mps))
    m.optimize()
    m.writeBestSol(str(sol))


def solve_gurobi(mps, sol):
    import gurobipy as gp
    m = gp.read(str(mps))
    m.Params.OutputFlag = 0
    m.optimize()
    m.write(str(sol))


def solve_cplex(mps, sol):
    import cplex
    c = cplex.Cplex(str(mps))
    for s in (c.set_log_stream, c.set_results_stream, c.set_warning_stream):
        s(None)
    c.solve()
    c.solution.write(str(sol))


def solve_xpress(mps, sol):
    import xpress as xp
    p = xp.problem()
    p.setControl("outputlog", 0)
    p.readProb(str(mps))
    p.optimize()
    p.writeSlxSol(str(sol))


SOLVERS = [("cbc", solve_cbc, "sol", "optimal"), ("glpk", solve_glpk, "raw", "optimal"),
           ("highs", solve_highs, "sol", "optimal"), ("scip", solve_scip, "sol", "unknown"),
           ("gurobi", solve_gurobi, "json", "optimal"), ("cplex", solve_cplex, "sol", "optimal"),
           ("xpress", solve_xpress, "slx", "unknown")]
