#!/usr/bin/python3
"""Compares a `kinetoscope-cli record` capture with torch.profiler's trace of the same training steps.

Usage: compare_capture.py CAPTURE.json[.gz] PROFILER.pt.trace.json[.gz] [--tolerance PCT]
The capture's steps are its NVTX ranges `train_step_*` (tests/gpu/transformer.py marks them); a kernel belongs to a
step when the runtime or driver call that launched it (same correlation) starts inside the range. The profiler's
steps are its `ProfilerStep#N` ranges, the same way. Per kernel name: calls per step and GPU time per step on each
side. Exits 1 when the names or calls per step differ, or when a kernel's time per step differs by more than the
tolerance (default 25%: two runs of the same steps, one of them under Kineto's own overhead) for kernels over 1% of
the time.
"""
import collections
import gzip
import json
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def kernels_per_step(trace, is_step):
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if is_step(e))
    launches = {e["args"]["correlation"]: e["ts"] for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    calls, time = collections.Counter(), collections.Counter()
    for e in events:
        if e.get("cat") != "kernel":
            continue
        at = launches.get(e["args"].get("correlation"))
        if at is not None and any(start <= at <= end for start, end in steps):
            calls[e["name"]] += 1
            time[e["name"]] += e["dur"]
    n = len(steps)
    return n, {k: v / n for k, v in calls.items()}, {k: v / n for k, v in time.items()}


def main():
    args = sys.argv[1:]
    tolerance = 25.0
    if "--tolerance" in args:
        i = args.index("--tolerance")
        tolerance = float(args[i + 1])
        del args[i:i + 2]
    capture, profiler = load(args[0]), load(args[1])
    n_c, calls_c, time_c = kernels_per_step(
        capture, lambda e: e.get("cat") == "user_annotation" and e["name"].startswith("train_step_"))
    n_p, calls_p, time_p = kernels_per_step(
        profiler, lambda e: e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))
    total_c, total_p = sum(time_c.values()), sum(time_p.values())
    print(f"steps: capture {n_c}, profiler {n_p}; kernels per step: capture {sum(calls_c.values()):.1f}, "
          f"profiler {sum(calls_p.values()):.1f}; GPU time per step: capture {total_c:.1f} us, profiler "
          f"{total_p:.1f} us ({100 * (total_c / total_p - 1):+.1f}%)")
    failures = 0
    names = sorted(set(calls_c) | set(calls_p), key=lambda k: -max(time_c.get(k, 0), time_p.get(k, 0)))
    print(f"{'calls/step':>10} {'capture us':>11} {'profiler us':>11} {'diff':>7}  kernel")
    for name in names:
        cc, cp = calls_c.get(name, 0), calls_p.get(name, 0)
        tc, tp = time_c.get(name, 0), time_p.get(name, 0)
        diff = 100 * (tc / tp - 1) if tp else float("inf")
        bad = cc != cp or (max(tc, tp) > 0.01 * total_p and abs(diff) > tolerance)
        failures += bad
        print(f"{cc:>4.1f}/{cp:<5.1f} {tc:>11.1f} {tp:>11.1f} {diff:>+6.1f}%  {'MISMATCH ' if bad else ''}{name[:110]}")
    print(f"{len(names)} kernel names, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
