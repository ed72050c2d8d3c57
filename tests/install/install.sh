#!/usr/bin/env bash
# cmake --install into a temporary prefix; then a consumer program is built
# against it twice, with pkg-config (qpt.pc) and with find_package(qpt)
# (qptConfig.cmake), and run on a perf.data that perf records here; its
# record count must equal perf report -D's.  The installed qpt runs too.
set -u
src=$1 sanitize=$2
command -v pkg-config >/dev/null || { echo "skip: no pkg-config"; exit 77; }
command -v perf >/dev/null || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
flags=""
[ "$sanitize" = 1 ] && flags="-fsanitize=address,undefined"
cmake --install "$QPT_BUILD" --prefix "$tmp/prefix" >/dev/null ||
	fail "cmake --install"
[ -x "$tmp/prefix/bin/qpt" ] || fail "no installed qpt"
"$tmp/prefix/bin/qpt" --version | grep -q '^qpt ' ||
	fail "the installed qpt does not run (RPATH?)"
# the installed qpt finds its installed QEMU plugin (and CPUID probe)
if command -v qemu-x86_64 >/dev/null; then
	env -u QPT_QEMU_PLUGIN "$tmp/prefix/bin/qpt" record -q --emulate=qemu \
		-o "$tmp/q.data" -- /bin/true ||
		fail "the installed qpt does not record with its QEMU plugin"
fi
pc=$(dirname "$(find "$tmp/prefix" -name qpt.pc | head -n 1)")
[ -n "$pc" ] || fail "no qpt.pc installed"
perf record -q -e task-clock -o "$tmp/p.data" -- true 2>/dev/null ||
	fail "perf record"
want=$(perf report -D -i "$tmp/p.data" 2>/dev/null |
	awk '/TOTAL events:/ { print $3 }')

# 1. pkg-config
# shellcheck disable=SC2046,SC2086
cc $flags -o "$tmp/c1" "$src/consumer.c" \
	$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs qpt) \
	-Wl,-rpath,"$(PKG_CONFIG_PATH=$pc pkg-config --variable=libdir qpt)" ||
	fail "build with pkg-config"
# 2. find_package(qpt)
mkdir -p "$tmp/cm"
cat >"$tmp/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(qpt 0.1 REQUIRED)
add_executable(c2 $src/consumer.c)
target_compile_options(c2 PRIVATE $flags)
target_link_options(c2 PRIVATE $flags)
target_link_libraries(c2 PRIVATE qpt::qpt)
CM
cmake -S "$tmp/cm" -B "$tmp/cm/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
	>/dev/null && cmake --build "$tmp/cm/b" >/dev/null ||
	fail "build with find_package(qpt)"
for c in "$tmp/c1" "$tmp/cm/b/c2"; do
	out=$(ASAN_OPTIONS=detect_leaks=0 "$c" "$tmp/p.data") ||
		fail "$c failed"
	echo "$out"
	got=$(echo "$out" | sed -n 's/.*: \([0-9]*\) records.*/\1/p')
	[ "$got" = "$want" ] || fail "$c: $got records, perf report -D: $want"
done
echo ok
