"""More real data from a GPU, for tests/gpu/session.sh: an FP8 torch._scaled_mm trace, a CUDA memory snapshot of
training steps with the Kineto trace of the same run, and a snapshot of a deliberate out-of-memory.

Usage: extras.py fp8|memory|oom OUTDIR
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def profiled(path, record_memory=False):
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    return torch.profiler.profile(activities=activities, record_shapes=True, with_stack=True,
                                  profile_memory=record_memory,
                                  on_trace_ready=lambda p: p.export_chrome_trace(path))


def fp8(out):
    # Row-major A and column-major B in float8_e4m3fn with per-tensor scales, as torch._scaled_mm requires.
    m, k, n = 4096, 4096, 4096
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    scale_a = torch.tensor(1.0, device="cuda")
    scale_b = torch.tensor(1.0, device="cuda")
    for _ in range(3):
        torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)
    torch.cuda.synchronize()
    with profiled(os.path.join(out, "fp8_scaled_mm.pt.trace.json")):
        for _ in range(10):
            with torch.profiler.record_function("fp8_gemm_4096"):
                torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)
        torch.cuda.synchronize()
    print(json.dumps({"fp8": "ok", "m": m, "k": k, "n": n, "calls": 10}))


def memory(out):
    from transformer import BATCH, SEQ, VOCAB, TinyGPT

    torch.manual_seed(0)
    torch.cuda.memory._record_memory_history(max_entries=200000)
    model = TinyGPT().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda")
    targets = torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda")
    with profiled(os.path.join(out, "memory_training.pt.trace.json"), record_memory=True) as prof:
        for _ in range(3):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(tokens).float().view(-1, VOCAB), targets.view(-1))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            prof.step()
        torch.cuda.synchronize()
    torch.cuda.memory._dump_snapshot(os.path.join(out, "memory_training.pickle"))
    torch.cuda.memory._record_memory_history(enabled=None)
    print(json.dumps({"memory": "ok", "max_allocated": torch.cuda.max_memory_allocated()}))


def oom(out):
    # A cap on this process's share of the GPU makes the caching allocator refuse (and record) the allocation that
    # passes it, without filling a 141 GB card.
    torch.cuda.set_per_process_memory_fraction(0.01)
    torch.cuda.memory._record_memory_history(max_entries=100000)
    kept = []
    size = 16 << 20
    try:
        while True:
            kept.append(torch.empty(size, dtype=torch.uint8, device="cuda"))
            size = size * 3 // 2
    except torch.OutOfMemoryError as error:
        message = str(error).splitlines()[0]
    torch.cuda.memory._dump_snapshot(os.path.join(out, "oom.pickle"))
    torch.cuda.memory._record_memory_history(enabled=None)
    print(json.dumps({"oom": message, "allocations_before": len(kept)}))


if __name__ == "__main__":
    {"fp8": fp8, "memory": memory, "oom": oom}[sys.argv[1]](sys.argv[2])
