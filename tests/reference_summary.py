#!/usr/bin/python3
"""An independent reference for `kinetoscope-cli summary --json`, standard library only.

    reference_summary.py KINETOSCOPE_CLI TRACE_OR_DIR... [--max-mb N]

Recomputes, straight from the JSON with Python's json module and exact decimal time, the figures that
docs/DEFINITIONS.md defines, and compares them with what the CLI prints:
  - the event count, the kernel table and each device's busy time;
  - the operator and annotation tables (definitions 1, 2 and 4: host self subtracts every direct child, runtime and
    driver calls included; device self counts the kernels, copies and memsets an operator's launch calls made; one
    nesting rule; key_averages' merge of an operator into a same-named only-child parent);
  - the steps (ProfilerStep#N moved to its GPU work by the TensorBoard plugin's rules, or the one activity step), and each
    device's GPU utilisation over the span from the first step's start to the last step's end (definition 3);
  - each kernel's category and tensor-core flag, from the rules written out below (definitions 6 and 7);
  - TorchInductor's breakdown of every trace with a Triton kernel ("Compiled models"), as PyTorch's
    parse_profile_event_list defines it.
It is written from the definitions, not from the C++: where they disagree, one of them is wrong. A directory
argument means every trace under it (*.json, *.json.gz) whose JSON is at most --max-mb (default 20) megabytes.
Exit 1 on any difference.
"""
import gzip
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal


def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value(rounding="ROUND_HALF_UP"))


