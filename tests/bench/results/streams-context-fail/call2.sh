# GPU call 2 (2026-11-29, nvidia-h200): call 1's runs again, with what the OpenCL driver reports
# of a context (pfn_notify, logged as a WARNING), GStreamer's CUDA and NVCODEC warnings (the 30
# most frequent), and each program's open file descriptors, threads and GPU memory.
DEBUG="opencl:4,*cuda*:3,nv*:3" EXTRA= WARNINGS=counted bash tests/bench/results/streams-context-fail/probe.sh
