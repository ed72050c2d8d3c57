#!/usr/bin/env bash
# cpack -G DEB builds the Debian package of this build; extracted into a
# scratch root (dpkg -x) its qpt runs (--version, decoding a real trace),
# man finds qpt-decode(1) through MANPATH, the bash completion is there,
# and its Depends (from dpkg-shlibdeps) name the Debian package of each
# library the binaries need (each NEEDED soname, found with dpkg -S).
set -u
for c in cpack dpkg-deb dpkg-shlibdeps man; do
	command -v $c >/dev/null || { echo "no $c"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cpack --config "$QPT_BUILD/CPackConfig.cmake" -G DEB -B "$tmp/pkg" \
	>"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; exit 1; }
deb=$(ls "$tmp"/pkg/*.deb)
[ -f "$deb" ] || { echo "FAIL: no .deb"; exit 1; }
dpkg -x "$deb" "$tmp/root"
root=$tmp/root
"$root/usr/bin/qpt" --version | grep -q '^qpt [0-9]' ||
	bad "the packaged qpt does not run"
T=${QPT_SHARED:-/nonexistent}/traces/arcus-hello
if [ -d "$T" ]; then
	n=$(ASAN_OPTIONS=detect_leaks=0 "$root/usr/bin/qpt" decode --insn \
		--json --no-sym --sysroot "$T" -i "$T/perf.data" | grep -vc "\"event\"")
	want=$(zcat "$T/expected/insn-ips.txt.gz" | wc -l)
	[ "$n" = "$want" ] || bad "the packaged qpt decodes $n instructions, want $want"
fi
MANPATH=$root/usr/share/man MANWIDTH=80 man qpt-decode 2>/dev/null |
	grep -q 'qpt decode - decode Intel PT' ||
	bad "man qpt-decode: not found through MANPATH"
[ -f "$root/usr/share/bash-completion/completions/qpt" ] ||
	bad "no bash completion"
# Depends against the libraries the binaries need
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for so in $(objdump -p "$root/usr/bin/qpt" "$root"/usr/lib/libqpt.so.0 |
	awk '$1 == "NEEDED" { print $2 }' | sort -u); do
	case $so in libqpt.so.*) continue ;; esac
	path=$(ldconfig -p | awk -v s="$so" '$1 == s && /x86-64/ { print $NF; exit }')
	[ -n "$path" ] || { bad "$so: not found by ldconfig"; continue; }
	pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1)
	[ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
	[ -n "$pkg" ] || { bad "$so ($path): no package owns it"; continue; }
	echo "$depends" | grep -q -E "(^|, )$pkg( |,|$)" ||
		bad "$so comes from $pkg, which Depends does not name"
done
[ $fail -eq 0 ] && echo "ok: $(basename "$deb") runs, man qpt-decode, completion, Depends"
exit $fail
