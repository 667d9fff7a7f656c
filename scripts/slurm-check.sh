#!/usr/bin/env bash
# Runs Samples/batch/slurm-array.sbatch, unedited, on a real one-node Slurm cluster on this machine
# and checks what Docs/Batch.md promises: every good clip exported once, a broken and a missing
# input failed in their task's JSON Lines, array states, resume on re-submission, a cancelled task
# that leaves no half-written output and is finished by the next submission, re-running some
# shards, shard numbers that do not fit the array, and an output directory one task cannot write.
#
#   scripts/slurm-check.sh          (as root; SLOMO=path picks the binary, default: slomo on PATH,
#                                    else .build/release/slomo; KEEP=1 keeps the temporary directory;
#                                    SLURMCTLD_PORT/SLURMD_PORT if 6817/6818 are taken)
#
# Installs slurmctld, slurmd, slurm-client and munge when missing. munged, slurmctld and slurmd run
# as root with a key, socket, configuration, state and logs in a temporary directory (SLURM_CONF
# points there; the script writes nothing under /etc, the packages only their own files) and are
# stopped by pid on exit, also on failure.
# There is no slurmdbd, so no sacct: task states come from `scontrol show job` (MinJobAge keeps
# finished jobs for a day) and every finished task is also in the jobcomp/filetxt log.
# The last line is `slurm: J jobs, O ok, F failed, S skipped on resubmit`; exit 1 if a check failed.
set -eEuo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
sample=$repo/Samples/batch/slurm-array.sbatch
SLOMO=${SLOMO:-$(command -v slomo || echo "$repo/.build/release/slomo")}
[ -x "$SLOMO" ] || { echo "slurm-check: no slomo binary at '$SLOMO' (set SLOMO=...)" >&2; exit 2; }
SLOMO=$(realpath "$SLOMO")

packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "slurm-check: installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/slomo-slurm.XXXXXX)
chmod 755 "$work"   # the unwritable-directory check runs one array as nobody
daemons=()
stop_daemons() {
  local pid i
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do kill -TERM "${daemons[i]}" 2>/dev/null || true; done
  for pid in "${daemons[@]}"; do
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ "${KEEP:-0}" = 1 ]; then echo "slurm-check: kept $work" >&2; else rm -rf "$work"; fi
}
trap stop_daemons EXIT
trap 'echo "slurm-check: stopped at line $LINENO: $BASH_COMMAND" >&2' ERR

# --- the cluster: munged with its own key and socket, then slurmctld and slurmd ------------------
host=$(hostname -s)
mkdir -p "$work"/{key,sock,state,spool,log}
chmod 700 "$work/key"; chmod 755 "$work/sock"
mungekey --create --keyfile="$work/key/munge.key"
munged -F --key-file="$work/key/munge.key" --socket="$work/sock/munge.socket" \
  --pid-file="$work/key/munged.pid" --seed-file="$work/key/munged.seed" \
  --log-file="$work/log/munged.log" >"$work/log/munged.out" 2>&1 &
