"""Training steps of a small transformer, the real-GPU workload for tests/gpu/session.sh.

Eager, compiled (torch.compile) or compiled with CUDA graphs (mode="reduce-overhead"); run bare (for
`kinetoscope-cli record`) or under torch.profiler with a schedule of a few ProfilerSteps, saving the Kineto trace and
the profiler's own key_averages() table (every row: key, count, self/total CPU and device time in µs) taken from
the same profile as the trace, so our operator table can be checked against PyTorch's.

Usage: transformer.py [--compile none|default|reduce-overhead] [--steps N] [--profile PREFIX]
  PREFIX.pt.trace.json and PREFIX.key_averages.json are written with --profile.
"""
import argparse
import json
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, WIDTH, HEADS, SEQ, BATCH = 2048, 256, 4, 128, 8
# A second compile of a deeper model moves the kernels' numeric suffixes (the compiled-models issue matches kernels
# across two compiles).
LAYERS = int(os.environ.get("KINETOSCOPE_LAYERS", "2"))
# A compile with one reduction more at the start (the embeddings centred over the sequence) numbers every later
# kernel one higher: the pair for matching kernels across compiles when the suffix moved.
CENTER = os.environ.get("KINETOSCOPE_CENTER") == "1"


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.norm2 = nn.LayerNorm(WIDTH)
        self.up = nn.Linear(WIDTH, 4 * WIDTH)
        self.down = nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(c, dim=2)
        q, k, v = (y.view(b, t, HEADS, c // HEADS).transpose(1, 2) for y in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.position = nn.Parameter(torch.zeros(SEQ, WIDTH))
        self.blocks = nn.Sequential(*[Block() for _ in range(LAYERS)])
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position
        if CENTER:
            x = x - x.mean(dim=1, keepdim=True)
        return self.head(self.norm(self.blocks(x)))


def key_averages_rows(prof):
    rows = []
    for e in prof.key_averages():
        rows.append({
            "key": e.key,
            "count": e.count,
            "self_cpu_time_total_us": e.self_cpu_time_total,
            "cpu_time_total_us": e.cpu_time_total,
            "self_device_time_total_us": getattr(e, "self_device_time_total", 0),
            "device_time_total_us": getattr(e, "device_time_total", 0),
            "device_type": str(e.device_type),
        })
    return rows


def training_step(compile_mode):
    """One training step of the model on fixed random tokens (bf16 autocast, AdamW), eager or compiled in
    `compile_mode`; also what tests/gpu/overhead.py times."""
    torch.manual_seed(0)
    model = TinyGPT().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    forward = model if compile_mode == "none" else torch.compile(model, mode=compile_mode)
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda")
    targets = torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = forward(tokens)
            loss = F.cross_entropy(logits.float().view(-1, VOCAB), targets.view(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss

    return step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", default="none", choices=["none", "default", "reduce-overhead"])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--profile", default="")
    args = parser.parse_args()

    step = training_step(args.compile)

    start = time.perf_counter()
    for _ in range(3):  # compile and warm up outside the profile
        step()
    torch.cuda.synchronize()
    warmup_s = time.perf_counter() - start

    if not args.profile:
        # NVTX ranges mark the measured steps for a capture (kinetoscope-cli record collects them) to compare with
        # the profiler's ProfilerSteps.
        start = time.perf_counter()
        for i in range(args.steps):
            with torch.cuda.nvtx.range(f"train_step_{i}"):
                step()
        torch.cuda.synchronize()
        print(json.dumps({"compile": args.compile, "steps": args.steps, "warmup_s": warmup_s,
                          "steps_s": time.perf_counter() - start}))
        return

    written = {}

    def on_trace_ready(prof):
        trace = args.profile + ".pt.trace.json"
        prof.export_chrome_trace(trace)
        with open(args.profile + ".key_averages.json", "w") as f:
            json.dump({"torch": torch.__version__, "compile": args.compile, "rows": key_averages_rows(prof)}, f,
                      indent=1)
        written["trace"] = trace

    active = max(1, args.steps - 2)
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=active, repeat=1)
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities, schedule=schedule, on_trace_ready=on_trace_ready,
                                record_shapes=True, with_stack=True) as prof:
        for _ in range(active + 2):
            step()
            prof.step()
    torch.cuda.synchronize()
    print(json.dumps({"compile": args.compile, "profiled_steps": active, "warmup_s": warmup_s, **written}))


if __name__ == "__main__":
    main()
