#!/usr/bin/env python3
"""The include graph of gst/: no cycle between rooms, and every include goes down the layers.

A room is a file pair of gst/opencl/ (gstopenclfoo.h and gstopenclfoo.cpp), or one header alone;
the elements of gst/elements/ and gst/plugin.cpp are the top layer. The layers, bottom first, are
the table under "## Layers" in docs/design.md: each row names a layer and its rooms. A room may
include rooms of its own layer and of the layers below it; among the rooms of one layer the
includes must still form no cycle. A room of gst/opencl/ missing from the table fails, so the
table stays whole.

Usage: check-includes.py <source root>. Prints every violation and exits 1 when there is one."""
import os
import re
import sys


def read_layers(design):
    layers = {}
    in_section = False
    index = 0
    with open(design, encoding="utf-8") as text:
        for line in text:
            if line.startswith("## "):
                in_section = line.strip() == "## Layers"
                continue
            if not in_section or not line.startswith("|") or line.startswith("| ---"):
                continue
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) < 2 or cells[0] in ("layer", ""):
                continue
            for room in re.findall(r"`([a-z0-9_]+)(?:\.h)?`", cells[1]):
                layers[room] = index
            index += 1
    return layers


def room_of(path):
    return os.path.splitext(os.path.basename(path))[0]


def main():
    root = sys.argv[1]
    layers = read_layers(os.path.join(root, "docs", "design.md"))
    if not layers:
        print("check-includes: no '## Layers' table in docs/design.md")
        return 1
    top = max(layers.values()) + 1
    edges = {}
    problems = []
    layer_dir = os.path.join(root, "gst", "opencl")
    for directory, is_layer in ((layer_dir, True), (os.path.join(root, "gst", "elements"), False),
                                (os.path.join(root, "gst"), False)):
        for name in sorted(os.listdir(directory)):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(directory, name)
            room = room_of(name) if is_layer else "elements/" + name
            if is_layer and room not in layers:
                problems.append(f"gst/opencl/{name}: its room '{room}' is in no layer of "
                                "docs/design.md's '## Layers'")
                continue
            level = layers[room] if is_layer else top
            with open(path, encoding="utf-8") as text:
                for number, line in enumerate(text, 1):
                    match = re.match(r'\s*#\s*include\s+"(?:opencl/)?(gstopencl[a-z0-9_]*)\.h"', line)
                    if not match:
                        continue
                    target = match.group(1)
                    if target not in layers:
                        continue  # an element's own header, or a generated one
                    if target == room:
                        continue
                    if layers[target] > level:
                        problems.append(f"{os.path.relpath(path, root)}:{number}: includes "
                                        f"{target}.h, a layer above it (layer {layers[target]} "
                                        f"over {level})")
                    if is_layer:
                        edges.setdefault(room, set()).add(target)
    # Cycles between rooms of gst/opencl/ (depth-first search, each cycle reported once).
    state = {}
    stack = []
    cycles = set()

    def visit(room):
        state[room] = 1
        stack.append(room)
        for target in sorted(edges.get(room, ())):
            if state.get(target) == 1:
                cycle = stack[stack.index(target):] + [target]
                cycles.add(" -> ".join(cycle))
            elif not state.get(target):
                visit(target)
        stack.pop()
        state[room] = 2

    for room in sorted(edges):
        if not state.get(room):
            visit(room)
    problems += [f"an include cycle: {cycle}" for cycle in sorted(cycles)]
    for problem in problems:
        print("check-includes: " + problem)
    rooms = len({room_of(n) for n in os.listdir(layer_dir) if n.endswith((".h", ".cpp"))})
    print(f"check-includes: {rooms} rooms in {top} layers, "
          f"{sum(len(t) for t in edges.values())} includes between rooms, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
