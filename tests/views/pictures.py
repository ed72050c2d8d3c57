#!/usr/bin/python3
"""Check qpt's pictures of a call flow against qpt decode's own views.

  --calls FILE   qpt decode --calls --json: the oracle of the calls; a
                 call's stack is the call sites' functions of the calls
                 around it ("sym"), then its own, then its target
                 ("to_sym"); its depth is the call's "depth"
  --stats FILE   qpt decode --stats --json: instructions per function
  --folded FILE  qpt flame --format=folded: each function's instructions
                 equal --stats's; every stack's calls are --calls's
  --svg FILE     qpt flame: every frame's instructions are the folded
                 stacks' under it and its calls --calls's; no frame wide
                 enough is left out
  --chrome FILE  qpt decode --format=chrome-trace, held to --schema (with
                 python3-jsonschema); its slices are --calls's calls, by
                 thread, name (where the call's target has a symbol) and
                 nesting depth, and they nest; the slices at each depth
                 last (in instructions) as long as the folded stacks deeper
  --png FILE     a screenshot of the SVG: not blank
Prints what was checked; exits 1 on the first difference.
"""
import argparse
import collections
import json
import re
import sys
import xml.etree.ElementTree as ET

MIN_WIDTH = 0.1  # pixels: flame_svg.c leaves narrower frames out


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def func(s):
    """A symbol+offset as the function's name; none: [unknown]."""
    return re.sub(r"\+0x[0-9a-f]+$", "", s) if s else "[unknown]"


def read_calls(path):
    """Calls per stack (tid, f0, ..., callee) and per (tid, callee, depth)."""
    by_stack = collections.Counter()
    by_depth = collections.Counter()
    sites = collections.defaultdict(list)  # tid -> the call sites' functions
    for line in open(path):
        o = json.loads(line)
        tid = o.get("tid")
        if "entry" in o:
            d = o["depth"]
            s = sites[tid][:d] + [func(o.get("sym"))]
            sites[tid] = s
            by_stack[(tid,) + tuple(s) + (func(o.get("to_sym")),)] += 1
            by_depth[(tid, func(o["to_sym"]) if "to_sym" in o else None, d)] += 1
    if not by_stack:
        fail("%s: no calls" % path)
    return by_stack, by_depth


def read_folded(path):
    stacks = {}
    for line in open(path):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        frames = stack.split(";")
        tid = int(frames[0].split("/")[1])
        key = (tid,) + tuple(frames[1:])
        if key in stacks:
            fail("%s: stack %s twice" % (path, stack))
        stacks[key] = int(n)
    return stacks


def check_folded(stacks, stats):
    want = collections.Counter()  # by name (strcmp: ld.so's and libc's)
    for line in open(stats):
        o = json.loads(line)
        if o["stats"] == "function" and o.get("name"):
            want[o["name"]] += o["insns"]
        if o["stats"] == "total":
            total = o["insns"]
    got = collections.Counter()
    for key, n in stacks.items():
        got[key[-1]] += n
    if sum(got.values()) != total:
        fail("folded: %d instructions, --stats: %d" % (sum(got.values()), total))
    for name, n in want.items():
        if got[name] != n:
            fail("folded: %s has %d instructions, --stats: %d" % (name, got[name], n))
    print("ok: folded stacks: %d instructions in %d functions as --stats" %
          (total, len(want)))


def svg_frames(path):
    """Each frame: (level, x, width, name, instructions, calls)."""
    ns = {"s": "http://www.w3.org/2000/svg"}
    frames = []
    title = re.compile(r"^(.*) \((\d+) instructions?, [0-9.]+%(?:, (\d+) calls?)?\)$")
    for g in ET.parse(path).getroot().iterfind("s:g", ns):
        m = title.match(g.find("s:title", ns).text)
        r = g.find("s:rect", ns)
        frames.append((float(r.get("y")), float(r.get("x")), float(r.get("width")),
                       m.group(1), int(m.group(2)), int(m.group(3) or 0)))
    ys = sorted({f[0] for f in frames}, reverse=True)
    return [(ys.index(f[0]),) + f[1:] for f in frames]


