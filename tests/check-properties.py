#!/usr/bin/env python3
# gst-opencl: every property of the plugin is declared one way, as a row of its class's
# gst_opencl::PropertyTable (docs/design.md, "One way to declare a property"): no file of gst/
# but gstopenclproperties installs a property, sets a class's set_property or get_property, or
# switches over property ids. Exits 1 naming each place that does.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/check-properties.py SOURCE_ROOT
import pathlib
import re
import sys

ALLOWED = {"gst/opencl/gstopenclproperties.h", "gst/opencl/gstopenclproperties.cpp"}
FORBIDDEN = [
    (re.compile(r"\bg_object_class_install_propert(y|ies)\b"), "installs a property itself"),
    (re.compile(r"->\s*(set|get)_property\s*="), "sets the class's set_property/get_property"),
    (re.compile(r"\bG_OBJECT_WARN_INVALID_PROPERTY_ID\b"), "switches over property ids"),
    (re.compile(r"\bcase\s+PROP_\w+\s*:"), "switches over property ids"),
]


def main():
    if len(sys.argv) != 2:
        print(__doc__ or "usage: check-properties.py SOURCE_ROOT", file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1])
    found = []
    files = sorted(p for p in (root / "gst").rglob("*") if p.suffix in (".h", ".cpp", ".c"))
    for path in files:
        rel = path.relative_to(root).as_posix()
        if rel in ALLOWED:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            code = line.split("//")[0]
            for pattern, why in FORBIDDEN:
                if pattern.search(code):
                    found.append(f"{rel}:{number}: {why}: {line.strip()}")
    for line in found:
        print(line)
    print(f"{len(files)} files read, {len(found)} places declare properties outside "
          "gst_opencl::PropertyTable")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
