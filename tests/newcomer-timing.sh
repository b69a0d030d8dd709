#!/usr/bin/env bash
# gst-opencl: the README's two commands timed as a newcomer meets them: on a fresh Debian 12
# root (debootstrap, minbase: nothing of the project's dependencies installed), from a fresh
# clone each, with empty kernel caches. Prints the wall time of each command, from the clone
# to its last line, and that last line; writes the same as JSON to OUT (default
# out/newcomer-timing.json). The root is deleted at the end (KEEP_ROOT=1 keeps it).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   bash tests/newcomer-timing.sh            # both commands: tests/run.sh, then pipelines/demo.sh
#   bash tests/newcomer-timing.sh tests      # only `bash tests/run.sh`
#
# Needs root (debootstrap, mount, chroot) and a Debian mirror (NEWCOMER_MIRROR, default
# http://deb.debian.org/debian). The packages apt downloads come from the mirror each time: the
# time includes them, as it does for a newcomer.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
which=${1:-both}
root=${NEWCOMER_ROOT:-/tmp/gst-opencl-newcomer}
mirror=${NEWCOMER_MIRROR:-http://deb.debian.org/debian}
out=${OUT:-$src/out/newcomer-timing.json}
say () { echo "newcomer: [$(date +%T)] $*"; }
[ "$(id -u)" = 0 ] || { echo "newcomer: needs root"; exit 2; }

mounted=()
cleanup () {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}"
  done
  if [ "${KEEP_ROOT:-0}" != 1 ] && [ -d "$root" ] &&
      ! awk -v t="$root/" 'index($2, t) == 1 { found = 1 } END { exit !found }' /proc/self/mounts
  then
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT

command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null ||
  { echo "newcomer: cannot install debootstrap"; exit 1; }
rm -rf --one-file-system "$root"
say "debootstrap bookworm (minbase) into $root"
t=$(date +%s)
debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" "$mirror" \
  >/tmp/newcomer-debootstrap.log 2>&1 ||
  { tail -n 20 /tmp/newcomer-debootstrap.log; echo "newcomer: debootstrap failed"; exit 1; }
say "root made in $(( $(date +%s) - t )) s (not counted: the newcomer's machine exists)"
for mount in "proc /proc -t proc" "/sys /sys --bind -o ro" "/dev /dev --bind -o ro" \
    "/dev/pts /dev/pts --bind" "shm /dev/shm -t tmpfs -o mode=1777"; do
  set -- $mount
  mkdir -p "$root$2" && mount "${@:3}" "$1" "$root$2" && mounted+=("$root$2") ||
    { echo "newcomer: cannot mount $2"; exit 1; }
done
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# The clone's source: this repository's committed tree, as a bare copy inside the root.
git clone -q --bare "$src" "$root/srv/gst-opencl.git" || { echo "newcomer: clone failed"; exit 1; }

in_root () {
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
results=()
# timed <name> <command>: a fresh clone, then the command in it; the time runs from the clone.
timed () {
  local name=$1 command=$2 start status last seconds
  start=$(date +%s)
  in_root bash -c "rm -rf /root/$name && git clone -q /srv/gst-opencl.git /root/$name &&
    cd /root/$name && $command" >"/tmp/newcomer-$name.log" 2>&1
  status=$?
  seconds=$(( $(date +%s) - start ))
  last=$(tail -n 1 "/tmp/newcomer-$name.log")
  say "$name: exit $status after ${seconds} s ($((seconds / 60)) min $((seconds % 60)) s); last line: $last"
  results+=("{\"command\": \"$command\", \"exit\": $status, \"seconds\": $seconds, \"last_line\": \"${last//\"/\\\"}\"}")
}
case "$which" in
  tests) timed tests "bash tests/run.sh" ;;
  demo) timed demo "bash pipelines/demo.sh" ;;
  *) timed tests "bash tests/run.sh"; timed demo "bash pipelines/demo.sh" ;;
esac
mkdir -p "$(dirname "$out")"
{
  echo "{\"machine\": \"$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')\","
  echo " \"root\": \"Debian 12 minbase (debootstrap), fresh clone, empty caches\","
  echo " \"date\": \"$(date -u +%FT%TZ)\", \"commit\": \"$(git -C "$src" rev-parse --short HEAD)\","
  echo " \"runs\": [$(IFS=,; echo "${results[*]}")]}"
} >"$out"
say "wrote $out"
