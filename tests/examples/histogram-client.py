#!/usr/bin/env python3
# gst-opencl example: a Python (PyGObject) application that reads openclhistogram's messages,
# changes properties while playing, seeks, and checks everything against numpy.
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs

    openclmandelboxsrc ! RGBA 160x90 ! openclbilateral ! openclhistogram ! RGBA ! appsink

in system memory and, from a control thread while the pipeline plays:

 1. lets a few frames through (the camera turning fast, sigma-range 12, 256 bins);
 2. sets openclbilateral's sigma-range to 120 and openclhistogram's bins to 16;
 3. seeks (flushing) to 10 s;
 4. sets the source's yaw and pitch and stops its animation (animate=false);
 5. seeks (flushing) to 20 s with a stop 5 frames later, which ends the stream.

The main thread runs a GLib main loop that reads the `opencl-histogram` messages from the bus.
A pad probe keeps each frame as it enters openclbilateral, the appsink each frame as
openclhistogram passed it on. At the end, every check below must hold, else the program prints
what failed and exits with 1:

 - every frame that reached the appsink has one message with its timestamp, whose counts are
   numpy's histogram of that very frame (exact), with stream-time and running-time of the
   segment it was played in;
 - the timestamps start at 0, at 10 s after the first seek and at 20 s after the second, frame
   after frame, and the second segment has exactly 5 frames; no frame from before a seek
   arrives after it;
 - each property change took effect at one frame, no later than the first frame that entered
   the pipeline after the change: the bins of the messages, openclbilateral's output against a
   float64 bilateral filter (numpy, within 1) with the old and the new sigma-range, and the
   source's frames against a still rendered with the new yaw and pitch from the start.

Needs python3-gi, python3-gst-1.0 (the overrides that read GstValueArray fields), the GStreamer
typelibs (gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0) and numpy. The plugin is found
through GST_PLUGIN_PATH, as `meson test` sets it.
"""
import argparse
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstVideo  # noqa: E402

import numpy as np  # noqa: E402

WIDTH, HEIGHT, FPS = 160, 90, 30
CAPS = f"video/x-raw,format=RGBA,width={WIDTH},height={HEIGHT},framerate={FPS}/1"
SIGMA_SPATIAL = 1.5                  # radius ceil(2 x 1.5) = 3: a 7 x 7 window
SIGMA_RANGE_BEFORE, SIGMA_RANGE_AFTER = 12.0, 120.0
BINS_BEFORE, BINS_AFTER = 256, 16
# 29 degrees a frame: no frame of the scenario turns a whole number of turns from another.
ROTATION_SPEED = 870.0
STILL = {"yaw": 40.0, "pitch": 25.0}
FIRST_SEEK_NS = 10 * Gst.SECOND
SECOND_SEEK_NS = 20 * Gst.SECOND
SECOND_SEEK_FRAMES = 5
FRAMES_PER_STEP = 6
CHANNELS = ("red", "green", "blue", "luma")

PIPELINE = (
    f"openclmandelboxsrc name=src rotation-speed={ROTATION_SPEED} ! {CAPS} ! "
    f"openclbilateral name=bilateral sigma-spatial={SIGMA_SPATIAL} "
    f"sigma-range={SIGMA_RANGE_BEFORE} ! "
    f"openclhistogram name=histogram bins={BINS_BEFORE} ! {CAPS} ! "
    "appsink name=sink sync=false emit-signals=true")


def frame_time(n):
    """Timestamp of frame n of the stream, as the source computes it."""
    return Gst.util_uint64_scale(n, Gst.SECOND, FPS)


# ---- Reading the message (the same calls as docs/openclhistogram.md shows) ----

def histogram_from_message(message):
    """The fields of an opencl-histogram message as a dict, or None for other messages."""
    structure = message.get_structure()
    if message.type != Gst.MessageType.ELEMENT or not structure.has_name("opencl-histogram"):
        return None
    fields = {name: structure.get_value(name) for name in
              ("timestamp", "stream-time", "running-time", "duration", "frames", "bins")}
    for channel in CHANNELS:
        # A Gst.ValueArray (python3-gst-1.0's overrides); list() gives Python ints.
        fields[channel] = list(structure.get_value(channel))
    return fields


# ---- References ----

def histogram_reference(frame, bins):
    """Counts per channel of an RGBA frame (H x W x 4 uint8), as docs/openclhistogram.md
    defines them: luma (299 R + 587 G + 114 B + 500) / 1000 in integers, v to bin
    v x bins / 256."""
    rgb = frame[..., :3].astype(np.int64)
    luma = (299 * rgb[..., 0] + 587 * rgb[..., 1] + 114 * rgb[..., 2] + 500) // 1000
    planes = (rgb[..., 0], rgb[..., 1], rgb[..., 2], luma)
    return {name: np.bincount((plane * bins // 256).ravel(), minlength=bins).tolist()
            for name, plane in zip(CHANNELS, planes)}


def bilateral_reference(frame, sigma_spatial, sigma_range):
    """openclbilateral's definition (mode color, automatic radius) in float64, rounded."""
    radius = min(32, int(np.ceil(2 * sigma_spatial)))
    rgb = frame[..., :3].astype(np.float64)
    padded = np.pad(rgb, ((radius, radius), (radius, radius), (0, 0)), mode="edge")
    height, width = rgb.shape[:2]
    weighted = np.zeros_like(rgb)
    weights = np.zeros((height, width))
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            neighbour = padded[radius + dy:radius + dy + height, radius + dx:radius + dx + width]
            distance2 = ((neighbour - rgb) ** 2).sum(axis=2)
            weight = np.exp(-(dx * dx + dy * dy) / (2 * sigma_spatial ** 2)
                            - distance2 / (2 * sigma_range ** 2))
            weighted += weight[..., None] * neighbour
            weights += weight
    out = frame.copy()
    out[..., :3] = np.clip(np.floor(weighted / weights[..., None] + 0.5), 0, 255)
    return out