def check_svg(path, stacks, calls):
    """Rebuild each frame's stack from where it is drawn (a frame sits on
    the one below whose extent holds its own)."""
    frames = sorted(svg_frames(path))
    if not frames or frames[0][3] != "all":
        fail("%s: no root frame" % path)
    total = frames[0][4]
    scale = frames[0][2] / total
    below = collections.Counter()  # instructions under each stack prefix
    for key, n in stacks.items():
        for i in range(1, len(key) + 1):
            below[key[:i]] += n
    drawn = {0: [(frames[0], ())]}
    seen = set()
    for f in frames[1:]:
        level, x, w, name = f[0], f[1], f[2], f[3]
        up = [p for p in drawn.get(level - 1, [])
              if p[0][1] - 0.002 <= x and x + w <= p[0][1] + p[0][2] + 0.002]
        if len(up) != 1:
            fail("%s: frame %s at level %d sits on %d frames" % (path, name, level, len(up)))
        if level == 1:
            stack = (int(name.split("/")[1]),)
        else:
            stack = up[0][1] + (name,)
        drawn.setdefault(level, []).append((f, stack))
        seen.add(stack)
        if f[4] != below[stack]:
            fail("%s: %s: %d instructions, the folded stacks: %d" %
                 (path, ";".join(map(str, stack)), f[4], below[stack]))
        if level > 1 and f[5] != calls.get(stack, 0):
            fail("%s: %s: %d calls, --calls: %d" %
                 (path, ";".join(map(str, stack)), f[5], calls.get(stack, 0)))
    for stack, n in below.items():
        if n * scale >= MIN_WIDTH + 0.001 and stack not in seen:
            fail("%s: %s (%d instructions) is not drawn" % (path, stack, n))
    for stack, n in calls.items():
        if below[stack] * scale >= MIN_WIDTH + 0.001 and stack not in seen:
            fail("%s: called stack %s is not drawn" % (path, stack))
    print("ok: %s: %d frames, their instructions and calls as the folded "
          "stacks and --calls" % (path, len(frames)))


def by_tid_depth(c):
    r = collections.Counter()
    for (tid, _, depth), n in c.items():
        r[(tid, depth)] += n
    return r


def check_chrome(path, schema, by_depth, stacks):
    import jsonschema
    trace = json.load(open(path))
    jsonschema.validate(trace, json.load(open(schema)))
    slices = collections.defaultdict(list)
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            slices[e["tid"]].append((e["ts"], -e["dur"], e["name"]))
    got = collections.Counter()
    dur = collections.Counter()  # (tid, depth): the slices' instructions
    for tid, ss in slices.items():
        open_ends = []
        for ts, mdur, name in sorted(ss):
            while open_ends and open_ends[-1] <= ts:
                open_ends.pop()
            end = ts - mdur
            if open_ends and end > open_ends[-1]:
                fail("%s: slice %s [%d, %d) overlaps its parent's end %d" %
                     (path, name, ts, end, open_ends[-1]))
            got[(tid, name, len(open_ends))] += 1
            dur[(tid, len(open_ends))] -= mdur
            open_ends.append(end)
    # a call to a place without a symbol (a PLT stub) is named by the
    # first function its frame runs: only the depth is known here
    want = collections.Counter({k: n for k, n in by_depth.items() if k[1]})
    named = collections.Counter({k: n for k, n in got.items() if k in want})
    if named != want:
        diff = (named - want) + (want - named)
        fail("%s: slices by thread, name and depth differ from --calls: %s" %
             (path, sorted(diff.items())[:5]))
    if by_tid_depth(got) != by_tid_depth(by_depth):
        fail("%s: slices by thread and depth differ from --calls" % path)
    # the slices at depth d last as long as the instructions that ran
    # deeper than d (stacks of more than d + 1 functions)
    for (tid, d), n in dur.items():
        want = sum(c for k, c in stacks.items() if k[0] == tid and len(k) > d + 2)
        if n != want:
            fail("%s: thread %d: the slices at depth %d last %d instructions, "
                 "the folded stacks deeper: %d" % (path, tid, d, n, want))
    print("ok: %s: valid trace-event JSON; %d slices as --calls's calls, "
          "nested alike" % (path, sum(got.values())))


def check_png(path):
    from PIL import Image
    img = Image.open(path).convert("RGB")
    colors = img.getcolors(1 << 24)
    bg = max(colors)[1]
    painted = sum(n for n, c in colors if c != bg)
    warm = sum(n for n, (r, g, b) in colors if r > 190 and b < 60)
    w, h = img.size
    if len(colors) < 16 or warm < w * h // 100:
        fail("%s: blank? %d colours, %d of %d pixels painted, %d warm" %
             (path, len(colors), painted, w * h, warm))
    print("ok: %s: %d colours, %d%% of the pixels painted" %
          (path, len(colors), 100 * painted // (w * h)))


def main():
    ap = argparse.ArgumentParser()
    for a in ("calls", "stats", "folded", "svg", "chrome", "schema", "png"):
        ap.add_argument("--" + a)
    a = ap.parse_args()
    by_stack, by_depth = read_calls(a.calls) if a.calls else ({}, {})
    stacks = {}
    if a.folded:
        stacks = read_folded(a.folded)
        check_folded(stacks, a.stats)
        if a.svg:
            check_svg(a.svg, stacks, by_stack)
    if a.chrome:
        check_chrome(a.chrome, a.schema, by_depth, stacks)
    if a.png:
        check_png(a.png)


if __name__ == "__main__":
    main()
