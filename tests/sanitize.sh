#!/usr/bin/env bash
# Builds the plugin and its tests with AddressSanitizer + LeakSanitizer (gcc's, -Db_sanitize=
# address) in build-asan/ and runs the test suite there. Leaks of the OpenCL driver, GLib's type
# system and Mesa are suppressed by tests/sanitize.supp (each commented); anything else, in
# particular in the plugin's own code, fails the test that caused it. Not part of `meson test`
# (slow: an instrumented build, and PoCL under ASan).
#   bash tests/sanitize.sh                 # the whole suite but `pipelines`
#   bash tests/sanitize.sh reliability     # some tests
#   bash tests/sanitize.sh inflight        # frames in flight across caps changes (tests/run.sh)
# Named tests build only what they run (the plugin and their programs), not the whole tree.
# The `pipelines` test runs gst-launch-1.0, which is not instrumented and cannot load an
# instrumented plugin, so it is left out unless named.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${SANITIZE_BUILD_DIR:-build-asan}

if [ ! -d "$build" ]; then
  meson setup "$build" -Db_sanitize=address -Db_lundef=false -Dbench=disabled \
    -Dbuildtype=debugoptimized >/dev/null
fi
if [ $# -eq 0 ]; then
  ninja -C "$build" >/dev/null
else
  # The ninja targets the named tests depend on (their programs and the plugin).
  mapfile -t targets < <(python3 - "$build" "$@" <<'PY'
import json, os, subprocess, sys
build, names = sys.argv[1], set(sys.argv[2:])
def introspect(what):
    return json.loads(subprocess.run(["meson", "introspect", build, what], check=True,
                                     capture_output=True, text=True).stdout)
files = {t["id"]: t["filename"] for t in introspect("--targets")}
root = os.path.realpath(build)
for test in introspect("--tests"):
    if test["name"] in names:
        for target in test.get("depends", []):
            for name in files.get(target, []):
                print(os.path.relpath(os.path.realpath(name), root))
PY
  )
  ninja -C "$build" "${targets[@]}" >/dev/null
fi

# The plugin is loaded in the (instrumented) test process itself, not in gst-plugin-scanner.
export GST_REGISTRY_FORK=no
export LSAN_OPTIONS=suppressions=$root/tests/sanitize.supp:print_suppressions=0
# Whole stacks (the slow unwinder: GLib and the drivers have no frame pointers), so that the
# suppressions can name the functions that allocated.
full_stacks=detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=30
# The GL test keeps the fast unwinder: the slow one takes libgcc's unwinder lock inside malloc
# and deadlocks with Mesa's threads. Its leak check is off: Mesa's driver is unloaded before
# LeakSanitizer runs, so the two 56-byte blocks the X/GL stack keeps are reported against an
# "<unknown module>" no suppression can name. Memory errors are still checked.
fast_stacks=detect_leaks=0:malloc_context_size=30
# The sanitizer's runtime is loaded before anything else in the test programs, so that the
# OpenCL driver (loaded later, by the ICD loader) allocates through it as well: its blocks are
# then known to ASan and LeakSanitizer, not taken for wild pointers or left out of the leak check.
# Only the tests get it (a wrapper), not xvfb-run and its X server.
asan_runtime=$(gcc -print-file-name=libasan.so)
wrapper="env LD_PRELOAD=$asan_runtime"
if [ $# -eq 0 ]; then
  mapfile -t tests < <(meson test -C "$build" --list --no-rebuild 2>/dev/null |
    sed 's/^.* \/ //' | grep -vx pipelines)
else
  tests=("$@")
fi
other=()
gl=()
for t in "${tests[@]}"; do
  if [ "$t" = gl ]; then gl+=("$t"); else other+=("$t"); fi
done
status=0
if [ ${#other[@]} -gt 0 ]; then
  ASAN_OPTIONS=$full_stacks xvfb-run -a meson test -C "$build" --no-rebuild --print-errorlogs \
    --timeout-multiplier 4 --wrapper "$wrapper" "${other[@]}" || status=1
fi
if [ ${#gl[@]} -gt 0 ]; then
  ASAN_OPTIONS=$fast_stacks xvfb-run -a meson test -C "$build" --no-rebuild --print-errorlogs \
    --timeout-multiplier 4 --wrapper "$wrapper" "${gl[@]}" || status=1
fi
exit $status
