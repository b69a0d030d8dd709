#!/usr/bin/env python3
# gst-opencl: usage: tests/input-selector-switch.py "<elements>" (with GST_PLUGIN_PATH set).
# SPDX-License-Identifier: LGPL-2.1-or-later
# The hostile user's switching pipeline: three live sources of different formats and sizes into an
# input-selector switched every 0.5 s, then the element(s); exit 0 when it ran 6 s with no error.
import gi, sys
gi.require_version('Gst', '1.0')
from gi.repository import Gst, GLib
Gst.init(None)
chain = sys.argv[1]
p = Gst.parse_launch(
    "input-selector name=s ! " + chain + " ! fakesink sync=true "
    "videotestsrc is-live=true pattern=ball ! video/x-raw,format=RGBA,width=320,height=240,framerate=30/1 ! s. "
    "videotestsrc is-live=true pattern=snow ! video/x-raw,format=GRAY8,width=160,height=120,framerate=30/1 ! s. "
    "videotestsrc is-live=true ! video/x-raw,format=BGRx,width=200,height=150,framerate=30/1 ! s.")
sel = p.get_by_name("s")
pads = [pad for pad in sel.pads if pad.get_direction() == Gst.PadDirection.SINK]
loop = GLib.MainLoop()
state = {"n": 0, "err": None}
def switch():
    state["n"] += 1
    sel.set_property("active-pad", pads[state["n"] % len(pads)])
    return True
def on_msg(bus, msg):
    if msg.type == Gst.MessageType.ERROR:
        state["err"] = msg.parse_error()[0].message
        loop.quit()
bus = p.get_bus(); bus.add_signal_watch(); bus.connect("message", on_msg)
p.set_state(Gst.State.PLAYING)
GLib.timeout_add(500, switch)
GLib.timeout_add(6000, loop.quit)
loop.run()
p.set_state(Gst.State.NULL)
print("switches", state["n"], "error:", state["err"])
sys.exit(1 if state["err"] else 0)
