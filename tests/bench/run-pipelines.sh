#!/usr/bin/env bash
# gst-opencl: whole-pipeline frame rates, frames resident on the device against a host round
# trip between every element, into one JSON file.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/run-pipelines.sh [--build DIR] [--sizes 1920x1080,3840x2160] [--frames N]
#                                     [--device gpu|cpu|...] [--out PATH]
# Each pipeline runs once untimed (program builds, caches) and then --runs times; the figure is
# the median of frames / (time from PLAYING to EOS) as gst-launch-1.0 reports it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build="$bench_root/build"
sizes="1920x1080,3840x2160"
frames=200
runs=3
device=""
out=""
bench_parse_options "--build=build --sizes=sizes --frames=frames --runs=runs --device=device
  --out=out" "$@"
build=$(cd "$build" && pwd)
bench_use_plugin "$build"
[ -z "$device" ] || export GST_OPENCL_DEVICE="$device"
bench_make_work

# name|launch line with W, H and N to fill in
cases=(
  "resident|openclmandelboxsrc num-buffers=N ! video/x-raw(memory:OpenCLMemory),width=W,height=H ! openclbilateral ! openclhistogram ! fakesink sync=false"
  "host-round-trip|openclmandelboxsrc num-buffers=N ! video/x-raw,width=W,height=H ! openclbilateral ! video/x-raw ! openclhistogram ! video/x-raw ! fakesink sync=false"
  "mandelbox-only|openclmandelboxsrc num-buffers=N ! video/x-raw(memory:OpenCLMemory),width=W,height=H ! fakesink sync=false"
)

results="$work/results.txt"
: >"$results"
for size in ${sizes//,/ }; do
  width=${size%x*}
  height=${size#*x}
  for entry in "${cases[@]}"; do
    name=${entry%%|*}
    line=${entry#*|}
    line=${line//W/$width}
    line=${line//H/$height}
    # shellcheck disable=SC2086
    gst-launch-1.0 -q ${line//N/5} >/dev/null 2>&1 || { echo "$name $size: failed" >&2; continue; }
    for run in $(seq "$runs"); do
      # shellcheck disable=SC2086
      elapsed=$(gst-launch-1.0 ${line//N/$frames} 2>&1 |
        sed -n 's/^Execution ended after \([0-9:.]*\).*/\1/p' | tail -n 1)
      echo "$name $size $run $elapsed" | tee -a "$results"
    done
  done
done

/usr/bin/env python3 - "$results" "$frames" "${out:-/dev/stdout}" "$(gst-inspect-1.0 --version | head -1)" <<'PY'
import json, statistics, sys
path, frames, out, version = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def seconds(text):
    total = 0.0
    for part in text.split(":"):
        total = total * 60 + float(part)
    return total
cases = {}
for line in open(path):
    name, size, run, elapsed = line.split()
    cases.setdefault((name, size), []).append(frames / seconds(elapsed))
result = {"benchmark": "pipelines", "frames_per_run": frames, "gstreamer": version,
          "cases": [{"pipeline": name, "size": size, "fps_median": statistics.median(v),
                     "fps_runs": v, "ms_per_frame": 1000 / statistics.median(v)}
                    for (name, size), v in cases.items()]}
for case in result["cases"]:
    print(f"{case['pipeline']:16s} {case['size']:10s} {case['fps_median']:9.1f} fps "
          f"{case['ms_per_frame']:8.3f} ms/frame", file=sys.stderr)
with open(out, "w") as f:
    json.dump(result, f, indent=1)
PY
