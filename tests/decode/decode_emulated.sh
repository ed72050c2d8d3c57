#!/bin/bash
# Emulated recordings (qpt record --emulate, from the emulate module) of
# the test programs decode to their single-step ground truth, also after
# perf inject rewrites them (file mode and -o - pipe mode).  Skips where
# this build has no emulated source or no perf.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
E="${QPT_BUILD:-}/tests/emulate"
[ -x "$E/emu_gt_step" ] || { echo "skip: no emulate test programs"; exit 77; }
"$QPT" record --help 2>&1 | grep -q -- --emulate ||
	{ echo "skip: no qpt record --emulate"; exit 77; }
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/shell/by_thread.sh
. "$(dirname "$0")/../shell/by_thread.sh"
# shellcheck source=tests/shell/qpt_insns.sh
. "$(dirname "$0")/../shell/qpt_insns.sh"
n=0
for p in emu_flow emu_threads emu_forkexec emu_sig_static; do
	[ -x "$E/$p" ] || continue
	env -i QPT_TEST=1 "$E/emu_gt_step" "$tmp/gt.txt" -- "$E/$p" \
		>/dev/null 2>&1
	env -i QPT_TEST=1 "$QPT" record -q --emulate -o "$tmp/rec.data" \
		-- "$E/$p" >/dev/null 2>&1
	[ -s "$tmp/rec.data" ] || fail "$p: no recording"
	by_thread <"$tmp/gt.txt" >"$tmp/want"
	perf inject -i "$tmp/rec.data" -o "$tmp/inj.data" 2>/dev/null ||
		fail "$p: perf inject"
	perf inject -i "$tmp/rec.data" -o - >"$tmp/injp.data" 2>/dev/null ||
		fail "$p: perf inject -o -"
	for f in rec.data inj.data injp.data; do
		"$QPT" decode -i "$tmp/$f" --no-sym |
			insn_ips | by_thread |
			cmp -s "$tmp/want" - ||
			fail "$p ($f): qpt decode differs from the ground truth"
	done
	echo "ok: $p ($(grep -vc -- -- "$tmp/want") instructions)"
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "skip: no programs"; exit 77; }
