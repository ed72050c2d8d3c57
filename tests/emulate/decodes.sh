# shellcheck shell=bash
# decodes FILE WHAT: perf decodes more than 1000 instructions of FILE and
# reports no decode error, and qpt decode reads it without failing or
# marking an error (the caller's bad() reports; qpt's text goes to
# dec.txt in the current directory).
decodes() { # FILE WHAT
	local n e
	n=$(perf script -i "$1" --itrace=i0ns -F ip -F sw: 2>/dev/null | wc -l)
	e=$(perf script -i "$1" --itrace=e 2>&1 | grep -ci error)
	[ "$n" -gt 1000 ] || bad "$2: perf decodes $n instructions"
	[ "$e" -eq 0 ] || bad "$2: perf reports $e decode errors"
	"$QPT" decode -i "$1" --no-sym >dec.txt 2>&1 ||
		bad "$2: qpt decode fails: $(tail -1 dec.txt)"
	grep -q '\[error' dec.txt && bad "$2: qpt decode reports errors"
}
