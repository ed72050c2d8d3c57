#!/bin/bash
# perf's own tools on each kind of file qpt writes: perf report --stdio,
# perf report --header-only, perf report -D, perf script, perf inject to
# a file and to a pipe (read back through a real pipe, tests/shell/
# perf_in.sh) and perf inject --itrace each exit 0 (no signal), and what
# perf inject wrote keeps the trace.  The kinds:
#  - hardware: real Intel PT (arcus-hello, split into three AUXTRACE
#    records) and a real per-CPU recording with context switches and
#    cycles samples (quipper, compressed), rewritten by qpt convert; the
#    PMU source's own file, qpt's recorder over the simulated kernel
#    (sim_load: per-CPU rings, AUX records TRUNCATED and COLLISION, LOST
#    records);
#  - emulated (--emulate, --emulate=qemu), snapshot
#    (--snapshot), crash (emu_crashy dies of SIGSEGV: qpt's crash event),
#    a pipe (-o -), LBR (qpt inject --lbr-callstack), compressed (-z, to
#    a file and to a pipe).
# The oracle is perf against perf: the records perf report -D counts by
# type (but for the writer's own: EVENT_TYPE gap fillers, which perf
# inject drops, and what a pipe adds, attrs and features) and the
# AUXTRACE bytes, the "# event" lines of the header, and perf script's
# view of the trace (every branch and error, --itrace=be, with the
# samples qpt wrote: the crash, cycles; LBR samples with their branch
# stacks) are the same for perf inject's file and pipe as for the
# original.  perf inject --itrace=i100i synthesizes as many instruction
# samples as perf script --itrace=i100i shows.  The real hardware trace
# decodes (perf script --itrace=i0ns) to the instruction sequence of
# libipt's ptxed (expected/insn-ips.txt.gz) from perf inject's file and
# pipe too.
# perf 6.1's limits, on its own files alike: it decodes no per-CPU
# Intel PT from a pipe (perf inject -o - of the quipper recording itself
# gives perf script nothing), so there the pipe keeps the records and
# bytes only; perf inject passes COMPRESSED records on unread and cannot
# --itrace from a pipe, so --itrace is asked of uncompressed files, and
# of compressed ones only to exit 0.
# Args: GT_STEP PROG_DIR SIM_LOAD
set -u
GT=$1 DIR=$2 SIM=$3
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tests/capture/crash_common.sh
. "$QPT_SRC/tests/capture/crash_common.sh"
T=${QPT_SHARED:-/nonexistent}/traces
exec 3>&1 # failures seen while an output goes to a file

# run WHAT CMD...: CMD exits 0; its stderr in $tmp/err
run() {
	local what=$1 rc
	shift
	"$@" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] && return 0
	[ $rc -gt 128 ] && [ $rc -le 192 ] && what="$what: signal $((rc - 128))"
	bad "$what: exit $rc: $(grep -v '^ *$' "$tmp/err" | head -1)" >&3
	return 1
}

# NAME -> its properties: aux (Intel PT), percpu, notime (perf
# synthesizes no time), z (compressed), pipe, lbr, crash, insn (the
# arcus trace), synthetic (PSB units of the simulated kernel: no code)
declare -A kind
names=()
add() { # NAME FILE PROPS...: a file to check
	[ -s "$2" ] || { bad "$1: no file"; return; }
	names+=("$1")
	kind[$1]=" ${*:3} "
	ln -sf "$2" "$tmp/$1.data"
}
has() { [[ ${kind[$1]} == *" $2 "* ]]; }

# the files
rec() { # NAME RC PROPS -- QPT-RECORD-ARGS: qpt record into NAME.data
	local n=$1 want=$2 props=() rc
	shift 2
	while [ "$1" != -- ]; do
		props+=("$1")
		shift
	done
	shift
	env -i "$QPT" record -q "$@" >/dev/null 2>"$tmp/rec.err"
	rc=$?
	[ $rc = "$want" ] || bad "$n: qpt record exits $rc: $(head -1 "$tmp/rec.err")"
	add "$n" "$tmp/$n.rec" "${props[@]}"
}
rec emulated 0 aux -- --emulate -o "$tmp/emulated.rec" -- "$DIR/emu_flow"
rec snapshot 0 aux -- --emulate --snapshot -o "$tmp/snapshot.rec" \
	-- "$DIR/emu_flow"
rec crash 139 aux crash -- --emulate -o "$tmp/crash.rec" -- "$DIR/emu_crashy"
rec compressed 0 aux z -- --emulate -z -o "$tmp/compressed.rec" \
	-- "$DIR/emu_flow"
