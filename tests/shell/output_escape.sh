#!/usr/bin/env bash
# Hostile bytes in everything qpt prints: a program whose file path, comm
# and a symbol hold quotes, backslashes, control bytes, invalid UTF-8
# (stray bytes, an overlong form, a surrogate, a code point past U+10FFFF,
# a cut sequence) and valid multibyte UTF-8, and a symbol of 70000 bytes,
# recorded with qpt record --emulate.  The oracle is Python: its json
# module must parse every line of every --json output (dump, info, decode
# in each mode, file and pipe mode) after a strict UTF-8 decode, and each
# string must carry the bytes by the rule of cli/out.h, computed here from
# the bytes by Python's own UTF-8 decoder; text output and error messages
# likewise (\xNN for control bytes and invalid UTF-8).
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
need python3 cc
"$QPT" record --help 2>&1 | grep -q -- --emulate ||
	{ echo "skip: no qpt record --emulate"; exit 77; }

# The program: _start calls a 70000-byte symbol, then one of 40 hostile
# bytes (written into .strtab over a placeholder of the same length).
python3 - "$tmp" <<'EOF' || exit 1
import sys
d = sys.argv[1]
long, ph = 'L' * 70000, 'H' * 40
open(d + '/prog.s', 'w').write(f'''
	.globl _start
	.text
_start:	call {long}
	call {ph}
	mov $60, %eax
	xor %edi, %edi
	syscall
	.type {long},@function
{long}:	nop
	ret
	.size {long}, .-{long}
	.type {ph},@function
{ph}:	nop
	nop
	ret
	.size {ph}, .-{ph}
''')
EOF
cc -nostdlib -static -no-pie -o "$tmp/prog" "$tmp/prog.s" ||
	{ echo "skip: cannot link a static program"; exit 77; }
python3 - "$tmp" <<'EOF' || exit 1
import sys
d = sys.argv[1]
b = open(d + '/prog', 'rb').read()
h = (b'q"\\\x01\x1b\t\x7f\xff\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80'
     b'\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xe2\x82')
h += b'z' * (40 - len(h))
assert b.count(b'H' * 40) == 1
open(d + '/prog', 'wb').write(b.replace(b'H' * 40, h))
open(d + '/sym.bin', 'wb').write(h)
EOF
# its directory and name (no newline: /proc/PID/maps escapes it)
dir="$tmp/$(printf 'dir"\\\001\033\t\177\377\303\251')"
prog="$dir/$(printf 'p"\\\002\376\342\202\254q')"
mkdir "$dir" && cp "$tmp/prog" "$prog" || exit 1
printf '%s' "$prog" >"$tmp/path.bin"
env -i QPT_TEST=1 "$QPT" record -q --emulate -o "$tmp/rec.data" -- "$prog" \
	>/dev/null 2>&1 || { bad "qpt record --emulate"; finish; }
"$QPT" convert -i "$tmp/rec.data" -o - >"$tmp/pipe.data" ||
	bad "qpt convert -o -"

# check KIND FILE: every line of FILE is JSON (KIND names what to look for
# in it) or, for text-*, holds the escaped strings.
check() {
	python3 - "$tmp" "$1" "$2" <<'EOF'
import json, sys
d, kind, f = sys.argv[1:]
raw = lambda n: open(d + '/' + n, 'rb').read()
def text_form(b):  # \xNN for control bytes and invalid UTF-8
    out = ''
    for c in b.decode('utf-8', 'surrogateescape'):
        o = ord(c)
        out += ('\\x%02x' % (o & 0xff)) if o < 0x20 or o == 0x7f or \
            0xdc80 <= o <= 0xdcff else c
    return out
def json_form(b):  # what a JSON parser reads: invalid bytes as U+00XX
    return ''.join(chr(ord(c) & 0xff) if 0xdc80 <= ord(c) <= 0xdcff else c
                   for c in b.decode('utf-8', 'surrogateescape'))
sym, path = raw('sym.bin'), raw('path.bin')
comm = path.rsplit(b'/', 1)[1][:15]
long = 'L' * 70000
data = open(f, 'rb').read()
fail = []
if kind.startswith('text'):
    text = data.decode('utf-8')   # strict: the output is valid UTF-8
    want = {'text-decode': [text_form(sym) + '+0x0 insn: 90',
                            ' ' + long + '+0x1 insn: c3'],
            'text-dump': [text_form(path), 'exec: ' + text_form(comm) + ':'],
            'text-info': [text_form(path)]}[kind]
    fail = [w[:60] for w in want if w not in text]
    if any(c < ' ' and c != '\n' or c == '\x7f' for c in text):
        fail.append('a raw control byte')
else:
    objs = [json.loads(l) for l in data.decode('utf-8').splitlines()]
    strs = []
    def walk(v):
        if isinstance(v, dict): [walk(x) for x in v.values()]
        elif isinstance(v, list): [walk(x) for x in v]
        elif isinstance(v, str): strs.append(v)
    walk(objs)
    want = {'decode': [json_form(sym) + '+0x0', long + '+0x0'],
            'dump': [json_form(path), json_form(comm)],
            'info': [json_form(path)]}[kind]
    fail = [w[:60] for w in want if w not in strs]
if fail:
    print('missing:', fail)
    sys.exit(1)
EOF
}

