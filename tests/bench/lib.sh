# gst-opencl: what the tests/bench/run-*.sh scripts share. Source it; it sets bench_here (this
# folder) and bench_root (the project root) and defines the functions below, nothing else.
# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash

bench_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench_root=$(cd "$bench_here/../.." && pwd)

# bench_command SCRIPT ARGS...: the command line as results record it: the script's path from
# the project root (so that it reproduces them anywhere), each argument quoted where the shell
# needs it.
bench_command () {
  local command="tests/bench/$1" arg
  shift
  for arg in "$@"; do
    if [[ "$arg" =~ ^[A-Za-z0-9_./:,=+@-]+$ ]]; then
      command+=" $arg"
    else
      command+=" $(printf '%q' "$arg")"
    fi
  done
  echo "$command"
}

# bench_usage: the running script's leading comment, which says how to use it.
bench_usage () {
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { print }' "$0"
}

# bench_parse_options TABLE ARGS...: reads ARGS into variables as TABLE says, one word an option:
#   OPTION=VARIABLE        the option's value goes into VARIABLE
#   OPTION=VARIABLE:VALUE  an option without a value: VARIABLE becomes VALUE
#   --=ARRAY               "--" ends the options; the words after it go into the array ARRAY
# -h and --help print the usage and exit; an option TABLE lacks exits with status 2.
bench_parse_options () {
  local table=$1 word target
  shift
  while [ $# -gt 0 ]; do
    case "$1" in -h|--help) bench_usage; exit 0 ;; esac
    target=""
    for word in $table; do
      [ "${word%%=*}" = "$1" ] && target=${word#*=}
    done
    [ -n "$target" ] || { echo "unknown option $1" >&2; exit 2; }
    if [ "$1" = -- ]; then
      local -n bench_rest_array=$target
      shift
      # shellcheck disable=SC2034  # the caller's array, through the name reference
      bench_rest_array=("$@")
      return 0
    elif [[ "$target" == *:* ]]; then
      printf -v "${target%%:*}" '%s' "${target#*:}"
      shift
    else
      [ $# -ge 2 ] || { echo "$1 takes a value" >&2; exit 2; }
      printf -v "$target" '%s' "$2"
      shift 2
    fi
  done
}

# bench_absolute PATH: PATH from the root of the file system (its folder must exist).
bench_absolute () {
  echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
}

# bench_build DIR: configures DIR for the benchmarks when it is not yet, then builds it; quiet
# unless it fails.
bench_build () {
  if [ ! -f "$1/build.ninja" ]; then
    meson setup "$1" "$bench_root" -Dtests=disabled -Dbench=enabled >/dev/null || return 1
  fi
  ninja -C "$1" >/dev/null
}

# bench_program DIR NAME: the path of the benchmark program NAME built in DIR; fails, saying so,
# when it is not there.
bench_program () {
  local program="$1/tests/bench/$2"
  [ -x "$program" ] || { echo "no $program: build first" >&2; return 1; }
  echo "$program"
}

# bench_use_plugin DIR: GStreamer finds the plugin built in DIR before any other.
bench_use_plugin () {
  export GST_PLUGIN_PATH="$1/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
}

# bench_prepare PROGRAM: the start of a run-*.sh after its options: $build made absolute and
# built unless $do_build is 0, the benchmark PROGRAM of it into $bench (with the plugin of that
# build on GST_PLUGIN_PATH), the load average into $load_before, a work folder into $work.
# shellcheck disable=SC2154  # build and do_build: the calling script's options
bench_prepare () {
  build=$(bench_absolute "$build") || exit 2
  if [ "$do_build" = 1 ]; then bench_build "$build" || exit 1; fi
  bench=$(bench_program "$build" "$1") || exit 1
  bench_use_plugin "$build"
  load_before=$(bench_load_average)
  bench_make_work
}

# bench_run_into FILE SIZES ARGS...: runs $bench over SIZES with ARGS, its results into FILE;
# returns its status, and exits the script when it wrote no results.
bench_run_into () {
  local file=$1 sizes=$2 status
  shift 2
  "$bench" --sizes "$sizes" --json "$file" "$@"
  status=$?
  [ -f "$file" ] || { echo "$(basename "$bench") wrote no results" >&2; exit 1; }
  return $status
}

# bench_load_average: the three load averages now. Other work on the machine skews the figures:
# the results record the load before and after a run.
bench_load_average () {
  cut -d' ' -f1-3 /proc/loadavg 2>/dev/null
}

# bench_make_work: a new temporary folder in $work, removed when the script exits.
bench_make_work () {
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}

# bench_python_with MODULE...: the Python for peers that need one of MODULEs: `python3` when it
# imports one of them, else Debian's /usr/bin/python3 (where python3-opencv installs cv2) when
# there is one, else `python3`.
bench_python_with () {
  local module
  for module in "$@"; do
    if python3 -c "import $module" 2>/dev/null; then echo python3; return 0; fi
  done
  if [ -x /usr/bin/python3 ]; then echo /usr/bin/python3; else echo python3; fi
}

# bench_has_cuda_torch: whether `python3` has torch with a CUDA device (the GPU peers' need).
bench_has_cuda_torch () {
  python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null
}

# bench_machine_json FIELD...: a JSON object describing this machine, with the FIELDs in that
# order, out of: os (the distribution's name), platform (Python's platform.platform ()),
# kernel, cpu, cores, gpus (nvidia-smi's names and drivers). KEY=FIELD names the field KEY.
bench_machine_json () {
  python3 - "$@" <<'PY'
import json, os, platform, subprocess, sys


def os_name():
    try:
        with open("/etc/os-release") as f:
            fields = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
        return fields.get("PRETTY_NAME", "").strip('"')
    except OSError:
        return ""


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def gpu_names():
    try:
        text = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                               "--format=csv,noheader"], capture_output=True, text=True,
                              timeout=30).stdout
        return [line.strip() for line in text.splitlines() if line.strip()]
    except (OSError, subprocess.SubprocessError):
        return []


PROBES = {"os": os_name, "platform": platform.platform, "kernel": platform.release,
          "cpu": cpu_model, "cores": os.cpu_count, "gpus": gpu_names}
machine = {}
for field in sys.argv[1:]:
    key, _, probe = field.rpartition("=")
    machine[key or probe] = PROBES[probe]()
print(json.dumps(machine))
PY
}

