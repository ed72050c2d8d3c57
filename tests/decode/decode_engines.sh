#!/bin/bash
# The fast block decoder against libipt's (--engine=libipt, the oracle):
# and qpt decode --stats against the counts derived from the full
# decode (--insn and --branches as JSON: instructions, taken branches,
# errors and overflows per thread, instructions per function, calls per
# called function), and --coverage's basic blocks (a drcov log, read by
# a reader of the test's own) and edges against those derived from the
# same (cov_derive.py), on each of the inputs below.
# the same items, byte for byte (instructions, branches, calls, every
# event with its trace offset), on the real traces, on raw streams with
# bytes changed at random (fixed seeds: decode errors, the fast decoder
# bailing out mid-trace and libipt taking over), and on emulated
# recordings (threads, fork and exec, signals) with and without timing
# packets (TSC, MTC and TMA) and return compression.  Where the fast
# decoder can decode a clean trace (every emulated recording) it must
# have decoded most of it (qpt decode --stats says how much), so that the
# comparison is not between libipt and itself.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MODES=("--insn --events --json" "--branches --events" "--calls --json"
	"--stats --json" "--coverage=edges --json")
DERIVE="$(dirname "$0")/stats_derive.py"
COV="$(dirname "$0")/cov_derive.py"

# same NAME ARGS...: both engines, every mode, the same output
same() {
	local name=$1 m
	shift
	for m in "${MODES[@]}"; do
		# shellcheck disable=SC2086
		"$QPT" decode $m "$@" >"$tmp/fast" 2>"$tmp/fast.err"
		echo "exit $?" >>"$tmp/fast"
		# shellcheck disable=SC2086
		"$QPT" decode --engine=libipt $m "$@" >"$tmp/ref" 2>"$tmp/ref.err"
		echo "exit $?" >>"$tmp/ref"
		# which decoder decoded what is the one thing that differs
		sed -i 's/"fast_insns":[0-9]*,//' "$tmp/fast" "$tmp/ref"
		cmp -s "$tmp/fast" "$tmp/ref" ||
			fail "$name ($m): the fast decoder differs from libipt's: $(diff "$tmp/ref" "$tmp/fast" | head -5)"
		cmp -s "$tmp/fast.err" "$tmp/ref.err" ||
			fail "$name ($m): the messages differ"
	done
	"$QPT" decode --insn --json "$@" >"$tmp/insn" 2>/dev/null
	"$QPT" decode --branches --json "$@" >"$tmp/br" 2>/dev/null
	"$QPT" decode --stats --json "$@" >"$tmp/stats" 2>/dev/null
	python3 "$DERIVE" "$tmp/insn" "$tmp/br" "$tmp/stats" ||
		fail "$name: --stats differs from the counts of the full decode"
	rm -f "$tmp/cov" # none when nothing decodes
	"$QPT" decode --coverage -o "$tmp/cov" "$@" 2>/dev/null
	"$QPT" decode --coverage=edges --json "$@" >"$tmp/edges" 2>/dev/null
	python3 "$COV" "$tmp/insn" "$tmp/br" "$tmp/cov" "$tmp/edges" ||
		fail "$name: --coverage differs from the full decode's blocks and edges"
	echo "ok: $name"
}

# fast NAME ARGS...: the fast decoder decoded most instructions
fast() {
	local name=$1
	shift
	"$QPT" decode --stats --json "$@" 2>/dev/null >"$tmp/st"
	python3 - "$tmp/st" "$name" <<'EOF' || fail "$2: fast decoder unused"
import json, sys
t = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{\"stats\":\"total\"")][0]
print("   %s: %d of %d instructions by the fast decoder" %
      (sys.argv[2], t["fast_insns"], t["insns"]))
sys.exit(0 if t["insns"] and t["fast_insns"] * 10 >= t["insns"] * 9 else 1)
EOF
}

