# Call 5: after the mend (a device with transfer queues of its own is matched, one parked device
# per OpenCL device): call 4's script with the check alone cut at 100 s and the split suite of
# histogram, reliability and cuda only (each check 150 s, all 170 s).
ALONE_LIMIT=100 CHECK_LIMIT=150 SUITE_LIMIT=170 PROGRAMS="histogram reliability cuda" \
  bash tests/bench/results/gpu-checks-49/call4.sh
