#!/bin/bash
# A distributed job's report on a Slurm cluster: one array task per trace writes its rank file where the
# trace lives, then one final task reads the rank files (a few KB each) into the job report.
#
#   n=$(wc -l < traces.txt)
#   array=$(sbatch --parsable --array=1-"$n"%256 job-slurm.sh rank traces.txt ranks)
#   sbatch --dependency=afterany:"$array" job-slurm.sh job traces.txt ranks
#
# The report is written beside RANK_DIR, as RANK_DIR.job.txt and RANK_DIR.job.json. `afterany`: the report is made even when
# some traces could not be read; it lists them.
#SBATCH --job-name=kinetoscope-job
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=00:20:00
set -euo pipefail
step=$1 list=$2 ranks=$3
mkdir -p "$ranks"
case "$step" in
rank)
    trace=$(sed -n "${SLURM_ARRAY_TASK_ID}p" "$list")
    kinetoscope-cli rank "$trace" -o "$ranks/$(basename "$trace").rank.json"
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
