#!/bin/sh
# A real Slurm cluster of one node, this machine, for SimBLAS studies
# (simblas-hpl study --engine slurm) and their tests, where there is no
# cluster yet.  Debian 12's slurm-wlm and munge, started by hand (no
# systemd is needed, and none is used).  Run as root.
#
#   scripts/local-slurm.sh start    start munged, slurmctld and slurmd, and wait
#                                   until the node takes jobs; idempotent: what
#                                   already runs is kept, what does not is started
#   scripts/local-slurm.sh stop     cancel the cluster's jobs, stop its daemons;
#                                   nothing of the cluster is left running
#   scripts/local-slurm.sh status   say whether the node takes jobs; exit status:
#                                     0  up: the node takes jobs (sinfo follows)
#                                     1  partly up: one line says what is down
#                                        and where its log is
#                                     2  bad usage, or start/stop not run as root
#                                     3  not running
#
# Environment:
#   SIMBLAS_SLURM_DIR   the cluster's directory: configuration (slurm.conf),
#                       munge key and socket, daemons' state, pid files and
#                       logs (log/); default /var/tmp/simblas-slurm.  Each
#                       directory is a separate cluster with its own munged.
#   SIMBLAS_SLURM_PORT  slurmctld's port (slurmd listens on the next one);
#                       default 6817, Slurm's own; "auto" picks two free ones.
#
# Only the default directory's cluster installs its configuration as
# /etc/slurm/slurm.conf, so that plain sbatch/squeue/sinfo find it (and
# stop removes it again); a slurm.conf that is not this script's is never
# touched.  Other clusters are reached with SLURM_CONF=$SIMBLAS_SLURM_DIR/
# slurm.conf.  The node, "localhost", has every core of the machine and 90%
# of its memory, in partition "local"; cores and memory are allocated
# (CR_Core_Memory, DefMemPerCPU its share of memory per core), so an array
# job runs one task per core at once.  Processes are tracked by
# proctrack/linuxproc with task/none and no accounting: no cgroups (slurmd's
# cgroup plugin is given an empty hierarchy in the directory).  Every
# daemon runs as root, with its own munge socket and key: neither the
# machine's munged nor the users munge and slurm are needed.
set -eu
PATH=$PATH:/usr/sbin:/sbin
prog=local-slurm.sh
default_dir=/var/tmp/simblas-slurm
dir=${SIMBLAS_SLURM_DIR:-$default_dir}
case "$dir" in /*) ;; *) dir=$(pwd)/$dir ;; esac
dir=${dir%/}
conf=$dir/slurm.conf
mdir=$dir/munge
sock=$mdir/munge.socket.2
log=$dir/log
etc=/etc/slurm/slurm.conf
mark="# written by SimBLAS scripts/local-slurm.sh for $dir"
# how to call this script again, for this cluster
me="sh scripts/local-slurm.sh"
[ "$dir" = "$default_dir" ] || me="SIMBLAS_SLURM_DIR=$dir $me"
from=1

die() { echo "$prog: $*" >&2; exit 2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# logged LOG: remember how long LOG is, before a daemon starts
logged() { from=$(($(stat -c %s "$1" 2> /dev/null || echo 0) + 1)); }
# failed NAME LOG [TEXT]: NAME did not start; one line with what its log
# got since `logged` (the last fatal error, or else the last two errors), or
# TEXT, what it said when launched, and the log's path
failed() {
  new=$(tail -c +"$from" "$2" 2> /dev/null | sed 's/^\[[^]]*\] //; s/^[0-9-]* [0-9:]* [+0-9]* //; s/  */ /g') || true
  why=$(printf '%s\n' "$new" | grep -ai 'fatal' | tail -1) || true
  [ -n "$why" ] || why=$(printf '%s\n' "$new" | grep -ai 'error' | tail -2 | sed 's/^error: *//I' | paste -sd';' | sed 's/;/; /g') || true
  [ -n "$why" ] || why=$(printf '%s' "${3:-}" | tail -1)
  echo "$prog: $1 did not start${why:+: $why} (log: $2)" >&2
  exit 1
}

