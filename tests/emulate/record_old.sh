#!/bin/bash
# qpt record -o FILE keeps what FILE held, as perf record does: an existing
# FILE becomes FILE.old (its FILE.vdso, FILE.old.vdso) before the new
# recording is written; an empty FILE or -o - renames nothing.  The event
# is named as it was asked for, in qpt info as in perf's header listing.
# Args: GT_STEP PROG_DIR
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1

rec() { # EVENT
	env -i "$QPT" record -q --emulate -e "$1" -o r.data -- "$DIR/emu_flow" \
		>/dev/null 2>err.txt || bad "record $1: $(cat err.txt)"
}

rec intel_pt//u
cp r.data first && cp r.data.vdso first.vdso
rec intel_pt/cyc/u
cmp -s r.data.old first || bad "r.data.old is not the first recording"
cmp -s r.data.old.vdso first.vdso || bad "r.data.old.vdso is not its vDSO"
cmp -s r.data first && bad "r.data was not written anew"
for f in r.data r.data.old; do
	perf report --header-only -i "$f" >/dev/null 2>&1 ||
		bad "perf cannot read $f"
done
# the names asked for, as perf shows them
name() { # FILE: the event's name in perf's header listing and qpt info's
	# (not qpt:crash, the crash facts' event every emulated file has)
	{
		perf report --header-only -i "$1" 2>/dev/null |
			sed -n 's/^# event : name = \([^,]*\),.*/\1/p'
		"$QPT" info -i "$1" |
			sed -n 's/^# event : name = \([^,]*\),.*/\1/p'
	} | grep -vx 'qpt:crash'
}
[ "$(name r.data.old | sort -u)" = "intel_pt//u:qpt-emulated" ] ||
	bad "first: named '$(name r.data.old | tr '\n' ' ')'"
[ "$(name r.data | sort -u)" = "intel_pt/cyc/u:qpt-emulated" ] ||
	bad "second: named '$(name r.data | tr '\n' ' ')'"

# an empty file is not kept; -o - renames nothing
rm -f r.data.old
: >r.data
rec intel_pt//u
[ -e r.data.old ] && bad "an empty r.data became r.data.old"
cp r.data before
env -i "$QPT" record -q --emulate -o - -- "$DIR/emu_flow" >p.data \
	2>/dev/null </dev/null
[ -e r.data.old ] && bad "-o - renamed r.data"
cmp -s r.data before || bad "-o - changed r.data"

[ $fail -eq 0 ] && echo "ok: FILE.old kept, events named as asked"
exit $fail
