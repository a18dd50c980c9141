#!/bin/bash
# docs/recipes/job-slurm.sh on a real one-node Slurm cluster: munged, slurmctld and slurmd started here in a
# temporary folder (their own key, socket, ports and slurm.conf; no systemd, nothing of /etc/slurm or /etc/munge),
# then the recipe submitted as docs/JOBS.md tells a user to: 20 generated ranks with two planted stragglers, one
# trace truncated and one not a trace. Exits 77 (a skip) only when the daemons are not installed or this is not
# root; installed daemons that cannot start fail it.
# Usage: slurm_recipe.sh CLI SOURCE_DIR
set -euo pipefail
cli=$1 src=$2
skip() { echo "slurm_recipe: SKIPPED: $*"; exit 77; }

for daemon in munged slurmctld slurmd; do
    command -v "$daemon" > /dev/null || [ -x "/usr/sbin/$daemon" ] || skip "$daemon is not installed"
done
for client in munge sbatch squeue sinfo scontrol scancel; do
    command -v "$client" > /dev/null || skip "$client is not installed"
done
export PATH="$PATH:/usr/sbin"
# slurmd starts each job as its user, which only root may do.
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs, and this is $(id -un)"
# The recipe asks for --cpus-per-task=2 --mem=4G: a smaller node cannot run its tasks.
[ "$(nproc)" -ge 2 ] || skip "the recipe's tasks ask for 2 CPUs, this machine has $(nproc)"
[ "$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)" -ge 5000 ] ||
    skip "the recipe's tasks ask for 4 GB of memory, this machine has less than 5 GB"

work=$(mktemp -d)
declare -A daemon_pid=()

