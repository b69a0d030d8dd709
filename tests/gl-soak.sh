#!/usr/bin/env bash
# gst-opencl: runs the GL paths many times, each run under a watchdog, and reports every run that
# hangs with the stacks of all its threads and the end of its debug log (docs/reliability.md).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/gl-soak.sh BUILD_DIR [CASE ...]
#   BUILD_DIR holds gst/libgstopencl.so (a build here, or the folder tests/bench/pack-gpu.sh
#   makes for the GPU machine). Cases (default: all that can run here):
#     gl-chain     gltestsrc ! GL memory RGBA ! openclbilateral ! gldownload ! fakesink
#     gl-sink      the same without gldownload (GL textures into fakesink)
#     gl-upload    videotestsrc ! glupload ! openclbilateral ! openclhistogram ! gldownload
#     gl-bench     bench_pipeline --cases gl,gl-host,gl-sink (when BUILD_DIR has it)
#     gl-after-host  bench_pipeline's system-memory cases, then gl and gl-host, in one process
#                  (the order tests/bench/run-all.sh runs them in)
#     gl-decoder   a 1080p H.264 clip through nvh264dec ! glupload ! glcolorconvert !
#                  openclbilateral ! gldownload (when nvh264dec and BUILD_DIR/clips exist)
#     gl-decoder-default  the same with GStreamer's own choice of GL platform and window
#                  (GST_GL_PLATFORM and GST_GL_WINDOW unset, as a user's shell has them)
#   SOAK_RUNS (50) runs of each case; SOAK_FRAMES (60) frames a run; SOAK_SIZE (1920x1080);
#   SOAK_TIMEOUT (60) seconds before a run counts as hung; SOAK_MAX_HANGS (0: no limit) hung
#   runs end a case early; SOAK_LOGS (a temporary folder) keeps the report of every hung run as
#   <case>-<run>.hang and the output of every failed one as <case>-<run>.log.
#   Stacks come from eu-stack (elfutils) when it is on PATH or in BUILD_DIR/tools, else from
#   /proc (each thread's name, kernel wait channel and system call). BUILD_DIR/tests/
#   crash_stack.so, when there, is preloaded: a crashed run prints its stacks too, and a hung
#   one may be traced by the watchdog.
# Ends with "N passed, N failed": one test per case, failed when any of its runs hung or failed.
set -uo pipefail
build=$(cd "${1:?usage: gl-soak.sh BUILD_DIR [CASE ...]}" && pwd)
shift
runs=${SOAK_RUNS:-50}
# The quick suite (meson test --setup quick: GST_OPENCL_TEST_QUICK=1) runs each case 3 times.
if [ "${GST_OPENCL_TEST_QUICK:-0}" = 1 ] && [ "$runs" -gt 3 ]; then
  runs=3
fi
frames=${SOAK_FRAMES:-60}
size=${SOAK_SIZE:-1920x1080}
width=${size%x*}
height=${size#*x}
limit=${SOAK_TIMEOUT:-60}
logs=${SOAK_LOGS:-$(mktemp -d)}
mkdir -p "$logs"
export GST_PLUGIN_PATH=$build/gst
export GST_OPENCL_TUNING=${GST_OPENCL_TUNING:-0}
PATH=$PATH:$build/tools
preload=""
[ -f "$build/tests/crash_stack.so" ] && preload=$build/tests/crash_stack.so
[ -d "$build/tools/lib" ] && export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$build/tools/lib

clip=""
for candidate in "$build/clips/clip-1080p.h264" "${GST_OPENCL_TEST_CLIPS:-/nonexistent}/clip-1080p.h264"; do
  [ -f "$candidate" ] && { clip=$candidate; break; }
done

gl_caps="video/x-raw(memory:GLMemory),format=RGBA,width=$width,height=$height,framerate=30/1"
# The command of one case, as words (eval'ed), or nothing when the case cannot run here.
case_command () {
  case $1 in
    gl-chain) echo "gst-launch-1.0 -q gltestsrc pattern=smpte num-buffers=$frames !" \
      "'$gl_caps' ! openclbilateral radius=4 ! gldownload ! fakesink sync=false" ;;
    gl-sink) echo "gst-launch-1.0 -q gltestsrc pattern=smpte num-buffers=$frames !" \
      "'$gl_caps' ! openclbilateral radius=4 ! fakesink sync=false" ;;
    gl-upload) echo "gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=$frames !" \
      "'video/x-raw,format=RGBA,width=$width,height=$height,framerate=30/1' ! glupload !" \
      "'video/x-raw(memory:GLMemory),format=RGBA' ! openclbilateral radius=2 !" \
      "openclhistogram ! gldownload ! fakesink sync=false" ;;
    gl-bench)
      [ -x "$build/tests/bench/bench_pipeline" ] || return 0
      echo "'$build/tests/bench/bench_pipeline' --cases gl,gl-host,gl-sink --sizes $size" \
        "--frames $frames --warmup 2 --json /dev/null" ;;
    gl-after-host)
      [ -x "$build/tests/bench/bench_pipeline" ] || return 0
      echo "'$build/tests/bench/bench_pipeline' --cases" \
        "resident,round-trip,filter-host,histogram-host,filter-pool,gl,gl-host --sizes $size" \
        "--frames $frames --warmup 5 --json /dev/null" ;;
    gl-decoder|gl-decoder-default)
      [ -n "$clip" ] && gst-inspect-1.0 nvh264dec >/dev/null 2>&1 || return 0
      [ "$1" = gl-decoder-default ] && printf "env -u GST_GL_PLATFORM -u GST_GL_WINDOW "
      echo "gst-launch-1.0 -q filesrc location='$clip' ! h264parse ! nvh264dec ! glupload !" \
        "glcolorconvert ! 'video/x-raw(memory:GLMemory),format=RGBA' ! openclbilateral !" \
        "gldownload ! fakesink sync=false" ;;
  esac
}

