"""What a capture costs a training step, beside what torch.profiler costs it (the live-capture figures in
bench/RESULTS.md): tests/gpu/transformer.py's model, eager or compiled, timed in rounds of N steps (each round ends
with a device synchronize), the median round kept.

Usage: overhead.py [--compile none|default] [--steps N] [--rounds R] [--bare-only]
Prints one JSON line of milliseconds a step: `bare`, and unless --bare-only `profiler_cuda` (torch.profiler with the
CUDA activity alone: CUPTI's records, what our capture takes) and `profiler_cpu_cuda` (CPU and CUDA activities with
record_shapes and with_stack, as the traces in tests/data/gpu were made). Run it bare and under `kinetoscope-cli
record`, which captures the whole process: there `bare` is the step under our capture (`under_capture` says which).
The profiler's figures exclude its export and post-processing, as ours exclude writing the trace.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transformer import training_step  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", default="none", choices=["none", "default"])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--bare-only", action="store_true")
    args = parser.parse_args()

    step = training_step(args.compile)

    def ms_per_step():
        rounds = []
        for _ in range(args.rounds):
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(args.steps):
                step()
            torch.cuda.synchronize()
            rounds.append((time.perf_counter() - start) * 1e3 / args.steps)
        return statistics.median(rounds), rounds

    for _ in range(5):  # compile and warm up
        step()
    result = {"compile": args.compile, "steps": args.steps, "rounds": args.rounds,
              "under_capture": bool(os.environ.get("CUDA_INJECTION64_PATH")),
              "agent_settings": {k: v for k, v in os.environ.items()
                                 if k.startswith("KINETOSCOPE_CUPTI_") or k == "KINETOSCOPE_FLUSH_MS"}}
    result["bare"], result["bare_rounds"] = ms_per_step()
    if not args.bare_only:
        for name, options in (
                ("profiler_cuda", dict(activities=[torch.profiler.ProfilerActivity.CUDA])),
                ("profiler_cpu_cuda", dict(activities=[torch.profiler.ProfilerActivity.CPU,
                                                       torch.profiler.ProfilerActivity.CUDA],
                                           record_shapes=True, with_stack=True))):
            with torch.profiler.profile(**options):
                step()  # the profiler's own start-up stays out of the rounds
                result[name], result[name + "_rounds"] = ms_per_step()
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