# run KIND NAME QPT-ARGS...: qpt's output into $tmp/NAME, then check it
run() {
	local kind=$1 name=$2
	shift 2
	if ! ASAN_OPTIONS=detect_stack_use_after_return=1:detect_leaks=1 \
		"$QPT" "$@" >"$tmp/$name" 2>"$tmp/err"; then
		bad "qpt $*: exit code"; cat "$tmp/err"; return
	fi
	if check "$kind" "$tmp/$name"; then
		echo "ok: qpt $* ($(wc -l <"$tmp/$name") lines)"
	else
		bad "qpt $*"
	fi
	checked=$((checked + 1))
}

for f in rec pipe; do
	run dump "dump-$f" dump --json -i "$tmp/$f.data"
	run info "info-$f" info --json -i "$tmp/$f.data"
	run text-dump "dumpt-$f" dump -i "$tmp/$f.data"
done
run text-info info-text info -i "$tmp/rec.data"
for m in --insn --branches --calls "--insn --events" "--branches --last 5"; do
	# shellcheck disable=SC2086 # the mode's words
	run decode "decode-json" decode $m --json -i "$tmp/rec.data"
done
run text-decode decode-text decode --insn -i "$tmp/rec.data"
run text-decode decode-text-last decode --insn --last 20 -i "$tmp/rec.data"

# every --json output of the real recordings parses too
jsonl() {
	python3 -c 'import json, sys
for l in sys.stdin.buffer: json.loads(l.decode("utf-8"))'
}
if [ -d "$T" ]; then
	for f in "$T"/*/perf.data "$T"/quipper-intel-pt-4.14/perf.data.*4.14 \
		"$T"/lbr-callstack-perfparser/perf.lbr.data; do
		for c in dump info; do
			"$QPT" $c --json -i "$f" | jsonl ||
				bad "qpt $c --json -i $f: not JSON Lines"
			checked=$((checked + 1))
		done
	done
	d=$T/arcus-hello
	for m in --insn --branches --calls; do
		"$QPT" decode $m --events --json --sysroot "$d" -i "$d/perf.data" |
			jsonl ||
			bad "qpt decode $m --json: not JSON Lines"
	done
	echo "ok: the real recordings' JSON"
fi

# an error message names a hostile file on one line, escaped
"$QPT" dump -i "$dir/none" >/dev/null 2>"$tmp/err"
python3 - "$tmp" <<'EOF' || bad "error message: $(cat "$tmp/err")"
import sys
d = sys.argv[1]
err = open(d + '/err', 'rb').read().decode('utf-8')
p = open(d + '/path.bin', 'rb').read().rsplit(b'/', 1)[0] + b'/none'
want = '' .join(('\\x%02x' % (ord(c) & 0xff)) if ord(c) < 0x20 or
                ord(c) == 0x7f or 0xdc80 <= ord(c) <= 0xdcff else c
                for c in p.decode('utf-8', 'surrogateescape'))
assert err == 'qpt: ' + want + ': No such file or directory\n', repr(err)
EOF
checked=$((checked + 1))
finish
