#!/bin/bash
# qpt record --emulate=qemu against QEMU's own log: for each test program,
# `qemu-x86_64 -singlestep -d exec,nochain,int,tid` logs the address of
# every instruction each guest thread starts (one block per instruction,
# in a file per thread) and each exception an instruction raised (it did
# not retire: Intel PT does not show it); consecutive repeats of one
# address are the iterations of a REP string instruction, which Intel PT
# shows once.  qpt decode
# --insn and perf script --itrace=i0ns of the recording of the same
# program (ASLR off, same environment and arguments) must list, per
# thread, the same addresses, and perf must report no decode error.  A
# program that dies of a signal (QEMU's run too) has its trace end at the
# block its thread was in: the decodes are the log up to that block's
# first instruction (the crash's ip, which qpt crash reports), and less
# than a block of the log is left.
# Args: [--tsc] [--same-run] PROG_DIR CMD...  (--tsc: with TSC packets,
# so that the decoders order mappings that come and go at one address;
# --same-run: QEMU logs the very run qpt records (qpt record --qemu runs
# it through a wrapper that adds the log's options), for programs whose
# threads share out their work differently from one run to the next; a
# CMD is a
# program and its arguments in one word, after NAME=VALUE words that go
# into the program's environment; words naming a file in PROG_DIR stand
# for its path).  Skips (77) where
# qemu-x86_64 or perf is absent.
set -u
ev="" same=""
[ "$1" = --tsc ] && { ev=intel_pt/tsc/u; shift; }
[ "$1" = --same-run ] && { same=1; shift; }
DIR=$1
shift
QEMU=$(command -v qemu-x86_64) || { echo "no qemu-x86_64: skip"; exit 77; }
command -v perf >/dev/null || { echo "no perf: skip"; exit 77; }
[ -x "$QPT" ] || { echo "no qpt"; exit 1; }
# shellcheck source=tests/shell/by_thread.sh
. "$(dirname "$0")/../shell/by_thread.sh"
# shellcheck source=tests/shell/qpt_insns.sh
. "$(dirname "$0")/../shell/qpt_insns.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# QEMU's log files $tmp/log.TID as "TID IP" lines: the instructions that
# raised an exception (check_exception follows) left out, repeats folded
log_ips() {
	local f
	for f in "$tmp"/log.*; do
		awk -v tid="${f##*.}" '
			/^Trace / { if (ip != "") print tid, ip
				    split($4, w, "/"); ip = w[2]
				    sub(/^0+/, "", ip) }
			/^check_exception/ { ip = "" }
			END { if (ip != "") print tid, ip }' "$f" | uniq
	done
}

# A crash: $tmp/qgot and $tmp/pgot are $tmp/want up to the crash's ip,
# which less than a block of the log follows ($at, $left)
crash_prefix() {
	local k
	at=$("$QPT" crash -i "$data" --json 2>/dev/null |
		grep -o '"ip":"0x[0-9a-f]*"' | head -1 | sed 's/.*0x//; s/"//')
	k=$(wc -l <"$tmp/qgot")
	left=$(($(wc -l <"$tmp/want") - k))
	if [ -z "$at" ]; then
		echo "FAIL $p: no crash in qpt crash"
	elif ! head -n "$k" "$tmp/want" | cmp -s - "$tmp/qgot" ||
		! cmp -s "$tmp/qgot" "$tmp/pgot"; then
		echo "FAIL $p: the decodes are no prefix of QEMU's log"
		diff <(head -n "$k" "$tmp/want") "$tmp/qgot" | head -5
	elif [ "$(sed -n "$((k + 1))p" "$tmp/want")" != "$at" ] ||
		[ "$left" -ge 64 ]; then
		echo "FAIL $p: the trace ends before $at, $left insns short"
	else
		return 0
	fi
	return 1
}

