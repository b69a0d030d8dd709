#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A vignette through openclkernel whose strength is animated while the pipeline plays.

The kernel (pipelines/kernels/vignette.cl) takes a float argument `strength`. Given in the
element's `parameters`, it becomes a child object of the element (GstChildProxy) named
`strength`, whose `value` property is controllable. This script attaches a GstController
interpolation control source to that child: `strength` goes linearly from --start at the first
frame to --end at the last, following each frame's stream time.

The frames go to a WebM file (VP8), and a few of them (the first, the middle one and the last)
to PNG stills. For each still, the script prints the child's value at that frame and the colour
of a pixel near the top-left corner, so the log shows the vignette deepening.

Run by pipelines/kernel-vignette.sh, which finds the plugin; by hand:
    GST_PLUGIN_PATH=build/gst python3 pipelines/kernel-vignette.py --output v.webm
"""
import argparse
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstController", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstController, GstVideo  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", default=os.path.join(HERE, "kernels", "vignette.cl"),
                        help="the .cl file (default: pipelines/kernels/vignette.cl)")
    parser.add_argument("--frames", type=int, default=90, help="frames to make (default 90)")
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--pattern", default="smpte", help="videotestsrc pattern (default smpte)")
    parser.add_argument("--start", type=float, default=0.0, help="strength at the first frame")
    parser.add_argument("--end", type=float, default=1.0, help="strength at the last frame")
    parser.add_argument("--output", required=True, help="the WebM file")
    parser.add_argument("--stills", default="",
                        help="PNG stills, a multifilesink location with %%d (empty: none)")
    args = parser.parse_args()
    if args.frames < 1:
        parser.error("--frames must be at least 1")
    return args


def main():
    args = parse_args()
    Gst.init(None)
    fps = 30
    description = (
        f"videotestsrc num-buffers={args.frames} pattern={args.pattern} "
        f"! video/x-raw,format=RGBA,width={args.width},height={args.height},framerate={fps}/1 "
        f"! openclkernel name=k location=\"{args.kernel}\" "
        f"parameters=\"p,strength=(float){args.start}\" ! tee name=t "
        "t. ! queue ! videoconvert ! vp8enc deadline=1 target-bitrate=4000000 ! webmmux "
        f"! filesink location=\"{args.output}\"")
    if args.stills:
        description += (" t. ! queue name=stills ! videoconvert ! pngenc "
                        f"! multifilesink location=\"{args.stills}\"")
    print("+ pipeline: " + description, file=sys.stderr)
    pipeline = Gst.parse_launch(description)
    kernel = pipeline.get_by_name("k")

    # The child object made for the numeric field `strength` of `parameters`.
    strength = kernel.get_child_by_name("strength")
    if strength is None:
        print("error: openclkernel has no child named strength", file=sys.stderr)
        return 1
    curve = GstController.InterpolationControlSource()
    curve.set_property("mode", GstController.InterpolationMode.LINEAR)
    last = (args.frames - 1) * Gst.SECOND // fps
    curve.set(0, args.start)
    curve.set(max(last, 1), args.end)
    strength.add_control_binding(
        GstController.DirectControlBinding.new_absolute(strength, "value", curve))

    # Frames that become stills: the first, the middle one and the last.
    picked = sorted({0, (args.frames - 1) // 2, args.frames - 1})
    seen = {"kernel": 0, "stills": 0}

    def after_kernel(pad, info):
        # Runs in the streaming thread right after the kernel ran on this frame, so the child
        # holds the value the controller gave this frame.
        n = seen["kernel"]
        seen["kernel"] += 1
        if n in picked:
            buffer = info.get_buffer()
            meta = GstVideo.buffer_get_video_meta(buffer)
            offset, stride = (meta.offset[0], meta.stride[0]) if meta else (0, args.width * 4)
            ok, mapped = buffer.map(Gst.MapFlags.READ)
            corner = "?"
            if ok:
                at = offset + (args.height // 20) * stride + (args.width // 20) * 4
                corner = "(%d, %d, %d)" % tuple(mapped.data[at:at + 3])
                buffer.unmap(mapped)
            t = buffer.pts / Gst.SECOND if buffer.pts != Gst.CLOCK_TIME_NONE else 0.0
            print(f"frame {n} at {t:.3f} s: strength {strength.get_property('value'):.3f}, "
                  f"pixel near the top-left corner {corner}", flush=True)
        return Gst.PadProbeReturn.OK

    def keep_picked(pad, info):
        n = seen["stills"]
        seen["stills"] += 1
        return Gst.PadProbeReturn.OK if n in picked else Gst.PadProbeReturn.DROP

    kernel.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, after_kernel)
    if args.stills:
        pipeline.get_by_name("stills").get_static_pad("sink").add_probe(
            Gst.PadProbeType.BUFFER, keep_picked)

    loop = GLib.MainLoop()
    result = {"status": 0}

    def on_message(bus, message):
        if message.type == Gst.MessageType.EOS:
            loop.quit()
        elif message.type == Gst.MessageType.ERROR:
            error, debug = message.parse_error()
            print(f"error from {message.src.get_name()}: {error.message}\n{debug or ''}",
                  file=sys.stderr)
            result["status"] = 1
            loop.quit()
        elif message.type == Gst.MessageType.WARNING:
            warning, debug = message.parse_warning()
            print(f"warning from {message.src.get_name()}: {warning.message}", file=sys.stderr)

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    # Ctrl-C ends the stream, so the WebM file is finished properly.
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 2,
                         lambda: pipeline.send_event(Gst.Event.new_eos()) or True)
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        message = bus.pop_filtered(Gst.MessageType.ERROR)
        reason = message.parse_error()[0].message if message else "no error posted"
        print(f"error: the pipeline does not start: {reason}", file=sys.stderr)
        result["status"] = 1
    else:
        loop.run()
    pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    if result["status"] == 0:
        print(f"wrote {args.output}")
        if args.stills:
            print(f"wrote {len(picked)} stills: {args.stills} (frames "
                  + ", ".join(str(n) for n in picked) + ")")
    return result["status"]


if __name__ == "__main__":
    sys.exit(main())
