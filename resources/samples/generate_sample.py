#!/usr/bin/env python3
"""Writes Kinetoscope's bundled sample trace: a small, realistic Kineto-format training run.

    generate_sample.py OUT.json

Three ProfilerSteps of a two-layer model: a DataLoader range, forward ops with fwdbwd flows to their
backward ops on the autograd thread, runtime launches with ac2g flows to kernels on two CUDA streams,
memcpy and memset, an optimizer step, and [memory] allocation events. Deterministic (fixed seed).
Standard library only.
"""
import json, random, sys

random.seed(7)
PID, MAIN, BWD = 4242, 4242, 4250
events, corr, ext, flow = [], [1000], [1], [1]
t = [1_000_000.0]  # us, relative clock like Kineto >= 2024
allocated = [0]


def x(name, cat, ts, dur, tid=MAIN, pid=PID, args=None):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3), "dur": round(dur, 3)}
    if args:
        e["args"] = args
    events.append(e)
    return e


def memory(ts, nbytes):
    # A stack allocator: a block lives at the base plus what was allocated before it, so a free (LIFO) names the
    # same address as its allocation.
    if nbytes > 0:
        addr = 140000000 + allocated[0]
        allocated[0] += nbytes
    else:
        allocated[0] += nbytes
        addr = 140000000 + allocated[0]
    events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": PID, "tid": MAIN,
                   "ts": round(ts, 3), "args": {"Device Type": 1, "Device Id": 0, "Addr": addr,
                                                 "Bytes": nbytes, "Total Allocated": allocated[0],
                                                 "Total Reserved": 1 << 30}})


def launch(ts, kernel, stream, kdur, tid=MAIN, cat="kernel", grid=(128, 1, 1), block=(256, 1, 1)):
    c = corr[0]; corr[0] += 1
    api = {"kernel": "cudaLaunchKernel", "gpu_memcpy": "cudaMemcpyAsync", "gpu_memset": "cudaMemsetAsync"}[cat]
    x(api, "cuda_runtime", ts, 4.5, tid, args={"correlation": c, "External id": ext[0], "cbid": 211})
    start = max(ts + 6.0, gpu_free[stream])
    kargs = {"correlation": c, "External id": ext[0], "device": 0, "stream": stream, "context": 1}
    if cat == "kernel":
        kargs.update({"grid": list(grid), "block": list(block), "registers per thread": 32, "shared memory": 0,
                      "blocks per SM": 1.2, "warps per SM": 9.6, "est. achieved occupancy %": 50})
    else:
        kargs.update({"bytes": 4 << 20, "memory bandwidth (GB/s)": 800.0})
    x(kernel, cat, start, kdur, tid=stream, pid=0, args=kargs)
    events.append({"ph": "s", "id": c, "pid": PID, "tid": tid, "ts": round(ts, 3), "cat": "ac2g", "name": "ac2g"})
    events.append({"ph": "f", "id": c, "pid": 0, "tid": stream, "ts": round(start, 3), "cat": "ac2g", "name": "ac2g",
                   "bp": "e"})
    gpu_free[stream] = start + kdur
    return start + kdur


gpu_free = {7: 0.0, 13: 0.0}
LAYERS = [("aten::linear", "aten::addmm", "ampere_sgemm_128x64_tn", 180.0), ("aten::relu", "aten::clamp_min",
          "void at::native::vectorized_elementwise_kernel<4, at::native::clamp_min_kernel>", 25.0)] * 2