def read_json_bytes(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    with (gzip.open if magic == b"\x1f\x8b" else open)(path, "rb") as f:
        return f.read()


def events_of(text):
    doc = json.loads(text, parse_float=Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


# ---- categories -------------------------------------------------------------------------------------------------
def legacy(e):
    """An event of the legacy autograd profiler (no Kineto): no category, pid "CPU functions"."""
    return "cat" not in e and e.get("pid") == "CPU functions" and e.get("ph") == "X"


def legacy_kind(name):
    """docs/DEFINITIONS.md, "Traces without categories": an operator by its name, else an annotation."""
    if "::" in name or name == "detach" or re.fullmatch(r"[A-Z][A-Za-z0-9_]*Backward\d*", name):
        return "op"
    return "annotation"


def kind(e):
    c = str(e.get("cat", "")).lower()
    if legacy(e):
        return legacy_kind(str(e["name"]))
    if c in ("cpu_op", "operator"):
        return "op"
    if c == "user_annotation":
        return "annotation"
    if c in ("cuda_runtime", "runtime") or c.endswith("_runtime"):
        return "launch"
    if c == "cuda_driver" or c.endswith("_driver"):
        return "launch"
    if c == "kernel":
        return "kernel"
    if c in ("gpu_memcpy", "memcpy"):
        return "memcpy"
    if c in ("gpu_memset", "memset"):
        return "memset"
    if c == "python_function":
        return "python"
    return "other"


ANNOTATION_PREFIXES = ("ProfilerStep#", "Optimizer.step#", "Optimizer.zero_grad#", "enumerate(DataLoader)#",
                       "enumerate(DataPipe)#")


def role(e):
    k = kind(e)
    if k == "op":
        return "annotation" if str(e["name"]).startswith(ANNOTATION_PREFIXES) else "op"
    return k if k in ("annotation", "launch") else None


def group_name(name):
    return re.sub(r"#\d+$", "#*", name)


# ---- kernel classes (docs/DEFINITIONS.md, "Kernel categories"): ordered rules, first match wins ------------------
CATEGORY_RULES = [
    ("communication", r"nccl|rccl|msccl|deep_ep::|internode::|intranode::|all_?reduce|all_?gather|reduce_?scatter|"
                      r"all_?to_?all|cross_device_reduce|multimem_"),
    ("attention", r"flash|fmha|sdpa|attention|attn|xformers|mha_fwd|mha_bwd|_mha_|flashinfer"),
    ("softmax", r"softmax"),
    ("normalization", r"layer_?norm|rms_?norm|batch_?norm|group_?norm|instance_?norm|bn_fw|bn_bw|welford|gamma_?beta|"
                      r"cuapplylayernorm|cucomputegradgamma|cucomputepartgradgamma"),
    ("conv", r"convolve|convolution|conv[123]d|conv_fwd|conv_bwd|conv_dgrad|conv_wgrad|grouped_conv|depthwise|fprop|"
             r"dgrad|wgrad|implicit_gemm|winograd|scudnn|hcudnn|cudnn::cnn|im2col|col2im|fft2d|igemm_fwd|igemm_bwd|"
             r"igemm_wrw|naive_conv"),
    ("layout", r"converttensor|nchwtonhwc|nhwctonchw|nchw2nhwc|nhwc2nchw|transpose"),
    ("other", r"tma_desc|fill_tma"),
    ("gemm", r"gemm|gemv|cublas|cutlass::kernel|cutlass::device_kernel|cutlass_|cutlass3x|cijk_|nvjet|matmul|wgmma|xmma|hmma|s884|h884|s1688|h1688|16816|splitk|bmm_"),
    ("reduce", r"reduce|reduction"),
    ("elementwise", r"elementwise|multi_tensor_apply|fill_kernel|act_and_mul|silu_and_mul|gelu_and_mul"),
    ("triton", r"triton"),
]


def rule_text(name):
    """The name without the parameter list it ends with, lower-cased, without FBGEMM's namespace."""
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i]
                break
    return name.lower().replace("fbgemm", "")


def category(name):
    n = rule_text(name)
    for prefix, cat in (("triton_poi_", "pointwise"), ("triton_red_", "reduction"), ("triton_per_", "persistent_reduction")):
        if n.startswith(prefix):
            return cat
    if n.startswith("triton_tem_"):
        if "conv" in n:
            return "conv"
        if "attention" in n or "flex_" in n:
            return "attention"
        if re.search(r"_mm|mm_|addmm|bmm|matmul", n):
            return "gemm"
        return "template"
    for cat, pattern in CATEGORY_RULES:
        if re.search(pattern, n):
            return cat
    return "other"


def tensor_cores(name, template_operands_reduced=False):
    """`template_operands_reduced`: for a Triton template (triton_tem_*), whether the operator Inductor wraps around
    its launch (named after the kernel) records BF16, FP16 or FP8 as its first two input types."""
    n = rule_text(name)
    if not n.startswith("triton_") and re.search(r"converttensor|nchwtonhwc|nhwctonchw|nchw2nhwc|nhwc2nchw|transpose|tma_desc|fill_tma", n):
        return False
    if re.search(r"sm\d+_xmma", n):
        return "ffma" not in n and bool(re.search(r"f16|tf32|e4m3|e5m2|e2m1|fp8|s8|i8", n))
    if re.search(r"h884|s884|h1688|s1688|hmma|i8816|16816|dgrad_1x1_stride_2x2|first_layer_wgrad_kernel|conv1x1|"
                 r"conv2d_c1_k1|direct_group|xmma_implicit_gemm|xmma_sparse_conv|xmma_warp_specialized_implicit_gemm|"
                 r"xmma_gemm|xmma_sparse_gemm|c1688", n):
        return True
    if re.search(r"gmma|tcgen05|utcmma|nvjet|tensorop|cutlass3x_sm9|cutlass3x_sm10|cutlass_90|flash_fwd|flash_bwd|fmha|"
                 r"mfma|xdl|deep_gemm|_mi\d", n):
        return True
    if category(name) in ("gemm", "conv") and not re.search(r"sgemm|gemv|reduce", n):
        if re.search(r"bf16|fp16|f16|half|tf32|e4m3|e5m2|e2m1|fp8|mxfp|bfloat16|int8", n):
            return True
        return n.startswith("triton_tem_") and template_operands_reduced
    return False


# ---- the reference ----------------------------------------------------------------------------------------------
def interval_union(iv):
    total, cur = 0, None
    for a, b in sorted(iv):
        if cur is None or a > cur[1]:
            if cur:
                total += cur[1] - cur[0]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    return total + (cur[1] - cur[0] if cur else 0)


def reference(events):
    xs = [(i, e) for i, e in enumerate(events)
          if isinstance(e, dict) and e.get("ph") == "X" and "ts" in e and e.get("dur") is not None]
    kernels = defaultdict(list)
    busy = defaultdict(list)
    gpu = []  # (start, end, kind, name, correlation, device)
    for _, e in xs:
        k = kind(e)
        if k in ("kernel", "memcpy", "memset"):
            s, d = ns(e["ts"]), ns(e.get("dur", 0))
            gpu.append((s, s + d, k, e["name"], (e.get("args") or {}).get("correlation"), str(e["pid"])))
            if k == "kernel":
                kernels[e["name"]].append(d)
                busy[str(e["pid"])].append((s, s + d))

    # Host trees per thread.
    threads = defaultdict(list)
    for i, e in xs:
        r = role(e)
        if r:
            s = ns(e["ts"])
            threads[(str(e["pid"]), str(e["tid"]))].append((s, s + ns(e.get("dur", 0)), i, r, e))
    nodes = []  # dicts
    launch_node = {}  # correlation -> node index
    for key, lst in threads.items():
        lst.sort(key=lambda t: (t[0], -(t[1] - t[0]), t[2]))
        # The legacy profiler's whole microseconds: a child may end 1 us after its parent when it starts at least
        # 2 us before that end (docs/DEFINITIONS.md, "Nesting: one rule"); its files are already deduplicated.
        legacy_thread = any(legacy(e) for *_, e in lst)
        rounded = legacy_thread and all(s % 1000 == 0 and end % 1000 == 0 for s, end, *_ in lst)
        slack = 1000 if rounded else 0

        def within(pend, s, end):
            return end <= pend or (slack and end <= pend + slack and pend - s >= 1000 + slack)

        stack = []
        for s, end, _, r, e in lst:
            while stack and not (s < nodes[stack[-1]]["end"] and within(nodes[stack[-1]]["end"], s, end)):
                stack.pop()
            parent = stack[-1] if stack else -1
            nodes.append({"name": e["name"], "role": r, "start": s, "end": end, "parent": parent, "children": 0,
                          "child_sum": 0, "dev_self": 0, "merged": -1, "pid": str(e["pid"]), "deduplicated": legacy_thread,
                          "external": (e.get("args") or {}).get("External id"),
                          "types": (e.get("args") or {}).get("Input type")})
            idx = len(nodes) - 1
            if parent >= 0:
                nodes[parent]["children"] += 1
                nodes[parent]["child_sum"] += end - s
            if r == "launch":
                corr = (e.get("args") or {}).get("correlation")
                if corr is not None:
                    launch_node.setdefault(corr, idx)
            stack.append(idx)
    # key_averages' _remove_dup_nodes.
    for i, n in enumerate(nodes):
        if n["parent"] < 0 or n["role"] != "op" or n["deduplicated"]:
            continue
        p = n["parent"] if nodes[n["parent"]]["merged"] < 0 else nodes[n["parent"]]["merged"]
        pn = nodes[p]
        if pn["role"] == "op" and pn["children"] == 1 and pn["name"] == n["name"]:
            n["merged"] = p
            pn["child_sum"] += n["child_sum"] - (n["end"] - n["start"])
            pn["children"] = n["children"]
    template_tc = {}  # a Triton template GEMM's tensor-core flag, decided on its first kernel (definition 7)
    for s, end, k, name, corr, dev in gpu:
        i = launch_node.get(corr) if corr is not None else None
        if i is None:
            continue
        owner = nodes[i]["parent"]
        while owner >= 0 and nodes[owner]["role"] == "launch":
            owner = nodes[owner]["parent"]
        if owner < 0:
            continue
        if k == "kernel" and name not in template_tc:
            types = nodes[owner]["types"] if nodes[owner]["name"] == name else None
            template_tc[name] = (isinstance(types, list) and len(types) >= 2 and
                                 all(isinstance(t, str) and (t in ("c10::BFloat16", "c10::Half") or
                                                             t.startswith("c10::Float8_")) for t in types[:2]))
        # key_averages() follows Kineto's External id: a launch directly inside an annotation that does not push
        # its id (nccl:*, "## Call CompiledFxGraph") belongs to the enclosing operator that carries the launch's id.
        if nodes[owner]["role"] == "annotation" and nodes[i]["external"]:
            a = owner
            while a >= 0 and nodes[a]["external"] != nodes[i]["external"]:
                a = nodes[a]["parent"]
            if a >= 0:
                owner = a
        if nodes[owner]["merged"] >= 0:
            owner = nodes[owner]["merged"]
        nodes[owner]["dev_self"] += end - s
    total = [n["dev_self"] for n in nodes]
    for i in range(len(nodes) - 1, -1, -1):
        if nodes[i]["parent"] >= 0:
            total[nodes[i]["parent"]] += total[i]
    tables = {"op": defaultdict(lambda: [0, 0, 0, 0, 0]), "annotation": defaultdict(lambda: [0, 0, 0, 0, 0])}
    for i, n in enumerate(nodes):
        if n["role"] == "launch" or n["merged"] >= 0:
            continue
        name = n["name"] if n["role"] == "op" else group_name(n["name"])
        row = tables[n["role"]][name]
        row[0] += 1
        row[1] += n["end"] - n["start"]
        row[2] += n["end"] - n["start"] - n["child_sum"]
        row[3] += total[i]
        row[4] += n["dev_self"]

    # Steps (definition 3).
    launch_at = {}  # the activity step's launches
    for key, lst in threads.items():
        for s, end, _, r, e in lst:
            corr = (e.get("args") or {}).get("correlation")
            if r == "launch" and corr is not None:
                launch_at.setdefault(corr, (s, key[0]))
    step_slices = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), str(e["pid"]), i) for i, e in xs
                         if str(e["name"]).startswith("ProfilerStep#") and kind(e) not in ("kernel", "memcpy", "memset")
                         and str(e.get("cat", "")).lower() != "gpu_user_annotation")
    steps = []
    if step_slices:
        # The TensorBoard plugin's rules, written here as a brute force: a runtime call (not a driver call) launches
        # for the step whose host range holds its start, and only when it also ends inside it.
        bounds = [[s, end] for s, end, _, _ in step_slices]
        work_of = defaultdict(list)
        for n, (gs, ge, _, _, corr, _) in enumerate(gpu):
            if corr is not None:
                work_of[corr].append(n)
        launched = [[] for _ in bounds]
        for key, lst in threads.items():
            for s, end, _, r, e in lst:
                c = str(e.get("cat", "")).lower()
                corr = (e.get("args") or {}).get("correlation")
                if not (c in ("cuda_runtime", "runtime") or c.endswith("_runtime")) or corr not in work_of:
                    continue
                for i, (lo, hi) in enumerate(bounds):
                    if lo <= s < hi:
                        if end <= hi:
                            launched[i] += work_of[corr]
                        break
        matched = {n for ns_ in launched for n in ns_}
        if matched:
            start = bounds[0][0]
            if launched[0]:
                first = min(gpu[n][0] for n in launched[0])
                for n, (gs, ge, *_rest) in enumerate(gpu):
                    if n not in matched and ge < first:
                        start = max(start, ge)
            previous = start
            for i, (lo, hi) in enumerate(bounds):
                begin = max(previous, lo)
                end = max([hi, begin] + [gpu[n][1] for n in launched[i]])
                steps.append([begin, end])
                previous = end
            if len(steps) > 1:
                last = len(steps)
                while last > 0 and not launched[last - 1]:
                    last -= 1
                if last > 0:
                    keep = last
                    if last > 1 and len(launched[last - 2]) * 0.8 > len(launched[last - 1]):
                        keep = last - 1
                    del steps[keep:]
        else:
            steps = bounds
    else:
        cpu = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for _, e in xs if kind(e) in ("op", "python")]
        if cpu:
            lo, hi = min(a for a, _ in cpu), max(b for _, b in cpu)
            end = hi
            for gs, ge, _, _, corr, _ in gpu:
                at = launch_at.get(corr)
                if at and lo <= at[0] <= hi:
                    end = max(end, ge)
            steps.append([lo, end])
        else:  # no CPU operators or Python frames: everything the trace holds
            timed = [e for e in events if isinstance(e, dict) and "ts" in e and e.get("ph") != "M"]
            if timed:
                steps.append([min(ns(e["ts"]) for e in timed), max(ns(e["ts"]) + ns(e.get("dur", 0) or 0) for e in timed)])
    utilization = {}
    if steps:
        lo, hi = steps[0][0], steps[-1][1]
        for dev, iv in busy.items():
            clipped = [(max(a, lo), min(b, hi)) for a, b in iv if min(b, hi) > max(a, lo)]
            utilization[dev] = round(interval_union(clipped) / (hi - lo), 6) if hi > lo else 0.0
    return {
        "inductor": inductor_reference(gpu),
        "events": len(xs),
        "kernels": {n: (len(d), sum(d), min(d), max(d), category(n), tensor_cores(n, template_tc.get(n, False)))
                    for n, d in kernels.items()},
        "gpu_busy": {dev: interval_union(iv) for dev, iv in busy.items()},
        "operators": {n: tuple(v) for n, v in tables["op"].items()},
        "annotations": {n: tuple(v) for n, v in tables["annotation"].items()},
        "steps": [tuple(s) for s in steps],
        "gpu_utilization": utilization,
    }


