#!/bin/sh
# scripts/local-slurm.sh: a real one-node Slurm cluster of this machine (the
# study engine's, issue 24).  The cluster lives in a private directory on
# two free ports (SIMBLAS_SLURM_DIR, SIMBLAS_SLURM_PORT=auto), so that a
# cluster already running -- a user's, the default one, another make
# check's -- is neither used nor touched (a second cluster, started beside
# the first, must still run when the first has stopped).  Start, start again (idempotent), status; a 4-task sbatch --array
# job whose tasks each write a file atomically, every file checked; slurmd
# killed: status names it and its log, start brings it back; stop while a
# job runs: nothing of the cluster is left, its ports are free.
# Skips when not root; a missing slurm-wlm or munge skips, or fails under
# SIMBLAS_TEST_STRICT=1.
set -u
. "${SB_SRCDIR:-.}/test/strict.sh"
script=${SB_SRCDIR:-.}/scripts/local-slurm.sh
pass=0 fail=0
PATH=$PATH:/usr/sbin:/sbin
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the cluster's daemons run as root: run make check as root"; exit 77; }
for b in munged slurmctld slurmd sbatch; do
  command -v "$b" > /dev/null 2>&1 || missing "$b is not installed (Debian packages slurm-wlm and munge)"
done
# the cluster's commands run preloaded with nothing (a sanitizer build's
# LD_PRELOAD is for programs linked with libsimblas; none runs here)
unset LD_PRELOAD