for p in "$@"; do
	cmd=() envs=()
	for w in $p; do
		if [ ${#cmd[@]} -eq 0 ] && [[ $w =~ ^[A-Z_][A-Z0-9_]*= ]]; then
			envs+=("$w")
		elif [ -e "$DIR/$w" ]; then
			cmd+=("$DIR/$w")
		else
			cmd+=("$w")
		fi
	done
	data=$tmp/${p//[^a-z0-9_]/_}.data
	rm -f "$tmp"/log.*
	if [ -n "$same" ]; then
		# the wrapper logs the recorded run, not qpt's CPU probe
		cat >"$tmp/qemu-log" <<-EOF
			#!/bin/sh
			case "\$1" in
			*/qpt-qemu-cpuid) exec "$QEMU" "\$@" ;;
			esac
			exec "$QEMU" -singlestep -d exec,nochain,int,tid \\
				-D "$tmp/log.%d" "\$@"
		EOF
		chmod +x "$tmp/qemu-log"
		env -i QPT_TEST=1 "${envs[@]}" "$QPT" record -q --emulate=qemu \
			--qemu "$tmp/qemu-log" ${ev:+-e "$ev"} -o "$data" -- \
			"${cmd[@]}" >/dev/null 2>"$tmp/rec.err"
		rc=$?
		want_rc=$rc
	else
		env -i QPT_TEST=1 "${envs[@]}" setarch -R "$QEMU" -singlestep \
			-d exec,nochain,int,tid -D "$tmp/log.%d" "${cmd[@]}" \
			>/dev/null 2>&1
		want_rc=$?
		env -i QPT_TEST=1 "${envs[@]}" "$QPT" record -q --emulate=qemu \
			${ev:+-e "$ev"} -o "$data" -- \
			"${cmd[@]}" >/dev/null 2>"$tmp/rec.err"
		rc=$?
	fi
	if [ $want_rc -ge 128 ] && [ $rc -ne $want_rc ]; then
		echo "FAIL $p: qpt record exit $rc, QEMU alone $want_rc"
		fail=1
		continue
	elif [ $want_rc -lt 128 ] && [ $rc -ne 0 ] && [ -s "$tmp/rec.err" ]; then
		echo "FAIL $p: qpt record exit $rc: $(cat "$tmp/rec.err")"
		fail=1
		continue
	fi
	log_ips | by_thread >"$tmp/want"
	n=$(grep -vc -- -- "$tmp/want")
	"$QPT" decode -i "$data" --insn --no-asm --no-sym 2>&1 | insn_ips | by_thread \
		>"$tmp/qgot"
	# -F sw: leaves out the crash facts' samples (qpt:crash)
	perf script -i "$data" --itrace=i0ns -F tid,ip -F sw: >"$tmp/perf.txt" \
		2>"$tmp/perf.err"
	awk '{ printf "%s %s\n", $1, $2 }' "$tmp/perf.txt" | by_thread \
		>"$tmp/pgot"
	perf script -i "$data" --itrace=e -F tid,ip -F sw: 2>&1 |
		grep -v "^Overriding previous field" >"$tmp/errs.txt"
	if [ $want_rc -ge 128 ] && ! crash_prefix; then
		fail=1
	elif [ $want_rc -ge 128 ]; then
		echo "ok $p: $n instructions, crash at $at ($left of the log after)"
	elif [ "$n" -lt 1000 ]; then
		echo "FAIL $p: only $n instructions in QEMU's log"
		fail=1
	elif ! cmp -s "$tmp/want" "$tmp/qgot"; then
		echo "FAIL $p: qpt decode differs from QEMU's log ($n insns)"
		diff "$tmp/want" "$tmp/qgot" | head -10
		fail=1
	elif ! cmp -s "$tmp/want" "$tmp/pgot"; then
		echo "FAIL $p: perf script differs from QEMU's log ($n insns)"
		diff "$tmp/want" "$tmp/pgot" | head -10
		fail=1
	elif grep -qi "error" "$tmp/errs.txt" "$tmp/perf.err"; then
		echo "FAIL $p: perf reports decode errors"
		grep -i error "$tmp/errs.txt" "$tmp/perf.err" | head -5
		fail=1
	else
		echo "ok $p: $n instructions, $(($(grep -c -- -- "$tmp/want") + 1)) threads"
	fi
done
exit $fail
