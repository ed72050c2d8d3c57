# shellcheck shell=bash
# Shared by the decode shell tests: the qpt binary and the real traces.
set -u
: "${QPT:?QPT must name the qpt binary}"
TRACES="${QPT_SHARED:-/nonexistent}/traces"
fail() { echo "FAIL: $*" >&2; exit 1; }
need_traces() {
	[ -d "$TRACES/arcus-hello" ] || { echo "skip: no $TRACES"; exit 77; }
}
# --image arguments for every mem/ADDR.bin of trace folder $1
images() {
	local f a
	for f in "$1"/mem/*.bin; do
		a=$(basename "$f" .bin)
		printf -- '--image %s@0x%s ' "$f" "$a"
	done
}
# the "ip" values of --insn --json, one hex address a line
json_ips() { grep -v '"event"' | sed 's/^{"ip":"0x\([0-9a-f]*\)".*/\1/'; }
