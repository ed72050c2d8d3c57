# shellcheck shell=bash
# in_pidns CMD...: run CMD as the first process of a new pid namespace with
# its own /proc, where this host allows one (root, or unprivileged user
# namespaces), else as it is.  Two runs of a program compared address for
# address must see the same pids: a shell formats its parent's pid, one
# loop turn per digit, and the host's pids wrap at pid_max, so a run just
# before the wrap and one just after step different paths.  In a fresh
# namespace CMD is pid 1 and its children 2, 3, ... in both runs.
in_pidns() {
	if [ -z "${pidns_ok+set}" ]; then
		pidns_ok=""
		unshare --pid --fork --mount-proc true 2>/dev/null && pidns_ok=1
	fi
	if [ -n "$pidns_ok" ]; then
		unshare --pid --fork --mount-proc "$@"
	else
		"$@"
	fi
}