t=${TMPDIR:-/tmp}
[ ${#t} -le 24 ] || t=/tmp # the daemons' socket paths are short
tmp=$(mktemp -d "$t/simblas-slurm.XXXXXX") || exit 1
chmod 755 "$tmp" # munged wants its socket reachable by all
SIMBLAS_SLURM_DIR=$tmp/c
SIMBLAS_SLURM_PORT=auto
export SIMBLAS_SLURM_DIR SIMBLAS_SLURM_PORT
unset SLURM_CONF
conf=$tmp/c/slurm.conf
trap 'sh "$script" stop > /dev/null 2>&1; SIMBLAS_SLURM_DIR=$tmp/d sh "$script" stop > /dev/null 2>&1; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

# alive PID: the process runs (a zombie does not)
alive() { [ -d "/proc/$1" ] && [ "$(sed 's/.*) //; s/ .*//' "/proc/$1/stat" 2> /dev/null)" != Z ]; }
# named DIR...: the pids of running processes whose command line names a
# path in one of the DIRs
named() {
  for c in /proc/[0-9]*/cmdline; do
    a=$({ tr '\0' ' ' < "$c"; } 2> /dev/null) || continue
    for d; do
      case "$a" in *"$d/"*) p=${c#/proc/}; p=${p%/cmdline}; alive "$p" && echo "$p" && break ;; esac
    done
  done
}
# show PID...: their command lines
show() { for p; do printf ' [%s]' "$({ tr '\0' ' ' < "/proc/$p/cmdline"; } 2> /dev/null)"; done; }
listening() {
  awk -v p="$(printf ':%04X' "$1")" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' \
    /proc/net/tcp /proc/net/tcp6 2> /dev/null
}
# one_line WHAT RC PATTERN CMD...: CMD exits RC with one line matching PATTERN
one_line() {
  what=$1 want=$2 pat=$3
  shift 3
  out=$("$@" 2>&1) && rc=0 || rc=$?
  if [ "$rc" -eq "$want" ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s\n' "$out" | grep -q -- "$pat"; then
    ok "$what: $out"
  else
    ko "$what: exit status $rc (want $want), said: $out"
  fi
}
pids() { cat "$tmp/c/munge/munged.pid" "$tmp/c/slurmctld.pid" "$tmp/c/slurmd.pid" 2> /dev/null | tr '\n' ' '; }
report() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }
# finished CONF JOB SECONDS: the job has left the queue within SECONDS
# (squeue polled: sbatch --wait polls every 2 to 10 s)
finished() {
  i=0
  while [ -n "$(SLURM_CONF=$1 squeue -h -j "$2" -o %i 2> /dev/null)" ]; do
    [ $i -lt $(($3 * 5)) ] || return 1
    sleep 0.2
    i=$((i + 1))
  done
}
mkdir -p "$tmp/w/out" "$tmp/w/log"

one_line "status before start says not running" 3 "is not running: start it with" sh "$script" status
one_line "an unknown command gives the usage" 2 "usage: local-slurm.sh start|stop|status" sh "$script" restart
one_line "a port that is no number is refused" 2 "is not a port number" env SIMBLAS_SLURM_PORT=68x7 sh "$script" start
[ ! -e "$tmp/c/slurm.conf" ] && ok "nothing written before the refusal" || ko "the refused start wrote $tmp/c"

if out=$(sh "$script" start 2>&1) && echo "$out" | grep -q "Slurm is now up"; then ok "start: $out"
else
  ko "start: $out"
  tail -n 5 "$tmp"/c/log/*.log 2> /dev/null | sed 's/^/  /'
  report
fi
first=$(pids)
port=$(sed -n 's/^SlurmctldPort=//p' "$conf")
out=$(sh "$script" start 2>&1) && echo "$out" | grep -q "already up" && [ "$(pids)" = "$first" ] &&
  ok "start again keeps the daemons ($first): $out" || ko "start again: pids $first became $(pids): $out"
out=$(sh "$script" status 2>&1) && echo "$out" | grep -q "^local\* .*idle *localhost" &&
  ok "status: up, the node idle" || ko "status while up: $out"
for k in ProctrackType=proctrack/linuxproc TaskPlugin=task/none JobAcctGatherType=jobacct_gather/none \
  SlurmctldHost=localhost "CPUs=$(slurmd -C | sed -n 's/.* CPUs=\([0-9]*\).*/\1/p') "; do
  grep -q "^$k\|^NodeName=localhost $k" "$conf" || { ko "slurm.conf lacks $k"; k=; break; }
done
[ -n "$k" ] && ok "slurm.conf: linuxproc, task/none, no accounting, localhost, every CPU"
one_line "a second cluster on the first one's port is refused" 2 "port $port, slurmctld's, is taken" \
  env SIMBLAS_SLURM_DIR="$tmp/e" SIMBLAS_SLURM_PORT="$port" sh "$script" start
left=$(named "$tmp/e")
[ -z "$left" ] && ok "nothing of the refused cluster started" || ko "the refused cluster left:$(show $left)"
# another cluster beside this one, which this one's stop must leave alone;
# started, where the kernel lets us, with no cgroup hierarchy in sight (an
# empty /sys/fs/cgroup in a mount namespace of its own), and given a job
if unshare -m true 2> /dev/null; then
  where="where /sys/fs/cgroup is empty"
  bare() { unshare -m sh -c 'mount -t tmpfs none /sys/fs/cgroup && exec "$@"' sh "$@"; }
else
  where="(unshare -m is not permitted here: with the machine's cgroups)"
  bare() { "$@"; }
fi
if out=$(bare env SIMBLAS_SLURM_DIR="$tmp/d" sh "$script" start 2>&1) && j=$(cd "$tmp/w" && SLURM_CONF=$tmp/d/slurm.conf sbatch --parsable -o /dev/null --wrap 'echo yes > d.out') &&
  finished "$tmp/d/slurm.conf" "$j" 60 && [ "$(cat "$tmp/w/d.out" 2> /dev/null)" = yes ]; then
  ok "a second cluster beside it, $where, runs a job: $out"
else
  ko "a second cluster $where: $out"
fi

# a job array: each task writes its file under a temporary name, then
# renames it (a reader never sees half a file)
cat > "$tmp/w/task.sh" << 'EOF'
#!/bin/sh
i=$SLURM_ARRAY_TASK_ID
f=out/$i
echo "task $i of job $SLURM_ARRAY_JOB_ID on $SLURMD_NODENAME: $((i * i + 7))" > "$f.tmp.$$"
mv "$f.tmp.$$" "$f"
EOF
t0=$(date +%s)
job=$(cd "$tmp/w" && SLURM_CONF=$conf sbatch --parsable --array=0-3 --job-name=simblas-test \
  --time=5 --mem=64M -o "log/%A_%a.log" task.sh 2>&1)
case "$job" in '' | *[!0-9]*) ko "sbatch --array=0-3: $job"; report ;; esac
finished "$conf" "$job" 120 && ok "job array $job done in $(($(date +%s) - t0)) s" || ko "job array $job not done after 120 s"
good=0
for n in 0 1 2 3; do
  want="task $n of job $job on localhost: $((n * n + 7))"
  got=$(cat "$tmp/w/out/$n" 2> /dev/null)
  [ "$got" = "$want" ] && good=$((good + 1)) || ko "task $n wrote '$got', not '$want' (log: $(cat "$tmp/w/log/${job}_$n.log" 2> /dev/null))"
done
[ $good -eq 4 ] && ok "the 4 tasks' files are right"
left=$(find "$tmp/w/out" -name '*tmp*' | wc -l)
[ "$left" -eq 0 ] && ok "no temporary file left" || ko "$left temporary files left in $tmp/w/out"
states=$(SLURM_CONF=$conf scontrol -o show job "$job" | grep -o 'JobState=[A-Z]* .*ExitCode=[0-9:]*' |
  sed 's/ .*ExitCode=/ /' | sort | uniq -c | sed 's/^ *//')
[ "$states" = "4 JobState=COMPLETED 0:0" ] && ok "Slurm says: $states" || ko "Slurm's task states: $states"

cpus=$(SLURM_CONF=$conf sinfo -h -o %c)
out=$(cd "$tmp/w" && SLURM_CONF=$conf sbatch --parsable -c $((cpus + 1)) -o /dev/null --wrap true 2>&1) &&
  ko "a job asking for $((cpus + 1)) CPUs of $cpus was taken: $out" ||
  ok "a job asking for $((cpus + 1)) CPUs of $cpus is refused: $out"

# slurmd dies: status names it and its log; start restarts it alone
kill -KILL "$(cat "$tmp/c/slurmd.pid")"
i=0
while [ $i -lt 50 ] && alive "$(cat "$tmp/c/slurmd.pid")"; do sleep 0.1; i=$((i + 1)); done
one_line "status with slurmd dead" 1 "not running: slurmd (log: $tmp/c/log/slurmd.log)" sh "$script" status
before=$(pids)
out=$(sh "$script" start 2>&1) && sh "$script" status > /dev/null &&
  [ "$(pids | cut -d' ' -f1,2)" = "$(echo "$before" | cut -d' ' -f1,2)" ] &&
  ok "start brings slurmd back alone: $out" || ko "restart of slurmd: $out"

# stop while a job runs: the job's processes go too
cat > "$tmp/w/sleeper.sh" << 'EOF'
#!/bin/sh
sleep 600 &
echo $! > sleeper.pid.tmp && mv sleeper.pid.tmp sleeper.pid
wait
EOF
long=$(cd "$tmp/w" && SLURM_CONF=$conf sbatch --parsable -o /dev/null sleeper.sh 2>&1)
i=0
while [ ! -s "$tmp/w/sleeper.pid" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleeper=$(cat "$tmp/w/sleeper.pid" 2> /dev/null)
[ -n "$sleeper" ] && alive "$sleeper" && ok "job $long runs (its sleep is pid $sleeper)" || ko "job $long did not start within 30 s"
out=$(sh "$script" stop 2>&1) && ok "stop: $out" || ko "stop: $out"
sleep 0.5
one_line "status after stop says not running" 3 "is not running" sh "$script" status
left=$(named "$tmp/c" "$tmp/w")
[ -z "$left" ] && ok "no process of the cluster left" || ko "processes left:$(show $left)"
[ -n "$sleeper" ] && alive "$sleeper" && ko "the running job's sleep ($sleeper) survived stop"
! listening "$port" && ! listening $((port + 1)) && ok "ports $port and $((port + 1)) free" || ko "a port of the cluster still listens"
out=$(sh "$script" stop 2>&1) && ok "stop again: $out" || ko "stop again: $out"
SIMBLAS_SLURM_DIR=$tmp/d sh "$script" status > /dev/null && ok "the second cluster still runs" ||
  ko "the second cluster's daemons died with the first: $(SIMBLAS_SLURM_DIR=$tmp/d sh "$script" status 2>&1)"
SIMBLAS_SLURM_DIR=$tmp/d sh "$script" stop > /dev/null 2>&1
left=$(named "$tmp")
[ -z "$left" ] && ok "the second cluster stopped: nothing left" || ko "left after both stops:$(show $left)"
report
