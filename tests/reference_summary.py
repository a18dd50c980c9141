#!/usr/bin/env python3
"""An independent reference for `kinetoscope-cli summary --json`, standard library only.

    reference_summary.py KINETOSCOPE_CLI TRACES_DIR

For several real traces it recomputes the kernel table, GPU busy time, the event count and the operator
table (host total/self, device self/total through `correlation`) straight from the JSON with Python's
json module and exact decimal time, and compares them with what the CLI prints. Exit 1 on any difference.
"""
import gzip, json, subprocess, sys
from collections import defaultdict
from decimal import Decimal

TRACES = [
    "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz",
    "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz",
    "facebookresearch__HolisticTraceAnalysis/tests__data__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
    "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz",
    "debian-torch/mlp_full.json",
]


def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value(rounding="ROUND_HALF_UP"))


def load(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    with (gzip.open if magic == b"\x1f\x8b" else open)(path, "rb") as f:
        doc = json.loads(f.read(), parse_float=Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def reference(events):
    xs = [e for e in events if isinstance(e, dict) and e.get("ph") == "X" and "ts" in e]
    cat = lambda e: str(e.get("cat", "")).lower()
    kernels = defaultdict(list)
    busy = defaultdict(list)
    for e in xs:
        if cat(e) == "kernel":
            d = ns(e.get("dur", 0))
            kernels[e["name"]].append(d)
            busy[str(e["pid"])].append((ns(e["ts"]), ns(e["ts"]) + d))
    gpu_busy = {}
    for dev, iv in busy.items():
        iv.sort()
        total, (cs, ce) = 0, iv[0]
        for a, b in iv[1:]:
            if a > ce:
                total += ce - cs
                cs, ce = a, b
            else:
                ce = max(ce, b)
        gpu_busy[dev] = total + ce - cs

    # Operators per thread, ordered by start then longer first then file order (parents first).
    threads = defaultdict(list)
    for i, e in enumerate(xs):
        if cat(e) in ("cpu_op", "operator", "cuda_runtime", "runtime", "cuda_driver"):
            threads[(str(e["pid"]), str(e["tid"]))].append((ns(e["ts"]), -ns(e.get("dur", 0)), i, e))
    launch_op = {}  # correlation -> index of innermost enclosing op occurrence
    occ = []  # [name, dur, child_sum, dev_self, parent]
    for key, lst in threads.items():
        lst.sort(key=lambda t: (t[0], t[1], t[2]))
        stack = []
        for start, negdur, _, e in lst:
            end = start - negdur
            while stack and not (start < occ[stack[-1]][4] or (start == occ[stack[-1]][5] and end == start and occ[stack[-1]][4] > start)) \
                    or (stack and end > occ[stack[-1]][4]):
                stack.pop()
            if cat(e) in ("cpu_op", "operator"):
                parent = stack[-1] if stack else -1
                occ.append([e["name"], -negdur, 0, 0, end, start, parent])
                if parent >= 0:
                    occ[parent][2] += -negdur
                stack.append(len(occ) - 1)
            else:
                corr = (e.get("args") or {}).get("correlation")
                if corr is not None and stack:
                    launch_op[corr] = stack[-1]
    for e in xs:
        if cat(e) == "kernel":
            corr = (e.get("args") or {}).get("correlation")
            if corr in launch_op:
                occ[launch_op[corr]][3] += ns(e.get("dur", 0))
    total = [o[3] for o in occ]
    for i in range(len(occ) - 1, -1, -1):
        if occ[i][6] >= 0:
            total[occ[i][6]] += total[i]
    ops = defaultdict(lambda: [0, 0, 0, 0, 0])
    for i, o in enumerate(occ):
        r = ops[o[0]]
        r[0] += 1; r[1] += o[1]; r[2] += o[1] - o[2]; r[3] += total[i]; r[4] += o[3]
    return {
        "events": len(xs),
        "kernels": {n: (len(d), sum(d), min(d), max(d)) for n, d in kernels.items()},
        "gpu_busy": gpu_busy,
        "operators": {n: tuple(v) for n, v in ops.items()},
    }


def main():
    cli, traces = sys.argv[1], sys.argv[2]
    failures = 0
    for rel in TRACES:
        path = f"{traces}/{rel}"
        ref = reference(load(path))
        out = json.loads(subprocess.run([cli, "summary", path, "--json"], check=True, capture_output=True).stdout,
                         parse_float=Decimal)
        got = {
            "events": out["events"],
            "kernels": {k["name"]: (k["count"], ns(k["total_us"]), ns(k["min_us"]), ns(k["max_us"])) for k in out["kernels"]},
            "gpu_busy": {d: ns(v) for d, v in out["gpu_busy_us"].items()},
            "operators": {o["name"]: (o["count"], ns(o["host_total_us"]), ns(o["host_self_us"]), ns(o["device_total_us"]),
                                      ns(o["device_self_us"])) for o in out["operators"]},
        }
        for field in ref:
            if ref[field] != got[field]:
                failures += 1
                print(f"MISMATCH {rel}: {field}")
                if isinstance(ref[field], dict):
                    for k in sorted(set(ref[field]) | set(got[field]), key=str)[:10]:
                        if ref[field].get(k) != got[field].get(k):
                            print(f"   {k!r}: reference {ref[field].get(k)} cli {got[field].get(k)}")
                else:
                    print(f"   reference {ref[field]} cli {got[field]}")
        print(f"{'ok  ' if not failures else '... '} {rel}: {len(ref['kernels'])} kernels, {len(ref['operators'])} operators")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
