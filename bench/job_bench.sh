#!/bin/bash
# The job report and the job view at 1,000 and 10,000 ranks (issue 35 item 5). Rank files are made from a real
# rank trace (HTA's rank 0 of a 16-rank NCCL job: 5 steps, 80 collective runs) with three planted stragglers, then
# read by `kinetoscope-cli job` (whole process), by the same path in-process, and by the viewer's job view
# (offscreen, until ready and painted). Prints wall time and peak RSS; the planted stragglers must come first.
# Usage: bench/job_bench.sh BUILD_DIR [WORK_DIR]   (BUILD_DIR: a RelWithDebInfo or Release build)
set -euo pipefail
build=$(realpath "$1")
work=${2:-$(mktemp -d)}
src=$(cd "$(dirname "$0")/.." && pwd)
traces=${KINETOSCOPE_TRACES_DIR:-$src/../shared/traces}
cli=$build/cli/kinetoscope-cli
mkdir -p "$work"
"$cli" rank "$traces/facebookresearch__HolisticTraceAnalysis/tests__data__negative_queue_length_values_check__rank0.json.gz" \
    -o "$work/model.rank.json"
for n in 1000 10000; do
    rm -rf "$work/ranks$n"
    /usr/bin/python3 "$src/bench/make_ranks.py" rank-files "$work/model.rank.json" "$work/ranks$n" --ranks "$n" \
        --straggler $((n * 613 / 1000)):1:40 --straggler $((n * 17 / 1000)):0:25 --straggler $((n - 2)):2:9
    echo "== $n ranks ($(du -sh "$work/ranks$n" | cut -f1) of rank files)"
    for round in 1 2; do
        /usr/bin/time -f "kinetoscope-cli job --json: %e s, %M KB peak" "$cli" job "$work/ranks$n" --json > /dev/null
        "$build/bench/kinetoscope-bench-job" "$work/ranks$n" | head -4
        "$build/bench/kinetoscope-bench-job" --viewer "$work/ranks$n" | head -4
    done
done