def frame_array(buffer, caps):
    """The RGBA pixels of a buffer as an H x W x 4 array (a copy), whatever its stride."""
    info = GstVideo.VideoInfo.new_from_caps(caps)
    ok, mapped = buffer.map(Gst.MapFlags.READ)
    if not ok:
        raise RuntimeError("cannot map a buffer")
    try:
        stride = info.stride[0]
        data = np.frombuffer(mapped.data, dtype=np.uint8, count=stride * info.height)
        rows = data.reshape(info.height, stride)[:, :info.width * 4]
        return rows.reshape(info.height, info.width, 4).copy()
    finally:
        buffer.unmap(mapped)


def render_still(properties):
    """One frame of the source with `properties` set from the start, not animated."""
    settings = " ".join(f"{name}={value}" for name, value in properties.items())
    pipeline = Gst.parse_launch(
        f"openclmandelboxsrc num-buffers=1 animate=false {settings} ! {CAPS} ! "
        "appsink name=sink sync=false")
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    sample = sink.emit("try-pull-sample", 60 * Gst.SECOND)
    pipeline.set_state(Gst.State.NULL)
    if sample is None:
        raise RuntimeError("the still was not rendered")
    return frame_array(sample.get_buffer(), sample.get_caps())


# ---- What the pipeline did ----

class Change:
    """A property change: frames delivered before it began must show the old value, frames
    that entered openclbilateral after it ended (after `settle` more) the new one."""

    def __init__(self, what, delivered_before, entered_after, settle):
        self.what = what
        self.delivered_before = delivered_before
        self.entered_after = entered_after
        self.settle = settle


