# Call 3: streams-context-fail/call8.sh as written, with EGL (the failing sequence, --share-gl,
# --probe-context reporting the CUDA primary contexts), three programs.
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device
bash tests/bench/results/streams-context-fail/call8.sh