need_root() {
  [ "$(id -u)" -eq 0 ] || die "slurmd and munged must run as root: run this as root (sudo sh scripts/local-slurm.sh $1)"
}

need_packages() {
  for b in munged munge slurmctld slurmd sinfo squeue scontrol scancel sbatch; do
    command -v "$b" > /dev/null 2>&1 ||
      die "$b is not installed: install slurm-wlm and munge (sh scripts/install-deps.sh, or apt-get install slurm-wlm munge)"
  done
  command -v flock > /dev/null 2>&1 || die "flock is not installed: install util-linux"
}

need_dir() {
  case "$dir" in *[!A-Za-z0-9/._+-]*) die "SIMBLAS_SLURM_DIR '$dir' has characters slurm.conf cannot hold: choose a plain path" ;; esac
  # Unix socket paths hold 107 bytes: munge's socket and slurmd's step sockets
  [ ${#dir} -le 64 ] || die "SIMBLAS_SLURM_DIR is ${#dir} characters long, too long for the daemons' sockets: choose one of at most 64 (the default is $default_dir)"
}

# the cluster's own commands, whatever SLURM_CONF the caller has
sl() { SLURM_CONF=$conf "$@"; }

# running NAME PIDFILE: prints the pid of this cluster's daemon NAME when it
# runs (the pid file's process, not a zombie, named NAME, started with a path
# of this directory: never another cluster's daemon)
running() {
  pid=$(cat "$2" 2> /dev/null) || return 1
  case "$pid" in '' | *[!0-9]*) return 1 ;; esac
  [ "$(cat "/proc/$pid/comm" 2> /dev/null)" = "$1" ] || return 1
  [ "$(sed 's/.*) //; s/ .*//' "/proc/$pid/stat" 2> /dev/null)" != Z ] || return 1
  { tr '\0' '\n' < "/proc/$pid/cmdline"; } 2> /dev/null | grep -qxF -e "$conf" -e "--socket=$sock" || return 1
  echo "$pid"
}
munged_pid() { running munged "$mdir/munged.pid"; }
ctld_pid() { running slurmctld "$dir/slurmctld.pid"; }
slurmd_pid() { running slurmd "$dir/slurmd.pid"; }

# listening PORT: something listens on TCP port PORT
listening() {
  hex=$(printf ':%04X' "$1")
  awk -v p="$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' \
    /proc/net/tcp /proc/net/tcp6 2> /dev/null
}

need_port() {
  p=${SIMBLAS_SLURM_PORT:-6817}
  case "$p" in
    auto) ;;
    *[!0-9]* | '') die "SIMBLAS_SLURM_PORT='$p' is not a port number: give one (slurmd takes the next) or auto" ;;
    *) [ "$p" -ge 1024 ] && [ "$p" -le 65534 ] ||
         die "SIMBLAS_SLURM_PORT=$p is out of range: give one from 1024 to 65534 (slurmd takes the next), or auto" ;;
  esac
}

# the ports of a new configuration: SIMBLAS_SLURM_PORT, 6817, or two free
# ones below Linux's ephemeral ports (32768 up, those of outgoing connections)
pick_ports() {
  p=${SIMBLAS_SLURM_PORT:-6817}
  i=0
  while [ "$p" = auto ]; do
    p=$((10000 + $(od -An -N2 -tu2 /dev/urandom) % 22000))
    ! listening "$p" && ! listening $((p + 1)) || p=auto
    i=$((i + 1))
    [ "$p" != auto ] || [ $i -lt 50 ] || die "no two free ports found between 10000 and 32000: name some with SIMBLAS_SLURM_PORT=N"
  done
  ctld_port=$p
  slurmd_port=$((p + 1))
}

