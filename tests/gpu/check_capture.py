#!/usr/bin/python3
"""Checks a live capture of tests/gpu/probe.cu against what the probe says it did.

Usage: check_capture.py CAPTURE.json PROBE_SUMMARY_JSON_LINE
Every launch of the probe's two kernels must be there with its name and launch shape, linked to the
cudaLaunchKernel call that made it; cuBLAS's matmuls, the copies and the memset must be there too.
Prints one line per check and exits 1 if any fails.
"""
import json
import sys

FILL = ("kinetoscope_probe_fill(float*, int, float)", [7, 3, 1], [128, 1, 1])
SCALE = ("kinetoscope_probe_scale(float*, int, float)", [13, 1, 1], [64, 2, 1])


def main():
    capture = json.load(open(sys.argv[1]))
    probe = json.loads(sys.argv[2])
    events = [e for e in capture["traceEvents"] if e.get("ph") == "X"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    calls = {e["args"]["correlation"]: e for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver")}
    failures = 0

    def check(ok, what):
        nonlocal failures
        print(("ok      " if ok else "FAILED  ") + what)
        failures += not ok

    for (name, grid, block), expected in ((FILL, probe["fill"]), (SCALE, probe["scale"])):
        mine = [k for k in kernels if k["name"] == name]
        check(len(mine) == expected, f"{name}: {len(mine)} launches captured, {expected} made")
        shapes = sum(1 for k in mine if k["args"].get("grid") == grid and k["args"].get("block") == block)
        check(shapes == len(mine), f"{name}: {shapes} of {len(mine)} with grid {grid} and block {block}")
        linked = sum(1 for k in mine if k["args"].get("correlation") in calls
                     and "LaunchKernel" in calls[k["args"]["correlation"]]["name"])
        check(linked == len(mine), f"{name}: {linked} of {len(mine)} linked to their launch call")
        check(all(k.get("dur", 0) > 0 for k in mine), f"{name}: every launch has a duration")
    gemm = [k for k in kernels if "gemm" in k["name"].lower()]
    check(len(gemm) >= probe["gemms"], f"cuBLAS: {len(gemm)} GEMM kernels for {probe['gemms']} cublasSgemm calls"
          + (f" (e.g. {gemm[0]['name']})" if gemm else ""))
    copies = [e for e in events if e.get("cat") == "gpu_memcpy"]
    check(sum(e["name"] == "Memcpy HtoD" for e in copies) >= probe["htod"], "host-to-device copy captured")
    check(sum(e["name"] == "Memcpy DtoH" for e in copies) >= probe["dtoh"], "device-to-host copy captured")
    check(sum(e.get("cat") == "gpu_memset" for e in events) >= probe["memsets"], "memset captured")
    check(len(capture.get("deviceProperties", [])) >= 1, "device properties captured")
    dropped = capture.get("kinetoscopeCapture", {}).get("dropped", 0)
    check(dropped == 0, f"{dropped} records dropped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
