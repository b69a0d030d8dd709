B=build-gpu
R=$OUT/d; mkdir -p $R
nvidia-smi -L > $R/gpus.txt; cat $R/gpus.txt
nvidia-smi topo -m > $R/topo.txt 2>&1
export GST_OPENCL_TEST_CLIPS=$PWD/$B/clips
export GST_PLUGIN_PATH=$PWD/$B/gst GST_REGISTRY=/tmp/reg.bin CK_DEFAULT_TIMEOUT=600 GST_OPENCL_TUNING=0
gst-inspect-1.0 opencl > /dev/null 2>&1
( GST_DEBUG=opencl:4 GST_DEBUG_FILE=$R/cuda-debug.txt GST_CHECKS=test_device_follows_cuda_frames,test_cuda_orders,test_decoded_frames,test_cuda_frames_match_system_memory timeout 300 $B/tests/test_cuda > $R/test_cuda.log 2>&1; echo "test_cuda exit $?" >> $R/test_cuda.log )
grep -E "Checks|exit|:F:|:E:" $R/test_cuda.log
gzip -9 $R/cuda-debug.txt
for i in $(seq 20); do cat $B/clips/clip-1080p.h264; done > /tmp/long.h264
one () { echo "filesrc location=/tmp/long.h264 ! h264parse ! $1 ! openclbilateral name=$2 ! fakesink sync=false"; }
run () {  # name, pipeline words...
  local name=$1; shift
  for r in 1 2 3; do
    local t0=$(date +%s.%N)
    GST_DEBUG=opencl:4 GST_DEBUG_FILE=$R/$name-$r.txt timeout 120 gst-launch-1.0 -q $@ > /dev/null 2>&1
    local st=$?
    local t1=$(date +%s.%N)
    echo "$name run $r exit $st seconds $(awk "BEGIN{print $t1 - $t0}")"
    grep -h -E "following the frames|running on" $R/$name-$r.txt | sed 's/.*opencl //' | sed 's/^[^<]*//' | sort | uniq -c
    rm -f $R/$name-$r.txt
  done
}
run one-gpu0 $(one nvh264dec a) 2>&1 | tee -a $R/timings.txt
run two-gpus $(one nvh264dec a) $(one nvh264device1dec b) 2>&1 | tee -a $R/timings.txt
run two-on-gpu0 $(one nvh264dec a) $(one nvh264dec b) 2>&1 | tee -a $R/timings.txt
run decode-two-gpus "filesrc location=/tmp/long.h264 ! h264parse ! nvh264dec ! fakesink sync=false filesrc location=/tmp/long.h264 ! h264parse ! nvh264device1dec ! fakesink sync=false" 2>&1 | tee -a $R/timings.txt
run decode-one "filesrc location=/tmp/long.h264 ! h264parse ! nvh264dec ! fakesink sync=false" 2>&1 | tee -a $R/timings.txt