write_conf() {
  pick_ports
  # the node as slurmd sees it: CPUs, boards, sockets, cores, threads, memory
  hw=$(slurmd -C 2> /dev/null | head -1)
  mem=$(printf '%s\n' "$hw" | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  cpus=$(printf '%s\n' "$hw" | sed -n 's/.* CPUs=\([0-9]*\).*/\1/p')
  [ -n "$mem" ] && [ -n "$cpus" ] || { echo "$prog: slurmd -C did not describe this machine (it said: $hw)" >&2; exit 1; }
  topo=$(printf '%s\n' "$hw" | sed 's/^NodeName=[^ ]* //; s/ RealMemory=.*//')
  mem=$((mem * 9 / 10))
  cat > "$conf.tmp" << EOF
$mark
ClusterName=simblas
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$log/jobcomp.log
SchedulerType=sched/backfill
# start jobs as soon as cores free up (by default a batch job waits for
# the controller's 3-second scheduling pass)
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$((mem / cpus))
# a job asking more than the node has is refused by sbatch, instead of
# pending for ever (Reason=PartitionConfig)
EnforcePartLimits=ALL
ReturnToService=2
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldLogFile=$log/slurmctld.log
SlurmdLogFile=$log/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=300
MaxArraySize=10001
MaxJobCount=100000
NodeName=localhost $topo RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  mv -f "$conf.tmp" "$conf"
  # slurmd 22.05 initialises a cgroup plugin even when nothing uses it, and
  # does not start where /sys/fs/cgroup lacks what the plugin looks for
  # (cgroup/v1's systemd hierarchy, say): point it at an empty hierarchy
  # of its own, the same on every machine
  mkdir -p "$dir/cgroup/systemd"
  cat > "$dir/cgroup.conf.tmp" << EOF
$mark
CgroupPlugin=cgroup/v1
CgroupMountpoint=$dir/cgroup
CgroupAutomount=no
EOF
  mv -f "$dir/cgroup.conf.tmp" "$dir/cgroup.conf"
}

conf_port() { sed -n "s/^$1=//p" "$conf"; }

# port_free NAME KEY: the port slurm.conf gives NAME is free (checked before
# any daemon starts)
port_free() {
  p=$(conf_port "$2")
  ! listening "$p" || die "port $p, $1's, is taken by another program (another Slurm?): stop it, or choose other ports with SIMBLAS_SLURM_PORT=N or auto"
}

# daemons start from a clean environment: not the caller's LD_PRELOAD,
# TMPDIR and the like
daemon() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin SLURM_CONF="$conf" "$@" 9>&-; }

start_munged() {
  munged_pid > /dev/null && return 0
  mkdir -p "$mdir"
  chmod 755 "$mdir"
  if [ ! -s "$mdir/munge.key" ]; then
    (umask 077 && dd if=/dev/urandom of="$mdir/munge.key.tmp" bs=1024 count=1 2> /dev/null) &&
      mv -f "$mdir/munge.key.tmp" "$mdir/munge.key"
  fi
  rm -f "$sock" "$sock.lock"
  logged "$log/munged.log"
  said=$(daemon munged --socket="$sock" --key-file="$mdir/munge.key" --pid-file="$mdir/munged.pid" \
    --log-file="$log/munged.log" --seed-file="$mdir/munged.seed" 2>&1) || failed munged "$log/munged.log" "$said"
  i=0
  until munge -n -S "$sock" 2> /dev/null | unmunge -S "$sock" > /dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 100 ] && munged_pid > /dev/null || failed munged "$log/munged.log"
    sleep 0.1
  done
}

start_slurmctld() {
  ctld_pid > /dev/null && return 0
  logged "$log/slurmctld.log"
  said=$(daemon slurmctld -f "$conf" 2>&1) || failed slurmctld "$log/slurmctld.log" "$said"
  i=0
  until sl scontrol ping 2> /dev/null | grep -q 'is UP'; do
    i=$((i + 1))
    [ $i -lt 300 ] && { ctld_pid > /dev/null || [ $i -lt 20 ]; } || failed slurmctld "$log/slurmctld.log"
    sleep 0.1
  done
}

