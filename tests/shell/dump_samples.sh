#!/usr/bin/env bash
# qpt dump --json SAMPLE fields (pid, tid, time, ip) against perf report
# -D's SAMPLE lines, sample by sample, for files perf records here (file
# mode, -z, pipe mode) and the real LBR and Intel PT recordings (their
# cycles samples).
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
need perf

# The oracle is perf report -D: one line per SAMPLE record in file order.
# (perf script is not used here: under load it leaves out samples that it
# cannot order, so it is not a record-by-record oracle.)  --disable-order:
# perf prints SAMPLE lines as it delivers them, by default in time order,
# which differs from file order when the buffers of two CPUs interleave.
perf_samples() {
	perf report -D --disable-order -i "$1" 2>/dev/null |
		grep 'PERF_RECORD_SAMPLE(' |
		awk '{ for (k = 2; k < NF; k++)
			if ($k ~ /^0x[0-9a-f]+$/ && $(k + 1) ~ /^\[/) break;
		       t = $(k - 1);
		       for (j = k; j < NF; j++)
			if ($j ~ /^-?[0-9]+\/-?[0-9]+:$/) break;
		       split($j, p, "/"); sub(":", "", p[2]);
		       ip = $(j + 1); sub("^0x", "", ip);
		       while (length(t) < 10) t = "0" t;
		       print p[1], p[2], substr(t, 1, length(t) - 9) "." \
			     substr(t, length(t) - 8), ip }'
}

qpt_samples() {
	"$QPT" dump --json -i "$1" | grep '"type":"SAMPLE"' |
		sed -n 's/.*"ip":"0x\([0-9a-f]*\)","pid":\([0-9-]*\),"tid":\([0-9-]*\),"time":\([0-9]*\).*/\2 \3 \4 \1/p' |
		awk '{ t = $3; while (length(t) < 10) t = "0" t;
		       print $1, $2, substr(t, 1, length(t) - 9) "." \
			     substr(t, length(t) - 8), $4 }'
}

check() {
	check_view "$1" "$(perf_samples "$1")" "$(qpt_samples "$1")" samples
}

if perf record -q -e task-clock -c 100000 -o "$tmp/sw.data" -- \
	sh -c "$busy" 2>/dev/null; then
	check "$tmp/sw.data"
	perf record -q -z -e task-clock -c 100000 -o "$tmp/z.data" -- \
		sh -c "$busy" \
		2>/dev/null && check "$tmp/z.data"
	perf record -q -e task-clock -c 100000 -o - -- \
		sh -c "$busy" \
		>"$tmp/pipe.data" 2>/dev/null && check "$tmp/pipe.data"
	# many sample_type bits: CALLCHAIN, REGS_USER, STACK_USER, ADDR, CPU,
	# DATA_SRC, PHYS_ADDR, CGROUP, DATA/CODE_PAGE_SIZE
	if perf record -q -e task-clock -c 200000 --call-graph dwarf,1024 -d \
		--phys-data --data-page-size --code-page-size --sample-cpu \
		--all-cgroups --namespaces --switch-events -o "$tmp/rich.data" \
		-- sh -c "$busy" \
		2>/dev/null; then
		check "$tmp/rich.data"
		# perf report -D: "CPU TIME OFFSET [SIZE]: PERF_RECORD_SAMPLE..."
		# then " .. code page size: 4K"; in file order (not perf script,
		# which orders by time)
		want=$(perf report -D --disable-order -i "$tmp/rich.data" \
			2>/dev/null | awk '/PERF_RECORD_SAMPLE\(/ { cpu = $1; s = 1 }
			s && /^ \.\. code page size: / { v = $NF; n = v + 0;
			if (v ~ /K$/) n *= 1024; if (v ~ /M$/) n *= 1048576;
			if (v ~ /G$/) n *= 1073741824; print cpu, n; s = 0 }')
		got=$("$QPT" dump --json -i "$tmp/rich.data" |
			grep '"type":"SAMPLE"' |
			sed -n 's/.*"cpu":\([0-9]*\).*"code_page_size":\([0-9]*\).*/\1 \2/p')
		if [ -n "$want" ] && [ "$want" = "$got" ]; then
			echo "ok: cpu and code_page_size of $(echo "$want" | wc -l) samples"
		else
			bad "cpu/code_page_size"
			diff <(echo "$want") <(echo "$got") | head -5
		fi
	fi
fi
if [ -d "$T" ]; then
	check "$T/lbr-callstack-perfparser/perf.lbr.data"
fi
finish
