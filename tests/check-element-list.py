#!/usr/bin/env python3
"""The list of elements (gst/elements/meson.build) against the plugin's factories in the registry.

meson test runs it as `element-list`, with the build's plugin in GST_PLUGIN_PATH:

    check-element-list.py SOURCE_ROOT TEST_RELIABILITY NAME...

NAME: the elements of the list. It prints every problem and exits with status 1 when there is
any:
- an element of the list that the registry's plugin "opencl" lacks, or a factory of the plugin
  that the list lacks;
- a factory of the plugin without
  - a row in tests/test_reliability.cpp's table (`TEST_RELIABILITY --list` prints the plugin's
    elements in its rows' launch fragments),
  - a docs page: docs/<name>.md, or the page of elements documented together, whose title names
    them all ("# openclkernel, openclkernelsrc"),
  - a row in README.md's table of elements: its first cell names the element in backquotes, and
    the row links to the element's docs page,
  - a script in pipelines/ that uses it: its name as a word on a line that is not a comment.
"""
import os
import re
import subprocess
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

PLUGIN = "opencl"


def registry_factories():
    """The names of the plugin's element factories; None when the plugin is not found."""
    registry = Gst.Registry.get()
    if registry.find_plugin(PLUGIN) is None:
        return None
    return sorted(feature.get_name() for feature in registry.get_feature_list_by_plugin(PLUGIN)
                  if isinstance(feature, Gst.ElementFactory))


def reliability_elements(binary, problems):
    """The elements the reliability table covers, as `test_reliability --list` prints them."""
    run = subprocess.run([binary, "--list"], capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        problems.append("%s --list failed (status %d): %s" % (
            binary, run.returncode, run.stderr.strip()))
    return set(run.stdout.split())


def docs_page(root, name):
    """docs/<name>.md, or the docs page whose title names the element among others; None."""
    own = os.path.join("docs", name + ".md")
    if os.path.isfile(os.path.join(root, own)):
        return own
    docs = os.path.join(root, "docs")
    for page in sorted(os.listdir(docs)):
        if not page.endswith(".md"):
            continue
        with open(os.path.join(docs, page), encoding="utf-8") as text:
            title = text.readline()
        if title.startswith("# ") and name in re.findall(r"[\w-]+", title[2:]):
            return os.path.join("docs", page)
    return None


def readme_rows(root):
    """README.md's table of elements (the table whose header starts "| element |"): for each row,
    the element names of its first cell and the targets of its links."""
    rows = []
    in_table = False
    with open(os.path.join(root, "README.md"), encoding="utf-8") as text:
        for line in text:
            if line.startswith("| element |"):
                in_table = True
                continue
            if not in_table:
                continue
            if not line.startswith("|"):
                break
            cells = line.split("|")
            if set(cells[1].strip()) <= set("- "):
                continue  # the separator row
            rows.append((set(re.findall(r"`([^`]+)`", cells[1])),
                         set(re.findall(r"\]\(([^)#]+)", line))))
    return rows


def pipeline_scripts(root, name):
    """The scripts in pipelines/ with the element's name as a word on a line not a comment."""
    word = re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])")
    found = []
    folder = os.path.join(root, "pipelines")
    for script in sorted(os.listdir(folder)):
        path = os.path.join(folder, script)
        if not os.path.isfile(path) or not script.endswith((".sh", ".py")):
            continue
        with open(path, encoding="utf-8") as text:
            if any(word.search(line) and not line.lstrip().startswith("#") for line in text):
                found.append(script)
    return found


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    root, reliability_binary, listed = sys.argv[1], sys.argv[2], sys.argv[3:]
    Gst.init(None)
    problems = []

    factories = registry_factories()
    if factories is None:
        print("FAIL: the registry has no plugin \"%s\" (GST_PLUGIN_PATH=%s)" % (
            PLUGIN, os.environ.get("GST_PLUGIN_PATH", "unset")))
        return 1
    for name in sorted(set(n for n in listed if listed.count(n) > 1)):
        problems.append("%s: twice in the list of elements (gst/elements/meson.build)" % name)
    for name in listed:
        if name not in factories:
            problems.append("%s: in the list of elements (gst/elements/meson.build), not in the "
                            "registry's plugin \"%s\"" % (name, PLUGIN))
    for name in factories:
        if name not in listed:
            problems.append("%s: a factory of the plugin \"%s\", not in the list of elements "
                            "(gst/elements/meson.build)" % (name, PLUGIN))

    covered = reliability_elements(reliability_binary, problems)
    rows = readme_rows(root)
    for name in factories:
        if name not in covered:
            problems.append("%s: no row in the reliability table (tests/test_reliability.cpp, "
                            "rows ())" % name)
        page = docs_page(root, name)
        if page is None:
            problems.append("%s: no docs page (docs/%s.md, or a page whose title names it)" % (
                name, name))
        named = [links for names, links in rows if name in names]
        if not named:
            problems.append("%s: no row in README.md's table of elements" % name)
        elif page is not None and not any(page in links for links in named):
            problems.append("%s: its README.md row does not link to %s" % (name, page))
        scripts = pipeline_scripts(root, name)
        if not scripts:
            problems.append("%s: no script in pipelines/ uses it" % name)
        print("%-20s reliability row %-3s  docs %-30s  pipelines %s" % (
            name, "yes" if name in covered else "no", page or "none",
            ", ".join(scripts) or "none"))

    for problem in problems:
        print("FAIL: " + problem)
    print("%d elements in the list, %d in the registry: %s" % (
        len(listed), len(factories),
        "%d problem%s" % (len(problems), "" if len(problems) == 1 else "s") if problems else "each with its reliability row, docs "
        "page, README row and pipeline script"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