node_state() { sl sinfo -h -n localhost -o %T 2> /dev/null | head -1; }

start_slurmd() {
  if ! slurmd_pid > /dev/null; then
    logged "$log/slurmd.log"
    said=$(daemon slurmd -f "$conf" -N localhost 2>&1) || failed slurmd "$log/slurmd.log" "$said"
  fi
  # registered: the node is idle (or busy); down after an unclean stop
  # returns by itself (ReturnToService=2) or is resumed
  i=0
  while :; do
    s=$(node_state)
    case "$s" in
      idle* | mixed* | allocated* | completing*) return 0 ;;
      down*) [ $((i % 20)) -ne 19 ] || sl scontrol update nodename=localhost state=resume > /dev/null 2>&1 || true ;;
      drain*) echo "$prog: the node is $s ($(sl sinfo -h -n localhost -o %E)): see $log/slurmd.log and $log/slurmctld.log" >&2; exit 1 ;;
    esac
    i=$((i + 1))
    slurmd_pid > /dev/null || [ $i -lt 20 ] || failed slurmd "$log/slurmd.log"
    [ $i -lt 600 ] || { echo "$prog: the node is still ${s:-unknown} after 60 s: see $log/slurmd.log and $log/slurmctld.log" >&2; exit 1; }
    sleep 0.1
  done
}

# the default cluster is the machine's: /etc/slurm/slurm.conf, unless the
# machine has its own
install_etc() {
  [ "$dir" = "$default_dir" ] || return 1
  if [ -e "$etc" ] && ! head -1 "$etc" | grep -qxF "$mark"; then
    echo "$prog: $etc is not this script's (a real cluster's?) and is left alone: reach this cluster with SLURM_CONF=$conf" >&2
    return 1
  fi
  mkdir -p "${etc%/*}"
  cmp -s "$conf" "$etc" || { cp "$conf" "$etc.tmp" && mv -f "$etc.tmp" "$etc"; }
}

lock() {
  mkdir -p "$dir"
  exec 9>> "$dir/lock"
  flock -w 300 9 || { echo "$prog: another start or stop of $dir has held its lock for 5 minutes" >&2; exit 1; }
}

start() {
  need_root start
  need_packages
  need_dir
  need_port
  t0=$(now)
  lock
  chmod 755 "$dir"
  mkdir -p "$dir/state" "$dir/spool" "$log"
  if munged_pid > /dev/null && ctld_pid > /dev/null && slurmd_pid > /dev/null; then
    was=already
  else
    was=now
    # a new configuration only when nothing of the cluster runs
    munged_pid > /dev/null || ctld_pid > /dev/null || slurmd_pid > /dev/null || write_conf
    ctld_pid > /dev/null || port_free slurmctld SlurmctldPort
    slurmd_pid > /dev/null || port_free slurmd SlurmdPort
  fi
  start_munged
  start_slurmctld
  start_slurmd
  if install_etc; then how="sbatch, squeue and sinfo reach it ($etc)"; else how="reach it with SLURM_CONF=$conf"; fi
  cores=$(sl sinfo -h -n localhost -o %c)
  echo "$prog: Slurm is $was up ($(since "$t0") s): node localhost with $cores CPUs, partition local, port $(conf_port SlurmctldPort); $how"
}

# kill_wait PID...: TERM, up to 20 s, then KILL
kill_wait() {
  kill "$@" 2> /dev/null || true
  i=0
  while [ $i -lt 200 ]; do
    left=
    for p; do [ -d "/proc/$p" ] && [ "$(sed 's/.*) //; s/ .*//' "/proc/$p/stat" 2> /dev/null)" != Z ] && left="$left $p"; done
    [ -n "$left" ] || return 0
    sleep 0.1
    i=$((i + 1))
  done
  # shellcheck disable=SC2086
  kill -KILL $left 2> /dev/null || true
}

