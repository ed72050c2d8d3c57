#!/usr/bin/env python3
"""qpt crash's stack against gdb's backtrace of the same crash.

The program's own functions (NAMES: its defined text symbols, one a line)
on each stack, innermost first, are compared: gdb's backtrace of the
running program (GDB.txt) and of its core dump (CORE.txt, "-": none), and
qpt crash --json's "stack" (a frame marked "tail_call_from_sym" was
entered by a tail call from that function: gdb may or may not show that
one between it and its caller, from the call-site debug info).  A part
".cold", ".part.N"... of a function is the function (gdb names it so).

With KNOWN (the program's known call path, innermost first,
comma-separated), gdb is not trusted (a smashed stack): its functions
must be a strict prefix of KNOWN (its unwind stops or goes astray) and
qpt's must be KNOWN.

qpt's "unwound" stack (the stack bytes kept, unwound with libdw's CFI)
must be gdb's (without the tail callers gdb adds from call-site info),
and agree with the trace's ("unwound_agrees"), but with KNOWN, where
the two unwinds fail alike and "unwound_vs_trace" must say the stack was
overwritten.

Also checked, with EXPECT (comma-separated): "tail:F" the frame of F is
marked as entered by a tail call; "switched" the stack says control
switched to it; "signal" it holds a signal frame; "throw:F:TYPE" (or
"rethrow:F:") the last exception was thrown in F (of TYPE: its typeinfo
symbol) and caught in main; "longjmp:F:G" the last longjmp went from a
call in F to G (the program's source says each).

usage: unwind_vs_gdb.py NAME NAMES GDB.txt CORE.txt QPT.json [KNOWN|-]
       [EXPECT]
"""
import json
import re
import sys


def base(name):
    return name.split("@")[0].split(".")[0]


def gdb_funcs(path, names):
    """The program's functions of a gdb backtrace, innermost first."""
    out = []
    for line in open(path):
        m = re.match(r"#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+) \(", line)
        if m and m.group(1) == "0":  # the backtrace (a core's first
            out = []                 # frame is shown once before it)
        if m and base(m.group(2)) in names:
            out.append(base(m.group(2)))
    return out


def qpt_funcs(stack, names):
    """(function, optional) pairs: the frames' functions and, after a
    frame entered by a tail call, the function that made it (optional)."""
    out = []
    for f in stack:
        fn = base(f.get("sym", "").split("+")[0])
        if fn in names:
            out.append((fn, False))
        tail = base(f.get("tail_call_from_sym", "").split("+")[0])
        if tail in names:
            out.append((tail, True))
    return out


def matches(q, g):
    """Whether g is q with some optional entries left out."""
    if not q:
        return not g
    (fn, opt) = q[0]
    if g and g[0] == fn and matches(q[1:], g[1:]):
        return True
    return opt and matches(q[1:], g)


def main():
    name, names_path, gdb_path, core_path, js_path = sys.argv[1:6]
    known = sys.argv[6].split(",") if len(sys.argv) > 6 and \
        sys.argv[6] != "-" else None
    expect = sys.argv[7].split(",") if len(sys.argv) > 7 and sys.argv[7] \
        else []
    names = {base(l.strip()) for l in open(names_path) if l.strip()}
    j = json.load(open(js_path))
    q = qpt_funcs(j["stack"], names)
    shown = " <- ".join(fn + ("?" if opt else "") for fn, opt in q)
    ok = True
    oracles = [("gdb", gdb_path)] + ([("core", core_path)]
                                      if core_path != "-" else [])
    for what, path in oracles:
        g = gdb_funcs(path, names)
        if known:
            if not (len(g) < len(known) and g == known[:len(g)]):
                print("FAIL: %s: %s's stack %s is no prefix of the known "
                      "path %s (is it right after all?)" % (name, what, g,
                                                            known))
                ok = False
            continue
        if not g or not matches(q, g):
            print("FAIL: %s: qpt %s, %s %s" % (name, shown, what,
                                               " <- ".join(g)))
            ok = False
    # the second opinion: the stack copy unwound with libdw's CFI, as
    # gdb unwinds (but for the tail callers gdb adds from call-site info)
    tails = {fn for fn, opt in q if opt}
    u = [fn for fn in (base(f.get("sym", "").split("+")[0])
                       for f in j.get("unwound", [])) if fn in names]
    g = [fn for fn in gdb_funcs(gdb_path, names) if fn not in tails]
    if u != [fn for fn in u if fn not in tails] or u != g:
        print("FAIL: %s: unwound %s, gdb %s" % (name, " <- ".join(u),
                                               " <- ".join(g)))
        ok = False
    agrees = j.get("unwound_agrees")
    why = j.get("unwound_vs_trace", {}).get("why", "")
    if known and (agrees or "overwritten" not in why):
        print("FAIL: %s: the unwind does not tell an overwritten stack: "
              "%s" % (name, why))
        ok = False
    if not known and not agrees:
        print("FAIL: %s: the unwind disagrees: %s" % (name, why))
        ok = False
    if known and not matches(q, known):
        print("FAIL: %s: qpt %s, the known path %s" % (name, shown,
                                                      " <- ".join(known)))
        ok = False
    for e in expect:
        if e.startswith("tail:"):
            fn = e[5:]
            if not any(base(f.get("sym", "").split("+")[0]) == fn and
                       "tail_call_from" in f for f in j["stack"]):
                print("FAIL: %s: %s is not marked as entered by a tail "
                      "call" % (name, fn))
                ok = False
        elif e == "switched" and "switched_from" not in j:
            print("FAIL: %s: the stack does not say it was switched to"
                  % name)
            ok = False
        elif e == "signal" and not any(f.get("signal_frame")
                                       for f in j["stack"]):
            print("FAIL: %s: no signal frame" % name)
            ok = False
        elif e.startswith("throw:") or e.startswith("rethrow:"):
            what, fn, typ = (e.split(":") + [""])[:3]
            t = j.get("last_throw", {})
            got = (base(t.get("sym", "").split("+")[0]), t.get("rethrow"),
                   t.get("type", ""),
                   base(t.get("caught_sym", "-").split("+")[0]))
            if got != (fn, what == "rethrow", typ, "main"):
                print("FAIL: %s: last throw %s, want %s" % (
                    name, got, (fn, what == "rethrow", typ, "main")))
                ok = False
        elif e.startswith("longjmp:"):
            _, src, dst = e.split(":")
            lj = j.get("last_longjmp", {})
            got = (base(lj.get("from_sym", "").split("+")[0]),
                   base(lj.get("to_sym", "").split("+")[0]))
            if got != (src, dst):
                print("FAIL: %s: last longjmp %s, want %s" % (
                    name, got, (src, dst)))
                ok = False
    if ok:
        print("%s: ok: %s" % (name, shown))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