daemons+=($!)
for _ in $(seq 50); do [ -S "$work/sock/munge.socket" ] && break; sleep 0.1; done
cat >"$work/slurm.conf" <<EOF
ClusterName=slomo-check
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/sock/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/state/slurmctld.pid
SlurmdPidFile=$work/spool/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPort=${SLURMCTLD_PORT:-6817}
SlurmdPort=${SLURMD_PORT:-6818}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$work/log/jobcomp.log
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
MailProg=/bin/true
MinJobAge=86400
KillWait=5
ReturnToService=2
NodeName=$host CPUs=$(nproc) RealMemory=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 256))
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -D >"$work/log/slurmctld.out" 2>&1 & daemons+=($!)
slurmd -D >"$work/log/slurmd.out" 2>&1 & daemons+=($!)
for i in $(seq 100); do
  [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break
  [ "$i" = 100 ] && { tail "$work"/log/*.out >&2; echo "slurm-check: the node never came up" >&2; exit 1; }
  sleep 0.3
done
echo "slurm-check: cluster up in $work (node $host, $(nproc) CPUs)" >&2

# --- clips and the manifest ------------------------------------------------------------------
# 15 jobs, 4 shards (job j in shard j mod 4): 12 small clips at 60/120/240 fps, one slow job
# (job 11, last in shard 3, the one cancelled), a truncated clip (job 5) and a missing input (10).
cd "$work"
mkdir clips out logs
gen() { "$SLOMO" generate "$@" --overwrite >/dev/null; }
jobs_json=() expected=()
for j in $(seq 0 14); do
  case $j in
    5) gen --fps 60 --duration 1 --size 320x180 -o clips/whole.mp4
       head -c 4000 clips/whole.mp4 >clips/broken.mp4
       jobs_json+=('{"input":"clips/broken.mp4","output":"out/broken.mp4"}') ;;
    10) jobs_json+=('{"input":"clips/missing.mp4","output":"out/missing.mp4"}') ;;
    11) gen --fps 240 --duration 2 --size 640x360 --preset ultrafast -o clips/slow.mp4
        jobs_json+=('{"input":"clips/slow.mp4","output":"out/slow.mp4","rate":"1/4","fps":"60","preset":"slower"}')
        expected+=("out/slow.mp4 480") ;;
    *) fps=$((60 << (j % 3)))
       gen --fps "$fps" --duration 1 --size 320x180 -o "clips/c$j-${fps}fps.mp4"
       jobs_json+=("{\"input\":\"clips/c$j-${fps}fps.mp4\",\"output\":\"out/c$j.mp4\"}")
       expected+=("out/c$j.mp4 60") ;;
  esac
done
(IFS=,; echo "{\"defaults\":{\"rate\":\"1/2\",\"fps\":\"30\"},\"jobs\":[${jobs_json[*]}]}") | jq . >jobs.json
njobs=15 ngood=${#expected[@]}

failures=0
check() { # description command...: prints ok/FAIL, counts failures
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
submit() { # run-name sbatch-options...: prints the array job id
  local run=$1; shift
  sbatch --parsable --chdir="$work" --export="ALL,SLOMO=$SLOMO" --cpus-per-task=1 --mem=256M \
    --output="$work/logs/$run-%A_%a.jsonl" --error="$work/logs/$run-%A_%a.err" "$@"
}
wait_array() { # array-job-id: until no task is pending, running or completing
  local i
  for i in $(seq 600); do
    [ -z "$(squeue -h -j "$1" -t PD,R,CG,CF,S 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  echo "slurm-check: array $1 still running after 300 s" >&2; return 1
}
states() { # array-job-id: "task STATE exitcode" per task, sorted
  scontrol -o show job "$1" | tr ' ' '\n' |
    awk -F= '$1=="ArrayTaskId"{t=$2} $1=="JobState"{s=$2} $1=="ExitCode"{print t, s, $2}' | sort -n
}
lines() { cat "$work"/logs/"$1"-*.jsonl; }  # every JSON line of one run
complete() { # output expected-frames: opens, has the frames and a sound track
  local v a
  v=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$1") || return 1
  a=$(ffprobe -v error -select_streams a -show_entries stream=index -of csv=p=0 "$1") || return 1
  [ "$v" = "$2" ] && [ -n "$a" ]
}
final_outputs_complete() {
  local e n=0
  for e in "${expected[@]}"; do
    set -- $e
    if [ -e "$1" ]; then complete "$1" "$2" || { echo "  $1: incomplete" >&2; return 1; }; n=$((n + 1)); fi
  done
  [ "$(find out -maxdepth 1 -type f ! -name '.*' | wc -l)" = "$n" ]
}

# --- run 1: the array, task 3 cancelled in the middle of the slow job ------------------------
run1=$(submit run1 --array=0-3 "$sample" jobs.json)
for _ in $(seq 600); do compgen -G 'out/.slow.mp4.partial*' >/dev/null && break; sleep 0.1; done
caught() { compgen -G 'out/.slow.mp4.partial*' >/dev/null; }
check "the slow job was caught while running" caught
scancel "${run1}_3"
wait_array "$run1"
echo "run 1 (array $run1):"; states "$run1" | sed 's/^/  task /'
check "run 1 states: 0 COMPLETED, 1 and 2 FAILED 1:0, 3 CANCELLED" \
  test "$(states "$run1" | awk '{print $1, $2, ($2 == "CANCELLED" ? "" : $3)}' | xargs)" \
  = "0 COMPLETED 0:0 1 FAILED 1:0 2 FAILED 1:0 3 CANCELLED"
check "broken clip failed with exit 65 in task 1's lines" \
  test "$(jq -r 'select(.output == "out/broken.mp4") | "\(.status) \(.exitStatus)"' logs/run1-*_1.jsonl)" = "failed 65"
check "missing input failed with exit 66 in task 2's lines" \
  test "$(jq -r 'select(.output == "out/missing.mp4") | "\(.status) \(.exitStatus)"' logs/run1-*_2.jsonl)" = "failed 66"
check "cancelled job: no out/slow.mp4" test ! -e out/slow.mp4
check "cancelled job: its partial file removed" test -z "$(compgen -G 'out/.slow*' || true)"
check "every output under a final name is complete" final_outputs_complete

# --- run 2: the same submission again resumes ------------------------------------------------
run2=$(submit run2 --array=0-3 "$sample" jobs.json)
wait_array "$run2"
echo "run 2 (array $run2):"; states "$run2" | sed 's/^/  task /'
check "run 2 states: 0 and 3 COMPLETED, 1 and 2 FAILED 1:0" \
  test "$(states "$run2" | xargs)" = "0 COMPLETED 0:0 1 FAILED 1:0 2 FAILED 1:0 3 COMPLETED 0:0"
ok1=$(lines run1 | jq -s '[.[] | select(.status == "ok")] | length')
skipped2=$(lines run2 | jq -s '[.[] | select(.status == "skipped")] | length')
check "run 2 skipped every job run 1 finished ($ok1)" test "$skipped2" = "$ok1"
check "run 2 finished the cancelled job" \
  test "$(jq -r 'select(.output == "out/slow.mp4") | .status' logs/run2-*_3.jsonl)" = ok
check "every good clip exported exactly once over both runs" test "$(cat logs/run[12]-*.jsonl |
  jq -r 'select(.status == "ok") | .output' | sort | uniq -c | awk '$1 == 1' | wc -l)" = "$ngood"
check "all $ngood good outputs exist and are complete" final_outputs_complete
check "no good output missing" test "$(find out -maxdepth 1 -name '*.mp4' ! -name '.*' | wc -l)" = "$ngood"
ok=$(cat logs/run[12]-*.jsonl | jq -s '[.[] | select(.status == "ok")] | length')
failed=$(cat logs/run[12]-*.jsonl | jq -rs '[.[] | select(.status == "failed") | .output] | unique | length')

# --- some shards only, shard numbers that do not fit the array, an unwritable output directory
some=$(submit some --array=1,3 --export="ALL,SLOMO=$SLOMO,SLOMO_SHARDS=4" "$sample" jobs.json)
wait_array "$some"
check "--array=1,3 with SLOMO_SHARDS=4 re-runs shards 1 and 3 of 4: 6 skipped, the broken clip failed" \
  test "$(states "$some" | xargs) $(lines some | jq -s '[.[] | select(.status == "skipped")] | length')" \
  = "1 FAILED 1:0 3 COMPLETED 0:0 6"
bad1=$(submit shards --array=0-3 --export="ALL,SLOMO=$SLOMO,SLOMO_SHARDS=3" "$sample" jobs.json)
wait_array "$bad1"
check "SLOMO_SHARDS=3 on --array=0-3: task 3 FAILED 64:0 with a JSON line, tasks 0-2 redid nothing" \
  test "$(states "$bad1" | awk '$1 == 3 {print $2, $3}') $(lines shards | grep -c 'not a shard of 3') $(
    lines shards | jq -s '[.[] | select(.status == "ok")] | length')" = "FAILED 64:0 1 0"
bad2=$(submit base1 --array=1-4 "$sample" jobs.json)
wait_array "$bad2"
check "--array=1-4 (not from 0): every task FAILED 64:0 with a JSON line" \
  test "$(states "$bad2" | awk '{print $2, $3}' | sort -u | xargs) $(lines base1 | grep -c refused)" = "FAILED 64:0 4"
# As nobody (root writes anywhere): job 2 (shard 2) writes into a read-only directory.
mkdir -m 777 perm perm/logs perm/w; mkdir -m 555 perm/ro
jq '{defaults, jobs: [.jobs[0,1,3,4] | .output |= sub("^out/"; "w/")]} | .jobs[2].output |= sub("^w/"; "ro/")' \
  jobs.json | sed 's#"clips/#"../clips/#' >perm/jobs.json
bad3=$(submit ro --array=0-3 --uid=nobody --gid=nogroup --chdir="$work/perm" \
  --output="$work/perm/logs/ro-%A_%a.jsonl" --error="$work/perm/logs/ro-%A_%a.err" "$sample" jobs.json)
wait_array "$bad3"
echo "read-only output directory for shard 2 (array $bad3):"; states "$bad3" | sed 's/^/  task /'
check "unwritable directory: task 2 FAILED 73:0 and its JSON line names it; tasks 0, 1, 3 COMPLETED" \
  test "$(states "$bad3" | awk '{print $1, $2, $3}' | xargs) $(jq -r 'select(.status == "refused") | "\(.exitStatus) \(.error | test("ro: output directory is not writable"))"' perm/logs/ro-*_2.jsonl)" \
  = "0 COMPLETED 0:0 1 COMPLETED 0:0 2 FAILED 73:0 3 COMPLETED 0:0 73 true"
check "jobcomp log has every finished task" test "$(grep -c 'JobState=' log/jobcomp.log)" = 22

[ "$failures" = 0 ] || echo "slurm-check: $failures check(s) failed (KEEP=1 keeps the logs)" >&2
echo "slurm: $njobs jobs, $ok ok, $failed failed, $skipped2 skipped on resubmit"
exit $((failures > 0))
