# gst-opencl tests: sourced by scripts that watch for hangs (tests/gl-soak.sh,
# tests/hang-stacks.sh).
# SPDX-License-Identifier: LGPL-2.1-or-later

# Everything that tells where a hung process stands, into $2: first what /proc tells (each
# thread's name, wait channel, system call and kernel stack: a thread stuck inside a driver's
# ioctl shows there), then eu-stack, bounded (tracing a thread stuck in the kernel can block).
report_hang () {
  local pid=$1 report=$2 task
  {
    echo "== threads of $pid"
    for task in /proc/"$pid"/task/*; do
      echo "-- thread ${task##*/} $(cat "$task/comm" 2>/dev/null)" \
        "state=$(awk '/^State:/ {print $2}' "$task/status" 2>/dev/null)" \
        "wchan=$(cat "$task/wchan" 2>/dev/null) syscall=$(cut -d' ' -f1 "$task/syscall" 2>/dev/null)"
      sed 's/^/     kernel: /' "$task/stack" 2>/dev/null | head -n 12
    done
    if command -v eu-stack >/dev/null; then
      echo "== eu-stack"
      timeout -s KILL 30 eu-stack -m -p "$pid" 2>&1 || echo "(eu-stack failed or timed out)"
    fi
  } >"$report" 2>&1
}
