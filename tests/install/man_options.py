#!/usr/bin/python3
"""The man pages and --help say the same: for qpt and each of its commands
(from `qpt --help`), the options a page's OPTIONS section lists (rendered
by man) are the options the command's --help lists, and qpt(1) lists the
commands `qpt --help` does.  -h/--help counts as listed everywhere.

Usage: man_options.py QPT MANDIR
       man_options.py --help-options QPT [CMD]   the options --help lists
"""
import os
import re
import subprocess
import sys

if sys.argv[1] == "--help-options":
    qpt, mandir = sys.argv[2], None
else:
    qpt, mandir = sys.argv[1:3]
OPT = re.compile(r"\[?(--?[A-Za-z][A-Za-z0-9-]*)")
# an option's argument: [=X], =X, [X] or a word in capitals (FILE, D[,A],
# SYM[+OFF], START,END, FILE@ADDR...)
ARG = re.compile(r"(?:\[=[^\]]*\]|=[^\s\[\]]+|\[[^\]]*\]| [A-Z][A-Za-z0-9_@.,+|]*(?:\[[^\]]*\])?)")


def options(line):
    """The options an option line begins with (up to its description)."""
    got, i, s = set(), 0, line.strip()
    while True:
        m = OPT.match(s, i)
        if not m:
            return got
        got.add(m.group(1))
        i = m.end()
        a = ARG.match(s, i)
        if a:
            i = a.end()
        if s.startswith("]", i):
            i += 1
        sep = re.compile(r",? ").match(s, i)
        if not sep:
            return got
        i = sep.end()


def help_options(cmd):
    out = subprocess.run([qpt] + cmd + ["--help"], capture_output=True,
                         text=True, check=True).stdout
    got = set()
    for line in out.splitlines():
        if re.match(r"^ {1,8}-", line):
            got |= options(line)
        elif re.match(r"^(usage: | +)qpt ", line):  # the synopsis
            got |= set(re.findall(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)", line))
    return got | {"-h", "--help"}


def page(name):
    env = dict(os.environ, MANWIDTH="200", MAN_KEEP_FORMATTING="0")
    path = os.path.join(mandir, "man1", name + ".1")
    if not os.path.exists(path):
        return None
    out = subprocess.run(["man", "-l", path], capture_output=True, text=True,
                         env=env, check=True).stdout
    return re.sub(r".\x08", "", out)  # no overstrike


def section(text, name):
    m = re.search(r"^%s\n(.*?)(?=^\S)" % name, text, re.S | re.M)
    return m.group(1) if m else ""


def page_options(text):
    got = set()
    for line in section(text, "OPTIONS").splitlines():
        if re.match(r"^ {7}-", line):
            got |= options(line)
    return got | {"-h", "--help"}


if mandir is None:
    print("\n".join(sorted(help_options(sys.argv[3:]))))
    sys.exit(0)
fail = 0
top = subprocess.run([qpt, "--help"], capture_output=True, text=True,
                     check=True).stdout
commands = re.findall(r"^  ([a-z]+) ", section(top + "\nend\n", "commands:"), re.M)
main = page("qpt")
if not commands or main is None:
    sys.exit("FAIL: no commands in qpt --help, or no qpt(1)")
listed = set(re.findall(r"^ {7}([a-z]+)$", section(main, "COMMANDS"), re.M))
if listed != set(commands):
    print("FAIL: qpt(1) lists the commands %s, qpt --help %s" %
          (sorted(listed), sorted(commands)))
    fail = 1
pages = [("qpt", [])] + [("qpt-" + c, [c]) for c in commands]
for name, cmd in pages:
    text = page(name)
    if text is None:
        print("FAIL: no page %s.1" % name)
        fail = 1
        continue
    want, got = help_options(cmd), page_options(text)
    if want != got:
        print("FAIL: %s: only in --help: %s; only in the page: %s" %
              (name, sorted(want - got), sorted(got - want)))
        fail = 1
    else:
        print("ok: %s: %d options" % (name, len(want)))
sys.exit(fail)