# report_hang PID FILE: the stacks of a hung process (tests/common/hang.sh).
source "$(dirname "$0")/common/hang.sh"

# Runs one case once under the watchdog: 0 done, 1 failed, 2 hung.
run_once () {
  local name=$1 run=$2 command=$3 log=$logs/$1-$2.log pid waited=0 status
  # The debug log goes to stderr, which is not buffered: a run killed by the watchdog keeps
  # its last lines (GST_DEBUG_FILE's stream would lose them).
  GST_DEBUG=${SOAK_DEBUG:-*:2,opencl*:6,glcontext:5} GST_DEBUG_NO_COLOR=1 \
    SOAK_PRELOAD=$preload bash -c "LD_PRELOAD=\$SOAK_PRELOAD exec $command" >"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$waited" -ge $((limit * 10)) ]; then
      # The run's shell exec'ed the program: $pid is the program itself.
      report_hang "$pid" "$logs/$name-$run.hang"
      { echo "== the last 200 lines of the output and debug log"; tail -n 200 "$log"; } \
        >>"$logs/$name-$run.hang"
      kill -9 "$pid" 2>/dev/null
      # A thread stuck in the kernel keeps even a killed process: wait 10 s at most.
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && echo "      (run $run still there after SIGKILL: stuck in the kernel)"
      echo "HANG  $name run $run after $limit s: $logs/$name-$run.hang"
      sed -n '1,120p' "$logs/$name-$run.hang" | sed 's/^/      | /'
      return 2
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  wait "$pid"
  status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL  $name run $run (status $status)"
    grep -v "^[0-9]*:[0-9:.]* *[0-9]* *0x[0-9a-f]* *\(DEBUG\|LOG\|INFO\|TRACE\|FIXME\)" "$log" |
      tail -n 20 | sed 's/^/      | /'
    return 1
  fi
  rm -f "$log"
  return 0
}

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(gl-chain gl-sink gl-upload gl-bench gl-after-host gl-decoder
  gl-decoder-default)
passed=0
failed=0
for name in "${cases[@]}"; do
  command=$(case_command "$name")
  if [ -z "$command" ]; then
    echo "SKIP  $name: cannot run here"
    continue
  fi
  hangs=0 failures=0 start=$(date +%s)
  for run in $(seq 1 "$runs"); do
    run_once "$name" "$run" "$command"
    case $? in
      1) failures=$((failures + 1)) ;;
      2) hangs=$((hangs + 1)) ;;
    esac
    if [ "${SOAK_MAX_HANGS:-0}" -gt 0 ] && [ "$hangs" -ge "${SOAK_MAX_HANGS:-0}" ]; then
      echo "      (stopping $name after $hangs hung runs)"
      break
    fi
  done
  seconds=$(( $(date +%s) - start ))
  if [ $((hangs + failures)) -eq 0 ]; then
    echo "ok    $name: $runs runs in $seconds s"
    passed=$((passed + 1))
  else
    echo "FAIL  $name: $hangs hung, $failures failed of $run runs ($seconds s)"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
