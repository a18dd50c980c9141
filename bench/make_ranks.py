#!/usr/bin/python3
"""Many ranks of one job, with planted stragglers, for the job report's tests and benchmarks.

  make_ranks.py traces OUT --ranks N [--steps S] [--straggler RANK:STEP:MS ...]
      N small Kineto traces named as tensorboard_trace_handler names them (<host>_<pid>.<time>.pt.trace.json,
      eight ranks a host): per step a computation kernel and an all-reduce, clocks aligned. A straggler computes
      MS longer in step STEP, and every rank's all-reduce of that step ends that much later.
  make_ranks.py rank-files RANK_FILE OUT --ranks N [--straggler RANK:STEP:MS ...]
      N rank files made from one real rank file (`kinetoscope-cli rank`): each a copy with its own rank, host
      and a little noise (under 2% of computation); a straggler's step computes MS longer and its collectives
      of that step start and end MS later.

Stragglers are printed worst first, as the job report should list them.
"""
import argparse
import copy
import json
import os


def stragglers(specs):
    out = []
    for s in specs:
        rank, step, ms = s.split(":")
        out.append((int(rank), int(step), float(ms)))
    return out


def make_traces(args, planted):
    os.makedirs(args.out, exist_ok=True)
    step_us = 20000.0 + max([ms * 1000 for _, _, ms in planted] + [0])
    extra = {(r, s): ms * 1000 for r, s, ms in planted}
    for rank in range(args.ranks):
        events = []
        base = 1_700_000_000_000_000.0
        for step in range(args.steps):
            start = base + step * step_us
            compute = 8000.0 + (rank * 7919 % 100) + extra.get((rank, step), 0)
            latest = 8000.0 + 99 + max([extra.get((r, step), 0) for r, _, _ in planted] + [0])
            corr = 2 * step + 1
            events += [
                {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": 1, "tid": 1,
                 "ts": start, "dur": step_us - 1},
                {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                 "ts": start + 10, "dur": 5, "args": {"correlation": corr}},
                {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32", "pid": 0, "tid": 7,
                 "ts": start + 100, "dur": compute,
                 "args": {"correlation": corr, "device": 0, "stream": 7}},
                {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                 "ts": start + 20, "dur": 5, "args": {"correlation": corr + 1}},
                {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, "
                 "unsigned long, ncclWork*)", "pid": 0, "tid": 7, "ts": start + 100 + compute,
                 "dur": latest - compute + 2000,
                 "args": {"correlation": corr + 1, "device": 0, "stream": 7, "Collective name": "allreduce",
                          "In msg nelems": 1048576, "Out msg nelems": 1048576, "dtype": "Float"}},
            ]
        trace = {"schemaVersion": 1,
                 "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": args.ranks},
                 "traceEvents": events}
        name = f"node{rank // 8:04d}_{10000 + rank}.1716215148212345678.pt.trace.json"
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(trace, f)


def make_rank_files(args, planted):
    os.makedirs(args.out, exist_ok=True)
    with open(args.rank_file) as f:
        model = json.load(f)
    cols = model["collective_instances"]["columns"]
    si, st, en = cols.index("step"), cols.index("start_us"), cols.index("end_us")
    extra = {(r, s): ms * 1000 for r, s, ms in planted}
    for rank in range(args.ranks):
        d = copy.deepcopy(model)
        d["rank"], d["world_size"] = rank, args.ranks
        d["host"] = f"node{rank // 8:04d}"
        d["source"] = f"/logs/node{rank // 8:04d}_{10000 + rank}.1716215148212345678.pt.trace.json"
        for i, s in enumerate(d["steps"]):
            add = s["computation_us"] * 0.02 * (rank * 7919 % 1000) / 1000 + extra.get((rank, i), 0)
            s["computation_us"] = round(s["computation_us"] + add, 3)
        for row in d["collective_instances"]["rows"]:
            shift = extra.get((rank, row[si]), 0)
            row[st], row[en] = round(row[st] + shift, 3), round(row[en] + shift, 3)
        with open(os.path.join(args.out, f"rank{rank:05d}.rank.json"), "w") as f:
            json.dump(d, f)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["traces", "rank-files"])
    p.add_argument("inputs", nargs="+", help="OUT, or RANK_FILE OUT")
    p.add_argument("--ranks", type=int, required=True)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--straggler", action="append", default=[], metavar="RANK:STEP:MS")
    args = p.parse_args()
    planted = stragglers(args.straggler)
    if args.kind == "traces":
        (args.out,) = args.inputs
        make_traces(args, planted)
    else:
        args.rank_file, args.out = args.inputs
        make_rank_files(args, planted)
    for rank, step, ms in sorted(planted, key=lambda p: -p[2]):
        print(f"straggler rank {rank} step {step} +{ms} ms")


if __name__ == "__main__":
    main()
