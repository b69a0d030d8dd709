# GPU call 3 (2026-11-29, nvidia-h200): call 2 again, keeping the first 120 warnings and errors
# in time order (call 2 kept 30, counted), with GStreamer's CUDA INFO lines.
DEBUG="opencl:4,*cuda*:4,nv*:3" EXTRA= WARNINGS=first bash tests/bench/results/streams-context-fail/probe.sh
