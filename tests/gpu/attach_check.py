"""Attach on a real PyTorch (issue 53, item 5), for the next GPU session. Run from the repository root on the GPU
machine with a carried build (tests/gpu/carry.sh):

    OUT=/path/that/comes/back python3 tests/gpu/attach_check.py [.gpu/build]

1. A training loop (a small MLP, torch.optim.SGD, on cuda) started with KINETO_USE_DAEMON=1 runs for a minute;
   `kinetoscope-cli attach --list --json` must list it (its pid, idle); `attach PID --iterations 3 --shapes
   --stack` must bring back a trace with its operators (aten::addmm with Input Dims), kernels and ac2g flows.
2. The same loop under torch.profiler for 3 steps (schedule active=3): the same kernel names, and per step the
   same count of each kernel, as the attached trace.
3. Two loops at once: `attach --all --duration-ms 2000` brings back one trace per process.
Each check prints PASS or FAIL with its figures; the traces land in $OUT/attach/ (small: keep them in
tests/data/gpu/ as the issue asks), and the exit status is the number of failures.
"""
import json
import os
import subprocess
import sys
import time
from collections import Counter

build = sys.argv[1] if len(sys.argv) > 1 else ".gpu/build"
cli = os.path.join(build, "cli", "kinetoscope-cli")
out = os.environ["OUT"]
traces = os.path.join(out, "attach")
os.makedirs(traces, exist_ok=True)

LOOP = r"""
import sys, time, torch
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 0
model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 512)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 512, device="cuda")
def step():
    opt.zero_grad()
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    time.sleep(0.05)
if steps:  # under torch.profiler, for the comparison
    from torch.profiler import profile, schedule, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True, with_stack=True,
                 schedule=schedule(wait=1, warmup=1, active=steps),
                 on_trace_ready=lambda p: p.export_chrome_trace(sys.argv[2])) as prof:
        for _ in range(steps + 2):
            step()
            prof.step()
else:
    end = time.time() + 60
    while time.time() < end:
        step()
"""
failures = 0


def check(name, ok, detail):
    global failures
    print(("PASS" if ok else "FAIL"), name, detail, flush=True)
    failures += 0 if ok else 1


def kernels_per_step(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    # A step is an optimizer step on the CPU side: attach's trace has no ProfilerStep# (nothing calls prof.step()),
    # and each annotation appears twice (user_annotation and its gpu_user_annotation copy).
    steps = [e for e in events if e.get("ph") == "X" and e.get("cat") == "user_annotation"
             and str(e.get("name", "")).startswith("Optimizer.step#")]
    kernels = Counter(e["name"] for e in events if e.get("ph") == "X" and e.get("cat") == "kernel")
    return kernels, max(1, len(steps)), events


def start_loop():
    env = dict(os.environ, KINETO_USE_DAEMON="1")
    return subprocess.Popen([sys.executable, "-c", LOOP], env=env)


# 1. One process: listed, then traced for 3 iterations with shapes and stacks.
loop = start_loop()
time.sleep(12)  # CUDA up, and at least one 5 s poll
listed = json.loads(subprocess.run([cli, "attach", "--list", "--json", "--wait", "7"], capture_output=True,
                                   text=True).stdout or "[]")
check("listed", any(p["pid"] == loop.pid for p in listed), listed)
run = subprocess.run([cli, "attach", str(loop.pid), "--iterations", "3", "--shapes", "--stack", "--wait", "12",
                      "-o", traces], capture_output=True, text=True, timeout=240)
print(run.stdout, run.stderr)
check("attached", run.returncode == 0 and run.stdout.strip(), run.returncode)
attached = run.stdout.strip().splitlines()[0] if run.stdout.strip() else ""
loop.kill()
if attached:
    kernels, steps, events = kernels_per_step(attached)
    shapes = [e for e in events if e.get("name") == "aten::addmm" and "Input Dims" in e.get("args", {})]
    flows = [e for e in events if e.get("cat") == "ac2g"]
    check("operators with shapes", bool(shapes), len(shapes))
    check("kernels and flows", bool(kernels) and bool(flows), (sum(kernels.values()), len(flows)))
    summary = subprocess.run([cli, "summary", attached, "--json"], capture_output=True, text=True)
    check("kinetoscope reads it", summary.returncode == 0, summary.stderr[:200])

    # 2. The same loop under torch.profiler: the same kernels per step.
    reference = os.path.join(traces, "profiler.pt.trace.json")
    subprocess.run([sys.executable, "-c", LOOP, "3", reference], check=False, timeout=300)
    ref_kernels, ref_steps, _ = kernels_per_step(reference)
    per_step = {k: v / steps for k, v in kernels.items()}
    ref_per_step = {k: v / ref_steps for k, v in ref_kernels.items()}
    check("same kernel names", set(per_step) == set(ref_per_step), sorted(set(per_step) ^ set(ref_per_step))[:5])
    check("three iterations", steps == 3, steps)
    check("same counts per step", per_step == ref_per_step, (steps, ref_steps, sum(kernels.values()),
                                                             sum(ref_kernels.values())))

# 3. Two processes at once.
loops = [start_loop(), start_loop()]
time.sleep(12)
run = subprocess.run([cli, "attach", "--all", "--duration-ms", "2000", "--wait", "12", "-o", traces],
                     capture_output=True, text=True, timeout=240)
print(run.stdout, run.stderr)
paths = run.stdout.strip().splitlines()
check("two at once", run.returncode == 0 and len(paths) == 2, paths)
for p in loops:
    p.kill()
sys.exit(failures)
