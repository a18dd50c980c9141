#!/bin/bash
# Runs a command with its memory capped, page cache included, and says whether it got through:
#
#   bench/memory_limit.sh LIMIT_MB -- COMMAND [ARG...]
#   bench/memory_limit.sh --least -- COMMAND [ARG...]    (the least cap, to 16 MB, under which it gets through)
#
# A run that takes longer than TIMEOUT seconds (default 60) counts as failed: near its cap a process can
# thrash, its mapped trace's pages evicted and read again from disk at every turn, for minutes.
#
# A memory cgroup (v1, /sys/fs/cgroup/memory) whose limit counts the process's own memory and the page cache
# it faults in (the mapped trace's pages): the kernel reclaims the clean pages when the cap is near and kills
# the process when its own memory would pass it. The page cache is dropped before each run, so that the
# trace's pages are read, and charged, inside the cap. Needs root (it is a bench helper for this machine,
# never a test). The figures go into bench/RESULTS.md.
set -u
timeout_s=${TIMEOUT:-60}
root=/sys/fs/cgroup/memory
if [ ! -w "$root" ]; then
    echo "memory_limit.sh: no writable memory cgroup at $root (needs root and cgroup v1)" >&2
    exit 2
fi

# One capped run: exit status 0 when the command finished well.
run_capped() {
    local limit_mb=$1
    shift
    local group="$root/kinetoscope-bench-$$"
    mkdir -p "$group"
    echo $((limit_mb * 1024 * 1024)) >"$group/memory.limit_in_bytes"
    sync
    echo 1 >/proc/sys/vm/drop_caches
    # (The command's output is not kept: no file of ours in /tmp, where another user could have planted a
    # link for this root-run script to write through.)
    timeout -s KILL "$timeout_s" bash -c 'echo $$ >"$0/cgroup.procs"; exec "$@"' "$group" "$@" >/dev/null 2>&1
    local status=$?
    local started_thrashing=""
    [ $status = 137 ] && [ "$(grep -c "oom_kill [1-9]" "$group/memory.oom_control")" = 0 ] &&
        started_thrashing=", stopped after ${timeout_s} s (thrashing)"
    local peak=$(($(cat "$group/memory.max_usage_in_bytes") / 1024 / 1024))
    local killed=$(grep -c "oom_kill [1-9]" "$group/memory.oom_control" 2>/dev/null)
    rmdir "$group"
    echo "cap ${limit_mb} MB: exit ${status}, peak ${peak} MB (page cache included)$([ "$killed" = 1 ] && echo ', killed for memory')${started_thrashing}" >&2
    return $status
}

if [ "$1" = "--least" ]; then
    shift
    [ "$1" = "--" ] && shift
    low=16 high=4096 # low fails (assumed), high passes (checked)
    run_capped $high "$@" || { echo "memory_limit.sh: fails even at $high MB" >&2; exit 1; }
    while [ $((high - low)) -gt 16 ]; do
        mid=$(((low + high) / 2))
        if run_capped $mid "$@"; then high=$mid; else low=$mid; fi
    done
    echo "least cap: ${high} MB (fails at ${low} MB)"
else
    limit=$1
    shift
    [ "$1" = "--" ] && shift
    run_capped "$limit" "$@" && echo "got through under ${limit} MB" || { echo "failed under ${limit} MB"; exit 1; }
fi
