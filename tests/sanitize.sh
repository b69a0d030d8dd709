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
export LSAN_OPTIONS=suppressions=$root/tests/sanitize.supp:print_suppressions=0
# Whole stacks (the slow unwinder: GLib and the drivers have no frame pointers), so that the
# suppressions can name the functions that allocated.
full_stacks=detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=30
# The GL test keeps the fast unwinder: the slow one takes libgcc's unwinder lock inside malloc
# and deadlocks with Mesa's threads. Its leak check is off: Mesa's driver is unloaded before
# LeakSanitizer runs, so the two 56-byte blocks the X/GL stack keeps are reported against an
# "<unknown module>" no suppression can name. Memory errors are still checked.
fast_stacks=detect_leaks=0:malloc_context_size=30
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
    --timeout-multiplier 4 "${other[@]}" || status=1
fi
if [ ${#gl[@]} -gt 0 ]; then
  ASAN_OPTIONS=$fast_stacks xvfb-run -a meson test -C "$build" --no-rebuild --print-errorlogs \
    --timeout-multiplier 4 "${gl[@]}" || status=1
fi
exit $status
