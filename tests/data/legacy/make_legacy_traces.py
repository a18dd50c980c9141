#!/usr/bin/python3
"""Traces in the legacy autograd-profiler format, each with PyTorch's own key_averages() of the same run.

Debian's python3-torch (1.13, CPU) is built without Kineto, so `export_chrome_trace` writes the legacy format:
a bare JSON array, every event `ph:"X"` with no `cat`, `pid:"CPU functions"`, whole microseconds (FORMAT.md,
../shared/traces/debian-torch). Run with Debian's interpreter (apt-get install python3-torch):

    /usr/bin/python3 tests/data/legacy/make_legacy_traces.py tests/data/legacy

Each case writes `<case>.json.gz` (the trace, as export_chrome_trace wrote it, gzipped) and
`<case>.key_averages.json.gz`: every row of `prof.key_averages()` of the same profile (key, count, self and total
CPU time in µs), in the layout of tests/data/gpu's tables, which tst_keyaverages reads.
"""
import gzip, json, os, shutil, sys, tempfile

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function

assert not torch.autograd.kineto_available(), "this generator is for a PyTorch without Kineto"
out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
torch.set_num_threads(2)


def save(name, prof):
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as f, gzip.GzipFile(os.path.join(out, name + ".json.gz"), "wb", 9, mtime=0) as g:
            shutil.copyfileobj(f, g)
    rows = [{"key": e.key, "count": e.count, "self_cpu_time_total_us": e.self_cpu_time_total,
             "cpu_time_total_us": e.cpu_time_total, "device_type": str(e.device_type)}
            for e in prof.key_averages()]
    doc = {"torch": torch.__version__, "case": name, "rows": rows}
    with gzip.GzipFile(os.path.join(out, name + ".key_averages.json.gz"), "wb", 9, mtime=0) as g:
        g.write(json.dumps(doc, indent=1).encode())
    print(f"{name}: {len(prof.events())} events, {len(rows)} key_averages rows")


def train(model, batches, steps, loss_fn=nn.functional.cross_entropy):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(steps):
        x, y = batches[step % len(batches)]
        with record_function(f"train_step#{step}"):
            with record_function("forward"):
                loss = loss_fn(model(x), y)
            with record_function("backward"):
                opt.zero_grad(set_to_none=True)
                loss.backward()
            opt.step()


def mlp():
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10))
    data = [(torch.randn(64, 256), torch.randint(0, 10, (64,))) for _ in range(2)]
    train(model, data, 1)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        train(model, data, 3)
    save("mlp", prof)


def cnn():
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(32, 10))
    data = [(torch.randn(8, 3, 32, 32), torch.randint(0, 10, (8,)))]
    train(model, data, 1)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        train(model, data, 2)
    save("cnn_shapes", prof)


def transformer():
    layer = nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256, batch_first=True)
    head = nn.Linear(128, 10)
    model = nn.Sequential(layer, nn.Flatten(0, 1), head)
    x = torch.randn(4, 32, 128)
    y = torch.randint(0, 10, (4 * 32,))
    train(model, [(x, y)], 1)
    with profile(activities=[ProfilerActivity.CPU], with_stack=True) as prof:
        train(model, [(x, y)], 2)
    save("transformer_stacks", prof)


def lstm():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(32, 64, num_layers=2, batch_first=True)
            self.head = nn.Linear(64, 5)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.head(out[:, -1])

    model = Net()
    data = [(torch.randn(8, 20, 32), torch.randint(0, 5, (8,)))]
    train(model, data, 1)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True) as prof:
        train(model, data, 2)
    save("lstm_memory", prof)


@torch.jit.script
def branch(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(torch.mm(x, x)).sum(dim=0)


@torch.jit.script
def forked(x: torch.Tensor) -> torch.Tensor:
    futures = [torch.jit.fork(branch, x + i) for i in range(4)]
    return torch.stack([torch.jit.wait(f) for f in futures]).sum()


def fork():
    x = torch.randn(128, 128)
    forked(x)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for i in range(3):
            with record_function(f"iteration#{i}"):
                forked(x)
    save("jit_fork", prof)


for case in (mlp, cnn, transformer, lstm, fork):
    case()
os._exit(0)  # Debian 1.13 aborts in a destructor at exit (double free) after the jit.fork threads
