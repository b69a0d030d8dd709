# The setting of calls 2, 4 and 5 (sourced): the packed build, the suite's environment, EGL.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
export GST_OPENCL_TUNING=0 CK_DEFAULT_TIMEOUT=600 GST_DEBUG=*:1
export GST_OPENCL_TEST_CLIPS=$PWD/$B/clips GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device
mkdir -p $OUT/logs
gst-inspect-1.0 opencl >/dev/null 2>&1
