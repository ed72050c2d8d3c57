# shellcheck shell=bash
# Sourced by the capture shell tests.
# wait_for CONDITION: until the shell condition holds (checked every
# 20 ms, for at most 20 s); 1 with a line saying so when it never does
wait_for() {
	local i
	for i in $(seq 1000); do
		eval "$1" && return 0
		sleep 0.02
	done
	echo "timed out waiting for: $1"
	return 1
}
