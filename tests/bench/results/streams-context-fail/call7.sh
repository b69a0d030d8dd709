# For the next GPU call (not run yet): the two tests the README's "Next" names, each program with
# a bare OpenCL context made after every run (--probe-context) and time enough to reach N = 8.
# 1. The eight decoders alone (no element of the plugin), 4 runs: does a bare context still
#    come after them? 2. Call 5's runs with GStreamer's GL kept out (GST_GL_PLATFORM=glx with
#    no X display), up to 3 programs.
B=build-gpu
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin XDG_CACHE_HOME=/tmp/cache
gst-inspect-1.0 opencl >/dev/null 2>&1
streams () {  # json-name, more options...
  local name=$1; shift
  timeout 150 $B/tests/bench/bench_streams --device gpu --clip $B/clips/clip-1080p.h264 --loops 1 \
    --share-cuda --probe-context --watchdog 45 --stacks-tool $B/tools/eu-stack \
    --json $OUT/$name.json "$@" > $OUT/$name-log.txt 2>&1
  echo "$name status $? failed rows $(grep -c FAILED $OUT/$name-log.txt)" \
    "bare contexts refused $(grep PROBE $OUT/$name-log.txt | grep -vc 'was made')" >> $OUT/status.txt
}
streams decoders --streams 1,8 --runs 4 --cases baseline --modes shared
for t in 1 2 3; do
  GST_GL_PLATFORM=glx GST_GL_WINDOW=x11 streams no-gl-$t --streams 1,8 --runs 2 \
    --modes shared,separate --cases baseline,histogram,bilateral
done
cat $OUT/status.txt
