#!/usr/bin/env python3
"""qpt decode's instruction text (the "asm" of --insn --json) against
objdump -d -M intel of the program (an independent disassembler), at each
distinct address of the trace that lies in the program.  Only notation is
normalised: case, spaces, number bases and signs, objdump's comments and
symbols, condition-code aliases (je/jz), prefixes that change nothing
(addr32, data16, segment overrides on non-memory forms), movabs, objdump's
brackets-less absolute memory, nop's hidden operand, string instructions'
operands, the EVEX compares' predicate aliases (vpcmpeqb = vpcmpb ..., 0).
Usage: asm_vs_objdump.py INSN.json OBJDUMP.txt MIN_COMPARED"""
import json
import re
import sys

CC = {'e': 'z', 'ne': 'nz', 'a': 'nbe', 'ae': 'nb', 'nae': 'b', 'c': 'b',
      'nc': 'nb', 'g': 'nle', 'ge': 'nl', 'nge': 'l', 'ng': 'le', 'na': 'be',
      'pe': 'p', 'po': 'np'}
PREFIXES = ('rep', 'repz', 'repe', 'repnz', 'repne', 'lock', 'bnd',
            'notrack', 'data16', 'cs', 'ds', 'es', 'ss', 'fs', 'gs',
            'xacquire', 'xrelease', 'addr32')
SILENT = ('addr32', 'data16', 'cs', 'ds', 'es', 'ss')
VPCMP = ['eq', 'lt', 'le', 'false', 'neq', 'nlt', 'nle', 'true']


def cond_alias(m):
    for p in ('j', 'set', 'cmov'):
        if m.startswith(p) and m[len(p):] in CC:
            return p + CC[m[len(p):]]
    return m


def number(mo):
    v = int(mo.group(2), 16)
    if mo.group(1) == '-':
        v = -v
    if v >= 1 << 63:
        v -= 1 << 64
    sign = '-' if v < 0 else ('+' if mo.group(1) == '+' else '')
    return sign + '%#x' % abs(v)


def norm(s, objdump):
    s = s.lower()
    if objdump:
        s = re.sub(r'\s*#.*$', '', s)
        s = re.sub(r'\s*<[^>]*>', '', s)
    words = s.split()
    pre = []
    while words and words[0] in PREFIXES:
        pre.append(words.pop(0))
    pre = [p for p in pre if p not in SILENT]
    if not words:
        return ' '.join(pre)
    m = cond_alias(words[0])
    ops = ''.join(words[1:])
    if objdump and re.fullmatch(r'[0-9a-f]+', ops) and \
            re.match(r'j|call|loop', m):
        ops = '0x' + ops  # a branch target
    ops = re.sub(r'([+-]?)0x([0-9a-f]+)', number, ops)
    ops = re.sub(r'(?<![0-9a-z_])(\d+)(?![0-9a-z_])',
                 lambda mo: '%#x' % int(mo.group(1)), ops)
    ops = ops.replace('+0x0]', ']')
    if m == 'movabs':
        m = 'mov'
    if objdump:
        ops = re.sub(r'([cdefgs]s):(-?0x[0-9a-f]+)', r'\1:[\2]', ops)
        if m == 'xchg' and ops == 'ax,ax':
            m, ops = 'nop', ''
    if m == 'nop':
        ops = ops.split(',')[0]
    st = re.match(r'(byte|word|dword|qword)ptr', ops)
    if re.fullmatch(r'stos|lods|movs|scas|cmps|ins|outs', m) and st:
        m += {'byte': 'b', 'word': 'w', 'dword': 'd', 'qword': 'q'}[st[1]]
        ops = ''
    vc = re.fullmatch(r'vpcmp(u?[bwdq])', m)
    if not objdump and vc and re.search(r',0x[0-7]$', ops):
        m = 'vpcmp' + VPCMP[int(ops[-1])] + vc.group(1)
        ops = ops[:ops.rindex(',')]
    return ' '.join(pre + [m, ops]).strip()


def main():
    od = {}
    for line in open(sys.argv[2]):
        p = line.rstrip('\n').split('\t')
        if len(p) >= 3 and p[0].strip().endswith(':'):
            try:
                od[int(p[0].strip()[:-1], 16)] = p[2]
            except ValueError:
                pass
    seen = {}
    for line in open(sys.argv[1]):
        o = json.loads(line)
        if 'bytes' in o:
            if 'asm' not in o:
                print('no asm at', o['ip'])
                return 1
            seen[int(o['ip'], 16)] = o['asm']
    compared = differ = 0
    for a, t in sorted(seen.items()):
        if a not in od:
            continue  # not the program's: the vDSO
        compared += 1
        if norm(t, False) != norm(od[a], True):
            differ += 1
            if differ <= 20:
                print('%#x: qpt "%s", objdump "%s"' % (a, t, od[a]))
    print('%d instructions compared with objdump -M intel, %d differ' %
          (compared, differ))
    return 1 if differ or compared < int(sys.argv[3]) else 0


sys.exit(main())
