#!/usr/bin/env bash
# qpt convert against perf: files perf records here (software event, -z,
# pipe mode) and the real Intel PT recordings (file and pipe mode) are
# rewritten in file mode,
# file mode -z, pipe mode (-o -) and pipe mode -z; perf must see the same
# records ("Aggregated stats" of perf report -D) and print the same
# `perf script` output for the input and the output, show zstd in
# `perf report --header-only` with -z, and decode arcus-hello (every
# variant) to the instruction addresses of expected/insn-ips.txt.gz.
#
# Pipe-mode outputs go to perf through a real pipe (perf_in.sh says why).
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
need perf

# shellcheck source=tests/shell/perf_in.sh
. "$QPT_SRC/tests/shell/perf_in.sh"

# Per-type counts from perf report -D (as lib.sh's perf_counts, but
# pipe-mode files go through a pipe).  HEADER_FEATURE records are left out
# (compression adds one); HEADER_ATTR and HEADER_BUILD_ID exist in pipe mode
# only and are left out when the modes differ.
counts() {
	local f=$1 cross=$2
	perf_in "$f" report -D 2>/dev/null |
		sed -n '/^Aggregated stats/,/^[^ A]/p' |
		awk -v cross="$cross" '$2 == "events:" && $3 > 0 &&
			$1 != "TOTAL" && $1 != "COMPRESSED" &&
			$1 != "COMPRESSED2" && $1 != "FEATURE" &&
			!(cross && ($1 == "ATTR" || $1 == "BUILD_ID")) {
				print $1, $3 }' | sort
}

# compare IN OUT [script args...]: same counts, same perf script stdout.
# What perf makes of IN is kept in $tmp/ref.* by convert_all.
compare() {
	local in=$1 out=$2 cross=0 a b i=0
	shift 2
	if is_pipe "$in"; then a=1; else a=0; fi
	if is_pipe "$out"; then b=1; else b=0; fi
	[ "$a" = "$b" ] || cross=1
	a=$(cat "$tmp/ref.counts$cross")
	b=$(counts "$out" $cross)
	if [ -z "$a" ] || [ "$a" != "$b" ]; then
		bad "counts of $out differ from $in"
		diff <(echo "$a") <(echo "$b")
	fi
	for opts in "$@"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		cmp -s "$tmp/ref.script$i" \
			<(perf_in "$out" script $opts 2>/dev/null) ||
			bad "perf script $opts of $out differs from $in"
	done
}

# convert_all IN NAME script-args...: every output mode, compared to IN.
convert_all() {
	local in=$1 name=$2 o i=0
	shift 2
	counts "$in" 0 >"$tmp/ref.counts0"
	counts "$in" 1 >"$tmp/ref.counts1"
	for opts in "$@"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		perf_in "$in" script $opts >"$tmp/ref.script$i" 2>/dev/null
		[ -s "$tmp/ref.script$i" ] ||
			bad "perf script $opts prints nothing for $in"
	done
	"$QPT" convert -i "$in" -o "$tmp/$name.file" || bad "convert $in"
	"$QPT" convert -z -i "$in" -o "$tmp/$name.filez" ||
		bad "convert -z $in"
	"$QPT" convert -i "$in" -o - >"$tmp/$name.pipe" ||
		bad "convert -o - $in"
	"$QPT" convert --compress=3 -i "$in" -o - >"$tmp/$name.pipez" ||
		bad "convert --compress=3 -o - $in"
	for o in file filez pipe pipez; do
		compare "$in" "$tmp/$name.$o" "$@"
	done
	for o in filez pipez; do
		perf_in "$tmp/$name.$o" report --header-only 2>/dev/null |
			grep -q '^# compressed : Zstd, level = [13],' ||
			bad "$name.$o: perf shows no zstd compression"
	done
	echo "checked: $in"
}

