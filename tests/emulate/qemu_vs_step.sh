#!/bin/bash
# --emulate=qemu against the ptrace engine (--emulate=step: every
# instruction the real CPU retired, single-stepped; or --emulate=fast,
# which emulate_fast_vs_step holds to it) on the same program, where the CPU
# features are made equal: QEMU's CPU lacks AVX-512 and XSAVEC, so both
# runs get GLIBC_TUNABLES masking them and glibc picks the same string
# functions and lazy-binding trampoline on both.  perf script decodes
# both recordings to symbols and offsets (addresses differ: QEMU loads
# the guest elsewhere); from main's first instruction to _dl_fini, the
# two must list the same instructions of the program and its libraries.
# Left out: ld.so's code and the functions that look for the vDSO (time,
# clock_gettime, gettimeofday): QEMU 7.2's user mode gives the guest no
# vDSO, so its link map and those paths differ.  A program that dies of a
# signal: QEMU's trace ends at the block that was executing, so its list
# is the step engine's up to less than a block (16 instructions).  On a
# host without a feature QEMU's CPU has (glibc picks another string
# function there, and tunables cannot add a feature), the program runs
# again with QEMU's CPU told to leave it out (QEMU_CPU=max,-FEATURE, in
# both runs' environment, so that the program sees the same variables);
# where glibc then still picks other string functions (it also weighs the
# CPU's model), the test skips with 77.
# QPT_TEST_TUNABLES, when set, replaces the mask (a run without it fails).
# Args: step|fast PROG_DIR PROG...
set -u
ENGINE=$1 DIR=$2
shift 2
command -v qemu-x86_64 >/dev/null || { echo "no qemu-x86_64: skip"; exit 77; }
command -v perf >/dev/null || { echo "no perf: skip"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
mask=${QPT_TEST_TUNABLES-glibc.cpu.hwcaps=-AVX512F,-AVX512CD,-AVX512BW,-AVX512DQ,-AVX512VL,-AVX512ER,-AVX512PF,-AVX512_VBMI2,-AVX512_VNNI,-AVX512_BITALG,-AVX512_VPOPCNTDQ,-AVX512_IFMA,-AVX512_VBMI,-AVX512_BF16,-AVX512_FP16,-XSAVEC}

# flow NAME: "SYM+OFF (DSO)" of each instruction from main on, as above
flow() {
	perf script -i "$tmp/$1.data" --itrace=i0ns -F ip,sym,symoff,dso \
		2>/dev/null | awk '
		$2 ~ /^main\+0x0$/ { on = 1 }
		!on { next }
		$2 ~ /^_dl_fini\+0x0$/ { exit }
		$3 ~ /ld-linux|\[vdso\]/ { next }
		$2 ~ /^(time|time_syscall|__clock_gettime|clock_gettime|__gettimeofday|gettimeofday)\+/ { next }
		{ print $2, $3 }' >"$tmp/$1.flow"
}

# record NAME ENGINE [ENV...]: NAME.flow of the program under ENGINE,
# GLIBC_TUNABLES masking and ENV in its environment (both engines get the
# same); 1 when qpt record failed
record() {
	local p=$1 e=$2 rc
	shift 2
	env -i GLIBC_TUNABLES=$mask "$@" "$QPT" record -q --emulate=$e \
		-o "$tmp/$e.data" -- "$DIR/$p" >/dev/null 2>"$tmp/$e.err"
	rc=$?
	# a crash is the program's (exit 128 + signal), not qpt's
	[ $rc -eq 0 ] || [ $rc -gt 128 ] || {
		echo "FAIL $p: qpt record --emulate=$e: $(head -2 "$tmp/$e.err")"
		return 1
	}
	flow $e
}

# QEMU's features (the names its -cpu takes) that string functions
# QEMU's run took in $tmp/qemu.flow need and this host lacks
lacking() {
	diff "$tmp/step.flow" "$tmp/qemu.flow" | grep '^>' |
		grep -oE '_(avx2|avx|evex|sse4_2|ssse3|erms)[_+]' | tr -d '_+' |
		sed 's/^evex$/avx512vl/' | sort -u | while read -r f; do
			grep -qw "$f" /proc/cpuinfo || echo "$f"
		done | sed 's/^sse4_2$/sse4.2/'
}

for p in "$@"; do
	cpu=()
	while :; do
		record "$p" "$ENGINE" "${cpu[@]}" && record "$p" qemu "${cpu[@]}" ||
			{ fail=1; continue 2; }
		[ "$ENGINE" = step ] || cp "$tmp/$ENGINE.flow" "$tmp/step.flow"
		lacks=$(lacking)
		# QEMU's run took a string function for a feature the host
		# lacks: once more with QEMU's CPU without it (QEMU_CPU)
		[ -n "$lacks" ] && [ ${#cpu[@]} -eq 0 ] || break
		cpu=("QEMU_CPU=max$(printf ',-%s' $lacks)")
		echo "note $p: QEMU's CPU has $(echo $lacks), this host not: again with ${cpu[0]}"
	done
	s=$(wc -l <"$tmp/step.flow") q=$(wc -l <"$tmp/qemu.flow")
	if [ "$s" -lt 100 ]; then
		echo "FAIL $p: $s instructions from main in the step recording"
		fail=1
		continue
	fi
	if cmp -s "$tmp/step.flow" "$tmp/qemu.flow"; then
		echo "ok $p: $s instructions from main, the same"
		continue
	fi
	if [ "$q" -lt "$s" ] && [ $((s - q)) -lt 16 ] &&
		head -n "$q" "$tmp/step.flow" | cmp -s - "$tmp/qemu.flow"; then
		echo "ok $p: $q instructions from main, the same; the $ENGINE engine's $((s - q)) more end the block it crashed in"
		continue
	fi
	d=$(diff "$tmp/step.flow" "$tmp/qemu.flow" | grep -m1 '^[<>]')
	# glibc also weighs the CPU's model (its preferred copies): where
	# QEMU's CPU without the features still takes other string functions
	# than this host, the two runs cannot be made equal
	if [ ${#cpu[@]} -gt 0 ] && ! diff "$tmp/step.flow" "$tmp/qemu.flow" |
		grep '^[<>]' | grep -vqE '_(sse2|ssse3|avx|avx2|evex|erms|unaligned)[_+]'; then
		echo "skip $p: with ${cpu[0]} glibc still picks other string functions than on this host ($d)"
		exit 77
	fi
	echo "FAIL $p: $ENGINE $s, qemu $q instructions from main; first difference: $d"
	diff "$tmp/step.flow" "$tmp/qemu.flow" | head -6
	fail=1
done
exit $fail
