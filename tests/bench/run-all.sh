#!/usr/bin/env bash
# gst-opencl: every benchmark of the plugin with its peers, in one run, into one folder.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/run-all.sh [--device cpu|gpu] [--quick] [--build DIR] [--only LIST] --out DIR
#   --device cpu|gpu  the OpenCL device (default gpu); picks the peers: OpenCV on the CPU (same
#                     thread count as the machine's cores) or OpenCV's OpenCL path and torch on CUDA
#   --quick           the small set that finishes in minutes (implied by --device cpu unless --full)
#   --full            the standard sizes even on the CPU (hours on a 2-core machine)
#   --build DIR       a build folder made before (default: build-bench, else build); nothing is built
#   --only LIST       comma-separated subset of: ceilings,bilateral,histogram,convertscale,sort,
#                     mandelbox,convolve,pipelines,streams (pipelines-launch comes with pipelines on the
#                     GPU, frame-path with pipelines on the CPU)
#   --out DIR         where the results go (created): one JSON per benchmark, log.txt,
#                     summary.json (machine, command, each benchmark's status and file) and
#                     report.md (tests/bench/report.py over the folder)
# On the GPU machine: `source .device/env.sh` first (tests/bench/README.md, "Everything at once").
set -uo pipefail
source "$(dirname "$0")/lib.sh"
command="tests/bench/run-all.sh $*"
device=gpu
quick=""
build=""
out=""
only="ceilings,bilateral,histogram,convertscale,sort,mandelbox,convolve,pipelines,streams"
bench_parse_options "--device=device --quick=quick:1 --full=quick:0 --build=build --only=only
  --out=out" "$@"
[ -n "$out" ] || { echo "--out DIR is required" >&2; exit 2; }
case "$device" in cpu|gpu) ;; *) echo "--device cpu or gpu" >&2; exit 2 ;; esac
[ -n "$quick" ] || { [ "$device" = cpu ] && quick=1 || quick=0; }
if [ -z "$build" ]; then
  for candidate in "$bench_root/build-bench" "$bench_root/build"; do
    [ -x "$candidate/tests/bench/bench_ceilings" ] && { build=$candidate; break; }
  done
