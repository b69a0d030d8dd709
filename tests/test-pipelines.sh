#!/usr/bin/env bash
# Runs every pipelines/*.sh with NUM_BUFFERS=5, each with its own OUT_DIR in a temporary folder,
# plus demo.sh in quick mode (no package check, no build). A script fails when it exits non-zero,
# when a file named on its "# outputs:" line is missing or empty, when it leaves an empty file, or
# when its output lacks the text on its "# prints:" line.
# BUILD_DIR (default <repo>/build) is passed through to the scripts. Without a display, runs
# itself under xvfb-run for the GL and window pipelines.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [ -z "${DISPLAY:-}" ] && [ -z "${TEST_PIPELINES_XVFB:-}" ] && command -v xvfb-run >/dev/null; then
  export TEST_PIPELINES_XVFB=1
  exec xvfb-run -a -s "-screen 0 1280x1024x24" bash "$0" "$@"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NUM_BUFFERS=5
[ -z "${BUILD_DIR:-}" ] || export BUILD_DIR
per_script_timeout_s=${PIPELINE_TIMEOUT_S:-300}

passed=0
failed=0

# run_one <script> [VAR=value...]: runs it, then checks its files.
run_one () {
  local script=$1
  shift
  local name
  name=$(basename "$script" .sh)
  local out=$work/$name
  local log=$work/$name.log
  mkdir -p "$out"
  local start=$SECONDS
  local problem=""
  env "$@" OUT_DIR="$out" timeout "$per_script_timeout_s" bash "$script" >"$log" 2>&1
  local status=$?
  if [ "$status" -eq 124 ]; then
    problem="timed out after $per_script_timeout_s s"
  elif [ "$status" -ne 0 ]; then
    problem="exited with status $status"
  else
    local file text
    for file in $(sed -n 's/^# outputs:[[:space:]]*//p' "$script"); do
      [ -s "$out/$file" ] || problem="${problem}missing or empty output $file; "
    done
    text=$(sed -n 's/^# prints:[[:space:]]*//p' "$script")
    if [ -n "$text" ] && ! grep -qF "$text" "$log"; then
      problem="${problem}did not print \"$text\"; "
    fi
    while IFS= read -r empty; do
      problem="${problem}empty file ${empty#"$out"/}; "
    done < <(find "$out" -type f -empty)
  fi
  if [ -z "$problem" ]; then
    echo "ok    $name ($((SECONDS - start)) s)"
    passed=$((passed + 1))
  else
    echo "FAIL  $name ($((SECONDS - start)) s): $problem"
    sed 's/^/      | /' "$log" | tail -n 40
    failed=$((failed + 1))
  fi
}

for script in "$root"/pipelines/*.sh; do
  case $(basename "$script") in
    common.sh | demo.sh) continue ;;
  esac
  run_one "$script"
done
run_one "$root/pipelines/demo.sh" QUICK=1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 1 ]
