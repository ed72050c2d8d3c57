#!/bin/bash
# qpt decode --insn shows each instruction's text (Intel syntax, as ptxed
# prints it): checked against objdump -d -M intel (binutils, another
# disassembler) at every distinct address of an emulated recording of a
# static program, in JSON ("asm") and in the text column, which is what
# --no-asm prints with the text after it.
# Args: GT_STEP PROG_DIR
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
command -v objdump >/dev/null || { echo "no objdump: skip"; exit 77; }
prog=$DIR/emu_flow_static
"$QPT" record --emulate -o "$tmp/rec.data" -- "$prog" >/dev/null 2>&1 ||
	bad "record exit $?"
"$QPT" decode --insn --json -i "$tmp/rec.data" >"$tmp/insn.json" ||
	bad "decode --json exit $?"
objdump -d -z -M intel --insn-width=15 "$prog" >"$tmp/objdump.txt" ||
	bad "objdump exit $?"
python3 "$(dirname "$0")/asm_vs_objdump.py" "$tmp/insn.json" \
	"$tmp/objdump.txt" 1000 || bad "the text differs from objdump's"

# text: the --no-asm line, then the same text as JSON's in a column
"$QPT" decode --insn --no-sym -i "$tmp/rec.data" >"$tmp/text" ||
	bad "decode exit $?"
"$QPT" decode --insn --no-sym --no-asm -i "$tmp/rec.data" >"$tmp/bytes" ||
	bad "decode --no-asm exit $?"
python3 - "$tmp/text" "$tmp/bytes" "$tmp/insn.json" <<'PY' || bad "text column"
import json, sys
text = open(sys.argv[1]).read().splitlines()
raw = open(sys.argv[2]).read().splitlines()
asm = [json.loads(l)['asm'] for l in open(sys.argv[3]) if '"asm"' in l]
assert len(text) == len(raw), (len(text), len(raw))
k = 0
for t, r in zip(text, raw):
    if ' insn: ' not in r:
        assert t == r, (t, r)
        continue
    assert t.startswith(r), (t, r)
    col = len(r[r.index(' insn: ') + 6:])
    pad = max(3 * 10 - col, 0) + 2
    assert t[len(r):] == ' ' * pad + asm[k], (t, asm[k])
    k += 1
assert k == len(asm) and k > 1000, k
print('ok: %d text lines' % k)
PY
[ "$fail" = 0 ] && echo ok
exit "$fail"