for step in range(3):
    step_start = t[0]
    step_ev = x(f"ProfilerStep#{step + 2}", "user_annotation", step_start, 0)
    dl = x("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "user_annotation", t[0] + 2, 350 + random.random() * 50)
    t[0] = dl["ts"] + dl["dur"] + 5
    x("aten::to", "cpu_op", t[0], 30, args={"External id": ext[0], "Input Dims": [[64, 784]], "Input type": ["float"]})
    launch(t[0] + 10, "Memcpy HtoD (Pageable -> Device)", 13, 60.0, cat="gpu_memcpy")
    ext[0] += 1
    t[0] += 40
    fwd_ops = []
    for outer, inner, kernel, kdur in LAYERS:
        seq = ext[0]
        o = x(outer, "cpu_op", t[0], 60, args={"External id": ext[0], "Sequence number": seq, "Fwd thread id": 0,
                                                "Input Dims": [[64, 512], [512, 512]]})
        x(inner, "cpu_op", t[0] + 8, 40, args={"External id": ext[0] + 1, "Input Dims": [[512], [64, 512]]})
        launch(t[0] + 20, kernel, 7, kdur)
        memory(t[0] + 45, 64 * 512 * 4)
        fwd_ops.append((o, seq))
        ext[0] += 2
        t[0] += 70
    x("aten::mse_loss", "cpu_op", t[0], 25, args={"External id": ext[0]})
    launch(t[0] + 5, "void at::native::reduce_kernel<512, 1>", 7, 12.0)
    t[0] += 40
    bwd = x("autograd::engine::evaluate_function: AddmmBackward0", "cpu_op", t[0], 0, tid=BWD)
    bstart = t[0]
    for o, seq in reversed(fwd_ops):
        b = x(o["name"].replace("aten::", "") + "Backward0", "cpu_op", t[0] + 5, 80, tid=BWD,
              args={"External id": ext[0], "Sequence number": seq})
        launch(t[0] + 15, "ampere_sgemm_64x64_nt" if "linear" in o["name"] else "threshold_backward_kernel", 7, 150.0, tid=BWD)
        events.append({"ph": "s", "id": flow[0], "pid": PID, "tid": MAIN, "ts": o["ts"], "cat": "fwdbwd", "name": "fwdbwd"})
        events.append({"ph": "f", "id": flow[0], "pid": PID, "tid": BWD, "ts": b["ts"], "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"})
        flow[0] += 1
        ext[0] += 1
        memory(t[0] + 60, -64 * 512 * 4)
        t[0] += 95
    bwd["dur"] = round(t[0] - bstart, 3)
    x("Optimizer.step#SGD.step", "user_annotation", t[0], 120)
    launch(t[0] + 10, "void at::native::multi_tensor_apply_kernel<SGD>", 13, 40.0)
    launch(t[0] + 30, "Memset (Device)", 13, 3.0, cat="gpu_memset")
    sync = t[0] + 125
    x("cudaStreamSynchronize", "cuda_runtime", sync, max(5.0, max(gpu_free.values()) - sync + 2))
    t[0] = max(sync + 10, max(gpu_free.values()) + 5)
    step_ev["dur"] = round(t[0] - step_start, 3)
    t[0] += 10

meta = [
    {"ph": "M", "name": "process_name", "pid": PID, "tid": 0, "args": {"name": "python"}},
    {"ph": "M", "name": "thread_name", "pid": PID, "tid": MAIN, "args": {"name": "thread 4242 (python)"}},
    {"ph": "M", "name": "thread_name", "pid": PID, "tid": BWD, "args": {"name": "thread 4250 (autograd)"}},
    {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
    {"ph": "M", "name": "process_sort_index", "pid": 0, "tid": 0, "args": {"sort_index": 5000000}},
    {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
    {"ph": "M", "name": "thread_name", "pid": 0, "tid": 13, "args": {"name": "stream 13"}},
]
doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85097971712,
       "computeMajor": 8, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
       "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
       "sharedMemPerMultiprocessor": 167936, "numSms": 108, "sharedMemPerBlockOptin": 166912}],
       "record_shapes": 1, "profile_memory": 1, "traceEvents": meta + events, "traceName": "sample.pt.trace.json",
       "displayTimeUnit": "ms", "baseTimeNanoseconds": 1795000000000000000}
with open(sys.argv[1], "w") as f:
    json.dump(doc, f, indent=1)