if command -v qemu-x86_64 >/dev/null; then
	rec qemu 0 aux -- --emulate=qemu -o "$tmp/qemu.rec" -- "$DIR/emu_flow"
fi
# to a pipe: the command's own output goes elsewhere
for z in "" -z; do
	n=pipe${z:+-compressed}
	# shellcheck disable=SC2016 # the shell's $0
	env -i "$QPT" record -q --emulate $z -o - -- /bin/sh -c \
		'exec "$0" >/dev/null' "$DIR/emu_flow" >"$tmp/$n.rec" \
		2>"$tmp/rec.err" || bad "$n: qpt record: $(head -1 "$tmp/rec.err")"
	add "$n" "$tmp/$n.rec" aux pipe ${z:+z}
done
"$QPT" inject --lbr-callstack=500 -i "$tmp/emulated.rec" -o "$tmp/lbr.rec" ||
	bad "qpt inject --lbr-callstack"
add lbr "$tmp/lbr.rec" lbr
fake_sysfs "$tmp/sys" 8 7
timeout 60 "$SIM" -t 1 "$tmp/pmu.rec" "$tmp/sys" -- cat </dev/null \
	>/dev/null 2>"$tmp/rec.err" || bad "pmu: sim_load: $(tail -1 "$tmp/rec.err")"
add pmu "$tmp/pmu.rec" aux percpu notime synthetic
if [ -d "$T/arcus-hello" ]; then
	"$QPT" convert -i "$T/arcus-hello/perf-split3.data" -o "$tmp/hw.rec" ||
		bad "qpt convert arcus-hello"
	add hardware "$tmp/hw.rec" aux insn notime
	zcat "$T/arcus-hello/expected/insn-ips.txt.gz" >"$tmp/insn-ips.txt"
fi
q=$T/quipper-intel-pt-4.14/perf.data.intel_pt-4.14
if [ -f "$q" ]; then
	"$QPT" convert -z -i "$q" -o "$tmp/hwcpu.rec" || bad "qpt convert -z $q"
	add hardware-cpu "$tmp/hwcpu.rec" aux percpu z
fi

# view NAME FILE OUT: what perf shows of FILE (NAME's kind) in OUT.*:
# .rec the records perf report -D counts by type and the AUXTRACE bytes,
# .hdr the header's events, .trace perf script's view of the trace
view() {
	local n=$1 f=$2 o=$3 fields=event,tid,time,ip,sym,symoff,addr,flags d
	local symfs=()
	has "$n" insn && symfs=(--symfs="$T/arcus-hello")
	# --no-itrace: no packet dump (from a pipe perf 6.1 then stops at
	# the first AUXTRACE record: it leaves the payload unread)
	is_pipe "$f" && d=-D || d="-D --no-itrace"
	# shellcheck disable=SC2086 # two options or one
	run "$n: perf report -D ($f)" perf_in "$f" report $d >"$tmp/D.txt"
	awk 'function hex(s,   v, i) { # mawk has no strtonum
		s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	     match($0, / PERF_RECORD_[A-Z0-9_]+/) {
		t = substr($0, RSTART + 13, RLENGTH - 13)
		if (t !~ /^(EVENT_TYPE|HEADER_ATTR|ATTR|HEADER_FEATURE|FEATURE|HEADER_BUILD_ID|BUILD_ID|EVENT_UPDATE|COMPRESSED2?|FINISHED_INIT)$/)
			c[t]++
		if (t == "AUXTRACE")
			for (i = 1; i < NF; i++) if ($i == "size:") s += hex($(i + 1)) }
	     END { print "AUXTRACE bytes", s + 0; for (t in c) print t, c[t] }' \
		"$tmp/D.txt" 2>/dev/null | sort >"$o.rec"
	if is_pipe "$f"; then
		# shellcheck disable=SC2002 # perf needs a real pipe
		cat "$f" | perf report --header-only -i - >"$tmp/hdr.txt" \
			2>"$tmp/err" || bad "$n: perf report --header-only ($f)"
	else
		run "$n: perf report --header-only ($f)" \
			perf report --header-only -i "$f" >"$tmp/hdr.txt"
	fi
	grep '^# event :' "$tmp/hdr.txt" >"$o.hdr"
	run "$n: perf report --stdio ($f)" perf_in "$f" report --stdio \
		"${symfs[@]}" >/dev/null
	if has "$n" lbr; then
		# -G: perf 6.1 builds the call chain of an empty call-stack
		# LBR (nr 0, as the kernel gives it once the calls it kept
		# have returned) from the bytes after the sample
		run "$n: perf script ($f)" perf_in "$f" script -G \
			-F event,tid,time,ip,sym,brstack >"$o.trace"
		return
	fi
	has "$n" notime && fields=${fields/time,/}
	if has "$n" percpu && is_pipe "$f"; then
		: >"$o.trace" # perf decodes no per-CPU Intel PT from a pipe
	else
		run "$n: perf script ($f)" perf_in "$f" script --itrace=be \
			-F "$fields" "${symfs[@]}" >"$o.trace"
	fi
	if has "$n" insn; then
		run "$n: perf script --itrace=i0ns ($f)" perf_in "$f" script \
			--itrace=i0ns -F ip "${symfs[@]}" >"$tmp/ips.txt"
		sed 's/^ *//' "$tmp/ips.txt" | cmp -s - "$tmp/insn-ips.txt" ||
			bad "$n: perf's instructions from $f are not ptxed's"
	fi
}

