# What call1.sh and call2.sh share: the plugin and clips of build-gpu, and `run NAME "ENV..."
# PIPELINE`, which times one gst-launch-1.0 run of PIPELINE with ENV set.
B=build-gpu
export XDG_CACHE_HOME=/tmp/cache
export GST_OPENCL_TEST_CLIPS=$PWD/$B/clips
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin CK_DEFAULT_TIMEOUT=600 GST_OPENCL_TUNING=0
gst-inspect-1.0 opencl > /dev/null 2>&1
for i in $(seq 20); do cat $B/clips/clip-1080p.h264; done > /tmp/long.h264
run () {
  local name=$1 envs=$2 t0 t1 st; shift 2
  t0=$(date +%s.%N)
  env $envs timeout 120 gst-launch-1.0 -q $@ > /dev/null 2>&1
  st=$?
  t1=$(date +%s.%N)
  echo "$name exit $st seconds $(awk "BEGIN{print $t1 - $t0}")"
}
