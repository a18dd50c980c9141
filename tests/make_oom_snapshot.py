#!/usr/bin/python3
"""Makes a snapshot that ran out of memory from a real one: its last device's trace gains the `oom` event the
caching allocator records when cudaMalloc fails (as torch's _dump_snapshot writes it: `device_free` in place of
`addr`), asking for more than the device had free, with the stack of the trace's last alloc. Read with Python's
pickle restricted to import nothing.

usage: make_oom_snapshot.py IN.pickle OUT.pickle
"""
import pickle
import sys


class PlainData(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refused {module}.{name}")


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        data = PlainData(f).load()
    traces = data["device_traces"]
    device = max(i for i, t in enumerate(traces) if t)
    trace = traces[device]
    last_alloc = next(e for e in reversed(trace) if e["action"] == "alloc")
    oom = {"action": "oom", "device_free": 512 << 20, "size": 8 << 30, "stream": last_alloc.get("stream", 0),
           "frames": last_alloc.get("frames", [])}
    if "time_us" in trace[-1]:
        oom["time_us"] = trace[-1]["time_us"] + 10
    trace.append(oom)
    with open(dst, "wb") as f:
        pickle.dump(data, f)


if __name__ == "__main__":
    main()
