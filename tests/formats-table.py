#!/usr/bin/env python3
"""gst-opencl: prints the README's formats table (element x format x memory) from the elements'
pad templates, as the registry has them, so the table says what the elements take and give.

usage: GST_PLUGIN_PATH=build/gst tests/formats-table.py [--check README.md]
  --check FILE: exit 1 when FILE's table (between the markers <!-- formats-table --> and
  <!-- /formats-table -->) differs from the one printed.
SPDX-License-Identifier: LGPL-2.1-or-later"""
import re
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

FORMATS = ["RGBA", "BGRA", "RGBx", "BGRx", "GRAY8", "NV12", "I420", "P010_10LE", "GRAY16_LE",
           "RGBA64_LE"]
MEMORIES = [("", "S"), ("memory:OpenCLMemory", "O"), ("memory:CUDAMemory", "C"),
            ("memory:GLMemory", "G")]
ELEMENTS = ["openclbilateral", "openclconvolve3d", "openclhistogram", "openclsort",
            "openclmulticonvolve", "openclkernel", "openclconvertscale", "openclupload",
            "opencldownload", "openclmandelboxsrc", "openclkernelsrc"]


def formats_of(caps):
    """{memory feature: set of formats} of video/x-raw structures. Read from the caps' text:
    GStreamer 1.26's Python overrides wrap structures in an object without 1.22's getters."""
    found = {}
    for part in caps.to_string().split(";"):
        part = part.strip()
        head = part.split(",", 1)[0].strip()
        if not head.startswith("video/x-raw"):
            continue
        memory = ""
        for feature, _ in MEMORIES[1:]:
            if "(" + feature + ")" in head.replace(" ", ""):
                memory = feature
        match = re.search(r"format=\(string\)(\{[^}]*\}|[A-Za-z0-9_]+)", part)
        if not match:
            continue
        values = [v.strip() for v in match.group(1).strip("{}").split(",") if v.strip()]
        found.setdefault(memory, set()).update(values)
    return found


def table():
    lines = ["| element | " + " | ".join(f.replace("_10LE", "").replace("_LE", "")
                                         for f in FORMATS) + " |",
             "| --- |" + " --- |" * len(FORMATS)]
    for name in ELEMENTS:
        factory = Gst.ElementFactory.find(name)
        if factory is None:
            sys.exit("no element %s (GST_PLUGIN_PATH?)" % name)
        per_pad = []
        for template in factory.get_static_pad_templates():
            if template.direction == Gst.PadDirection.SINK or name.endswith("src"):
                per_pad.append(formats_of(template.get_caps()))
        cells = []
        for fmt in FORMATS:
            letters = ""
            for feature, letter in MEMORIES:
                if any(fmt in pad.get(feature, ()) for pad in per_pad):
                    letters += letter
            cells.append(letters or "-")
        lines.append("| `%s` | %s |" % (name, " | ".join(cells)))
    return "\n".join(lines) + "\n"


def main():
    Gst.init(None)
    text = table()
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        readme = open(sys.argv[2]).read()
        start = readme.find("<!-- formats-table -->")
        end = readme.find("<!-- /formats-table -->")
        if start < 0 or end < 0:
            sys.exit("%s has no formats table markers" % sys.argv[2])
        current = readme[start + len("<!-- formats-table -->"):end].strip() + "\n"
        if current != text:
            print("the formats table of %s differs from the elements' templates:\n%s" %
                  (sys.argv[2], text))
            sys.exit(1)
        print("the formats table matches the elements' pad templates")
        return
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
