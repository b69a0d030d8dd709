#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs the quick suite (GL tests
# under Xvfb), fuzzes the input parsers for a bounded time, and ends with one line
# "N passed, N failed".
#   bash tests/run.sh                  # the quick suite (meson test --setup quick), then
#                                      # 5,000 fuzz inputs a target
#   bash tests/run.sh --full           # the full suite (what .ci/run runs), 30,000 inputs
#   bash tests/run.sh [--full] sort    # only these meson tests (arguments go to meson test),
#                                      # no fuzzing
# The quick suite keeps every element, memory path and format, with fewer sizes, variants and
# repetitions, and leaves out the deprecations test (docs/testing.md).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
setup=(--setup quick)
full=0
if [ "${1:-}" = "--full" ]; then
  full=1
  setup=()
  shift
fi

summary () { echo "$1 passed, $2 failed"; }

if ! bash "$root/.ci/install-deps.sh"; then
  echo "dependency installation failed"
  summary 0 1
  exit 1
fi
if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" "$root" >/dev/null || { summary 0 1; exit 1; }
else
  meson setup "$build" "$root" >/dev/null || { summary 0 1; exit 1; }
fi
if ! ninja -C "$build"; then
  echo "build failed"
  summary 0 1
  exit 1
fi

# meson test names its logs after the setup: testlog-quick.json for the quick suite.
log=$build/meson-logs/testlog.json
[ "$full" = 1 ] || log=$build/meson-logs/testlog-quick.json
rm -f "$log"
xvfb-run -a -s "-screen 0 1280x1024x24" meson test -C "$build" --print-errorlogs \
  --timeout-multiplier "${TEST_TIMEOUT_MULTIPLIER:-3}" ${setup[@]+"${setup[@]}"} "$@"

counts=$(python3 - "$log" <<'PY'
import json, sys
passed = failed = 0
with open(sys.argv[1]) as log:
    for line in log:
        result = json.loads(line).get("result")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result != "SKIP":
            failed += 1
print(passed, failed)
PY
) || counts="0 1"
read -r passed failed <<<"$counts"

# A run of the whole suite (no test named) also fuzzes the parsers of user input (device
# strings, tensor caps, kernel arrays), repeatably: a fixed seed (FUZZ_SEED, 1) and FUZZ_RUNS
# inputs per target, bounded by FUZZ_SECONDS per target: 30000 inputs and 60 s in the full
# suite, 5000 and 10 s in the quick one. FUZZ_SECONDS=0 skips it. It counts as one more test.
# Open-ended fuzzing, which finds new inputs each run, is tests/fuzz/run.sh on its own.
if [ "$full" = 1 ]; then
  fuzz_seconds=${FUZZ_SECONDS:-60}
  fuzz_runs=${FUZZ_RUNS:-30000}
else
  fuzz_seconds=${FUZZ_SECONDS:-10}
  fuzz_runs=${FUZZ_RUNS:-5000}
fi
if [ $# -eq 0 ] && [ "$fuzz_seconds" != 0 ]; then
  if FUZZ_SECONDS=$fuzz_seconds FUZZ_SEED=${FUZZ_SEED:-1} FUZZ_RUNS=$fuzz_runs \
      bash "$root/tests/fuzz/run.sh"; then
    passed=$((passed + 1))
  else
    echo "bounded fuzzing failed (tests/fuzz/run.sh)"
    failed=$((failed + 1))
  fi
fi
summary "$passed" "$failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