# check NAME: perf's tools on NAME's file and on perf inject's file and
# pipe; what they show is the same
check() {
	local n=$1 f=$tmp/$1.data w s b
	view "$n" "$f" "$tmp/o"
	[ -s "$tmp/o.hdr" ] || bad "$n: no event in the header"
	[ -s "$tmp/o.trace" ] || has "$n" synthetic ||
		bad "$n: perf script shows nothing"
	if has "$n" aux; then
		if ! grep -q "^AUXTRACE_INFO 1$" "$tmp/o.rec" ||
			grep -q "^AUXTRACE bytes 0$" "$tmp/o.rec"; then
			bad "$n: no AUXTRACE_INFO or no trace"
		fi
	fi
	run "$n: perf inject -o FILE" perf_in "$f" inject -o "$tmp/inj.data"
	view "$n" "$tmp/inj.data" "$tmp/i"
	run "$n: perf inject -o -" perf_in "$f" inject -o - >"$tmp/injp.data"
	view "$n" "$tmp/injp.data" "$tmp/p"
	cp "$tmp/o.trace" "$tmp/o.trace.p"
	if has "$n" percpu; then
		: >"$tmp/o.trace.p" # perf decodes nothing from the pipe
	fi
	for w in rec hdr trace; do
		cmp -s "$tmp/o.$w" "$tmp/i.$w" ||
			bad "$n: perf inject's file differs ($w): $(diff "$tmp/o.$w" "$tmp/i.$w" | sed -n 2p)"
	done
	for w in rec hdr trace.p; do
		cmp -s "$tmp/o.$w" "$tmp/p.${w%.p}" ||
			bad "$n: perf inject's pipe differs ($w): $(diff "$tmp/o.$w" "$tmp/p.${w%.p}" | sed -n 2p)"
	done
	if has "$n" crash; then
		[ "$(grep -c ' qpt:crash: ' "$tmp/o.trace")" = 1 ] ||
			bad "$n: perf script shows no crash sample"
	fi
	if has "$n" lbr; then
		# every sample shown; those with a branch stack (some are
		# empty: the calls kept returned) with their entries
		s=$(grep -c ' instructions: ' "$tmp/o.trace")
		b=$(grep -c '/\(CALL\|RET\) *$' "$tmp/o.trace")
		if ! grep -qx "SAMPLE $s" "$tmp/o.rec" || [ "$b" -le $((s / 2)) ]
		then
			bad "$n: $s samples shown, $b with a branch stack"
		fi
	fi
	if has "$n" aux && ! has "$n" pipe; then
		run "$n: perf inject --itrace=i100i" perf inject --itrace=i100i \
			-i "$f" -o "$tmp/itr.data" || return
		has "$n" z && return # inject reads no compressed sideband
		has "$n" insn && return # the code is under --symfs, which
		# perf inject does not take
		s=$(perf script -i "$f" --itrace=i100i -F event,ip 2>/dev/null |
			grep -c ' instructions')
		b=$(perf script -i "$tmp/itr.data" -F event,ip 2>/dev/null |
			grep -c ' instructions')
		if [ "$s" != "$b" ] || { [ "$s" = 0 ] && ! has "$n" synthetic; }
		then
			bad "$n: perf inject --itrace made $b instruction samples, perf script $s"
		fi
	fi
	echo "$n: $(grep -c . "$tmp/o.trace") lines, $(grep '^AUXTRACE bytes' "$tmp/o.rec" | cut -d' ' -f3) AUXTRACE bytes"
}

for n in "${names[@]}"; do
	check "$n"
done
exit $fail