# this cluster's step daemons (their environment names its slurm.conf) and
# everything in their sessions: the jobs' processes
steps() {
  # every process: pid, session, name
  all=$(cat /proc/[0-9]*/stat 2> /dev/null |
    sed -n 's/^\([0-9]*\) (\(.*\)) [A-Za-z] [0-9-]* [0-9-]* \([0-9-]*\) .*/\1 \3 \2/p')
  sids=
  for p in $(printf '%s\n' "$all" | awk '$3 == "slurmstepd" { print $1 }'); do
    { tr '\0' '\n' < "/proc/$p/environ"; } 2> /dev/null | grep -qxF "SLURM_CONF=$conf" &&
      sids="$sids $(printf '%s\n' "$all" | awk -v p="$p" '$1 == p { print $2 }')"
  done
  [ -z "$sids" ] || printf '%s\n' "$all" | awk -v s="$sids " 'index(s, " " $2 " ") { print $1 }'
}

stop() {
  need_root stop
  need_dir
  if [ ! -d "$dir" ]; then echo "$prog: Slurm was not running ($dir does not exist)"; return 0; fi
  t0=$(now)
  lock
  # the jobs' processes as they are now: scancel and the daemons' end may
  # leave one of them dying after its step daemon has gone, outside any
  # session steps() finds then; they are waited for (or killed) last
  jobs=$(steps)
  if ctld_pid > /dev/null; then
    # the jobs first: a step daemon outlives slurmd (without slurmd, the
    # step daemons are killed below)
    sl scancel --partition=local > /dev/null 2>&1 || true
    i=0
    while slurmd_pid > /dev/null && [ -n "$(sl squeue -h -o %i 2> /dev/null)" ] && [ $i -lt 150 ]; do
      sleep 0.1
      i=$((i + 1))
    done
  fi
  pids=$(slurmd_pid || true)
  pids="$pids $(ctld_pid || true)"
  was=$pids$(munged_pid || true)
  # shellcheck disable=SC2086
  [ -z "${pids# }" ] || kill_wait $pids
  # step daemons left (slurmd died under them) ignore TERM
  left=$(steps)
  # shellcheck disable=SC2086
  [ -z "$left" ] || kill -KILL $left 2> /dev/null || true
  pids=$(munged_pid || true)
  [ -z "$pids" ] || kill_wait "$pids"
  # shellcheck disable=SC2086
  [ -z "$jobs" ] || kill_wait $jobs
  if [ -e "$etc" ] && head -1 "$etc" | grep -qxF "$mark"; then rm -f "$etc"; fi
  if [ -z "${was# }$left" ]; then echo "$prog: Slurm was not running ($dir)"; return 0; fi
  echo "$prog: Slurm stopped ($(since "$t0") s); logs and state kept in $dir"
}

status() {
  need_dir
  down=
  n=0
  munged_pid > /dev/null && n=$((n + 1)) || down="munged (log: $log/munged.log)"
  ctld_pid > /dev/null && n=$((n + 1)) || down="${down:+$down, }slurmctld (log: $log/slurmctld.log)"
  slurmd_pid > /dev/null && n=$((n + 1)) || down="${down:+$down, }slurmd (log: $log/slurmd.log)"
  if [ $n -eq 0 ]; then
    echo "$prog: the local Slurm cluster ($dir) is not running: start it with $me start"
    exit 3
  fi
  if [ -n "$down" ]; then
    echo "$prog: partly up, not running: $down; restart with $me start"
    exit 1
  fi
  s=$(node_state)
  case "$s" in
    idle* | mixed* | allocated* | completing*)
      echo "$prog: up: node localhost $s, port $(conf_port SlurmctldPort), configuration $conf"
      sl sinfo
      exit 0 ;;
  esac
  echo "$prog: the daemons run but the node is ${s:-unreachable}${s:+ ($(sl sinfo -h -n localhost -o %E))}: see $log/slurmctld.log and $log/slurmd.log"
  exit 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
  *) die "usage: $prog start|stop|status (--help says more)" ;;
esac
