"""Compiled runs that the compiled-model advice must read right, for tests/gpu/session.sh: a graph break, a
recompilation inside the profile, and mode="max-autotune-no-cudagraphs". Each is the small GPT of transformer.py
training under torch.profiler (record_shapes, with_stack; three warm-up steps outside the profile, then a schedule of
wait=1, warmup=1, active=3), writing OUTDIR/<case>.pt.trace.json and a line of JSON saying what it did.

Usage: compiled_cases.py break|recompile|autotune OUTDIR
  break      the forward reads a count of padding tokens with .item(), which Dynamo cannot trace (a graph break
             with the default capture_scalar_outputs=False): each step runs the frame's region, the eager .item()
             and the resume function's region.
  recompile  the last two profiled steps feed half the batch: Dynamo compiles the frame again inside the profile
             (its second compile, 0/1, with the batch size dynamic). Without with_stack: with it, the Python
             tracer recorded every call of the compiler and the trace reached 1.5 GB (an H200, 2026-11-27).
  autotune   torch.compile(mode="max-autotune-no-cudagraphs"): Inductor benchmarks Triton GEMM templates against
             cuBLAS and keeps the faster of each.
"""
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transformer import BATCH, SEQ, VOCAB, TinyGPT  # noqa: E402


class BreakingGPT(TinyGPT):
    def forward(self, tokens):
        padding = int((tokens == 0).sum().item())  # a graph break: a Python int from a tensor
        logits = super().forward(tokens)
        return logits if padding >= 0 else logits * 0


def main():
    case, out = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    model = (BreakingGPT() if case == "break" else TinyGPT()).cuda()
    mode = "max-autotune-no-cudagraphs" if case == "autotune" else "default"
    forward = torch.compile(model, mode=mode)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def batch(size):
        tokens = torch.randint(0, VOCAB, (size, SEQ), device="cuda")
        return tokens, torch.randint(0, VOCAB, (size, SEQ), device="cuda")

    full, half = batch(BATCH), batch(BATCH // 2)

    def step(data):
        tokens, targets = data
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = forward(tokens)
            loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), targets.reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    start = time.perf_counter()
    for _ in range(3):
        step(full)
    torch.cuda.synchronize()
    warmup_s = time.perf_counter() - start

    trace = os.path.join(out, case + ".pt.trace.json")
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1)
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities, schedule=schedule, record_shapes=True,
                                with_stack=case != "recompile",
                                on_trace_ready=lambda p: p.export_chrome_trace(trace)) as prof:
        for i in range(5):
            step(half if case == "recompile" and i >= 3 else full)
            prof.step()
    torch.cuda.synchronize()
    counters = {k: dict(v) for k, v in torch._dynamo.utils.counters.items() if k in ("stats", "graph_break")}
    print(json.dumps({"case": case, "mode": mode, "warmup_s": warmup_s, "trace": trace, "torch": torch.__version__,
                      "dynamo": counters}, default=str))


if __name__ == "__main__":
    main()
