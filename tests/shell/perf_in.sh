# shellcheck shell=bash
# perf_in FILE perf-args...: run perf on FILE, through a real pipe when
# FILE is a pipe-mode stream.  perf 6.1 cannot read Intel PT from a
# pipe-mode stream stored in a regular file: it seeks to each AUXTRACE
# payload without counting the 16-byte pipe header, so it reads the
# payload 16 bytes early and the records after it as garbage; a pipe
# cannot be seeked, and perf reads it right.

is_pipe() { # FILE: a pipe-mode stream (the header's size field says 16)
	[ "$(od -An -tu8 -j8 -N8 "$1" | tr -d ' ')" = 16 ]
}

perf_in() {
	local f=$1
	shift
	if is_pipe "$f"; then
		# shellcheck disable=SC2002
		cat "$f" | perf "$@" -i -
	else
		perf "$@" -i "$f"
	fi
}