# ---- TorchInductor's breakdown (definition "Compiled models"), as parse_profile_event_list in PyTorch's
# torch/_inductor/wrapper_benchmark.py computes it: every GPU event (kernel, copy, memset) by name, its count and
# summed duration; the category from the name; each category's kernels by self time; the busy time their sum.
INDUCTOR_ORDER = ["triton_pointwise", "triton_reduction", "triton_persistent_reduction", "triton_unknown", "unknown"]


def inductor_category(name):
    if not name.startswith("triton_"):
        return "unknown"
    for prefix, cat in (("triton_poi", "triton_pointwise"), ("triton_red", "triton_reduction"),
                        ("triton_per", "triton_persistent_reduction")):
        if name.startswith(prefix):
            return cat
    return "triton_unknown"


def inductor_reference(gpu):
    if not any(name.startswith("triton_") for _, _, _, name, _, _ in gpu):
        return None  # no Triton kernel: no report
    by_name = defaultdict(lambda: [0, 0])
    for start, end, _, name, _, _ in gpu:
        by_name[name][0] += 1
        by_name[name][1] += end - start
    cats = defaultdict(list)
    for name, (calls, total) in by_name.items():
        cats[inductor_category(name)].append((name, calls, total))
    out = []
    for cat in INDUCTOR_ORDER:
        if cat in cats:
            ks = sorted(cats[cat], key=lambda k: (-k[2], k[0]))
            out.append((cat, sum(k[2] for k in ks), tuple(ks)))
    return (sum(c[1] for c in out), tuple(out))