class Recording:
    def __init__(self):
        self.cond = threading.Condition()
        self.entered = []         # timestamps in the order frames entered openclbilateral
        self.raw = {}             # timestamp -> the frame entering openclbilateral
        self.arrived = []         # timestamps in the order frames reached the appsink
        self.out = {}             # timestamp -> (frame, duration) at the appsink
        self.messages = []        # histogram_from_message () of each message, bus order
        self.changes = []
        self.errors = []
        self.eos = False
        self.finished = False     # the main loop has stopped: nothing more will come

    # Streaming thread.
    def on_enter(self, pad, info):
        buffer = info.get_buffer()
        frame = frame_array(buffer, pad.get_current_caps())
        with self.cond:
            self.entered.append(buffer.pts)
            self.raw[buffer.pts] = frame
            self.cond.notify_all()
        return Gst.PadProbeReturn.OK

    def on_sample(self, sink):
        sample = sink.emit("pull-sample")
        buffer = sample.get_buffer()
        frame = frame_array(buffer, sample.get_caps())
        with self.cond:
            self.arrived.append(buffer.pts)
            self.out[buffer.pts] = (frame, buffer.duration)
            self.cond.notify_all()
        return Gst.FlowReturn.OK

    # Control thread.
    def wait(self, predicate, what, timeout_s=30):
        with self.cond:
            if not self.cond.wait_for(lambda: predicate() or self.finished, timeout_s):
                raise RuntimeError(f"timed out waiting for {what}")
            if not predicate():
                raise RuntimeError(f"the stream stopped before {what}")

    def change(self, what, apply, settle=0):
        with self.cond:
            delivered_before = len(self.arrived)
        apply()
        with self.cond:
            record = Change(what, delivered_before, len(self.entered), settle)
            self.changes.append(record)
        return record

    def delivered_after(self, change):
        """How many frames that entered after `change` (and its settling) reached the sink."""
        later = self.entered[change.entered_after + change.settle:]
        return sum(1 for pts in later if pts in self.out)

    def delivered_from(self, start_ns):
        return sum(1 for pts in self.arrived if pts >= start_ns)


def control(pipeline, recording, loop):
    """The application's side: property changes and seeks while the pipeline plays."""
    src = pipeline.get_by_name("src")
    bilateral = pipeline.get_by_name("bilateral")
    histogram = pipeline.get_by_name("histogram")
    try:
        recording.wait(lambda: len(recording.arrived) >= FRAMES_PER_STEP, "the first frames")

        def filters():
            bilateral.set_property("sigma-range", SIGMA_RANGE_AFTER)
            histogram.set_property("bins", BINS_AFTER)
        change = recording.change("filters", filters)
        if bilateral.get_property("sigma-range") != SIGMA_RANGE_AFTER or \
                histogram.get_property("bins") != BINS_AFTER:
            raise RuntimeError("the filters do not read back the values just set")
        recording.wait(lambda: recording.delivered_after(change) >= FRAMES_PER_STEP,
                       "frames after the filters' change")

        if not pipeline.seek(1.0, Gst.Format.TIME, Gst.SeekFlags.FLUSH | Gst.SeekFlags.ACCURATE,
                             Gst.SeekType.SET, FIRST_SEEK_NS, Gst.SeekType.NONE, 0):
            raise RuntimeError("the first seek was refused")
        recording.wait(lambda: recording.delivered_from(FIRST_SEEK_NS) >= FRAMES_PER_STEP,
                       "frames after the first seek")

        def source():
            for name, value in STILL.items():
                src.set_property(name, value)
            src.set_property("animate", False)
        # The frame being rendered as the change ends may have begun before it.
        change = recording.change("source", source, settle=1)
        recording.wait(lambda: recording.delivered_after(change) >= FRAMES_PER_STEP,
                       "frames after the source's change")

        stop = SECOND_SEEK_NS + frame_time(SECOND_SEEK_FRAMES)
        if not pipeline.seek(1.0, Gst.Format.TIME, Gst.SeekFlags.FLUSH | Gst.SeekFlags.ACCURATE,
                             Gst.SeekType.SET, SECOND_SEEK_NS, Gst.SeekType.SET, stop):
            raise RuntimeError("the second seek was refused")
        # The stream ends at the stop position: the bus's EOS quits the loop.
    except Exception as error:  # noqa: BLE001 - reported as a failure of the run
        with recording.cond:
            recording.errors.append(f"control: {error}")
        GLib.idle_add(loop.quit)


