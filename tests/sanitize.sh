#!/usr/bin/env bash
# Builds the plugin and its tests with AddressSanitizer + LeakSanitizer (gcc's, -Db_sanitize=
# address) in build-asan/ and runs the test suite there. Leaks of the OpenCL driver, GLib's type
# system and Mesa are suppressed by tests/sanitize.supp (each commented); anything else, in
# particular in the plugin's own code, fails the test that caused it. Not part of `meson test`
# (slow: an instrumented build, and PoCL under ASan).
#   bash tests/sanitize.sh                 # the whole suite but `pipelines`
#   bash tests/sanitize.sh reliability     # some tests
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
ninja -C "$build" >/dev/null

# The plugin is loaded in the (instrumented) test process itself, not in gst-plugin-scanner.
export GST_REGISTRY_FORK=no
# The default (fast, frame-pointer) unwinder: the slow one takes libgcc's unwinder lock inside
# malloc and deadlocks with Mesa's threads in the GL test.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:malloc_context_size=30
export LSAN_OPTIONS=suppressions=$root/tests/sanitize.supp:print_suppressions=0
# Kernels come from the disk cache when they can (PoCL's compiler is slow under ASan).
if [ $# -eq 0 ]; then
  mapfile -t tests < <(meson test -C "$build" --list --no-rebuild 2>/dev/null |
    sed 's/^.* \/ //' | grep -vx pipelines)
else
  tests=("$@")
fi
xvfb-run -a meson test -C "$build" --print-errorlogs --timeout-multiplier 4 "${tests[@]}"