# bench_write_results KEY PREFIX FIELD...: writes the results file of one element's benchmark:
# {"machine", "command", KEY: $work/bench.json, "peer": $work/peer.json (null when there is
# none), "peer_skipped": $peer_note (when there is no peer and a note)} to $out, else to
# tests/bench/results/PREFIX<tag>.json. The tag is $tag, else one made from the device the
# benchmark ran on: cpu-pocl or gpu-<device name>. The machine is described by the FIELDs (as
# bench_machine_json takes them) between its tag and its OpenCL device and the load averages
# ($load_before and now). Prints the file's path.
# shellcheck disable=SC2154  # tag, out, command and load_before are the caller's
bench_write_results () {
  local key=$1 prefix=$2
  shift 2
  python3 - "$work" "$key" "$prefix" "$tag" "$out" "$bench_here/results" "${peer_note:-}" \
    "$command" "$load_before" "$(bench_load_average)" "$(bench_machine_json "$@")" <<'PY'
import json, os, re, sys

(work, key, prefix, tag, out, results_dir, peer_note, command, load_before, load_after,
 probed) = sys.argv[1:12]
with open(os.path.join(work, "bench.json")) as f:
    bench = json.load(f)
peer = None
if os.path.exists(os.path.join(work, "peer.json")):
    with open(os.path.join(work, "peer.json")) as f:
        peer = json.load(f)
device = bench.get("device_name") or next(
    (c["device_name"] for c in bench.get("cases", []) if c.get("device_name")), "")
if not tag:
    if "Portable Computing Language" in device:
        tag = "cpu-pocl"
    else:
        name = device.split(" (")[0].lower()
        tag = "gpu-" + (re.sub(r"[^a-z0-9]+", "-", name).strip("-") or "unknown")
machine = {"tag": tag, **json.loads(probed), "opencl_device": device,
           "loadavg_before": load_before, "loadavg_after": load_after}
merged = {"machine": machine, "command": command, key: bench, "peer": peer}
if peer is None and peer_note:
    merged["peer_skipped"] = peer_note
path = out or os.path.join(results_dir, prefix + tag + ".json")
os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
with open(path, "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")
print(path)
PY
}
