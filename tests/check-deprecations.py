#!/usr/bin/env python3
"""Lists the deprecated API that the project's code calls, as the headers it builds against say.

GStreamer marks deprecated functions only when GST_DISABLE_DEPRECATED is defined, and the project
builds with -Wno-deprecated-declarations (the OpenCL C++ bindings wrap OpenCL 1.0/1.1 entry
points on purpose), so a normal build shows none. This recompiles every C++ file of a build
directory (its compile_commands.json) with -fsyntax-only, GST_DISABLE_DEPRECATED defined,
OpenCL's deprecated entry points allowed (CL_USE_DEPRECATED_OPENCL_1_x_APIS) and
-Wdeprecated-declarations on, and prints each distinct warning once. Exit status 1 when there is
any, or when a file does not compile (its errors are printed: a file that cannot be checked
is not clean). meson test runs it as `deprecations` on the build being tested.

    python3 tests/check-deprecations.py build            # Debian 12, GStreamer 1.22
    python3 tests/check-deprecations.py build-debian13   # inside the Debian 13 root (1.26)
"""
import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

EXTRA = ["-fsyntax-only", "-Wdeprecated-declarations", "-DGST_DISABLE_DEPRECATED",
         "-DCL_USE_DEPRECATED_OPENCL_1_0_APIS", "-DCL_USE_DEPRECATED_OPENCL_1_1_APIS",
         "-DCL_USE_DEPRECATED_OPENCL_1_2_APIS"]
WARNING = re.compile(r"^(?P<where>[^:\s]+:\d+):\d+: (?:warning|error): (?P<what>.*deprecated.*)$")


def syntax_check(entry):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    kept = []
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        if arg in ("-o", "-MF", "-MQ", "-MT"):
            skip_next = True
            continue
        if arg in ("-c", "-MD", "-Werror", "-Wno-deprecated-declarations") or \
                arg.startswith("-fdiagnostics-color"):
            continue
        kept.append(arg)
    result = subprocess.run(kept + EXTRA, cwd=entry["directory"], capture_output=True, text=True)
    found = []
    if result.returncode != 0:
        found.append(f"{entry['file']}: does not compile for the check:\n{result.stderr[-2000:]}")
    for line in result.stderr.splitlines():
        match = WARNING.match(line)
        if match:
            where = os.path.normpath(os.path.join(entry["directory"], match.group("where")))
            found.append(f"{os.path.relpath(where)}: {match.group('what')}")
    return found


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = [e for e in json.load(f) if e["file"].endswith(".cpp")]
    # One check per source file (the plugin and the tests compile some twice).
    unique = {}
    for entry in entries:
        unique.setdefault(os.path.normpath(os.path.join(entry["directory"], entry["file"])), entry)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        warnings = sorted({w for found in pool.map(syntax_check, unique.values()) for w in found})
    for warning in warnings:
        print(warning)
    print(f"{len(unique)} files checked, {len(warnings)} uses of deprecated API (or failures)")
    return 1 if warnings else 0


if __name__ == "__main__":
    sys.exit(main())
