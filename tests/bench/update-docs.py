#!/usr/bin/env python3
# gst-opencl: regenerates the generated parts of docs/performance.md from the results folders.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# usage: tests/bench/update-docs.py [--no-plots] [docs/performance.md]
#
# Every block between
#   <!-- report RESULTS_DIR TAG -->
#   <!-- end report -->
# is replaced by the output of `tests/bench/report.py RESULTS_DIR` followed by links to the plots
# `docs/images/perf-<benchmark>-TAG.png` that tests/bench/plot.py draws from the same folder
# (redrawn first unless --no-plots). A folder that does not exist yet gives a line saying so and
# the command that fills it (tests/bench/README.md).
import pathlib
import re
import subprocess
import sys

BLOCK = re.compile(r"(<!-- report (\S+) (\S+) -->\n)(.*?)(<!-- end report -->)", re.S)


def main(argv):
    plots = "--no-plots" not in argv
    args = [a for a in argv if a != "--no-plots"]
    here = pathlib.Path(__file__).resolve().parent
    root = here.parent.parent
    doc = pathlib.Path(args[0]) if args else root / "docs" / "performance.md"
    text = doc.read_text()

    def replace(match):
        start, folder, tag, _, end = match.groups()
        path = root / folder
        if not path.is_dir():
            body = (f"*Not measured yet: `{folder}` does not exist. Make it with "
                    f"`tests/bench/run-all.sh` as `tests/bench/README.md` says, then run "
                    f"`tests/bench/update-docs.py`.*\n\n")
            return start + body + end
        report = subprocess.run([sys.executable, str(here / "report.py"), str(path)],
                                capture_output=True, text=True, check=True).stdout
        # Headings of the report one level below the document's.
        report = report.replace("### Run", "#### Run")
        if plots:
            subprocess.run([sys.executable, str(here / "plot.py"), "--install", "--out",
                            str(root / "docs" / "images"), f"{path}:{tag}"], check=True,
                           cwd=root)
        images = sorted((root / "docs" / "images").glob(f"perf-*-{tag}.png"))
        links = "".join(f"![{image.stem}](images/{image.name})\n" for image in images)
        return start + report + ("\n" + links + "\n" if links else "") + end

    doc.write_text(BLOCK.sub(replace, text))
    print(f"updated {doc}")


if __name__ == "__main__":
    main(sys.argv[1:])
