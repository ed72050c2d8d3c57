#!/usr/bin/env bash
# --symfs (--sysroot): the recorded files read under another root, as
# perf's --symfs reads them.  The bundled crash example is recorded, then
# its program and the libraries it mapped are moved under a scratch root
# at their recorded paths: qpt decode --symfs gives perf script --symfs's
# instructions (tid, ip), qpt crash --symfs names the frames of the
# source's marked lines (without it, the moved program has no names, nor
# with the program an absolute symlink out of the root: it resolves
# inside; a FIFO in its place is not waited on); each subcommand that
# reads binaries lists --symfs beside --sysroot.
. "$QPT_SRC/tests/shell/lib.sh"
. "$QPT_SRC/tests/shell/qpt_insns.sh"
need perf c++ ldd
cd "$tmp" || exit 1

for c in decode flame lbr inject crash; do
	"$QPT" "$c" --help | grep -q -- '--sysroot DIR, --symfs DIR ' ||
		bad "qpt $c --help: no --symfs beside --sysroot"
done

src=$QPT_SRC/traces/demo/crash.cc
mkdir bin root
c++ -O1 -g -o bin/demo_crash "$src" || exit 1
"$QPT" record -q --emulate --snapshot -o crash.data -- "$tmp/bin/demo_crash"
[ -s crash.data ] || { echo "no recording"; exit 77; }
# the program and the files it mapped, at the paths the kernel recorded
for f in "$tmp/bin/demo_crash" $(ldd bin/demo_crash | grep -o '/[^ ]*'); do
	r=$(readlink -f "$f")
	mkdir -p "root$(dirname "$r")"
	cp "$r" "root$r"
done
mv bin/demo_crash bin/demo_crash.away

# -F sw: leaves out the crash facts' samples (qpt:crash)
perf script --symfs "$tmp/root" -i crash.data --itrace=i0ns -F tid,ip -F sw: \
	2>/dev/null | awk '{ print $1, $2 }' >perf.txt
"$QPT" decode --symfs "$tmp/root" -i crash.data --no-sym | insn_ips >qpt.txt
check_view crash.data "$(cat perf.txt)" "$(cat qpt.txt)" "instructions (--symfs)"

line() { grep -n "demo: $1" "$src" | cut -d: -f1; }
"$QPT" crash -i crash.data --symfs "$tmp/root" >crash.txt
for want in "#0 0x[0-9a-f]+ lookup\+0x[0-9a-f]+ .*crash\.cc:$(line 'the fault')$" \
	"#1 0x[0-9a-f]+ parse\+0x[0-9a-f]+ .*crash\.cc:$(line 'the call')$" \
	"#2 0x[0-9a-f]+ main\+0x[0-9a-f]+ .*crash\.cc:$(line 'main')$"; do
	grep -Eq -- "^  $want" crash.txt || bad "qpt crash --symfs: no $want"
done
grep -Eq '^trace window: [1-9][0-9]* instructions' crash.txt ||
	bad "qpt crash --symfs: $(grep '^trace window' crash.txt)"
"$QPT" crash -i crash.data >plain.txt
! grep -q 'lookup+' plain.txt || bad "qpt crash without --symfs: names lookup"
# the recorded program an absolute symlink to itself outside the root:
# inside the root the link leads inside (as in a chroot), where there is
# nothing, so qpt crash --symfs names the frames no more than without it
r=$(readlink -f bin)/demo_crash
rm "root$r" && ln -s "$tmp/bin/demo_crash.away" "root$r" || exit 1
"$QPT" crash -i crash.data --symfs "$tmp/root" >escape.txt
! grep -q 'lookup+' escape.txt ||
	bad "qpt crash --symfs: followed an absolute symlink out of the root"
# a FIFO there: read as no file, never waited on (ctest's TIMEOUT guards)
rm "root$r" && mkfifo "root$r" || exit 1
"$QPT" crash -i crash.data --symfs "$tmp/root" >fifo.txt ||
	bad "qpt crash --symfs with a FIFO for the program: exit $?"
! grep -q 'lookup+' fifo.txt || bad "qpt crash --symfs: a FIFO names lookup"
checked=$((checked + 1))
finish
