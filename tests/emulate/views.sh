# shellcheck shell=bash
# Views of an emulated recording to compare two recordings (or one with the
# ground truth, by_thread of gt_step's lines): per thread, the instruction
# addresses and the decode errors (where, which), as perf and as qpt decode
# see them.  Timestamps and trace offsets are left out: they differ between
# two recordings of the same flow.  Source tests/shell/by_thread.sh and
# tests/shell/perf_in.sh first (common.sh does).

# FILE: perf's view; perf's other words on stderr (warnings) are left out:
# where they fall among the lines of stdout varies from run to run
perf_view() {
	perf_in "$1" script --itrace=i0nse -F tid,ip 2>&1 |
		awk '/instruction trace errors/ { next }
		     /instruction trace error/ {
			for (i = 1; i < NF; i++) {
				if ($i == "tid") t = $(i + 1)
				if ($i == "ip") a = $(i + 1)
				if ($i == "code") c = $(i + 1)
			}
			print t, "ERR" a ":" c; next }
		     $1 ~ /^[0-9]+$/ { print $1, $2 }' | by_thread
}

# FILE: qpt decode's view (the IP is the word before "insn:"; errors, lost
# data and overflows as "ERR" with their IP and message)
qpt_view() {
	"$QPT" decode -i "$1" --no-sym 2>&1 |
		awk '{ for (i = 2; i <= NF; i++) if ($i == "insn:") {
			print $1, $(i - 1); next } }
		     /\[(error|lost|overflow) at offset / {
			s = $0; sub(/.*\[/, "", s); sub(/ at offset 0x[0-9a-f]+/, "", s)
			gsub(/ /, "_", s); print $1, "ERR" s }' | by_thread
}
