# GPU call 4 (2026-11-29, nvidia-h200): call 3 with --read-kernel-time: every frame launched
# with profiling events, at most 4 frames of an element in flight.
DEBUG="opencl:4,*cuda*:4,nv*:3" EXTRA=--read-kernel-time WARNINGS=first bash tests/bench/results/streams-context-fail/probe.sh