def run_pipeline(timeout_s):
    recording = Recording()
    pipeline = Gst.parse_launch(PIPELINE)
    bilateral = pipeline.get_by_name("bilateral")
    bilateral.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, recording.on_enter)
    pipeline.get_by_name("sink").connect("new-sample", recording.on_sample)

    loop = GLib.MainLoop()

    def on_message(bus, message):
        if message.type == Gst.MessageType.ELEMENT:
            histogram = histogram_from_message(message)
            if histogram is not None:
                with recording.cond:
                    recording.messages.append(histogram)
        elif message.type == Gst.MessageType.ERROR:
            error, debug = message.parse_error()
            with recording.cond:
                recording.errors.append(f"{message.src.get_name()}: {error.message} ({debug})")
            loop.quit()
        elif message.type == Gst.MessageType.EOS:
            with recording.cond:
                recording.eos = True
            loop.quit()
        return True

    def on_timeout():
        with recording.cond:
            recording.errors.append(f"the run took longer than {timeout_s} s")
        loop.quit()
        return False

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    GLib.timeout_add_seconds(timeout_s, on_timeout)

    controller = threading.Thread(target=control, args=(pipeline, recording, loop))
    started = pipeline.set_state(Gst.State.PLAYING) != Gst.StateChangeReturn.FAILURE
    if started:
        controller.start()
        loop.run()
    else:
        recording.errors.append("the pipeline would not start")
    with recording.cond:
        recording.finished = True
        recording.cond.notify_all()
    if started:
        controller.join()
    pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    return recording


# ---- Checks ----

def segment_start(pts):
    if pts >= SECOND_SEEK_NS:
        return SECOND_SEEK_NS
    return FIRST_SEEK_NS if pts >= FIRST_SEEK_NS else 0


def one_switch(name, values, old, new, change, recording, failures):
    """`values` (timestamp -> value) in the order frames entered: old values, then new ones
    from one frame on; the frames delivered before the change old, those entered after it
    new."""
    order = [pts for pts in recording.entered if pts in values]
    sequence = [values[pts] for pts in order]
    for pts in order:
        if values[pts] not in (old, new):
            failures.append(f"{name}: frame at {pts} ns shows neither value ({values[pts]})")
            return
    first_new = next((i for i, value in enumerate(sequence) if value == new), len(sequence))
    if any(value != new for value in sequence[first_new:]):
        failures.append(f"{name}: the old value came back after the new one: {sequence}")
    for pts in recording.arrived[:change.delivered_before]:
        if pts in values and values[pts] != old:
            failures.append(f"{name}: frame at {pts} ns, done before the change, shows the new "
                            "value")
    for pts in recording.entered[change.entered_after + change.settle:]:
        if pts in values and values[pts] != new:
            failures.append(f"{name}: frame at {pts} ns, begun after the change, shows the old "
                            "value")
    if first_new == 0 or first_new == len(sequence):
        failures.append(f"{name}: no switch seen ({sequence.count(old)} frames old, "
                        f"{sequence.count(new)} new)")


