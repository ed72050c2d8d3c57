#!/bin/bash
# The vDSO of an emulated recording, found as perf finds the kernel's:
# MMAP2 names "[vdso]" with its build-id, the BUILD_ID feature holds it,
# qpt record keeps the bytes beside the output (FILE.vdso) and puts them in
# perf's build-id cache ($HOME/.debug/[vdso]/ID/vdso and the .build-id/
# link) as perf record does.  Moving the pair elsewhere and decoding from
# another directory, perf (through the cache) and qpt decode (FILE.vdso,
# even without a cache) give the ground truth, vDSO code included; so do
# they for -o - (the vDSO cannot travel in the stream: qpt says so and
# where it is).  -N leaves the cache alone.
# Args: GT_STEP PROG_DIR
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
mkdir -p "$tmp/a" "$tmp/b" "$tmp/c" "$tmp/home" "$tmp/empty" "$tmp/n"
prog=$DIR/emu_flow

perf_insns() { # HOME FILE
	HOME=$1 perf_in "$2" script --itrace=i0ns -F tid,ip 2>/dev/null |
		awk '{ print $1, $2 }' | by_thread
}
qpt_insns() { # HOME FILE
	HOME=$1 "$QPT" decode -i "$2" --no-sym 2>/dev/null |
		insn_ips | by_thread
}

# the same environment for every run (the start-up code walks it)
run() { env -i HOME="$tmp/home" "$@"; }
run "$GT" "$tmp/gt.txt" -- "$prog" >/dev/null 2>&1
by_thread <"$tmp/gt.txt" >"$tmp/want"
# in a pipe the command must not write to qpt's stdout: emu_vdso
run "$GT" "$tmp/gtp.txt" -- "$DIR/emu_vdso" >/dev/null 2>&1
by_thread <"$tmp/gtp.txt" >"$tmp/wantp"
lo=$(grep -m1 'r-xp.*\[vdso\]' /proc/self/maps | cut -d- -f1)
[ -n "$lo" ] || { echo "no [vdso] here: skip"; exit 77; }

cd "$tmp/a" || exit 1
run "$QPT" record -q --emulate -o rec.data -- "$prog" >/dev/null 2>err.txt ||
	bad "record: $(cat err.txt)"
[ -s rec.data.vdso ] || bad "no rec.data.vdso"
perf report -D -i rec.data 2>/dev/null | grep -q 'MMAP2 .*<[0-9a-f]*>\]: r-xp \[vdso\]$' ||
	bad "MMAP2 does not name [vdso] with its build-id"
bid=$(perf buildid-list -i rec.data 2>/dev/null | awk '$2 == "[vdso]" { print $1 }')
[ -n "$bid" ] || bad "BUILD_ID has no [vdso]"
readelf -n rec.data.vdso | grep -q "Build ID: $bid" ||
	bad "the build-id is not rec.data.vdso's"
cmp -s rec.data.vdso "$tmp/home/.debug/[vdso]/$bid/vdso" ||
	bad "the build-id cache does not hold the vDSO"
[ "$(readlink "$tmp/home/.debug/.build-id/${bid:0:2}/${bid:2}")" = \
	"../../[vdso]/$bid" ] || bad "no .build-id link to the vDSO"

# the pair moved, decoded from elsewhere
mv rec.data rec.data.vdso "$tmp/b/"
cd "$tmp/c" || exit 1
perf_insns "$tmp/home" "$tmp/b/rec.data" | cmp -s "$tmp/want" - ||
	bad "moved pair: perf decode != ground truth"
qpt_insns "$tmp/home" "$tmp/b/rec.data" | cmp -s "$tmp/want" - ||
	bad "moved pair: qpt decode != ground truth"
qpt_insns "$tmp/empty" "$tmp/b/rec.data" | cmp -s "$tmp/want" - ||
	bad "moved pair, no cache: qpt decode != ground truth"

# a pipe
run "$QPT" record -q --emulate -o - -- "$DIR/emu_vdso" 2>err.txt >p.data \
	</dev/null || bad "record -o -: $(cat err.txt)"
grep -q "cannot travel in the stream.*build-id cache: .*$bid/vdso" err.txt ||
	bad "-o -: no word on the vDSO: $(cat err.txt)"
# perf decodes a thread's trace at its EXIT in a pipe, and stops before
# the last packets (perf inject -o - of a file does the same): a prefix
perf_insns "$tmp/home" p.data >gotp
n=$(wc -l <gotp)
[ "$n" -gt 0 ] || bad "-o -: perf decodes nothing"
head -n "$n" "$tmp/wantp" | cmp -s - gotp ||
	bad "-o -: perf decode is not the ground truth's start"
HOME=$tmp/home perf_in p.data script --itrace=i0ns -F ip,dso 2>/dev/null |
	grep -q '(\[vdso\])' || bad "-o -: perf decodes no vDSO code"
qpt_insns "$tmp/home" p.data | cmp -s "$tmp/wantp" - ||
	bad "-o -: qpt decode != ground truth"

# -N: no cache
cd "$tmp/n" || exit 1
env -i HOME="$tmp/n" "$QPT" record -q -N --emulate -o n.data -- "$prog" \
	>/dev/null 2>err.txt || bad "record -N: $(cat err.txt)"
[ ! -e "$tmp/n/.debug" ] || bad "-N wrote a build-id cache"

[ $fail -eq 0 ] && echo "ok: [vdso] $bid"
exit $fail
