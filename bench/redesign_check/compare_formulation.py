"""Old against new, run by run: python bench/redesign_check/compare_formulation.py."""
import json
def rows(p):
    return {(r["net"], r["variant"], r["seed"]): r for r in map(json.loads, (l for l in open(p) if l.startswith("{")))}
a, b = rows("bench/redesign_check/formulation_old.jsonl"), rows("bench/redesign_check/formulation_new.jsonl")
same = 0
for k in sorted(a.keys() & b.keys()):
    x, y = a[k], b[k]
    s = x["status"] == y["status"] and abs((x["objective"] or 0) - (y["objective"] or 0)) < 1e-6
    same += s
    print(f"{k[0]:6} {k[1]:34} {k[2]} | {x['status']:8} {y['status']:8} | {x['objective']:.3f} {y['objective']:.3f} | {x['seconds']:6.1f} {y['seconds']:6.1f} | nodes {x['nodes']} {y['nodes']}" + ("" if s else "  <- differs"))
print(f"same status and objective: {same} of {len(a.keys() & b.keys())}")
