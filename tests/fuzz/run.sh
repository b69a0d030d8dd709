#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang, AddressSanitizer and UndefinedBehavior-
# Sanitizer into build-fuzz/, and fuzzes each for FUZZ_SECONDS (default 30) seconds, starting
# from the stored corpus (tests/fuzz/corpus/<target>, never modified: new inputs go to
# build-fuzz/corpus/<target>). A crash leaves its input in build-fuzz/crashes/ and the script
# exits non-zero; add that input to the stored corpus once fixed, so `meson test` replays it.
#   bash tests/fuzz/run.sh                # 30 s per target
#   FUZZ_SECONDS=600 bash tests/fuzz/run.sh
#   FUZZ_SEED=1 FUZZ_RUNS=40000 bash tests/fuzz/run.sh   # the same inputs every time
# FUZZ_SEED fixes libFuzzer's random seed and FUZZ_RUNS stops each target after that many
# inputs (FUZZ_SECONDS still bounds it): together they make a run repeatable, which is how the
# README's test command (and so CI) runs it. Without them each run explores new inputs.
# Needs Debian's clang, the libFuzzer runtime of its version (libclang-rt-14-dev on Debian 12,
# libclang-rt-19-dev on Debian 13) and llvm-symbolizer (the leak suppressions name functions),
# installed through .ci/install-deps.sh when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
seconds=${FUZZ_SECONDS:-30}
extra=()
[ -n "${FUZZ_SEED:-}" ] && extra+=("-seed=$FUZZ_SEED")
[ -n "${FUZZ_RUNS:-}" ] && extra+=("-runs=$FUZZ_RUNS")
build=${FUZZ_BUILD_DIR:-build-fuzz}

if ! command -v clang++ >/dev/null || ! command -v llvm-symbolizer >/dev/null ||
    ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  # clang, the libFuzzer runtime of its version and llvm-symbolizer, with the rest.
  bash "$root/.ci/install-deps.sh"
fi

if [ ! -d "$build" ]; then
  CXX=clang++ CC=clang meson setup "$build" -Dfuzz=enabled -Dtests=disabled -Dbench=disabled \
    -Dgl=disabled -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized \
    >/dev/null
fi
targets=(device_spec tensor_caps kernel_array)
ninja -C "$build" "${targets[@]/#/tests/fuzz/fuzz_}" >/dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=suppressions=$root/tests/sanitize.supp:print_suppressions=0
export GST_REGISTRY=$root/$build/fuzz-registry.bin
mkdir -p "$build/crashes"
status=0
for target in "${targets[@]}"; do
  corpus=$build/corpus/$target
  mkdir -p "$corpus"
  log=$build/fuzz-$target.log
  if ! "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -print_final_stats=1 \
      ${extra[@]+"${extra[@]}"} -artifact_prefix="$build/crashes/$target-" "$corpus" "tests/fuzz/corpus/$target" \
      >"$log" 2>&1; then
    echo "fuzz_$target: FAILED (see $log and $build/crashes/)"
    status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  echo "fuzz_$target: at most $seconds s, $runs executions, corpus $(ls "$corpus" | wc -l) new inputs"
done
exit $status
