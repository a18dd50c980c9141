#!/usr/bin/python3
"""Makes, from a real snapshot, the two older shapes users still open:

- PyTorch 2.0's: a block has no `address`, `requested_size` or `frames` of its own; an allocated one carries
  `history`, newest first, of {addr, real_size, frames}; segments have no pool id, `requested_size`,
  `is_expandable` or frames; trace events no `time_us`; no allocator settings or annotations.
- One dumped without allocation history (`_record_memory_history` never called, vLLM's usual case): the
  segments and blocks as they are, no stack on any of them, and an empty trace for each device.

Read and written with Python's pickle, restricted to import nothing.

usage: make_older_snapshots.py IN.pickle OUT_PT20.pickle.gz OUT_NO_HISTORY.pickle.gz
"""
import gzip
import pickle
import sys


class PlainData(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refused {module}.{name}")


def load(path):
    with open(path, "rb") as f:
        return PlainData(f).load()


def pt20(data):
    segments = []
    for seg in data["segments"]:
        blocks = []
        for b in seg["blocks"]:
            block = {"size": b["size"], "state": b["state"]}
            if b["state"] != "inactive":
                block["history"] = [{"addr": b["address"], "real_size": b["requested_size"],
                                     "frames": b.get("frames", [])}]
            blocks.append(block)
        segments.append({k: seg[k] for k in ("device", "address", "total_size", "allocated_size", "active_size",
                                             "stream", "segment_type")} | {"blocks": blocks})
    traces = [[{k: v for k, v in e.items() if k != "time_us"} for e in t] for t in data["device_traces"]]
    return {"segments": segments, "device_traces": traces}


def no_history(data):
    segments = []
    for seg in data["segments"]:
        blocks = [dict(b, frames=[]) for b in seg["blocks"]]
        segments.append(dict(seg, frames=[], blocks=blocks))
    return {"segments": segments, "device_traces": [[] for _ in data["device_traces"]],
            "allocator_settings": data.get("allocator_settings", {}), "external_annotations": []}


def main():
    data = load(sys.argv[1])
    for make, out in ((pt20, sys.argv[2]), (no_history, sys.argv[3])):
        with gzip.GzipFile(out, "wb", mtime=0) as f:
            pickle.dump(make(data), f, protocol=4)


if __name__ == "__main__":
    main()
