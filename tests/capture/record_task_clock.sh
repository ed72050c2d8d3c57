#!/usr/bin/env bash
# qpt record with a software event on the real kernel: the data-ring path.
# Oracles: perf itself reads the file (perf report -D, no warnings; perf
# script), the samples' addresses fall in the command's MMAP2 mappings,
# and, independently, with ASLR off most samples fall inside spin() as nm
# places it at the kernel's fixed PIE base (0x555555554000).
set -euo pipefail
spin=$1
command -v perf >/dev/null || exit 77
command -v setarch >/dev/null || exit 77
setarch "$(uname -m)" -R true 2>/dev/null || exit 77
# The kernel must allow software events here (some containers do not).
perf stat -e task-clock:u true >/dev/null 2>&1 || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

setarch "$(uname -m)" -R "$QPT" record -q -e task-clock:u -c 100000 \
	-o rec.data -- "$spin" 300 2>err.txt
test ! -s err.txt || { cat err.txt; exit 1; }

# perf reads it with no warnings.
perf report -D -i rec.data >dump.txt 2>perr.txt
if grep -i -E 'warn|error|fail|unknown|invalid' perr.txt; then
	echo "perf report -D complained"; exit 1
fi
grep -q 'PERF_RECORD_COMM exec' dump.txt
grep -q 'PERF_RECORD_MMAP2 .* r-xp .*qpt_spin' dump.txt
grep -q 'PERF_RECORD_EXIT' dump.txt
nsamples=$(grep -c 'PERF_RECORD_SAMPLE' dump.txt)
test "$nsamples" -ge 20 || { echo "only $nsamples samples"; exit 1; }

# Every sample lies inside an executable mapping of the command.
grep 'PERF_RECORD_MMAP2' dump.txt |
	sed -E 's/.*\[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @.*/\1 \2/' >maps.txt
perf script -i rec.data -F ip 2>/dev/null | awk '{print $1}' >ips.txt
test "$(wc -l <ips.txt)" -eq "$nsamples"
python3 - maps.txt ips.txt <<'PY'
import sys
maps = [tuple(int(x, 16) for x in l.split()) for l in open(sys.argv[1])]
bad = [ip for ip in (int(l, 16) for l in open(sys.argv[2]))
       if not any(lo <= ip < lo + n for lo, n in maps)]
for ip in bad:
    print("sample outside the mappings: %#x" % ip)
sys.exit(1 if bad else 0)
PY

# Independent: spin() from nm at the fixed PIE base, ASLR off.
base=0x555555554000
# (Its text mapping's address minus file offset is the load base; the
# ELF's text segment has vaddr == offset, as readelf shows.)
readelf -lW "$spin" | awk '$1 == "LOAD" && $7 ~ /E/ { exit !($2 == $3) }'
map=$(grep -m1 'PERF_RECORD_MMAP2 .* r-xp .*qpt_spin' dump.txt |
	sed -E 's/.*\[0x([0-9a-f]+)\(0x[0-9a-f]+\) @ (0x[0-9a-f]+|0) .*/\1 \2/')
test $((0x${map% *} - ${map#* })) -eq $((base)) || {
	echo "the binary is not at $base (ASLR on?): $map"; exit 1; }
read -r start size < <(nm -S "$spin" | awk '$4 == "spin" { print $1, $2 }')
in_spin=$(python3 -c '
import sys
lo = int(sys.argv[1], 16) + int(sys.argv[2], 16); sz = int(sys.argv[3], 16)
print(sum(lo <= int(l, 16) < lo + sz for l in open(sys.argv[4])))
' "$base" "$start" "$size" ips.txt)
echo "$nsamples samples, $in_spin in spin()"
test $((in_spin * 100)) -ge $((nsamples * 80))
# perf's own symbolization agrees.
by_perf=$(perf script -i rec.data -F ip,sym 2>/dev/null | awk '$2 == "spin"' | wc -l)
test "$by_perf" -eq "$in_spin"

# The build-id of the command, as readelf reads it from the binary.
bid=$(readelf -n "$spin" | awk '/Build ID/ { print $3 }')
perf buildid-list -i rec.data 2>/dev/null | grep -q "^$bid .*qpt_spin$"
# PMU mappings: every PMU of sysfs with its type, as perf lists them.
line=$(perf report --header-only -i rec.data 2>/dev/null | grep '^# pmu mappings:')
for d in /sys/bus/event_source/devices/*; do
	printf '%s\n' "$line" | grep -q "$(basename "$d") = $(cat "$d/type")"
done
# The command line, as perf shows it: the qpt binary, then "record" and
# the arguments as given.
perf report --header-only -i rec.data 2>/dev/null | grep -qF \
	"# cmdline : $(readlink -f "$QPT") record -q -e task-clock:u -c 100000 -o rec.data -- $spin 300"
