#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs the whole suite (GL tests under
# Xvfb), fuzzes the input parsers for a bounded time, and ends with one line "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"

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

xvfb-run -a -s "-screen 0 1280x1024x24" meson test -C "$build" --print-errorlogs \
  --timeout-multiplier "${TEST_TIMEOUT_MULTIPLIER:-3}" "$@"

counts=$(python3 - "$build/meson-logs/testlog.json" <<'PY'
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

# The whole suite also fuzzes the parsers of user input (device strings, tensor caps, kernel
# arrays), repeatably: a fixed seed (FUZZ_SEED, 1) and FUZZ_RUNS inputs per target (30000),
# bounded by FUZZ_SECONDS (60) per target; FUZZ_SECONDS=0 skips it. It counts as one more test.
# Open-ended fuzzing, which finds new inputs each run, is tests/fuzz/run.sh on its own.
fuzz_seconds=${FUZZ_SECONDS:-60}
if [ $# -eq 0 ] && [ "$fuzz_seconds" != 0 ]; then
  if FUZZ_SECONDS=$fuzz_seconds FUZZ_SEED=${FUZZ_SEED:-1} FUZZ_RUNS=${FUZZ_RUNS:-30000} \
      bash "$root/tests/fuzz/run.sh"; then
    passed=$((passed + 1))
  else
    echo "bounded fuzzing failed (tests/fuzz/run.sh)"
    failed=$((failed + 1))
  fi
fi
summary "$passed" "$failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
