# shellcheck shell=bash
# insn_ips: "TID IP" of each instruction line of qpt decode's text (the IP
# is the field before "insn:"; a time column comes between the two when
# the trace has timestamps).
insn_ips() {
	awk '{ for (i = 2; i <= NF; i++) if ($i == "insn:") {
		print $1, $(i - 1); next } }'
}
