# Shared by the PMU source's crash tests (sourced): the oracles that do not
# come from qpt.

# objdump of PROG at the addresses it runs at with ASLR off (a PIE is
# loaded at x86-64's ELF_ET_DYN_BASE then)
dis() {
	local prog=$1
	shift
	if readelf -h "$prog" | grep -q 'Type:.*DYN'; then
		objdump -d --adjust-vma=0x555555554000 "$@" "$prog"
	else
		objdump -d "$@" "$prog"
	fi
}

# fault_ip GT_STEP K PROG ARGS: the faulting ip (hex, no 0x) of the K-th
# thread (in the order the threads first ran: tids wrap at pid_max, so
# the leader's may be the larger) as the single-stepper sees it, ASLR
# off: the instruction after its last retired one in objdump's listing
fault_ip() {
	local gt=$1 k=$2 out tid last
	shift 2
	out=$(mktemp)
	env -i "$gt" "$out" -- "$@" >/dev/null 2>&1
	tid=$(awk '!seen[$1]++ { print $1 }' "$out" | sed -n "$((k + 1))p")
	last=$(awk -v t="$tid" '$1 == t { a = $2 } END { print a }' "$out")
	rm -f "$out"
	dis "$1" --start-address="0x$last" --stop-address=$((0x$last + 32)) |
		awk '/^ *[0-9a-f]+:\t/ { sub(":", "", $1); n++
			if (n == 2) { print $1; exit } }'
}

# insn_bytes PROG IP: objdump's bytes (hex) of the instruction at IP
insn_bytes() {
	dis "$1" --start-address="0x$2" --stop-address=$((0x$2 + 16)) |
		awk -F'\t' '/^ *[0-9a-f]+:\t/ { gsub(" ", "", $2); print $2; exit }'
}

# the shell's $? for a wait status
shell_status() {
	local s=$1
	if [ $((s & 0x7f)) -ne 0 ]; then
		echo $((128 + (s & 0x7f)))
	else
		echo $(((s >> 8) & 0xff))
	fi
}

# fake_sysfs DIR PT_TYPE UPROBE_TYPE: a sysfs PMU root with the Linux
# driver's intel_pt and a uprobe PMU of those types
fake_sysfs() {
	local f
	mkdir -p "$1/intel_pt/format" "$1/uprobe"
	echo "$2" >"$1/intel_pt/type"
	echo "$3" >"$1/uprobe/type"
	for f in pt:0 cyc:1 mtc:9 tsc:10 noretcomp:11 branch:13 \
		mtc_period:14-17 cyc_thresh:19-22 psb_period:24-27; do
		echo "config:${f#*:}" >"$1/intel_pt/format/${f%%:*}"
	done
}

# the TSC numbers of each AUXTRACE buffer, "FIRST LAST COUNT" a line
units() {
	perf report -D -i "$1" 2>/dev/null | python3 -c '
import sys
bufs = []
for line in sys.stdin:
    if "PERF_RECORD_AUXTRACE size" in line:
        bufs.append([])
    elif " TSC 0x" in line and bufs:
        bufs[-1].append(int(line.split()[-1], 16))
for b in bufs:
    contiguous = b == list(range(b[0], b[0] + len(b))) if b else False
    print(b[0] if b else "-", b[-1] if b else "-",
          len(b) if contiguous else "gaps")
'
}
