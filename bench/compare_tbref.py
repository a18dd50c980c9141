#!/usr/bin/python3
"""Compares `kinetoscope-cli summary --json` with the TensorBoard plugin's own parser (shared/tools/tbref).

    compare_tbref.py OURS.json PLUGIN.json [--name LABEL]

Prints one line per figure that differs by more than 1 us or 0.1% (the tolerance docs/DEFINITIONS.md uses), then a
one-line verdict. Figures: steps (count and bounds), the average step-time breakdown, GPU utilisation, est. SM
efficiency and est. achieved occupancy per device, the plugin's top 15 operators by host self time and its top 15
kernels. Exit 0 always: differences are data for docs/DEFINITIONS.md, not failures.
"""
import json
import sys


def close(a, b, abs_tol=1.0, rel_tol=1e-3):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(abs_tol, rel_tol * max(abs(a), abs(b)))


def compare(ours, plugin):
    diffs = []
    compared = [0]

    def check(figure, theirs, mine, abs_tol=1.0, rel_tol=1e-3):
        compared[0] += 1
        if not close(theirs, mine, abs_tol, rel_tol):
            diffs.append((figure, theirs, mine))

    steps = ours.get("steps", [])
    psteps = plugin.get("steps", [])
    check("steps.count", len(psteps), len(steps), 0, 0)
    base = None
    if psteps and steps and len(psteps) == len(steps):
        for i, (p, o) in enumerate(zip(psteps, steps)):
            check(f"steps[{i}].start_us", p["start_us"], o["start_us"])
            check(f"steps[{i}].end_us", p["end_us"], o["end_us"])
    n = max(1, len(steps))
    for key, theirs in plugin.get("breakdown_avg_us", {}).items():
        if key == "total":
            mine = sum(ours.get("breakdown_us", {}).values()) / n
        else:
            mine = ours.get("breakdown_us", {}).get(key, 0) / n
        check(f"breakdown_avg_us.{key}", theirs, mine)
    metrics = ours.get("gpu_metrics", {})
    for dev, g in plugin.get("gpu", {}).items():
        m = metrics.get(dev)
        if m is None:
            diffs.append((f"gpu[{dev}]", "present", "absent"))
            continue
        check(f"gpu[{dev}].utilization", g["utilization"], m["utilization"], 1e-4, 1e-3)
        if g.get("sm_efficiency") is not None:
            check(f"gpu[{dev}].sm_efficiency", g["sm_efficiency"], m["sm_efficiency"], 1e-4, 1e-3)
        if g.get("occupancy_pct") is not None:
            check(f"gpu[{dev}].occupancy_pct", g["occupancy_pct"], m["achieved_occupancy_pct"], 1e-2, 1e-3)
    ops = {o["name"]: o for o in ours.get("operators", [])}
    ops.update({o["name"]: o for o in ours.get("annotations", []) if o["name"] not in ops})
    kernels = {k["name"]: k for k in ours.get("kernels", [])}
    # (what, our rows by name, the plugin's list, [(figure, the plugin's key, our key, exact)])
    tables = [
        ("op", ops, "operators_top15_by_host_self",
         [("calls", "calls", "count", True), ("host_self_us", "host_self_us", "host_self_us", False),
          ("host_total_us", "host_total_us", "host_total_us", False),
          ("device_self_us", "device_self_us", "device_self_us", False),
          ("device_total_us", "device_total_us", "device_total_us", False)]),
        ("kernel", kernels, "kernels_top15_by_total",
         [("calls", "calls", "count", True), ("total_us", "total_us", "total_us", False)]),
    ]
    for what, mine, key, figures in tables:
        for p in plugin.get(key, []):
            label = f"{what} {p['name'][:60]}"
            row = mine.get(p["name"])
            if row is None:
                diffs.append((label, "present", "absent"))
                continue
            for figure, theirs_key, our_key, exact in figures:
                if exact:
                    check(f"{label}.{figure}", p[theirs_key], row[our_key], 0, 0)
                else:
                    check(f"{label}.{figure}", p[theirs_key], row[our_key])
    return diffs, compared[0]


def main():
    ours = json.load(open(sys.argv[1]))
    plugin = json.load(open(sys.argv[2]))
    label = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--name" else sys.argv[1]
    diffs, compared = compare(ours, plugin)
    for figure, theirs, mine in diffs:
        print(f"  {figure}: plugin {theirs} ours {mine}")
    print(f"{'AGREE' if not diffs else 'DIFFER'} {label}: {len(diffs)} of {compared} figure(s) differ")


if __name__ == "__main__":
    main()
