#!/usr/bin/env bash
# Real Intel PT / Intel BTS where the PMU exists (skip elsewhere): perf
# reads the recording and decodes it without errors.
set -euo pipefail
spin=$1
command -v perf >/dev/null || exit 77
ran=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for pmu in intel_pt intel_bts; do
	[ -e /sys/bus/event_source/devices/$pmu ] || continue
	ran=1
	"$QPT" record -q -e $pmu//u -o $pmu.data -- "$spin" 20
	perf report -D -i $pmu.data >/dev/null 2>perr.txt
	if grep -i -E 'warn|error' perr.txt; then exit 1; fi
	if perf script -i $pmu.data --itrace=e 2>&1 | grep -i error; then
		exit 1
	fi
	"$QPT" record -q -S -e $pmu//u -o snap.data -- "$spin" 20
	perf report -D -i snap.data | grep -q PERF_RECORD_AUXTRACE
done
[ $ran = 1 ] || exit 77
