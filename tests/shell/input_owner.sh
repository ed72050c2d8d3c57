#!/usr/bin/env bash
# -f/--force, as perf has it: perf refuses to read a file that neither the
# user nor root owns ("not owned by current user or root (use -f to
# override)") and reads it with -f.  qpt info, dump, convert and decode
# must do both alike: one line and exit 1 without --force, perf's records
# with it; standard input is never refused.  Needs root (to give a file to
# another user).
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
need perf
[ "$(id -u)" = 0 ] || { echo "not root"; exit 77; }
f=$tmp/theirs.data
perf record -q -e task-clock -o "$f" -- sh -c "$busy" >/dev/null 2>&1 ||
	{ echo "perf record failed"; exit 77; }
chown 65534:65534 "$f"

perf report -D -i "$f" 2>&1 | grep -q "not owned by current user or root" ||
	bad "perf reads a file nobody owns without -f"
msg="qpt: $f: not owned by the current user or root (use --force to override)"
for c in "info" "dump" "dump --json" "convert -o $tmp/out.data" "decode"; do
	# shellcheck disable=SC2086 # the command and its options
	"$QPT" $c -i "$f" >/dev/null 2>"$tmp/err"
	rc=$?
	checked=$((checked + 1))
	if [ $rc != 1 ] || [ "$(cat "$tmp/err")" != "$msg" ]; then
		bad "qpt $c: exit $rc:"
		cat "$tmp/err"
	fi
done
[ -e "$tmp/out.data" ] && bad "qpt convert wrote an output"

want=$(perf report -f -D -i "$f" 2>/dev/null |
	sed -n '/^Aggregated stats/,/^[^ A]/p' |
	awk '$2 == "events:" && $1 != "TOTAL" && $3 > 0 { print $1, $3 }' |
	sort)
got=$("$QPT" dump --json --force -i "$f" |
	sed -n 's/.*"type":"\([A-Z0-9_]*\)".*/\1/p' | sort | uniq -c |
	awk '{ print $2, $1 }' | sort)
check_view "qpt dump --force" "$want" "$got" types
# shellcheck disable=SC2002 # a pipe on standard input, not a file
got=$(cat "$f" | qpt_counts -)
check_view "standard input" "$want" "$got" types
"$QPT" info -f -i "$f" >/dev/null || bad "qpt info -f: exit $?"
"$QPT" convert -f -i "$f" -o "$tmp/out.data" || bad "qpt convert -f: exit $?"
got=$(qpt_counts "$tmp/out.data")
check_view "qpt convert -f" "$want" "$got" types
# past the owner: decode says what is wrong with the file itself
"$QPT" decode -f -i "$f" 2>"$tmp/err"
rc=$?
if [ $rc != 1 ] || ! grep -q "no Intel PT trace" "$tmp/err"; then
	bad "qpt decode -f: exit $rc: $(cat "$tmp/err")"
fi
checked=$((checked + 1))
finish
