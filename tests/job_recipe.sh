#!/bin/bash
# The recipes of docs/JOBS.md, run as a user runs them: the xargs form over HTA's two trace_filter rank traces
# and over 200 generated ranks with planted stragglers, and the Slurm array's two steps (each array task run
# here with its SLURM_ARRAY_TASK_ID). Usage: job_recipe.sh CLI SOURCE_DIR TRACES_DIR
set -euo pipefail
cli=$1 src=$2 traces=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
ln -s "$cli" "$work/bin/kinetoscope-cli"
export PATH="$work/bin:$PATH"
fail() { echo "job_recipe: $*" >&2; exit 1; }

# 1. The real rank pair (128-rank job, ranks 0 and 1).
ls "$traces"/facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-*.json.gz \
    > "$work/real.txt"
bash "$src/docs/recipes/job-xargs.sh" "$work/real.txt" "$work/real-ranks" > "$work/real.txt.out"
grep -q '^Job: 2 ranks of a world of 128, 2 steps$' "$work/real.txt.out" || fail "real ranks: $(head -3 "$work/real.txt.out")"
grep -q 'rank 1 .*ProfilerStep#55[12]' "$work/real.txt.out" || fail "real ranks: no straggler rank 1"
[ "$(ls "$work/real-ranks" | wc -l)" = 2 ] || fail "real ranks: expected 2 rank files"

# 2. 200 generated ranks, three stragglers planted; one trace is not a trace (the job goes on without it), one
#    is truncated (read up to where it stops, and said).
/usr/bin/python3 "$src/bench/make_ranks.py" traces "$work/gen" --ranks 200 \
    --straggler 57:1:30 --straggler 130:2:12 --straggler 199:0:5 > "$work/planted.txt"
broken=$(ls "$work/gen" | sed -n 5p)
echo "not a trace" > "$work/gen/$broken"
truncated=$(ls "$work/gen" | sed -n 10p)
head -c 1500 "$work/gen/$truncated" > "$work/gen/$truncated.tmp" && mv "$work/gen/$truncated.tmp" "$work/gen/$truncated"
find "$work/gen" -name '*.pt.trace.json' | sort > "$work/gen.txt"
bash "$src/docs/recipes/job-xargs.sh" "$work/gen.txt" "$work/gen-ranks" --json > "$work/gen.json" 2> "$work/gen.err"
/usr/bin/python3 - "$work/gen.json" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))
assert job["ranks"] == 199, job["ranks"]  # the broken trace's rank file was never written
assert job["world_size"] == 200
assert any("1 of the world's 200 ranks are not here: 4" in p for p in job["problems"]), job["problems"]
got = [(s["rank"], s["step"]) for s in job["stragglers"]]
assert got == [(57, "ProfilerStep#1"), (130, "ProfilerStep#2"), (199, "ProfilerStep#0")], got
assert abs(job["stragglers"][0]["excess_us"] - 30000) < 100, job["stragglers"][0]
assert len(job["stragglers"][0]["victims"]) == 3
hosts = {h["host"]: h["ranks"] for h in job["hosts"]}
assert len(hosts) == 25 and hosts["node0007"] == list(range(56, 64)), hosts.get("node0007")
ar = job["collectives"][0]
assert ar["name"] == "allreduce" and ar["message_bytes"] == 4194304, ar
assert ar["last_to_arrive"][0]["rank"] in (57, 130, 199), ar["last_to_arrive"]
notes = [r["notes"] for r in job["per_rank"] if r["rank"] == 9][0]
assert any("truncated at byte" in n for n in notes), notes
PY
grep -q "byte" "$work/gen.err" || fail "the broken trace's error was not printed"

# 3. The Slurm recipe's steps: an array task per trace, then the report; and an array smaller than the list
#    (each task takes every n-th trace).
n=$(wc -l < "$work/real.txt")
for i in $(seq 1 "$n"); do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$n bash "$src/docs/recipes/job-slurm.sh" rank "$work/real.txt" "$work/slurm-ranks"
done
bash "$src/docs/recipes/job-slurm.sh" job "$work/real.txt" "$work/slurm-ranks"
grep -q '^Job: 2 ranks of a world of 128' "$work/slurm-ranks.job.txt" || fail "slurm: no text report"
/usr/bin/python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['ranks'] == 2" "$work/slurm-ranks.job.json"
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=1 bash "$src/docs/recipes/job-slurm.sh" rank "$work/real.txt" "$work/one-task"
[ "$(ls "$work/one-task" | wc -l)" = 2 ] || fail "slurm: one task of a one-task array did not take every trace"
echo "job_recipe: all recipes passed"
