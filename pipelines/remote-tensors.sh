#!/usr/bin/env bash
# Past one host with what GStreamer already has. A camera host sends H.264 over SRT to a worker
# host; the worker decodes it, turns each frame into a float32 tensor on its OpenCL device
# (openclconvertscale) and sends the tensors back as RTP over TCP (rtpgstpay: buffers with
# their caps), where the camera host stores them. Here all three pipelines run on this machine
# over loopback, each its own gst-launch-1.0 process, as they would on two hosts (set WORKER and
# CAMERA to the hosts' addresses and run each pipeline where it belongs).
# NNStreamer's tensor_query_client and tensor_query_serversrc/serversink take the same
# other/tensors caps where NNStreamer is installed (Debian has no package of it).
#   WORKER       the worker's address (default 127.0.0.1); CAMERA the camera host's (127.0.0.1)
#   PORT         the worker's SRT port; TENSOR_PORT the port where the camera host takes the
#                tensors (default: free ports picked at random)
#   SIZE         the tensor's width x height (default 64x64: 3:64:64:1 floats, NHWC)
#   NUM_BUFFERS  frames the worker turns into tensors (default 30; empty here means 30 too)
#   BUILD_DIR, OUT_DIR: see common.sh.
# Needs srtsrc/srtsink, mpegtsmux, tsdemux, h264parse, rtpgstpay, rtpstreampay
# (gstreamer1.0-plugins-bad), x264enc (gstreamer1.0-plugins-ugly), avdec_h264
# (gstreamer1.0-libav), tcpserversrc/tcpclientsink (gstreamer1.0-plugins-base); .ci/install-deps.sh
# installs them.
#
# outputs: remote-tensors.bin
# prints: tensors received:
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/common.sh"
require_plugin openclconvertscale
require_elements srtsrc srtsink mpegtsmux tsdemux h264parse x264enc avdec_h264 rtpgstpay rtpgstdepay \
  rtpstreampay rtpstreamdepay tcpserversrc tcpclientsink identity

worker=${WORKER:-127.0.0.1}
camera=${CAMERA:-127.0.0.1}
frames=${NUM_BUFFERS:-30}
size=${SIZE:-64x64}
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "error: SIZE must be WIDTHxHEIGHT, not \"$size\"" >&2; exit 2; }
width=${BASH_REMATCH[1]}
height=${BASH_REMATCH[2]}
tensor="other/tensors,format=static,num_tensors=1,types=float32,dimensions=3:$width:$height:1"
tensor_bytes=$((3 * width * height * 4))
output=$OUT_DIR/remote-tensors.bin
logs=$OUT_DIR/remote-tensors-logs
mkdir -p "$logs"
rm -f "$output"

pids=()
stop_all () {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_all EXIT

# listening PROTOCOL PORT: whether something here listens on it (ss: -u SRT's UDP, -t TCP).
listening () {
  ss -ln "-$1" 2>/dev/null | awk '{print $4}' | grep -q ":$2\$"
}
# free_port PROTOCOL: a port in 20000-59999 that nothing here listens on (so that runs at the
# same moment, or a service on 7001, do not meet).
free_port () {
  local candidate
  while :; do
    candidate=$((20000 + RANDOM % 40000))
    listening "$1" "$candidate" || { echo "$candidate"; return; }
  done
}
port=${PORT:-$(free_port u)}
tensor_port=${TENSOR_PORT:-$(free_port t)}
wait_for () {
  local tries=0
  until listening "$1" "$2"; do
    tries=$((tries + 1))
    if [ "$tries" -gt 100 ]; then
      echo "error: nothing listens on $1 port $2 after 10 s" >&2
      sed 's/^/  | /' "$logs"/*.log >&2
      exit 1
    fi
    sleep 0.1
  done
}

# The camera host's receiving side listens for the tensors: RTP over TCP (RFC 4571 framing)
# carrying GStreamer buffers and their caps (rtpgstpay); they are stored as raw float32 NHWC,
# one after the other. (The worker connects to it rather than serving them: tcpserversink places
# a client in its queue on its first write, not when it connects, and a client placed late skips
# what was queued by then, the first tensor's opening packets among it.)
gst-launch-1.0 tcpserversrc host="$camera" port="$tensor_port" \
  ! application/x-rtp-stream,media=application,encoding-name=X-GST,clock-rate=90000 \
  ! rtpstreamdepay ! rtpgstdepay ! "$tensor" \
  ! filesink location="$output" >"$logs/receiver.log" 2>&1 &
receiver_pid=$!
pids+=("$receiver_pid")
wait_for t "$tensor_port"

# The worker: SRT in, tensors out to the camera host. A live SRT stream has no end of its own
# (a caller that hangs up drops what SRT still holds for its latency), so the worker takes
# NUM_BUFFERS decoded frames and ends there: identity's EOS drains the converter, the worker
# closes the tensor connection, and the receiver ends.
gst-launch-1.0 srtsrc uri="srt://:$port?mode=listener" \
  ! tsdemux ! h264parse ! avdec_h264 ! identity eos-after="$frames" ! openclconvertscale \
  ! "$tensor" ! rtpgstpay ! rtpstreampay ! tcpclientsink host="$camera" port="$tensor_port" sync=false \
  >"$logs/worker.log" 2>&1 &
worker_pid=$!
pids+=("$worker_pid")
wait_for u "$port"

# The camera: a live test pattern at 30 frames per second, encoded for streaming (no B-frames,
# no lookahead, a key frame with its parameter sets every 10 frames so that a worker can join
# late), muxed into 1316-byte packets (seven TS packets, one SRT message each). It runs until
# the worker has what it wants, and is stopped then.
gst-launch-1.0 videotestsrc is-live=true pattern=ball \
  ! video/x-raw,format=I420,width=640,height=360,framerate=30/1 \
  ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=10 ! h264parse config-interval=-1 \
  ! mpegtsmux alignment=7 ! srtsink uri="srt://$worker:$port?mode=caller" \
  >"$logs/camera.log" 2>&1 &
camera_pid=$!
pids+=("$camera_pid")

# ended PID SECONDS: whether the process ends within SECONDS.
ended () {
  timeout "$2" tail --pid="$1" -f /dev/null
}
limit=$((30 + frames / 10))
if ! ended "$worker_pid" "$limit" || ! ended "$receiver_pid" 30; then
  echo "error: the worker or the receiver did not end within $limit s" >&2
  sed 's/^/  | /' "$logs"/*.log >&2
  exit 1
fi
kill "$camera_pid" 2>/dev/null || true
worker_status=0
wait "$worker_pid" || worker_status=$?
wait "$camera_pid" 2>/dev/null || true
pids=()
[ "$worker_status" -eq 0 ] || { echo "error: the worker failed" >&2; sed 's/^/  | /' "$logs/worker.log" >&2; exit 1; }

received=$(( $(stat -c %s "$output" 2>/dev/null || echo 0) / tensor_bytes ))
echo "tensors received: $received of $frames ($tensor_bytes bytes each) in $output"
[ "$received" -eq "$frames" ] || { echo "error: $frames frames decoded, $received tensors came back" >&2; sed 's/^/  | /' "$logs"/*.log >&2; exit 1; }
