#!/usr/bin/python3
"""Runs a command and prints its memory as Linux counts it, sampled every few milliseconds.

    bench/peak_memory.py [--every MS] [--trace] -- COMMAND [ARG...]

Prints the peak of the process's anonymous memory (RssAnon: the heap, what the program itself holds), of its
file-backed resident pages (RssFile: a mapped trace's pages, clean page cache the kernel can drop) and the
kernel's own high-water mark of the whole (VmHWM). `--trace` adds a line per 100 ms of the anonymous memory,
to see where in a run the peak falls. A bench helper: the figures go into bench/RESULTS.md, never a test.
"""
import argparse
import subprocess
import sys
import time


def status(pid):
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("RssAnon", "RssFile", "VmHWM"):
                    fields[key] = int(value.split()[0]) * 1024
    except OSError:
        return None
    return fields


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--every", type=float, default=5.0, help="sampling period in milliseconds")
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    start = time.monotonic()
    child = subprocess.Popen(args.command, stdout=subprocess.DEVNULL)
    peak = {"RssAnon": 0, "RssFile": 0, "VmHWM": 0}
    peakAt = 0.0
    lastTrace = -1.0
    while child.poll() is None:
        fields = status(child.pid)
        if fields and len(fields) == 3:
            now = time.monotonic() - start
            if fields["RssAnon"] > peak["RssAnon"]:
                peakAt = now
            for key in peak:
                peak[key] = max(peak[key], fields[key])
            if args.trace and now - lastTrace >= 0.1:
                print(f"{now:7.2f} s  anon {fields['RssAnon'] / 1e6:8.1f} MB  file {fields['RssFile'] / 1e6:8.1f} MB")
                lastTrace = now
        time.sleep(args.every / 1000)
    wall = time.monotonic() - start
    print(f"peak anonymous {peak['RssAnon'] / 1e6:.0f} MB (at {peakAt:.2f} s), peak file-backed "
          f"{peak['RssFile'] / 1e6:.0f} MB, VmHWM {peak['VmHWM'] / 1e6:.0f} MB; exit {child.returncode}, "
          f"{wall:.2f} s")
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
