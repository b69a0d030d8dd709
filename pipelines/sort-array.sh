#!/usr/bin/env bash
# Arrays through openclsort: writes a file of random values, runs
#   filesrc blocksize=<one buffer> ! other/tensors,...,dimensions=LENGTH:ROWS ! openclsort !
#   filesink
# and checks that every row of the output is the sorted input row.
#   TYPE      int32 (default), uint32 or float32 (finite values)
#   LENGTH    values per row (default 65537: not a power of two, longer than one work-group)
#   ROWS      rows per buffer (default 4)
#   ORDER     ascending (default) or descending
#   NUM_BUFFERS, BUILD_DIR, OUT_DIR: see common.sh (buffers in the file, default 8)
#
# outputs: sort-array-input.raw sort-array-output.raw
# prints: sorted: every row
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclsort

type=${TYPE:-int32}
length=${LENGTH:-65537}
rows=${ROWS:-4}
order=${ORDER:-ascending}
buffers=${NUM_BUFFERS:-8}
case $type in
  int32 | uint32 | float32) ;;
  *) echo "error: TYPE must be int32, uint32 or float32, not \"$type\"" >&2; exit 2 ;;
esac
input=$OUT_DIR/sort-array-input.raw
output=$OUT_DIR/sort-array-output.raw
rm -f "$output"

# The standard library only (array, random): no NumPy needed.
python3 - "$type" "$length" "$rows" "$buffers" "$input" <<'PY'
import array, random, sys
kind, length, rows, buffers, path = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5]
random.seed(2026)
count = length * rows * buffers
if kind == "int32":
    values = array.array("i", (random.randint(-2**31, 2**31 - 1) for _ in range(count)))
elif kind == "uint32":
    values = array.array("I", (random.getrandbits(32) for _ in range(count)))
else:
    values = array.array("f", (random.uniform(-1e6, 1e6) for _ in range(count)))
with open(path, "wb") as f:
    values.tofile(f)
PY

run_pipeline filesrc location="$input" blocksize=$((length * rows * 4)) \
  ! "other/tensors,format=static,num_tensors=1,types=$type,dimensions=(string)$length:$rows,framerate=(fraction)0/1" \
  ! openclsort "order=$order" ! filesink location="$output"

python3 - "$type" "$length" "$order" "$input" "$output" <<'PY'
import array, sys
kind, length, order, input_path, output_path = sys.argv[1], int(sys.argv[2]), *sys.argv[3:6]
code = {"int32": "i", "uint32": "I", "float32": "f"}[kind]
def load(path):
    values = array.array(code)
    with open(path, "rb") as f:
        values.frombytes(f.read())
    return values
before, after = load(input_path), load(output_path)
if len(before) != len(after):
    sys.exit(f"error: {len(after)} values out for {len(before)} in")
for start in range(0, len(before), length):
    expected = sorted(before[start:start + length], reverse=order == "descending")
    if list(after[start:start + length]) != expected:
        sys.exit(f"error: row {start // length} is not the sorted input row")
print(f"sorted: every row ({len(before) // length} rows of {length} {kind}, {order})")
PY
