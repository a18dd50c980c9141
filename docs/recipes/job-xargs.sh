#!/bin/bash
# A distributed job's report on one machine: a rank file per trace, as many at once as there are cores, then
# the job report over them. Usage: job-xargs.sh TRACE_LIST RANK_DIR [job options, e.g. --json]
# TRACE_LIST holds one trace path a line (find /logs -name '*.pt.trace.json*' > traces.txt).
set -euo pipefail
list=$1 ranks=$2
shift 2
mkdir -p "$ranks"
# Each rank file is named after its trace's whole path ('/' as '_'): reruns overwrite, never duplicate, and
# two traces of the same name in different folders stay two. A trace that cannot be read fails its own `rank`
# only (its error is printed); the others go on. Each `rank` loads its trace on one core: as many at once as
# there are cores.
grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "$list" |
    xargs -d '\n' -P "$(nproc)" -I{} \
        sh -c 'kinetoscope-cli rank "$1" -o "$2/$(printf %s "$1" | tr / _).rank.json" || true' _ {} "$ranks"
kinetoscope-cli job "$ranks" "$@"
