#!/bin/bash
# Reports that cost only what they answer (issue 36 item 1), as whole processes, against the load alone and against
# HTA's and TraceLens' kernel tables on the same trace, interleaved in one run so that the ratios compare like with
# like. Usage:
#   bench/peers_bench.sh BUILD_DIR TRACE HTA_SRC TRACELENS_SRC [ROUNDS]
# TRACE: an inflated trace (../shared/tools/inflate_trace.py); HTA_SRC / TRACELENS_SRC: folders holding the `hta`
# and `TraceLens` packages (fetch github:facebookresearch/HolisticTraceAnalysis and github:AMD-AGI/TraceLens);
# Debian's python3-pandas and friends (DEVELOPERS.md). Prints one line per run: what, seconds, peak RSS.
set -euo pipefail
cli=$(realpath "$1")/cli/kinetoscope-cli
trace=$(realpath "$2")
hta=$(realpath "$3")
tracelens=$(realpath "$4")
rounds=${5:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$trace" "$work/rank0.json" # HTA reads a folder of rank traces
run() {
    local label=$1
    shift
    /usr/bin/time -f "$label %e s %M KB" "$@" > /dev/null
}
"$cli" info "$trace" > /dev/null # warm the page cache
for round in $(seq 1 "$rounds"); do
    echo "== round $round"
    run "info (load alone)" "$cli" info "$trace"
    run "summary --json (everything)" "$cli" summary --json "$trace"
    run "summary (text, everything)" "$cli" summary "$trace"
    run "summary --json --by kernel" "$cli" summary --json --by kernel "$trace"
    run "summary --json --sections kernels" "$cli" summary --json --sections kernels "$trace"
    run "summary --json --by op" "$cli" summary --json --by op "$trace"
    run "TraceLens tree + get_df_kernels" /usr/bin/python3 -c "
import sys; sys.path.insert(0, '$tracelens')
from TraceLens import TreePerfAnalyzer
print(len(TreePerfAnalyzer.from_file('$trace').get_df_kernels()))"
    run "HTA TraceAnalysis + get_gpu_kernel_breakdown" /usr/bin/python3 -c "
import sys; sys.path.insert(0, '$hta')
from hta.trace_analysis import TraceAnalysis
k = TraceAnalysis(trace_dir='$work').get_gpu_kernel_breakdown(visualize=False)
print(len(k[1]) if isinstance(k, tuple) else len(k))"
done 2>&1 | grep -E "^==| s [0-9]+ KB$"
