#!/bin/bash
# qpt decode --itrace=OPTS against perf script --itrace=OPTS on the same
# emulated recording of a dynamically linked test program:
# - instruction periods (i1000i, i7i, i0ns), branches (b), calls (c),
#   returns (r) and both (cr): the same lines with -F tid,ip,sym (and
#   addr and flags for branches), PLT stubs left out (perf 6.1 names them
#   after the nearest symbol); i0ns with -F time,ip too (perf --ns);
# - time periods (i10us): the samples derived from the full decode (see
#   below why perf's are not the oracle there);
# - last branches (i100il4): every sample's 4 entries equal perf's
#   brstack, but where the sampled instruction is itself a taken branch:
#   qpt's record is taken after it (before the next instruction, see
#   --lbr-period), so its newest entry is that branch and the rest are
#   perf's first three; and where perf's entries hold a trace start
#   (0 => TO): perf lists the start apart, qpt's LBR, user-only as the
#   hardware's, sees no branch at a system call (at most a tenth);
# - e: no error line on this clean recording (perf prints none either);
# - letters qpt does not map, and bad combinations, get one line, exit 2.
# Args: PROG
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rec=$tmp/rec.data
env -i QPT_TEST=1 "$QPT" record -q --emulate -o "$rec" \
	-- "$1" >/dev/null 2>"$tmp/rec.err" || fail "qpt record: $(cat "$tmp/rec.err")"

# same OPTS FIELDS MIN [PERF-OPTION]: qpt's lines equal perf's (PLT stubs
# aside)
same() {
	perf script -i "$rec" ${4:+"$4"} --itrace="$1" -F "$2" 2>/dev/null >"$tmp/perf" ||
		fail "perf script --itrace=$1"
	"$QPT" decode -i "$rec" --itrace="$1" -F "$2" >"$tmp/qpt" ||
		fail "qpt decode --itrace=$1"
	n=$(wc -l <"$tmp/perf")
	[ "$n" -ge "$3" ] || fail "--itrace=$1: perf printed $n lines"
	[ "$n" -eq "$(wc -l <"$tmp/qpt")" ] ||
		fail "--itrace=$1: perf $n lines, qpt $(wc -l <"$tmp/qpt")"
	paste -d$'\001' "$tmp/perf" "$tmp/qpt" | awk -F'\001' -v o="$1" '
		$1 ~ / _init([+ ]|$)|@plt/ || $2 ~ /@plt/ { left++; next }
		$1 != $2 { if (bad < 3) print o ": perf \"" $1 "\" / qpt \"" $2 "\""; bad++ }
		END { printf "--itrace=%s: %d lines equal, %d left out\n", o, NR - left - bad, left
		      exit bad > 0 }' || fail "--itrace=$1 differs from perf"
}
same i1000i tid,ip,sym 50
same i7i tid,ip,sym 5000
same i0ns tid,ip,sym 50000
same i0ns time,ip 50000 --ns
same b tid,flags,ip,sym,addr 5000
same c tid,flags,ip,sym,addr 200
same r tid,flags,ip,sym,addr 200
same cr tid,flags,ip,sym,addr 400

# time periods: qpt samples the first instruction of each thread in each
# new 10 us window of its times (after its first); derived here from the
# full decode.  perf's count is not an oracle for it: perf turns the
# period into TSC ticks rounded down to a power of two and times each
# instruction as its timestamp plus one tick per instruction since.
"$QPT" decode -i "$rec" -F tid,time,ip | awk '
	{ split(substr($2, 1, length($2) - 1), t, ".")	# SEC.NSEC: integers,
	  w = t[1] * 100000 + int(t[2] / 10000) }	# no rounding of a float
	!($1 in win) { win[$1] = w; next }
	w != win[$1] { win[$1] = w; print }' >"$tmp/derived"
"$QPT" decode -i "$rec" --itrace=i10us -F tid,time,ip >"$tmp/sampled"
n=$(wc -l <"$tmp/sampled")
[ "$n" -gt 100 ] && cmp -s "$tmp/derived" "$tmp/sampled" ||
	fail "--itrace=i10us: $n samples, $(wc -l <"$tmp/derived") derived from the full decode"
echo "--itrace=i10us: $n samples as derived (perf: $(perf script -i "$rec" --itrace=i10us -F ip 2>/dev/null | wc -l))"

# last branches
perf script -i "$rec" --itrace=i100il4 -F ip,brstack 2>/dev/null >"$tmp/perf.lbr"
"$QPT" decode -i "$rec" --itrace=i100il4 --json >"$tmp/qpt.lbr" ||
	fail "qpt decode --itrace=i100il4"
python3 - "$tmp/perf.lbr" "$tmp/qpt.lbr" <<'PY' || fail "--itrace=i100il4 differs from perf's brstack"
import json, sys
perf = []
for line in open(sys.argv[1]):
    w = line.split()
    perf.append((int(w[0], 16), [tuple(int(x, 16) for x in e.split("/")[:2]) for e in w[1:]]))
qpt = [json.loads(l) for l in open(sys.argv[2])]
qpt = [[(int(e["from"], 16), int(e["to"], 16)) for e in r["entries"]]
       for r in qpt if r["point"] == "period"]
if len(perf) < 100 or len(perf) != len(qpt):
    sys.exit("samples: perf %d, qpt %d" % (len(perf), len(qpt)))
shifted = starts = 0
for k, ((ip, pe), qe) in enumerate(zip(perf, qpt)):
    if pe == qe:
        continue
    if any(f == 0 for f, _ in pe):
        starts += 1
        continue
    if qe[0][0] == ip and qe[1:] == pe[:-1]:
        shifted += 1
        continue
    sys.exit("sample %d at %#x: perf %s, qpt %s" % (k, ip, pe, qe))
if starts > len(perf) // 10:
    sys.exit("%d of %d samples differ at trace starts" % (starts, len(perf)))
print("--itrace=i100il4: %d samples equal to perf's, %d after a branch at the sample, "
      "%d with a trace start" % (len(perf) - shifted - starts, shifted, starts))
PY
# e on a clean recording
[ -z "$("$QPT" decode -i "$rec" --itrace=e)" ] || fail "--itrace=e printed lines"
[ -z "$(perf script -i "$rec" --itrace=e 2>/dev/null)" ] || fail "perf --itrace=e printed lines"
# what qpt does not map
for bad in x i1000t il ib cr,b i99999999999999999999i l0 ''; do
	rc=0
	"$QPT" decode -i "$rec" --itrace="$bad" >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -le 2 ] ||
		fail "--itrace='$bad': exit $rc, $(cat "$tmp/err")"
done
rc=0
"$QPT" decode -i "$rec" --itrace=b --insn >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "--itrace with --insn: exit $rc"
echo "ok"
