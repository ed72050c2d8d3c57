#!/bin/bash
# qpt record --emulate binds the command to one CPU (as rr does: a ptrace
# stop between two CPUs costs several times more): by default the CPU qpt
# starts on, --bind-to-cpu N that one, --cpu-unbound none (the command's
# affinity as without qpt).  The command's own word for it is
# Cpus_allowed_list in /proc/self/status.  A CPU it may not run on is a
# one-line error; the options need --emulate.  The recordings decode with
# perf to what the command ran.
# Args: GT_STEP (common.sh checks ptrace with it)
GT=$1
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1

allowed() { # the Cpus_allowed_list a command prints (in $1)
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$1"
}

rec() { # WHAT QPT-OPTIONS...: records grep of its own status into out
	local what=$1
	shift
	env -i "$QPT" record -q --emulate "$@" -o "$what.data" -- \
		/bin/grep Cpus_allowed_list /proc/self/status >out 2>rec.err ||
		bad "$what: qpt exits $?: $(cat rec.err)"
	perf script -i "$what.data" --itrace=e 2>&1 | grep -qi error &&
		bad "$what: perf reports decode errors"
	[ "$(perf script -i "$what.data" --itrace=i0ns -F ip 2>/dev/null |
		wc -l)" -gt 10000 ] || bad "$what: perf decodes no run"
}

/bin/grep Cpus_allowed_list /proc/self/status >plain
all=$(allowed plain)
last=$(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 |
	sed 's/.*-//')

rec default
one=$(allowed out)
case $one in
"" | *[!0-9]*) bad "default: bound to '$one', not one CPU" ;;
esac
rec cpu --bind-to-cpu="$last"
[ "$(allowed out)" = "$last" ] ||
	bad "--bind-to-cpu $last: the command may run on $(allowed out)"
rec unbound --cpu-unbound
[ "$(allowed out)" = "$all" ] ||
	bad "--cpu-unbound: the command may run on $(allowed out), not $all"

# a CPU qpt may not use: one line naming it
env -i "$QPT" record -q --emulate --bind-to-cpu=1023 -o x.data -- /bin/true \
	>/dev/null 2>err
rc=$?
if [ $rc -ne 1 ] || [ "$(wc -l <err)" -ne 1 ] || ! grep -q "CPU 1023" err
then
	bad "--bind-to-cpu 1023: exit $rc, $(cat err)"
fi
for o in --bind-to-cpu=x --bind-to-cpu=-1 --bind-to-cpu=1024; do
	"$QPT" record -q --emulate "$o" -o x.data -- /bin/true 2>err
	rc=$?
	[ $rc -eq 2 ] || bad "$o: exit $rc, want 2 (usage): $(cat err)"
done
for o in --bind-to-cpu=0 --cpu-unbound; do
	"$QPT" record -q "$o" -e task-clock -o x.data -- /bin/true 2>err
	rc=$?
	[ $rc -eq 2 ] || bad "$o without --emulate: exit $rc, want 2"
done
[ $fail -eq 0 ] && echo "ok: default CPU $one, --bind-to-cpu $last," \
	"--cpu-unbound $all"
exit $fail