# perf.data, and the container that splits the trace most (its AUXTRACE
# records joined: the same bytes as the others' to both engines)
for d in "$TRACES"/arcus-hello "$TRACES"/arcus-ovf-01-poc; do
	for f in "$d"/perf.data "$d"/perf-split7-noindex.data; do
		[ -f "$f" ] || continue
		same "${f#"$TRACES"/}" --sysroot "$d" -i "$f"
	done
	# shellcheck disable=SC2046
	same "${d#"$TRACES"/} raw" --raw "$d/trace.pt" $(images "$d")
	fast "${d#"$TRACES"/}" --sysroot "$d" -i "$d/perf.data"
done
q="$TRACES/quipper-intel-pt-4.14"
[ -f "$q/perf.data.intel_pt-4.14" ] &&
	same "quipper (images missing)" -i "$q/perf.data.intel_pt-4.14"

# a PSB+ in a straight line: libipt ends a block at its status update
# (no branch): a basic block of --coverage goes on over it
python3 - "$tmp/syn.pt" "$tmp/syn.bin" <<'EOF'
import struct, sys
# 0x1000: 8 nops, jz 0x1000, jz 0x1000
code = bytes([0x90] * 8 + [0x74, 0xf6, 0x74, 0xf4])
open(sys.argv[2], "wb").write(code + bytes(4096 - len(code)))
psb, mode, psbend = bytes([2, 0x82] * 8), bytes([0x99, 1]), bytes([2, 0x23])
def ip8(op, ip): return bytes([0xc0 | op]) + struct.pack("<Q", ip)
# PSB+, TIP.PGE 0x1000, TNT TTTTTT, PSB+ with FUP 0x1004, TNT TN
open(sys.argv[1], "wb").write(psb + mode + psbend + ip8(0x11, 0x1000) +
    bytes([0xfe]) + psb + ip8(0x1d, 0x1004) + mode + psbend + bytes([0x0c]))
EOF
same "PSB+ in a straight line" --raw "$tmp/syn.pt" --image "$tmp/syn.bin@0x1000"

# changed bytes: errors, and the fast decoder bailing out mid-trace
d="$TRACES/arcus-hello"
for seed in 1 2 3 4 5 6; do
	python3 - "$d/trace.pt" "$tmp/bad.pt" "$seed" <<'EOF'
import random, sys
b = bytearray(open(sys.argv[1], "rb").read())
r = random.Random(int(sys.argv[3]))
for _ in range(1 + int(sys.argv[3]) % 4):
    b[r.randrange(len(b))] = r.randrange(256)
open(sys.argv[2], "wb").write(b)
EOF
	# shellcheck disable=SC2046
	same "arcus-hello raw, bytes changed (seed $seed)" \
		--raw "$tmp/bad.pt" $(images "$d")
done

E="${QPT_BUILD:-}/tests/emulate"
if [ -x "$E/emu_flow" ] && "$QPT" record --help 2>&1 | grep -q -- --emulate; then
	# every configuration on one program, perf's default on the others
	# (CI time)
	# (emu_chain: paths through more functions than a path keeps the
	# counts of, with no time to cut them short)
	for p in emu_flow emu_threads emu_forkexec emu_sig_static emu_chain; do
		[ -x "$E/$p" ] || continue
		evs="intel_pt//u"
		[ $p = emu_flow ] && evs="$evs intel_pt/mtc=0/u intel_pt/tsc=0,mtc=0/u intel_pt/noretcomp=1,mtc=0/u"
		[ $p = emu_sig_static ] || [ $p = emu_chain ] && evs="intel_pt/tsc=0,mtc=0/u"
		for ev in $evs; do
			env -i QPT_TEST=1 "$QPT" record -q --emulate -e "$ev" \
				-o "$tmp/rec.data" -- "$E/$p" >/dev/null 2>&1
			[ -s "$tmp/rec.data" ] || fail "$p: no recording"
			same "$p ($ev)" -i "$tmp/rec.data"
			fast "$p ($ev)" -i "$tmp/rec.data"
		done
	done
else
	echo "note: no emulated recordings (no emulate test programs)"
fi