# Files perf records here with a software event.
work='for i in 1 2 3; do ls / >/dev/null; done'
if perf record -q -e task-clock -o "$tmp/sw.data" -- sh -c "$work" \
	2>/dev/null; then
	perf record -q -z -e task-clock -o "$tmp/z.data" -- sh -c "$work" \
		2>/dev/null
	perf record -q -e task-clock -o - -- sh -c "$work" \
		>"$tmp/p.data" 2>/dev/null
	perf record -q -z -e task-clock -o - -- sh -c "$work" \
		>"$tmp/pz.data" 2>/dev/null
	for f in sw z p pz; do
		convert_all "$tmp/$f.data" "$f" ""
	done
	# the header, as perf prints it, survives file to file
	if ! diff <(perf report --header-only -i "$tmp/sw.data" 2>&1 |
		grep -v '^# captured on') \
		<(perf report --header-only -i "$tmp/sw.file" 2>&1 |
		grep -v '^# captured on'); then
		bad "perf report --header-only differs"
	fi
	# stdin in, stdout out
	if ! "$QPT" convert -i - -o - <"$tmp/p.data" >"$tmp/stdio.pipe" ||
		! cmp -s "$tmp/p.pipe" "$tmp/stdio.pipe"; then
		bad "convert -i - -o - differs from -i FILE -o -"
	fi
else
	echo "perf cannot record here: recorded inputs skipped"
fi

# Byte-swapped inputs (big-endian, hand-built from the format documents
# for the reader's tests; perf 6.1 reads none of them right): the output, in
# host order, holds the records qpt's reader sees in the input (positions
# and the event names the output's EVENT_DESC adds aside), and perf reads
# the outputs of those without AUX data (no AUXTRACE_INFO in these files).
records() {
	"$QPT" dump --json -i "$1" |
		sed -e 's/^{"offset":[0-9]*,/{/' -e 's/,"depth":1//' \
			-e 's/,"event":"[^"]*"//' \
			-e 's/,"payload_offset":"[0-9a-fx]*"//' |
		grep -v -e '"type":"COMPRESSED"' -e '"type":"COMPRESSED2"' \
			-e '"type":"HEADER_ATTR"' \
			-e '"type":"HEADER_FEATURE"'
}
for f in hand-file-be-ver0 hand-file-be-big-attr hand-pipe-be \
	hand-compressed-be; do
	in=$QPT_SRC/tests/auxfmt/corpus/$f.data
	[ -f "$in" ] || { bad "$in is missing"; continue; }
	"$QPT" convert -i "$in" -o "$tmp/$f.file" 2>/dev/null ||
		bad "convert $f"
	if ! cmp -s <(records "$in") <(records "$tmp/$f.file"); then
		bad "$f: records differ after conversion"
		diff <(records "$in") <(records "$tmp/$f.file")
	fi
	case $f in hand-file-be-*) ;; *) false ;; esac ||
		perf report -D -i "$tmp/$f.file" 2>/dev/null |
		grep -q '^Aggregated stats' || bad "$f: perf cannot read it"
	# its features, re-encoded in host order (HOSTNAME, NRCPUS 4/2)
	[ "$f" != hand-file-be-ver0 ] ||
		[ "$(perf report --header-only -i "$tmp/$f.file" 2>/dev/null |
			grep -c -e '^# hostname : testhost$' \
				-e '^# nrcpus avail : 4$' -e '^# nrcpus online : 2$')" = 3 ] ||
		bad "$f: features not carried over"
	echo "checked: $in"
done

T=${QPT_SHARED:-/nonexistent}/traces
if [ -d "$T" ]; then
	convert_all "$T/quipper-intel-pt-4.14/perf.data.intel_pt-4.14" \
		quipper "" "--itrace=be" "--itrace=i0ns -F ip,sym"
	convert_all "$T/quipper-intel-pt-4.14/perf.data.piped.intel_pt-4.14" \
		quipper-piped "" "--itrace=be"
	A=$T/arcus-hello
	zcat "$A/expected/insn-ips.txt.gz" | awk '{ print $1 }' \
		>"$tmp/want.ips"
	for v in perf perf-noindex perf-split3 perf-split7-noindex; do
		if ! "$QPT" convert -i "$A/$v.data" -o "$tmp/$v.file" ||
			! "$QPT" convert -i "$A/$v.data" -o - >"$tmp/$v.pipe"; then
			bad "convert $v"
		fi
		for o in file pipe; do
			perf_in "$tmp/$v.$o" script --symfs="$A" --itrace=i0ns \
				-F ip 2>/dev/null | awk '{ print $1 }' \
				>"$tmp/got.ips"
			cmp -s "$tmp/want.ips" "$tmp/got.ips" ||
				bad "$v.$o: instruction addresses differ"
		done
		# the index is there, made by qpt where the input had none
		perf report --header-only -i "$tmp/$v.file" 2>/dev/null |
			grep '^# missing features' | grep -qw AUXTRACE &&
			bad "$v.file has no AUXTRACE index"
		echo "checked: $A/$v.data"
	done
fi
exit $fail
