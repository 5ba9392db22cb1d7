#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Usage: tools/cover-letter.py [--help] extract COVER.patch
       tools/cover-letter.py [--help] notes PATCH

extract: print the subject (without the [PATCH ...] prefix), a blank line and the
body of a 'git format-patch --cover-letter' file: the text tools/export-series
feeds back to format-patch as the branch description.  The shortlog, diffstat
and signature that format-patch generates are dropped.

notes: print the note 'git format-patch --notes' put below the '---' line
of PATCH (what tools/apply-series attaches again with 'git notes'), or
nothing if it has none.
"""
import os
import re
import sys
sys.dont_write_bytecode = True  # nothing left in tools/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import operands, usage_error  # noqa: E402


def extract(text):
    head, sep, body = text.partition("\n\n")
    if not sep:
        raise ValueError("no header/body separator")
    subject = None
    lines = head.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Subject:"):
            subject = line[len("Subject:"):].strip()
            for cont in lines[i + 1:]:
                if not cont[:1].isspace():
                    break
                subject += " " + cont.strip()
    if subject is None:
        raise ValueError("no Subject: header")
    subject = re.sub(r"^\[[^\]]*\]\s*", "", subject)
    out = body.split("\n")
    # The generated part starts at the last shortlog header 'Name (N):'.
    cut = None
    for i, line in enumerate(out):
        if re.match(r"^\S.*\(\d+\):$", line) and i + 1 < len(out) \
                and out[i + 1].startswith("  "):
            cut = i
    if cut is None:
        raise ValueError("no shortlog found")
    text = "\n".join(out[:cut]).rstrip("\n")
    return subject + "\n\n" + text + "\n"


def notes(text):
    """The 'Notes:' block between the first '---' line and the diffstat."""
    lines = text.split("\n")
    try:
        i = lines.index("---")
    except ValueError:
        return ""
    if i + 2 >= len(lines) or lines[i + 1] != "" or lines[i + 2] != "Notes:":
        return ""
    out = []
    for line in lines[i + 3:]:
        if line.startswith("    "):
            out.append(line[4:])
        elif line == "":
            out.append("")
        else:
            break
    return "\n".join(out).strip("\n") + "\n" if any(out) else ""


def main(argv):
    args = operands(argv, __doc__)
    if isinstance(args, int):
        return args
    if not args:
        return usage_error("missing command (extract or notes)")
    if args[0] not in ("extract", "notes"):
        return usage_error("unknown command '%s' (extract or notes)" % args[0])
    if len(args) != 2:
        return usage_error("%s takes one file, got %d" % (args[0], len(args) - 1))
    cmd, path = args
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        sys.stdout.write(notes(text) if cmd == "notes" else extract(text))
    except (OSError, ValueError) as e:
        sys.stderr.write("cover-letter.py: %s: %s\n" % (path, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
