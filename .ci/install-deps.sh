#!/usr/bin/env bash
# Installs, from Debian's packages (Debian 12; Debian 13 too), everything gst-opencl needs to
# build, test and run its demo. Does nothing when all of it is already there. Arguments name more
# packages to install with them (.ci/debian13 adds mesa-opencl-icd, for rusticl).
set -euo pipefail

# The release as <ID>:<VERSION_ID> of /etc/os-release ("debian:12"), empty when unknown.
release_id() {
  if [ -r /etc/os-release ]; then
    (. /etc/os-release && echo "${ID:-}:${VERSION_ID:-}")
  fi
}

# The libFuzzer runtime (tests/fuzz/run.sh) must be that of Debian's default clang: 14 on
# Debian 12, 19 on Debian 13; on another release, whatever `clang` depends on there.
clang_version() {
  local version=""
  case "$(release_id)" in
    debian:12) version=14 ;;
    debian:13) version=19 ;;
    *) version=$(apt-cache depends clang 2>/dev/null |
         sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -n 1) ;;
  esac
  echo "${version:-14}"
}

# gstreamer1.0-plugins-ugly (x264enc), -bad (h264parse, h265parse, x265enc) and -libav
# (avdec_h264, avdec_h265): the decoder-to-encoder scripts pipelines/transcode.sh and
# pipelines/histogram-10bit.sh, run by the suite; -bad's srtsrc/srtsink, tsdemux, mpegtsmux and
# rtpgst(de)pay for pipelines/remote-tensors.sh, which also needs iproute2's ss.
# libvulkan-dev: Vulkan's headers, for the semaphores that order CUDA frames on NVIDIA
# (gst/opencl/gstopenclvulkan.cpp; the plugin builds without them and opens Vulkan at run time).
# python3-opencv: the CPU benchmarks' peer (tests/bench/peer_histogram.py times cv2.calcHist).
packages=(
  meson ninja-build pkg-config g++ python3 python3-numpy
  python3-opencv
  python3-gi python3-gst-1.0 gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-gl
  gstreamer1.0-plugins-ugly gstreamer1.0-plugins-bad gstreamer1.0-libav
  ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  libvulkan-dev
  xvfb xauth libgl1-mesa-dri iproute2
  clang "libclang-rt-$(clang_version)-dev"
  "$@"
)
# Debian 13 only: GStreamer 1.26's analytics library (gstreamer-analytics-1.0, GstTensorMeta),
# which openclhistogram attaches each frame's counts with. Debian ships its pkg-config file in
# the plugins-bad development package (which pulls in OpenCV's); Debian 12's 1.22 has no such
# library, and the plugin builds without it.
release_packages() {
  case "$(release_id)" in
    debian:13) echo libgstreamer-plugins-bad1.0-dev ;;
  esac
}
# shellcheck disable=SC2207
packages+=($(release_packages))

# The fuzz step's LeakSanitizer suppressions (tests/sanitize.supp) name functions: clang's
# sanitizers need llvm-symbolizer to turn addresses into those names (Debian's clang does not
# pull it in). gcc's, in tests/sanitize.sh, symbolize by themselves.
command -v llvm-symbolizer >/dev/null || packages+=(llvm)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
# .ci/run installs debootstrap on the host (.ci/debian13 --prepare) while the Debian 12 run
# installs this list: apt takes its locks without waiting, so both take this lock first, and
# apt waits for any other user of dpkg's (an unattended upgrade) for up to 10 minutes.
apt_locked () {
  $sudo flock -w 1800 /var/lib/apt/gst-opencl-apt.lock "$@"
}
apt_locked apt-get -o DPkg::Lock::Timeout=600 update -qq
DEBIAN_FRONTEND=noninteractive apt_locked apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
  --no-install-recommends "${missing[@]}" >/dev/null