# Our step daemons (slurmstepd, one a job, parented by init) are known by the SLURM_CONF they inherit from our
# slurmd; another cluster's on this machine are left alone.
our_stepds() {
    local pid
    for pid in $(pgrep -x slurmstepd || true); do
        if tr '\0' '\n' 2> /dev/null < "/proc/$pid/environ" | grep -qxF "SLURM_CONF=$work/slurm.conf"; then
            echo "$pid"
        fi
    done
}
stop() {
    local pid=$1 i
    kill "$pid" 2> /dev/null || return 0
    for i in $(seq 40); do
        kill -0 "$pid" 2> /dev/null || return 0
        [ "$i" = 40 ] && kill -KILL "$pid" 2> /dev/null
        sleep 0.25
    done
}
# Jobs still on the node when the test stops (a failure, a timeout) are cancelled first, and their step daemons
# waited for: they outlive slurmd. Then the daemons, newest first, each by its pid, waited for.
cleanup() {
    local rc=$? name pid
    trap - EXIT INT TERM
    if [ -n "${daemon_pid[slurmctld]:-}" ]; then
        scancel --quiet --user="$(id -un)" 2> /dev/null || true
        for _ in $(seq 40); do
            [ -z "$(squeue -h -o %i 2> /dev/null)$(our_stepds)" ] && break
            sleep 0.25
        done
    fi
    for name in slurmd slurmctld munged; do
        pid=${daemon_pid[$name]:-}
        [ -n "$pid" ] || continue
        stop "$pid"
        wait "$pid" 2> /dev/null || true
    done
    for pid in $(our_stepds); do
        kill -KILL "$pid" 2> /dev/null || true
    done
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

logs() {
    local f
    for f in "$work"/log/*.log "$work"/run/slurm-*.out; do
        [ -s "$f" ] || continue
        echo "----- ${f#"$work"/} (last 40 lines)" >&2
        tail -n 40 "$f" >&2
    done
}
fail() { echo "slurm_recipe: FAILED: $*" >&2; logs; exit 1; }
# Slurm is installed and this is root (checked above): a daemon that does not start is a failure, never a skip
# (a skip here would hide a broken recipe or a broken install).
cannot_start() { fail "$*"; }
free_port() {
    /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# Waits up to $1 seconds for the command after it to succeed; fails at once when a daemon it waits on died.
wait_for() {
    local seconds=$1 name
    shift
    for _ in $(seq $((seconds * 4))); do
        "$@" && return 0
        for name in "${!daemon_pid[@]}"; do
            kill -0 "${daemon_pid[$name]}" 2> /dev/null || { echo "$name exited" >&2; return 1; }
        done
        sleep 0.25
    done
    return 1
}

mkdir -p "$work/munge" "$work/log" "$work/state" "$work/spool" "$work/run" "$work/bin"
chmod 0700 "$work/munge"

# 1. munged with a key and socket of its own; Slurm is pointed at that socket (AuthInfo serves auth/munge and
#    cred/munge both).
socket=$work/munge/munge.socket
if ! mungekey --create --keyfile="$work/munge/munge.key" 2> /dev/null; then
    dd if=/dev/urandom of="$work/munge/munge.key" bs=1 count=1024 status=none
fi
chmod 0400 "$work/munge/munge.key"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/log/munged.log" \
    --seed-file="$work/munge/munged.seed" 2>> "$work/log/munged.log" &
daemon_pid[munged]=$!
munge_works() { munge --socket="$socket" -n 2> /dev/null | unmunge --socket="$socket" > /dev/null 2>&1; }
wait_for 20 munge_works || cannot_start "munged did not start"

# 2. slurmctld and slurmd on two free ports, for a node named as slurmd names itself (`slurmd -C`: its
#    hostname, CPUs, sockets and memory as it will report them, so the controller does not drain it).
#    batch_sched_delay=0: the tasks take the whole node one after the other, and the default lets 3 s pass
#    between one's end and the next one's start (60 s for the 20 tasks instead of 20).
host=$(hostname -s)
node=$(slurmd -C 2> /dev/null | head -n 1)
case "$node" in NodeName=*) ;; *) cannot_start "slurmd -C does not describe this node: $node" ;; esac
export SLURM_CONF=$work/slurm.conf
: > "$work/plugstack.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=kinetoscope-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
MailProg=/bin/true
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
PlugStackConfig=$work/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=300
SchedulerParameters=batch_sched_delay=0
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D >> "$work/log/slurmctld.stderr.log" 2>&1 &
daemon_pid[slurmctld]=$!
slurmd -D >> "$work/log/slurmd.stderr.log" 2>&1 &
daemon_pid[slurmd]=$!
node_idle() { [ "$(sinfo -h -n "$host" -o %T 2> /dev/null)" = idle ]; }
wait_for 60 node_idle || cannot_start "the node did not come up idle: $(sinfo -h -o '%T %E' 2>&1 | head -n 1)"

# 3. The recipe, as docs/JOBS.md tells a user: the list holds paths relative to where sbatch is run, which is
#    where the tasks run and where Slurm writes their slurm-*.out.
ln -s "$(readlink -f "$cli")" "$work/bin/kinetoscope-cli"
export PATH="$work/bin:$PATH"
cd "$work/run"
/usr/bin/python3 "$src/bench/make_ranks.py" traces gen --ranks 20 \
    --straggler 7:1:25 --straggler 16:2:10 > planted.txt
generated=(gen/*.pt.trace.json) # in rank order: the names are node<host>_<10000 + rank>
broken=${generated[4]}          # not a trace, so rank 4 has no rank file
truncated=${generated[9]}       # rank 9 is read up to where it stops
echo "not a trace" > "$broken"
head -c 1500 "$truncated" > "$truncated.tmp" && mv "$truncated.tmp" "$truncated"
find gen -name '*.pt.trace.json' | sort > traces.txt
recipe=$src/docs/recipes/job-slurm.sh
started=$SECONDS
n=$(grep -c . traces.txt)
[ "$n" -le 1000 ] || n=1000
array=$(sbatch --parsable --array=1-"$n"%256 "$recipe" rank traces.txt ranks) || fail "sbatch of the array"
final=$(sbatch --parsable --dependency=afterany:"$array" "$recipe" job traces.txt ranks) || fail "sbatch of the job"

# squeue lists a job while it is pending, running or completing; both gone means both finished (an squeue that
# fails says nothing).
jobs_done() {
    local listed
    listed=$(squeue -h -j "$array,$final" -t PD,CF,R,CG,S -o %i 2> /dev/null) && [ -z "$listed" ]
}
wait_for 180 jobs_done || fail "the jobs did not finish in 180 s: $(squeue 2>&1)"
echo "slurm_recipe: $n array tasks and the report ran in $((SECONDS - started)) s"

# 4. Every task and the report step completed with exit code 0 (`|| true` keeps the non-trace's task at 0).
states=$(scontrol -o show job "$array"; scontrol -o show job "$final")
[ "$(grep -c . <<< "$states")" = $((n + 1)) ] || fail "expected $((n + 1)) job records: $states"
bad=$(grep -v 'JobState=COMPLETED .*ExitCode=0:0' <<< "$states" || true)
[ -z "$bad" ] || fail "tasks that did not complete with exit code 0: $bad"

# 5. The report: the stragglers first, the non-trace as a missing rank, the truncated trace as a note.
{ [ -s ranks.job.json ] && [ -s ranks.job.txt ]; } || fail "no report beside ranks/: $(ls)"
/usr/bin/python3 - ranks.job.json <<'PY' || fail "the JSON report: $(head -c 2000 ranks.job.json)"
import json, sys
job = json.load(open(sys.argv[1]))
assert job["ranks"] == 19, job["ranks"]  # the non-trace's rank file was never written
assert job["world_size"] == 20, job["world_size"]
assert any("1 of the world's 20 ranks are not here: 4" in p for p in job["problems"]), job["problems"]
got = [(s["rank"], s["step"]) for s in job["stragglers"]][:2]
assert got == [(7, "ProfilerStep#1"), (16, "ProfilerStep#2")], job["stragglers"]
assert abs(job["stragglers"][0]["excess_us"] - 25000) < 100, job["stragglers"][0]
notes = [r["notes"] for r in job["per_rank"] if r["rank"] == 9][0]
assert any("truncated at byte" in n for n in notes), notes
PY
grep -q '^Job: 19 ranks of a world of 20' ranks.job.txt || fail "text report: $(head -3 ranks.job.txt)"
grep -q 'rank 7 .*ProfilerStep#1' ranks.job.txt || fail "the text report does not name straggler rank 7"
grep -q 'rank 16 .*ProfilerStep#2' ranks.job.txt || fail "the text report does not name straggler rank 16"
rank_files=(ranks/*.rank.json)
[ "${#rank_files[@]}" = 19 ] || fail "expected 19 rank files: ${rank_files[*]}"
# One trace a task, so the non-trace's error is printed once: SLURM_ARRAY_TASK_COUNT reached the tasks (without
# it each task would read every trace from its own on, and tasks 1 to 5 would all print it).
errors=$(cat slurm-"${array}"_*.out | grep -F "${broken#gen/}" | grep -c byte || true)
[ "$errors" = 1 ] || fail "the non-trace's error was printed $errors times, not once"
echo "slurm_recipe: passed on $(slurmctld -V)"
