# SPDX-License-Identifier: GPL-2.0
"""Command-line handling shared by the project's Python tools."""
import os
import sys


def usage_error(msg):
    """Print one line naming the tool and --help; the exit status 2."""
    sys.stderr.write("%s: error: %s (see --help)\n"
                     % (os.path.basename(sys.argv[0]), msg))
    return 2


def operands(argv, doc):
    """The operands of argv (everything after '--' is one), or an exit
    status: --help prints doc and gives 0, an unknown option gives 2."""
    args, opts = [], True
    for a in argv[1:]:
        if opts and a == "--":
            opts = False
        elif opts and a in ("-h", "--help"):
            sys.stdout.write(doc.rstrip("\n") + "\n")
            return 0
        elif opts and a.startswith("-") and a != "-":
            return usage_error("unknown option '%s'" % a)
        else:
            args.append(a)
    return args