def inductor_from_cli(out):
    block = out.get("inductor")
    if block is None:
        return None
    b = block["trace"]
    wall = ns(b["wall_us"])
    cats = []
    for c in b["categories"]:
        ks = tuple((k["name"], k["calls"], ns(k["self_us"])) for k in c["kernels"])
        # Each share is of the breakdown's wall time, to two decimals: checked here, where the wall is known.
        for k in c["kernels"]:
            if wall and abs(float(k["pct"]) - 100.0 * ns(k["self_us"]) / wall) > 0.0051:
                return ("pct", k["name"], k["pct"])
        cats.append((c["category"], ns(c["total_us"]), ks))
    return (sum(c[1] for c in cats), tuple(cats))


def from_cli(out):
    rows = lambda key: {o["name"]: (o["count"], ns(o["host_total_us"]), ns(o["host_self_us"]), ns(o["device_total_us"]),
                                    ns(o["device_self_us"])) for o in out.get(key, [])}
    return {
        "inductor": inductor_from_cli(out),
        "events": out["events"],
        "kernels": {k["name"]: (k["count"], ns(k["total_us"]), ns(k["min_us"]), ns(k["max_us"]), k["category"],
                                k["tensor_cores"]) for k in out["kernels"]},
        "gpu_busy": {d: ns(v) for d, v in out["gpu_busy_us"].items()},
        "operators": rows("operators"),
        "annotations": rows("annotations"),
        "steps": [(ns(s["start_us"]), ns(s["end_us"])) for s in out.get("steps", [])],
        "gpu_utilization": {d: round(float(v), 6) for d, v in out.get("gpu_utilization", {}).items()},
    }