def check_timestamps(recording, failures):
    arrived = recording.arrived
    if arrived != sorted(set(arrived)):
        failures.append(f"frames out of order or repeated (a frame from before a seek after it?): "
                        f"{arrived}")
    for start_ns, first_frame in ((0, 0), (FIRST_SEEK_NS, FPS * FIRST_SEEK_NS // Gst.SECOND),
                                  (SECOND_SEEK_NS, FPS * SECOND_SEEK_NS // Gst.SECOND)):
        segment = [pts for pts in arrived if segment_start(pts) == start_ns]
        expected = [frame_time(first_frame + i) for i in range(len(segment))]
        if not segment:
            failures.append(f"no frame from {start_ns} ns")
        elif segment != expected:
            failures.append(f"the segment from {start_ns} ns has timestamps {segment}, "
                            f"not {expected}")
        for i, pts in enumerate(segment):
            duration = recording.out[pts][1]
            if duration != frame_time(first_frame + i + 1) - frame_time(first_frame + i):
                failures.append(f"frame at {pts} ns lasts {duration} ns")
    last = [pts for pts in arrived if pts >= SECOND_SEEK_NS]
    if len(last) != SECOND_SEEK_FRAMES:
        failures.append(f"{len(last)} frames after the second seek, not {SECOND_SEEK_FRAMES} "
                        "(its stop)")


def check_messages(recording, failures):
    by_timestamp = {}
    for histogram in recording.messages:
        pts = histogram["timestamp"]
        if pts in by_timestamp:
            failures.append(f"two messages for the frame at {pts} ns")
        by_timestamp[pts] = histogram
    for pts, (frame, duration) in recording.out.items():
        histogram = by_timestamp.get(pts)
        if histogram is None:
            failures.append(f"no message for the frame at {pts} ns")
            continue
        bins = histogram["bins"]
        expected_fields = {"stream-time": pts, "running-time": pts - segment_start(pts),
                           "duration": duration, "frames": 1}
        for field, value in expected_fields.items():
            if histogram[field] != value:
                failures.append(f"message at {pts} ns: {field} {histogram[field]}, not {value}")
        reference = histogram_reference(frame, bins)
        for channel in CHANNELS:
            if histogram[channel] != reference[channel]:
                differing = sum(a != b for a, b in zip(histogram[channel], reference[channel]))
                failures.append(f"message at {pts} ns: {channel} ({bins} bins) differs from "
                                f"numpy in {differing} bins (or in length: "
                                f"{len(histogram[channel])})")
    # Frames flushed by a seek after openclhistogram counted them: only the last ones before it.
    for pts in by_timestamp:
        if pts in recording.out:
            continue
        same_segment = [p for p in recording.out if segment_start(p) == segment_start(pts)]
        if segment_start(pts) == SECOND_SEEK_NS or (same_segment and pts < max(same_segment)):
            failures.append(f"a message for the frame at {pts} ns, which never arrived")
    return {pts: histogram["bins"] for pts, histogram in by_timestamp.items()
            if pts in recording.out}


def check_bilateral(recording, change, failures):
    sigma = {}
    for pts, (frame, _) in recording.out.items():
        raw = recording.raw.get(pts)
        if raw is None:
            failures.append(f"the frame at {pts} ns never entered openclbilateral")
            continue
        matches = []
        for value in (SIGMA_RANGE_BEFORE, SIGMA_RANGE_AFTER):
            error = np.abs(frame.astype(int) -
                           bilateral_reference(raw, SIGMA_SPATIAL, value).astype(int)).max()
            if error <= 1:
                matches.append(value)
        if len(matches) != 1:
            failures.append(f"frame at {pts} ns: openclbilateral's output matches the reference "
                            f"with sigma-range {matches or 'neither'}")
            continue
        sigma[pts] = matches[0]
    one_switch("openclbilateral sigma-range", sigma, SIGMA_RANGE_BEFORE, SIGMA_RANGE_AFTER,
               change, recording, failures)


def check_source(recording, change, still, failures):
    is_still = {pts: bool(np.array_equal(frame, still)) for pts, frame in recording.raw.items()}
    one_switch("openclmandelboxsrc yaw/pitch/animate", is_still, False, True, change, recording,
               failures)
    animated = [pts for pts in recording.entered if not is_still[pts]]
    for before, after in zip(animated, animated[1:]):
        if np.array_equal(recording.raw[before], recording.raw[after]):
            failures.append(f"animated frames at {before} and {after} ns are the same")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=int, default=90, help="seconds before giving up")
    args = parser.parse_args()

    Gst.init(None)
    if not hasattr(Gst, "ValueArray"):
        print("PyGObject lacks GStreamer's overrides (python3-gst-1.0): GstValueArray fields "
              "cannot be read", file=sys.stderr)
        return 1
    for name in ("openclmandelboxsrc", "openclbilateral", "openclhistogram"):
        if Gst.ElementFactory.find(name) is None:
            print(f"no element {name}: is GST_PLUGIN_PATH set to the build's gst/?",
                  file=sys.stderr)
            return 1

    started = time.monotonic()
    still = render_still(STILL)
    recording = run_pipeline(args.timeout)
    played = time.monotonic() - started

    failures = list(recording.errors)
    if not recording.eos and not failures:
        failures.append("no EOS")
    if not failures:
        check_timestamps(recording, failures)
        bins = check_messages(recording, failures)
        filters, source = recording.changes
        one_switch("openclhistogram bins", bins, BINS_BEFORE, BINS_AFTER, filters, recording,
                   failures)
        check_bilateral(recording, filters, failures)
        check_source(recording, source, still, failures)

    print(f"{len(recording.out)} frames, {len(recording.messages)} messages, "
          f"ran in {played:.1f} s, checked in {time.monotonic() - started - played:.1f} s")
    for change in recording.changes:
        print(f"  {change.what} changed after {change.delivered_before} frames")
    if failures:
        for failure in failures:
            print(f"FAIL: {failure}", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