fi
build=$(cd "$build" 2>/dev/null && pwd) || { echo "no build folder: pass --build DIR" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin="$build/tests/bench"
bench_use_plugin "$build"
# The OpenMP runtime may be carried in the build folder (tests/bench/README.md).
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$build"
export PYTHONUNBUFFERED=1
cores=$(nproc)
# A Python with cv2 for the CPU peers: `python3`, else Debian's interpreter.
py=$(bench_python_with cv2)
log="$out/log.txt"
: > "$log"
declare -A status
declare -A seconds
wanted () { [[ ",$only," == *",$1,"* ]]; }

# run NAME LIMIT_S COMMAND...: runs one benchmark with a time limit, logs it, records its status.
run () {
  local name=$1 limit=$2
  shift 2
  echo "== $name: $*" | tee -a "$log"
  local start=$SECONDS
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  seconds[$name]=$((SECONDS - start))
  status[$name]=$rc
  echo "== $name: exit $rc after ${seconds[$name]} s" | tee -a "$log"
}

load_before=$(bench_load_average)

if wanted ceilings; then
  run ceilings 120 "$bin/bench_ceilings" --device "$device" --runs $([ "$quick" = 1 ] && echo 7 || echo 30) \
    --json "$out/ceilings.json"
fi

if wanted bilateral; then
  if [ "$device" = gpu ]; then
    run bilateral 150 bash "$bench_here/run-bilateral.sh" --no-build --build "$build" --peer opencl \
      --peer-runs 200 --sizes 1280x720,1920x1080,3840x2160 --out "$out/bilateral.json" \
      -- --device gpu --frames 60 --warmup 5
  elif [ "$quick" = 1 ]; then
    run bilateral 300 bash "$bench_here/run-bilateral.sh" --no-build --build "$build" --peer cpu \
      --peer-runs 10 --sizes 1280x720,1920x1080:5 --out "$out/bilateral.json" \
      -- --device cpu --frames 10 --warmup 2
  else
    run bilateral 3600 bash "$bench_here/run-bilateral.sh" --no-build --build "$build" --peer cpu \
      --peer-runs 10 --sizes 1280x720,1920x1080,3840x2160:3 --out "$out/bilateral.json" \
      -- --device cpu --frames 10 --warmup 2
  fi
fi

if wanted histogram; then
  # Every kernel variant of the device's kind beside the element's own choice, as fractions of
  # the copy bandwidth measured above.
  ceilings=()
  [ -f "$out/ceilings.json" ] && ceilings=(--ceilings "$out/ceilings.json")
  if [ "$device" = gpu ]; then
    run histogram 300 bash "$bench_here/run-histogram.sh" --no-build --build "$build" --peer-runs 100 \
      --sizes 1280x720,1920x1080,3840x2160 --out "$out/histogram.json" \
      -- --device gpu --frames 100 --warmup 5 --variants gpu "${ceilings[@]}"
  else
    run histogram 600 bash "$bench_here/run-histogram.sh" --no-build --build "$build" --peer-runs 20 \
      --sizes "$([ "$quick" = 1 ] && echo 1920x1080,3840x2160:5 || echo 1280x720,1920x1080,3840x2160)" \
      --out "$out/histogram.json" -- --device cpu --frames 20 --warmup 3 \
      --variants "$([ "$quick" = 1 ] && echo tuned || echo cpu)" "${ceilings[@]}"
    # What plain C++ on the same cores makes of the same counting: the bound the element's
    # figures are read against.
    if [ -x "$bin/bench_count_bound" ]; then
      run count-bound 300 "$bin/bench_count_bound" --frames "$([ "$quick" = 1 ] && echo 5 || echo 20)" \
        "${ceilings[@]}" --json "$out/count-bound.json"
    fi
  fi
fi

# openclconvertscale: NV12 <-> RGBA and the two bilinear scalings on frames resident on the
# device, beside videoconvert / videoconvertscale on the CPU's cores and OpenCV (cvtColor and
# resize on UMat and on the CPU) in the same run, as fractions of the copy bandwidth above.
if wanted convertscale && [ -x "$bin/bench_convertscale" ]; then
  ceilings=()
  [ -f "$out/ceilings.json" ] && ceilings=(--ceilings "$out/ceilings.json")
  peer=(--python "$py" --peer-script "$bench_here/peer_opencv_convert.py" --threads "$cores")
  if [ "$device" = gpu ]; then
    run convertscale 300 "$bin/bench_convertscale" --device gpu --sizes 1920x1080,3840x2160 \
      --frames 100 --warmup 10 --peer-runs 100 "${peer[@]}" "${ceilings[@]}" \
      --json "$out/convertscale.json"
  else
    run convertscale 600 "$bin/bench_convertscale" --device cpu \
      --sizes "$([ "$quick" = 1 ] && echo 1920x1080 || echo 1920x1080,3840x2160:5)" \
      --frames 10 --warmup 5 --peer-runs 20 "${peer[@]}" "${ceilings[@]}" \
      --json "$out/convertscale.json"
  fi
fi

# openclsort: one row (both sorts of the device sort, std::sort, torch.sort on the GPU), from
# rows short enough for the bitonic network to the long ones of the radix sort; then a batch
# of rows like a video frame's, where the automatic choice between the two matters most.
if wanted sort && [ -x "$bin/bench_sort" ]; then
  if [ "$device" = gpu ]; then
    run sort 300 bash "$bench_here/run-sort.sh" --no-build --build "$build" \
      --sizes 12,13,14,15,16,17,18,19,20,21,22,23,24,25,26 --peer-runs 30 --out "$out/sort.json" \
      -- --device gpu --runs 10 --warmup 2 --cpu-runs 1
    run sort-batch 120 bash "$bench_here/run-sort.sh" --no-build --build "$build" --no-peer \
      --sizes 8,10,11,12,13,14 --out "$out/sort-batch.json" \
      -- --device gpu --rows 1080 --runs 10 --warmup 2 --no-cpu
  else
    run sort 300 bash "$bench_here/run-sort.sh" --no-build --build "$build" \
      --sizes "$([ "$quick" = 1 ] && echo 20,22 || echo 20,21,22,23,24,25)" --no-peer \
      --out "$out/sort.json" -- --device cpu --runs 3 --warmup 1 --cpu-runs 3
    run sort-batch 120 bash "$bench_here/run-sort.sh" --no-build --build "$build" --no-peer \
      --sizes 6,8,10 --out "$out/sort-batch.json" \
      -- --device cpu --rows 1000 --runs 3 --warmup 1 --cpu-runs 3
  fi
fi

if wanted mandelbox && [ -x "$bin/bench_mandelbox" ]; then
  if [ "$device" = gpu ]; then
    run mandelbox 150 "$bin/bench_mandelbox" --device gpu --sizes 640x360,1920x1080,3840x2160 \
      --frames 60 --warmup 3 --threads "$cores" --openmp-runs 3 --json "$out/mandelbox.json"
  else
    run mandelbox 300 "$bin/bench_mandelbox" --device cpu \
      --sizes "$([ "$quick" = 1 ] && echo 640x360:5 || echo 640x360:10,1920x1080:3)" \
      --warmup 1 --threads "$cores" --openmp-runs 3 --json "$out/mandelbox.json"
  fi
fi

# openclconvolve3d / openclmulticonvolve: bench_convolve (256^3 volumes, N = 1, 8, 32 filters of
# 7^3, and video cases), and on the GPU torch's conv3d (cuDNN, FP32 and TF32) in the same run.
# Each case builds and times its candidate variants first (up to 8 per convolution; the log
# shows each one's time), hence the margin.
if wanted convolve && [ -x "$bin/bench_convolve" ]; then
  if [ "$device" = gpu ]; then
    run convolve 360 "$bin/bench_convolve" --device gpu --reps 20 --warmup 3 --frames 100 \
      --json "$out/convolve.json"
    # The NVIDIA compiler's registers, spills and shared memory of every candidate, with the
    # theoretical occupancy (report.py puts them beside the candidates' times).
    run convolve-compiler 90 bash -c '"$0" --compiler-report --device gpu --filters 1,8,32 \
      --kernel-size 7 >"$1"' "$bin/bench_convolve" "$out/compiler-report.txt"
    if bench_has_cuda_torch; then
      run convolve-peer 120 python3 "$bench_here/peer_torch_conv3d.py" --reps 20 --warmup 3 \
        --json "$out/convolve-peer.json"
    fi
  elif [ "$quick" = 1 ]; then
    run convolve 400 "$bin/bench_convolve" --device cpu --volume 128 --filters 1,8 --reps 2 \
      --warmup 1 --frames 5 --json "$out/convolve.json"
  else
    run convolve 3600 "$bin/bench_convolve" --device cpu --volume 256 --reps 3 --warmup 1 \
      --frames 10 --json "$out/convolve.json"
  fi
fi

if wanted pipelines; then
  if [ "$device" = gpu ]; then
    # GL chains too: headless GL on the machine's EGL device when there is no display.
    if [ -z "${DISPLAY:-}" ]; then
      export GST_GL_PLATFORM=${GST_GL_PLATFORM:-egl} GST_GL_WINDOW=${GST_GL_WINDOW:-egl-device}
    fi
    run pipelines 280 "$bin/bench_pipeline" --device gpu --sizes 1920x1080,3840x2160 \
      --cases resident,round-trip,filter-host,histogram-host,filter-pool,gl,gl-host,kernel-resident,kernel-image-resident \
      --frames 60 --warmup 5 --json "$out/pipelines.json"
    # The frame path without a CPU drawing each frame (frames the application writes into the
    # element's pool), and what drawing costs alone (report.py judges the frame-path targets on
    # both kinds of source).
    run frame-path 150 "$bin/bench_pipeline" --device gpu --sizes 1920x1080,3840x2160 \
      --cases source-host,filter-app,filter-app-queued,histogram-app --frames 100 --warmup 10 \
      --json "$out/frame-path.json"
    # NVIDIA's decoder into openclhistogram through CUDA memory, against the decoder alone
    # (the clip comes from tests/bench/pack-gpu.sh).
    if [ -f "$build/clips/clip-1080p.h264" ]; then
      GST_OPENCL_BENCH_CLIP=$build/clips/clip-1080p.h264 run decode 120 "$bin/bench_pipeline" \
        --device gpu --sizes 1920x1080 --cases decode,decode-histogram,decode-histogram-host \
        --frames 250 --warmup 20 --json "$out/decode.json"
    fi
    # The same chains as gst-launch-1.0 runs them, frames per second from PLAYING to EOS.
    if [ -f "$bench_here/run-pipelines.sh" ]; then
      run pipelines-launch 150 bash "$bench_here/run-pipelines.sh" --build "$build" --device gpu \
        --frames 200 --runs 3 --out "$out/pipelines-launch.json"
    fi
  else
    # The Mandelbox source takes seconds per 1080p frame on this CPU: few frames.
    run pipelines 600 "$bin/bench_pipeline" --device cpu --sizes 1920x1080:3 --frames 3 \
      --warmup 3 --json "$out/pipelines.json"
    # The frame path's cases, without the Mandelbox: the filter and the histogram on system
    # memory, and the filter fed by a pool, at both sizes (report.py's frame-path targets).
    run frame-path 300 "$bin/bench_pipeline" --device cpu --sizes 1920x1080:5,3840x2160:3 \
      --cases filter-host,histogram-host,filter-pool,kernel-resident,filter-app,histogram-app \
      --warmup 3 \
      --json "$out/frame-path.json"
  fi
fi

# How many streams one device filters at once: N pipelines in one process, each source into
# openclhistogram, openclbilateral or openclconvertscale, with one OpenCL context for all or one
# each, against the source alone (bench_streams). On the GPU the source is NVIDIA's decoder on
# the clip of tests/bench/pack-gpu.sh, played once per run here (bench_streams' own default is
# twice); on the CPU a small test pattern.
# A run that stalls (60 s without its EOS) is reported with where it stands and, with the packed
# eu-stack, every thread's stack (streams.json.stall-*.txt); two stalled runs in a row end it.
if wanted streams && [ -x "$bin/bench_streams" ]; then
  stall_options=(--timeout 60)
  [ -x "$build/tools/eu-stack" ] && stall_options+=(--stacks-tool "$build/tools/eu-stack")
  if [ "$device" = gpu ]; then
    if [ -f "$build/clips/clip-1080p.h264" ]; then
      run streams 300 "$bin/bench_streams" --device gpu --clip "$build/clips/clip-1080p.h264" \
        --loops 1 --runs 2 "${stall_options[@]}" --json "$out/streams.json"
    else
      echo "== streams: no $build/clips/clip-1080p.h264 (tests/bench/pack-gpu.sh makes it)" |
        tee -a "$log"
    fi
  else
    run streams 300 "$bin/bench_streams" --device cpu --streams 1,2,4,8 --runs 3 --frames 30 \
      "${stall_options[@]}" --json "$out/streams.json"
  fi
fi

load_after=$(bench_load_average)
status_lines=""
for name in "${!status[@]}"; do
  status_lines+="$name ${status[$name]} ${seconds[$name]}"$'\n'
done
machine=$(bench_machine_json os=platform cpu cores gpus)
"$py" - "$out" "$device" "$quick" "$command" "$load_before" "$load_after" "$status_lines" \
  "$machine" <<'PY'
import json, pathlib, sys
out, device, quick, command, load_before, load_after, status_text, machine = sys.argv[1:9]
benchmarks = {}
for line in status_text.strip().splitlines():
    name, rc, secs = line.split()
    path = pathlib.Path(out) / f"{name}.json"
    benchmarks[name] = {"exit": int(rc), "seconds": int(secs),
                        "file": path.name if path.exists() else None}
summary = {"benchmark": "summary", "device": device, "quick": quick == "1", "command": command,
           "machine": {**json.loads(machine), "loadavg_before": load_before,
                       "loadavg_after": load_after},
           "benchmarks": dict(sorted(benchmarks.items()))}
(pathlib.Path(out) / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
print(json.dumps(summary["benchmarks"], indent=1))
PY
"$py" "$bench_here/report.py" "$out" > "$out/report.md" 2>>"$log" ||
  echo "report.py failed (see $log)" | tee -a "$log"
echo "results in $out (report.md, summary.json)"
failed=0
for name in "${!status[@]}"; do [ "${status[$name]}" = 0 ] || failed=1; done
exit $failed
