#!/bin/bash
# The TensorBoard plugin's distributed view (unmodified, kineto 4b3b2ed) against kinetoscope-cli job / summary, on
# HTA's trace_filter rank pair and on 4 generated ranks with a straggler (as generated, and with the nccl:* CPU ops
# the plugin needs added). Results in docs/DEFINITIONS.md, "Compared with the TensorBoard plugin's distributed view".
# Usage: bench/tbdist/run.sh BUILD_DIR KINETO_GIT_DIR [WORK_DIR]   (KINETO_GIT_DIR: fetch github:pytorch/kineto)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cli=$(realpath "$1")/cli/kinetoscope-cli
kineto=$2
work=${3:-$(mktemp -d)}
traces=${KINETOSCOPE_TRACES_DIR:-$src/../shared/traces}
mkdir -p "$work" && cd "$work"
[ -d src/torch_tb_profiler ] || bash "$src/../shared/tools/tbref/setup.sh" "$kineto" ./src
mkdir -p hta
cp -f "$traces"/facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz hta/worker0.pt.trace.json.gz
cp -f "$traces"/facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-1.json.gz hta/worker1.pt.trace.json.gz
rm -rf syn synp
/usr/bin/python3 "$src/bench/make_ranks.py" traces syn --ranks 4 --straggler 2:1:30
/usr/bin/python3 "$here/make_syn_plugin_variant.py" syn synp
for d in hta syn synp; do
    TBREF_SRC="$work/src" /usr/bin/python3 "$here/tb_dist.py" "$d" "plugin_$d.json"
    "$cli" job "$d"/*.pt.trace.json* --json > "ours_${d}_job.json"
    rm -f "ours_sum_${d}"__*.json
    for f in "$d"/*.pt.trace.json*; do "$cli" summary "$f" --json > "ours_sum_${d}__$(basename "$f").json"; done
    /usr/bin/python3 "$here/compare.py" "plugin_$d.json" "ours_${d}_job.json" "ours_sum_${d}"__*.json > "compare_$d.md"
    echo "== $d: $work/compare_$d.md"
done
