#!/usr/bin/env bash
# The simulated AUX path into perf.data, read by perf: every PERF_RECORD_AUX
# the simulated kernel made (and its TRUNCATED flags) and every byte it put
# in the AUX area reach the file; perf's own "AUX data lost" count equals
# the simulator's truncations; ITRACE_START and the Intel PT packets decode.
set -euo pipefail
sim=$1
command -v perf >/dev/null || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for mode in full snapshot; do
	read -r _ offered _ written _ lost _ trunc _ auxrec _ captured _ buffers \
		< <("$sim" $mode.data $mode)
	perf report -D -i $mode.data >dump.txt 2>perr.txt
	n_aux=$(grep -c 'PERF_RECORD_AUX offset' dump.txt)
	n_trunc=$(grep 'PERF_RECORD_AUX offset' dump.txt | grep -c '\[T\]' || true)
	n_buf=$(grep -c 'PERF_RECORD_AUXTRACE size' dump.txt)
	sum=0
	while read -r s; do
		sum=$((sum + s))
	done < <(grep 'PERF_RECORD_AUXTRACE size' dump.txt |
		 sed -E 's/.*size: (0x[0-9a-f]+) .*/\1/')
	echo "$mode: offered $offered written $written lost $lost" \
		"truncated $trunc/$auxrec; perf: $n_aux AUX ($n_trunc T)," \
		"$n_buf AUXTRACE, $sum bytes"
	test "$n_aux" -eq "$auxrec"
	test "$n_trunc" -eq "$trunc"
	test "$n_buf" -eq "$buffers"
	test $((written + lost)) -eq "$offered"
	# Padding to 8 is the only difference.
	test "$sum" -ge "$captured" && test "$sum" -lt $((captured + 8 * n_buf))
	grep -q 'PERF_RECORD_ITRACE_START pid: 4242 tid: 4242' dump.txt ||
		grep -q 'PERF_RECORD_ITRACE_START' dump.txt
	grep -q 'PSBEND' dump.txt
	if [ $mode = full ]; then
		test "$captured" -eq "$written"
		# perf's only complaint is the truncations, counted as ours.
		grep -v '^$' perr.txt | grep -v '^Warning:$' >msgs.txt || true
		if [ "$trunc" -gt 0 ]; then
			grep -qx "AUX data lost $trunc times out of $auxrec!" msgs.txt
			test "$(wc -l <msgs.txt)" -eq 1
		else
			test ! -s msgs.txt
		fi
	else
		grep -q 'flags: 0x2 \[O\]' dump.txt
		if grep -i -E 'warn|error' perr.txt; then exit 1; fi
	fi
done
