#!/usr/bin/python3
"""An independent reference for `kinetoscope-cli memory --json`: the figures of docs/DEFINITIONS.md ("Memory
snapshots") recomputed with Python's own pickle module, restricted so that it can import nothing, on every
snapshot of the corpus and its gzip form, then compared with the CLI's JSON value by value.

usage: reference_snapshot.py KINETOSCOPE_CLI SNAPSHOT_DIR...   (*.pickle and *.pickle.gz in each)
"""
import gzip
import json
import os
import pickle
import subprocess
import sys
import tempfile


class PlainData(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refused {module}.{name}")


def signed64(v):
    # The reader keeps an integer's 64 bits: 2^64 - 1 (an unsigned -1 from the unwinder) reads as -1.
    return v - (1 << 64) if isinstance(v, int) and v >= (1 << 63) else v


def frames_of(frames):
    return [{"name": f["name"], "filename": f["filename"], "line": signed64(f["line"])} for f in frames or []]


KNOWN = ["alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "segment_map",
         "segment_unmap", "snapshot", "oom"]


def device_report(data, device, events, segments, top, at):
    counts = {}
    for e in events:
        counts[e["action"]] = counts.get(e["action"], 0) + 1
    ordered = {a: counts[a] for a in KNOWN if a in counts}
    ordered.update({a: counts[a] for a in sorted(counts) if a not in KNOWN})
    segs = [s for s in segments if s["device"] == device]
    allocated = sum(b["size"] for s in segs for b in s["blocks"] if b["state"] == "active_allocated")
    # Without events (no allocation history, or the old bare list) the snapshot's moment is the one known: the
    # curve below is that one point, the peak what was allocated then.
    out = {"device": device, "events": ordered, "segments": len(segs),
           "reserved_bytes": sum(s["total_size"] for s in segs), "allocated_bytes": allocated,
           "history_recorded": isinstance(data, dict) and bool(events)}
    start = allocated - sum(e["size"] for e in events if e["action"] == "alloc") \
        + sum(e["size"] for e in events if e["action"] == "free_completed")
    curve = [start]
    for e in events:
        curve.append(curve[-1] + (e["size"] if e["action"] == "alloc" else
                                  -e["size"] if e["action"] == "free_completed" else 0))
    peak = max(curve)
    peak_index = curve.index(peak) - 1  # after this event; -1 before the first
    # Lifetimes: alloc to free_completed by address; frees with no alloc and active blocks with none were
    # allocated before the trace began.
    n = len(events)
    lives, open_ = [], {}
    for i, e in enumerate(events):
        if e["action"] == "alloc":
            if e["addr"] in open_:
                lives[open_[e["addr"]]][1] = i
            open_[e["addr"]] = len(lives)
            lives.append([i, n, e["addr"], e["size"], e.get("frames", [])])
        elif e["action"] == "free_completed":
            if e["addr"] in open_:
                lives[open_.pop(e["addr"])][1] = i
            else:
                lives.append([-1, i, e["addr"], e["size"], e.get("frames", [])])
    for s in segs:
        for b in s["blocks"]:
            if b["state"] == "active_allocated" and b["address"] not in open_:
                lives.append([-1, n, b["address"], b.get("requested_size") or b["size"], b.get("frames", [])])

    def alive(k):
        got = [l for l in lives if l[0] <= k < l[1]]
        got.sort(key=lambda l: -l[3])  # stable: ties keep their order
        return [{"size": l[3], "addr": l[2], "frames": frames_of(l[4])} for l in got[:top]]

    def time_after(k):
        e = events[max(k, 0)] if events else None
        return e.get("time_us") if e else None

    out.update({"peak_active_bytes": peak, "peak_time_us": time_after(peak_index),
                "largest_at_peak": alive(peak_index)})
    if at is not None:
        last = -1
        for i, e in enumerate(events):
            if "time_us" not in e or e["time_us"] > at:
                break
            last = i
        out["live_at"] = {"time_us": at, "active_bytes": curve[last + 1], "allocations": alive(last)}
    return out


def reference(path, top, at):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = PlainData(f).load()
    segments = data["segments"] if isinstance(data, dict) else data
    traces = data.get("device_traces", []) if isinstance(data, dict) else []
    devices = sorted({d for d, t in enumerate(traces) if t} | {s["device"] for s in segments})
    return {"devices": [device_report(data, d, traces[d] if d < len(traces) else [], segments, top, at)
                        for d in devices]}


def main():
    cli, folders = sys.argv[1], sys.argv[2:]
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        snapshots = sorted(os.path.join(folder, name) for folder in folders for name in os.listdir(folder)
                           if name.endswith((".pickle", ".pickle.gz")))
        for source in snapshots:
            name = os.path.basename(source)
            # Each snapshot is read plain and gzipped, whichever form it is kept in.
            if name.endswith(".gz"):
                name = name[:-3]
                plain = os.path.join(tmp, name)
                with gzip.open(source, "rb") as src, open(plain, "wb") as dst:
                    dst.write(src.read())
            else:
                plain = source
            packed = os.path.join(tmp, name + ".gz")
            with open(plain, "rb") as src, gzip.open(packed, "wb") as dst:
                dst.write(src.read())
            for path in (plain, packed):
                for top, at in ((10, None), (3, "middle")):
                    at_value = None
                    if at == "middle":
                        with open(plain, "rb") as f:
                            data = PlainData(f).load()
                        evs = [e for t in data.get("device_traces", []) for e in t if "time_us" in e]
                        if not evs:
                            continue
                        at_value = evs[len(evs) // 2]["time_us"]
                    args = [cli, "memory", path, "--json", "--top", str(top)]
                    if at_value is not None:
                        args += ["--at", str(at_value)]
                    ours = json.loads(subprocess.run(args, check=True, capture_output=True).stdout)
                    theirs = reference(plain, top, at_value)
                    checked += 1
                    if ours != theirs:
                        failures += 1
                        for d_ours, d_theirs in zip(ours["devices"], theirs["devices"]):
                            for k in d_theirs:
                                if d_ours.get(k) != d_theirs[k]:
                                    print(f"{name} {os.path.basename(path)} top={top} at={at_value}: {k}: "
                                          f"ours {json.dumps(d_ours.get(k))[:300]} reference "
                                          f"{json.dumps(d_theirs[k])[:300]}")
                        if len(ours["devices"]) != len(theirs["devices"]):
                            print(f"{name}: {len(ours['devices'])} devices, reference {len(theirs['devices'])}")
    print(f"{checked - failures} of {checked} runs agree with the reference")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
