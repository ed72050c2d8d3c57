#!/usr/bin/env bash
# qpt dump --pt against perf report -D: every Intel PT packet of each
# AUXTRACE payload at its offset, with perf's name and payload, on the
# real hardware traces (one and several AUXTRACE records, per-cpu with
# TSC/MTC/CYC/PIP, pipe mode) and on emulated recordings (full trace and
# snapshot).  PAD bytes are left out of the comparison: perf folds up to
# seven of them into the packet before, libipt gives each its own.  The
# PSB counts are compared on their own too, and the JSON form's packets
# cover each payload byte for byte.
# Args: DEMO (the demo program, built)
demo=$1
. "$QPT_SRC/tests/shell/lib.sh"
. "$QPT_SRC/tests/shell/perf_in.sh"
need perf
cd "$tmp" || exit 1

# OFFSET DESCRIPTION of each non-PAD packet line of perf -D's layout
# (perf 6.1 prints MODE.Exec's IF bit; so does qpt)
packets() {
	grep -a '^\.  [0-9a-f]\{8\}: ' | awk '{ print $2, substr($0, 63) }' |
		grep -v ' PAD$'
}

# the packets of each payload from its first PSB on: a snapshot's payload
# may begin inside a packet, whose rest each decoder reads its own way
from_psb() {
	awk '{ o = "x" $1 } # as strings: offsets have eight hex digits
	     o < last { on = 0 }
	     { last = o }
	     / PSB$/ { on = 1 }
	     on'
}

check() { # FILE [from-psb]
	local f=$1 want got cut=cat
	[ "${2:-}" = from-psb ] && cut=from_psb
	perf_in "$f" report -D 2>/dev/null | packets | $cut >perf.txt
	"$QPT" dump --pt -i "$f" | packets | $cut >qpt.txt
	want=$(grep -c ' PSB$' perf.txt) got=$(grep -c ' PSB$' qpt.txt)
	if [ "$want" -eq 0 ] || [ "$want" != "$got" ]; then
		bad "$f: $got PSBs, perf report -D: $want"
	fi
	check_view "$f" "$(cat perf.txt)" "$(cat qpt.txt)" "packets, $want PSBs"
	# JSON: the packets of each AUXTRACE record cover its payload
	"$QPT" dump --pt --json -i "$f" | /usr/bin/python3 -c '
import json, sys
size, got = {}, {}
for line in sys.stdin:
    o = json.loads(line)
    if o.get("type") == "AUXTRACE":
        size[o["offset"]] = o["aux_size"]
    elif "packet" in o:
        r = o["record"]
        if o["offset"] != got.get(r, 0) or len(o["bytes"]) != 2 * o["size"]:
            sys.exit("record %d: packet at %d after %d bytes" %
                     (r, o["offset"], got.get(r, 0)))
        got[r] = o["offset"] + o["size"]
if not size or size != got:
    sys.exit("payload sizes %s, packets cover %s" % (size, got))
' || bad "$f: --json packets do not cover the payloads"
}

if [ -d "$T" ]; then
	for f in arcus-hello/perf.data arcus-hello/perf-split3.data \
		arcus-ovf-01-poc/perf.data \
		quipper-intel-pt-4.14/perf.data.intel_pt-4.14 \
		quipper-intel-pt-4.14/perf.data.piped.intel_pt-4.14; do
		check "$T/$f"
	done
fi

# emulated recordings: full trace, a snapshot of the last 64 KiB, pipe mode
if "$QPT" record -q --emulate -o emu.data -- "$demo" >/dev/null 2>err.txt; then
	check emu.data
	"$QPT" record -q --emulate --snapshot -m ,64K -o snap.data \
		-- "$demo" >/dev/null 2>>err.txt && check snap.data from-psb
	# (the demo's output must not go into the stream)
	"$QPT" record -q --emulate -o - -- sh -c 'exec "$0" >/dev/null' \
		"$demo" >pipe.data 2>>err.txt </dev/null && check pipe.data
elif grep -q -i ptrace err.txt; then
	echo "no ptrace here: emulated recordings skipped"
else
	bad "qpt record --emulate: $(cat err.txt)"
fi
finish
