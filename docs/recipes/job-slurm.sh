#!/bin/bash
# A distributed job's report on a Slurm cluster: one array task per trace writes its rank file where the
# trace lives, then one final task reads the rank files (a few KB each) into the job report.
#
#   n=$(grep -c . traces.txt); [ "$n" -le 1000 ] || n=1000     # one task per trace, at most 1,000 tasks
#   array=$(sbatch --parsable --array=1-"$n"%256 job-slurm.sh rank traces.txt ranks)
#   sbatch --dependency=afterany:"$array" job-slurm.sh job traces.txt ranks
#
# The report is written beside RANK_DIR, as RANK_DIR.job.txt and RANK_DIR.job.json. `afterany`: the report is
# made even when some tasks failed; a trace that could not be read has no rank file, and the report's problems
# name the ranks the world size says are missing.
#SBATCH --job-name=kinetoscope-job
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=00:20:00
set -euo pipefail
step=$1 list=$2 ranks=$3
mkdir -p "$ranks"
case "$step" in
rank)
    # Slurm caps an array's size (MaxArraySize, 1001 by default): each task takes every STRIDE-th trace from
    # its own, STRIDE being the array's size, so 10,000 traces run on an array of 1,000.
    stride=${SLURM_ARRAY_TASK_COUNT:-1}
    awk -v first="$SLURM_ARRAY_TASK_ID" -v stride="$stride" \
        'NF && $1 !~ /^#/ && (++n - first) % stride == 0 && n >= first' "$list" |
        while IFS= read -r trace; do
            kinetoscope-cli rank "$trace" -o "$ranks/$(printf %s "$trace" | tr / _).rank.json" || true
        done
    ;;
job)
    report=${ranks%/}.job
    kinetoscope-cli job "$ranks" --json > "$report.json.partial" && mv "$report.json.partial" "$report.json"
    kinetoscope-cli job "$ranks" > "$report.txt"
    ;;
*)
    echo "job-slurm.sh: the first argument is 'rank' (an array task) or 'job' (the final step)" >&2
    exit 2
    ;;
esac
