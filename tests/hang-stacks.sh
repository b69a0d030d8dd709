#!/usr/bin/env bash
# gst-opencl: runs a command and, when it has not ended after SECONDS, writes where each of its
# threads stands (/proc: wait channel, system call, kernel stack; then eu-stack's user stacks)
# into REPORT, then kills it. For hangs seen on the GPU machine, which has no debugger: eu-stack
# comes from PATH or tests/bench/pack-gpu.sh's tools/ folder (pass it in PATH).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/hang-stacks.sh SECONDS REPORT COMMAND [ARG ...]
# Exit status: the command's, or 124 when it was still running after SECONDS.
set -uo pipefail
[ $# -ge 3 ] || { sed -n '7,8p' "$0"; exit 2; }
limit=$1
report=$2
shift 2
source "$(dirname "$0")/common/hang.sh"
"$@" &
pid=$!
for _ in $(seq $((limit * 10))); do
  kill -0 "$pid" 2>/dev/null || { wait "$pid"; exit $?; }
  sleep 0.1
done
report_hang "$pid" "$report"
echo "hang-stacks: still running after $limit s; stacks in $report"
kill -9 "$pid" 2>/dev/null
exit 124