def traces_of(args, max_mb):
    for a in args:
        if os.path.isdir(a):
            for root, _, files in os.walk(a):
                for f in sorted(files):
                    if f.endswith((".json", ".json.gz")) and "snapshots" not in root:
                        yield os.path.join(root, f), max_mb
        else:
            yield a, None


def main():
    args = sys.argv[1:]
    max_mb = 20.0
    if "--max-mb" in args:
        i = args.index("--max-mb")
        max_mb = float(args[i + 1])
        del args[i:i + 2]
    cli, targets = args[0], args[1:]
    failures, checked = 0, 0
    for path, limit in sorted(traces_of(targets, max_mb)):
        text = read_json_bytes(path)
        if limit is not None and len(text) > limit * 1e6:
            continue
        try:
            events = events_of(text)
        except (ValueError, KeyError):
            continue  # not a trace (or a deliberately broken one): the loader's own tests cover those
        ref = reference(events)
        run = subprocess.run([cli, "summary", path, "--json"], capture_output=True)
        if run.returncode != 0:
            print(f"FAIL {path}: the CLI exited {run.returncode}: {run.stderr.decode()[:200]}")
            failures += 1
            continue
        got = from_cli(json.loads(run.stdout, parse_float=Decimal))
        checked += 1
        bad = 0
        for field in ref:
            if ref[field] != got[field]:
                bad += 1
                print(f"MISMATCH {path}: {field}")
                if isinstance(ref[field], dict):
                    for k in sorted(set(ref[field]) | set(got[field]), key=str):
                        if ref[field].get(k) != got[field].get(k):
                            print(f"   {k!r}: reference {ref[field].get(k)} cli {got[field].get(k)}")
                            bad += 1
                            if bad > 12:
                                break
                else:
                    print(f"   reference {str(ref[field])[:300]}\n   cli       {str(got[field])[:300]}")
        failures += bad > 0
        print(f"{'ok  ' if not bad else 'FAIL'} {os.path.relpath(path)}: {len(ref['kernels'])} kernels, "
              f"{len(ref['operators'])} operators, {len(ref['annotations'])} annotations, {len(ref['steps'])} steps")
    print(f"{checked - failures} passed, {failures} failed")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
