#!/bin/sh
# Install every Debian package SimBLAS needs to build, test, calibrate and
# simulate HPL.  Idempotent: packages already present are not reinstalled,
# and apt-get update runs only when something is missing (with --sources,
# also when the deb-src entries are new or their indexes were never fetched).
#
#   scripts/install-deps.sh            build + test dependencies
#   scripts/install-deps.sh --sources  also add deb-src entries, beside the
#                                      deb ones, for apt-get source lapack
#                                      (netlib tests) and hpcc (HPL 2.0)
set -eu

PKGS="build-essential autoconf automake libtool pkg-config gfortran
      libsimgrid-dev libhwloc-dev hwloc libcmocka-dev
      libopenblas-dev libblas-dev libgsl-dev gnuplot-nox
      valgrind dpkg-dev python3 libjemalloc2
      openmpi-bin libopenmpi-dev python3-optuna python3-scipy help2man
      clang libclang-rt-14-dev slurm-wlm munge"

want_sources=no
for a in "$@"; do
  case "$a" in
    --sources) want_sources=yes ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "install-deps.sh: unknown option '$a' (try --help)" >&2; exit 2 ;;
  esac
done

SUDO=
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "install-deps.sh: run as root or install sudo; missing packages cannot be installed otherwise" >&2
    exit 1
  fi
fi

missing=
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing="$missing $p"
  fi
done

updated=no
apt_update() {
  if [ "$updated" = no ]; then
    $SUDO apt-get update -qq
    updated=yes
  fi
}

if [ -n "$missing" ]; then
  echo "install-deps.sh: installing:$missing"
  apt_update
  # no service starts during installation (slurmctld, slurmd and munged are
  # started by scripts/local-slurm.sh, not by the packages; there may be no
  # init system at all): a policy-rc.d that says 101, "action forbidden",
  # unless the machine already has one.  It is removed again however the
  # installation ends (an interrupt too: left behind, it would keep every
  # service of the machine from starting, and a second run would take it
  # for the machine's own); one this script left, killed, is known by its mark
  policy=/usr/sbin/policy-rc.d own_policy=no
  mark="# written by SimBLAS scripts/install-deps.sh for its apt-get install; removed after it"
  if [ ! -e "$policy" ] || [ "$(sed -n 2p "$policy")" = "$mark" ]; then
    own_policy=yes
    trap '$SUDO rm -f "$policy"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
    printf '#!/bin/sh\n%s\nexit 101\n' "$mark" | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
  fi
  rc=0
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null || rc=$?
  if [ "$own_policy" = yes ]; then $SUDO rm -f "$policy"; trap - EXIT INT TERM HUP; fi
  [ "$rc" -eq 0 ] || { echo "install-deps.sh: apt-get install failed (status $rc):$missing" >&2; exit "$rc"; }
fi

if [ "$want_sources" = yes ]; then
  # apt-get source needs deb-src entries.  Add them next to the existing deb
  # entries, of the files apt reads (deb822 *.sources, one-line
  # sources.list and *.list), without touching the originals.
  d=/etc/apt/sources.list.d
  have_src=no
  for f in /etc/apt/sources.list "$d"/*.list "$d"/*.sources; do
    [ -f "$f" ] && grep -qE '^(Types:.*deb-src|deb-src )' "$f" && have_src=yes
  done
  if [ "$have_src" = no ]; then
    deb822=$(for f in "$d"/*.sources; do
               if [ -f "$f" ] && grep -q '^Types: *deb *$' "$f"; then sed 's/^Types: *deb *$/Types: deb-src/' "$f"; echo; fi
             done)
    oneline=$(for f in /etc/apt/sources.list "$d"/*.list; do
                if [ -f "$f" ]; then sed -n 's/^deb /deb-src /p' "$f"; fi
              done)
    [ -n "$deb822$oneline" ] || {
      echo "install-deps.sh: --sources found no deb entry in /etc/apt/sources.list or $d/ to add deb-src entries beside: add a deb-src entry for Debian's archive by hand (apt-get source lapack and hpcc need one)" >&2
      exit 1; }
    [ -z "$deb822" ] || printf '%s\n' "$deb822" | $SUDO tee "$d/simblas-deb-src.sources" >/dev/null
    [ -z "$oneline" ] || printf '%s\n' "$oneline" | $SUDO tee "$d/simblas-deb-src.list" >/dev/null
    echo "install-deps.sh: added deb-src entries beside the deb ones:$([ -z "$deb822" ] ||
      printf ' %s' "$d/simblas-deb-src.sources")$([ -z "$oneline" ] || printf ' %s' "$d/simblas-deb-src.list")"
    updated=no
  fi
  # the source indexes: fetched once (not on every run, which would fail
  # offline with everything in place)
  ls /var/lib/apt/lists/*_Sources* > /dev/null 2>&1 && [ "$have_src" = yes ] || apt_update
fi
echo "install-deps.sh: dependencies present"
