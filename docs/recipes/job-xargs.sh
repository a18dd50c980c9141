#!/bin/bash
# A distributed job's report on one machine: a rank file per trace, as many at once as there are cores, then
# the job report over them. Usage: job-xargs.sh TRACE_LIST RANK_DIR [job options, e.g. --json]
# TRACE_LIST holds one trace path a line (find /logs -name '*.pt.trace.json*' > traces.txt).
set -euo pipefail
list=$1 ranks=$2
shift 2
mkdir -p "$ranks"
# Each rank file is named after its trace: reruns overwrite, never duplicate. A trace that cannot be read
# fails its own `rank` only (its error is printed); the others go on.
xargs -a "$list" -d '\n' -P "$(nproc)" -I{} \
    sh -c 'kinetoscope-cli rank "$1" -o "$2/$(basename "$1").rank.json" || true' _ {} "$ranks"
kinetoscope-cli job "$ranks" "$@"
