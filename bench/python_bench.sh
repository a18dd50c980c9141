#!/bin/bash
# `import kinetoscope` against the CLI and HTA on one trace (issue 55), interleaved in one run so the ratios compare
# like with like. Each Python figure is timed inside Python after its imports (what a notebook cell costs); each
# CLI figure is the whole process. Memory: the CLI's peak RSS, and the Python process's peak RSS above what it held
# after its imports (pandas and numpy alone hold ~60 MB). Usage:
#   bench/python_bench.sh BUILD_DIR TRACE HTA_SRC [ROUNDS]
# TRACE: an inflated trace (../shared/tools/inflate_trace.py); HTA_SRC: a folder holding the `hta` package (fetch
# github:facebookresearch/HolisticTraceAnalysis), with Debian's python3-pandas, -plotly, -networkx and friends.
set -euo pipefail
build=$(realpath "$1")
cli=$build/cli/kinetoscope-cli
trace=$(realpath "$2")
hta=$(realpath "$3")
rounds=${4:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$trace" "$work/rank0.json" # HTA reads a folder of rank traces
export PYTHONPATH=$build/python

cli_run() {
    local label=$1
    shift
    /usr/bin/time -f "$label: %e s, %M KB peak" "$@" > /dev/null
}
# Times STATEMENT (after SETUP's imports) in a fresh /usr/bin/python3.
py_run() {
    local label=$1 setup=$2 statement=$3
    /usr/bin/python3 - "$label" <<PY
import resource, sys, time
$setup
def rss_kb():  # the current resident set, not the peak
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024
before = rss_kb()
start = time.perf_counter()
result = $statement
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("%s: %.3f s, %d KB peak above the imports (%d rows)" % (sys.argv[1], seconds, peak - before, len(result)))
PY
}

"$cli" info "$trace" > /dev/null # warm the page cache
for round in $(seq 1 "$rounds"); do
    echo "== round $round"
    cli_run "cli summary --json --by kernel" "$cli" summary --json --by kernel "$trace"
    py_run "py load(gpu_only=True).kernels()" "import kinetoscope" \
        "kinetoscope.load('$trace', gpu_only=True, progress=False).kernels()"
    cli_run "cli info (the load)" "$cli" info "$trace"
    py_run "py load().slices(category='kernel')" "import kinetoscope" \
        "kinetoscope.load('$trace', progress=False).slices(category='kernel')"
    py_run "HTA TraceAnalysis + get_gpu_kernel_breakdown()" \
        "sys.path.insert(0, '$hta'); from hta.trace_analysis import TraceAnalysis" \
        "TraceAnalysis(trace_dir='$work').get_gpu_kernel_breakdown(visualize=False)[1]"
done
