#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Random x86-64 assembly programs for the emulated source's engines.

    asmgen.py SEED [--async] > prog.S
    gcc -nostdlib -static -no-pie -o prog prog.S

What csmith rarely produces, from one seed (the same seed, the same
program): counted loops of 1 to 4 blocks (the shapes the breakpoint engine
runs natively, emulate/loop.c) with every induction form (add, sub, inc,
dec, lea on any register but rsp, steps positive and negative, small and
large, 64-bit and narrow registers, which are no induction), the update
before or after the exit test, an exit or a detour that rejoins the loop at
the end of each block, a second write to the register (no induction
then), the test on the update's own flags; faults inside loops (a guard
page the SIGSEGV handler makes readable again, a load it skips, ud2, int3
and a division it skips); calls, system calls, rep stos and the loop
instruction inside loops; small control-flow graphs whose conditional
jumps' ways share code or not, with jump tables, indirect calls, pushed
returns and calls that never return, run many times with other data; code
that overlaps itself.  With --async, an interval timer (SIGALRM) interrupts
the program anywhere, loops included; its handler and restorer lie
between the symbols random_mask_lo and random_mask_hi, which check.sh
leaves out of the flows it compares (where the signals land varies from
run to run; all else does not).

The program prints a checksum of the registers and memory its fragments
leave (the alarm count aside), exits 0, and runs some thousands to some
tens of thousands of instructions.
"""
import random
import sys

REGS = ['rax', 'rbx', 'rcx', 'rdx', 'rsi', 'rdi', 'rbp', 'r8', 'r9', 'r10',
        'r11', 'r12', 'r13', 'r14', 'r15']
R32 = {'rax': 'eax', 'rbx': 'ebx', 'rcx': 'ecx', 'rdx': 'edx',
       'rsi': 'esi', 'rdi': 'edi', 'rbp': 'ebp'}
R16 = {'rax': 'ax', 'rbx': 'bx', 'rcx': 'cx', 'rdx': 'dx', 'rsi': 'si',
       'rdi': 'di', 'rbp': 'bp'}
R8 = {'rax': 'al', 'rbx': 'bl', 'rcx': 'cl', 'rdx': 'dl', 'rsi': 'sil',
      'rdi': 'dil', 'rbp': 'bpl'}
for _i in range(8, 16):
    R32['r%d' % _i] = 'r%dd' % _i
    R16['r%d' % _i] = 'r%dw' % _i
    R8['r%d' % _i] = 'r%db' % _i
CC = ['e', 'ne', 'b', 'ae', 'l', 'ge', 's', 'ns', 'be', 'a', 'le', 'g',
      'o', 'no', 'p', 'np']
PAGE = 4096


class Gen:
    def __init__(self, seed, is_async):
        self.r = random.Random(seed)
        self.is_async = is_async
        self.text = []
        self.data = []
        self.n = 0
        self.budget = 0  # instructions the fragments run, roughly

    def label(self, what):
        self.n += 1
        return '.L%s%d' % (what, self.n)

    def e(self, s):
        self.text.append('\t' + s)

    def at(self, lab):
        self.text.append(lab + ':')

    def imm(self, bits=31):
        v = self.r.getrandbits(bits)
        return v - (1 << bits) if self.r.random() < 0.5 else v

    def init(self, regs):
        """Each register of @regs set to a constant."""
        for g in regs:
            if self.r.random() < 0.3:
                self.e('movabs $%#x, %%%s' % (self.r.getrandbits(64), g))
            else:
                self.e('mov $%d, %%%s' % (self.imm(), g))

    def mix(self, regs):
        """@regs folded into the checksum acc."""
        for g in regs:
            self.e('xor %%%s, acc(%%rip)' % g)
            self.e('rolq $%d, acc(%%rip)' % self.r.randint(1, 63))
        self.e('imulq $0x2545f491, acc(%rip), %rax')
        self.e('add %rax, acc(%rip)')

    # ---- straight-line instructions ----

    def op(self, scratch):
        """One instruction (or a few) writing only registers of @scratch
        (reading any)."""
        r = self.r
        a, b = r.choice(scratch), r.choice(REGS)
        k = r.random()
        if k < 0.25:
            m = r.choice(['add', 'sub', 'xor', 'and', 'or', 'adc', 'sbb'])
            if r.random() < 0.5:
                self.e('%s %%%s, %%%s' % (m, b, a))
            else:
                self.e('%s $%d, %%%s' % (m, self.imm(r.choice([7, 31])), a))
        elif k < 0.35:
            m = r.choice(['rol', 'ror', 'shl', 'shr', 'sar'])
            self.e('%s $%d, %%%s' % (m, r.randint(1, 63), a))
        elif k < 0.42:
            self.e('imul %%%s, %%%s' % (b, a))
        elif k < 0.50:
            self.e('lea %d(%%%s,%%%s,%d), %%%s' % (
                self.imm(12), b, r.choice(REGS), r.choice([1, 2, 4, 8]), a))
        elif k < 0.56:
            self.e('cmp %%%s, %%%s' % (b, r.choice(REGS)))
            self.e('cmov%s %%%s, %%%s' % (r.choice(CC), b, a))
        elif k < 0.60:
            self.e('test %%%s, %%%s' % (b, r.choice(REGS)))
            self.e('set%s %%%s' % (r.choice(CC), R8[a]))
        elif k < 0.66:  # narrow registers
            w = r.choice([R32, R16, R8])
            m = r.choice(['add', 'sub', 'xor', 'mov'])
            self.e('%s %%%s, %%%s' % (m, w[b], w[a]))
        elif k < 0.70:
            self.e(r.choice(['neg', 'not', 'bswap', 'inc', 'dec']) +
                   ' %' + a)
        elif k < 0.74:
            c = r.choice(scratch)
            self.e('xchg %%%s, %%%s' % (a, c))
        elif k < 0.78:
            self.e('movzbl %%%s, %%%s' % (R8[b], R32[a]))
        elif k < 0.92:  # a load from buf
            self.e('mov %%%s, %%%s' % (b, a))
            self.e('and $0xff8, %%%s' % a)
            w = r.choice(['mov buf(%%%s), %%%s' % (a, a),
                          'movzbl buf+3(%%%s), %%%s' % (a, R32[a]),
                          'movsbq buf+5(%%%s), %%%s' % (a, a)])
            self.e(w)
        else:  # a store to buf
            c = r.choice(scratch)
            self.e('mov %%%s, %%%s' % (b, c))
            self.e('and $0xff8, %%%s' % c)
            self.e('mov %%%s, buf(%%%s)' % (r.choice(REGS), c))

    def ops(self, scratch, lo, hi):
        for _ in range(self.r.randint(lo, hi)):
            self.op(scratch)

    def special(self, scratch, loop):
        """Something a loop's body rarely holds: a fault a handler goes on
        from, a call, a system call, rep stos: False if @scratch lacks
        the registers it needs."""
        r = self.r
        k = r.choice(['ud2', 'int3', 'div', 'skipload', 'call', 'syscall',
                      'rep', 'call'])
        if k == 'ud2':
            self.e('ud2')
        elif k == 'int3':
            self.e('int3')
        elif k == 'div':
            if not {'rax', 'rdx', 'r11'} <= set(scratch):
                return False
            # a byte of data as divisor: zero at times (SIGFPE, skipped)
            self.e('mov %%%s, %%r11' % r.choice(REGS))
            self.e('and $0xff8, %r11')
            self.e('movzbq buf+1(%r11), %r11')
            self.e('and $%d, %%r11' % r.choice([1, 3, 7]))
            self.e('.byte 0x49, 0xf7, 0xf3 /* div %r11 */')
        elif k == 'skipload':
            if not {'r10', 'r11'} <= set(scratch):
                return False
            # the load from %r10 faults where it is 0 (the handler gives
            # %r11 a value and goes on past it)
            self.e('mov %%%s, %%r10' % r.choice(REGS))
            self.e('and $0xff8, %r10')
            self.e('movzbl buf+2(%r10), %r10d')
            self.e('and $1, %r10')
            self.e('neg %r10')
            self.e('and $buf, %r10')
            self.e('.byte 0x4d, 0x8b, 0x1a /* mov (%r10), %r11 */')
        elif k == 'call':
            if 'rax' not in scratch:
                return False
            self.e('call leaf%d' % r.randint(0, 3))
        elif k == 'syscall':
            if not {'rax', 'rcx', 'r11'} <= set(scratch):
                return False
            self.e('mov $39, %eax')  # getpid: its value is left out
            self.e('syscall')
            self.e('mov $%d, %%eax' % self.imm())
            # under single-step, r11 holds the trap flag: left out
            self.e('mov $%d, %%ecx' % self.imm())
            self.e('mov $%d, %%r11' % self.imm())
        elif k == 'rep':
            if not {'rax', 'rcx', 'rdi'} <= set(scratch):
                return False
            self.e('lea buf+%d(%%rip), %%rdi' % (8 * r.randint(0, 400)))
            self.e('mov $%d, %%ecx' % r.randint(0, 24))
            self.e('rep stosb')
        return True

    # ---- counted loops ----

    def loop(self, name):
        """A counted loop of 1 to 4 blocks, and what may stop it."""
        r = self.r
        m = r.choice([1, 1, 2, 2, 3, 4])
        ind = r.choice([g for g in REGS])
        kind = r.choice(['add', 'sub', 'inc', 'dec', 'lea'])
        narrow = r.random() < 0.12 and kind != 'lea'
        mode = r.choice(['value'] * 5 + ['pointer'] * 2 + ['guard'])
        if narrow:
            mode = 'value'
        if mode == 'guard' and kind == 'dec':
            kind = 'inc'  # up into the guard page
        mag = r.choice([1, 1, 2, 3, 4, 7, 8, 16, 64, 1000, 4096, 0x12345,
                        0x7fffffff])
        if narrow:
            mag = r.choice([1, 2, 3, 8, 64])
        if mode != 'value':
            mag = r.choice([1, 2, 4, 8, 16])
        if kind == 'inc':
            step = 1
        elif kind == 'dec':
            step = -1
        else:
            step = mag if r.random() < 0.5 else -mag
        if mode == 'guard':
            step = abs(step)
        trips = r.choice([0, 1, 2, 3, r.randint(4, 40), r.randint(40, 400),
                          r.randint(40, 400), r.randint(400, 1500)])
        if self.is_async:
            trips = r.randint(500, 4000)
        if mode != 'value':
            trips = min(trips, 3800 // abs(step))
        body_n = [r.randint(0, 4) for _ in range(m)]
        ub = r.randrange(m)  # the update's block and place in it
        ui = r.randint(0, body_n[ub])
        tb = r.randrange(m)  # the exit test's block
        flags = (kind != 'lea' and tb == ub and ui == body_n[ub] and
                 r.random() < 0.5 and mode == 'value')
        before = ub < tb or (ub == tb)  # the update ran when tested
        end = r.choice([g for g in REGS if g != ind])
        fixed = {ind, end}
        scratch = [g for g in REGS if g not in fixed]
        bits = r.choice([8, 16, 32]) if narrow else 64
        w = {8: R8, 16: R16, 32: R32}.get(bits)
        mask = (1 << bits) - 1
        iname = w[ind] if narrow else ind
        ename = w[end] if narrow else end

        self.e('.p2align %d' % r.choice([0, 4, 6]))
        self.at(name)
        self.init(scratch + [end])
        # the start value, the end value the test looks for
        if mode == 'value':
            start = r.getrandbits(64)
            if r.random() < 0.3:  # near where the register wraps
                start = (mask - r.randint(0, 20) + (1 << 64)) & mask
                if step < 0:
                    start = r.randint(0, 20)
            self.e('movabs $%#x, %%%s' % (start, ind))
        elif mode == 'pointer':
            off = r.randint(0, 4095 - trips * abs(step)) if step > 0 else \
                r.randint(trips * abs(step), 4095)
            start = None
            self.e('lea buf+%d(%%rip), %%%s' % (off, ind))
        else:
            # into the guard page (no access: the handler gives it back)
            ahead = r.randint(0, trips) * step
            self.e('lea guard+%d(%%rip), %%rdi' % PAGE)
            self.e('mov $%d, %%esi' % PAGE)
            self.e('xor %edx, %edx')
            self.e('mov $10, %eax')
            self.e('syscall')
            self.init(scratch)
            self.e('lea guard+%d(%%rip), %%%s' % (PAGE - ahead, ind))
            start = None
        if flags:
            # dec/sub/...: the jump on the update's zero flag, the register
            # zero after the update of the last trip
            target = 0
            start_v = (-(trips + 1) * step) & mask
            if narrow:
                self.e('mov $%#x, %%%s' % (start_v, iname) if bits > 8 else
                       'mov $%#x, %%%s' % (start_v & 0xff, iname))
            else:
                self.e('movabs $%#x, %%%s' % (start_v & ((1 << 64) - 1), ind))
            start = start_v
        else:
            self.e('mov %%%s, %%%s' % (ind, end))
            adv = (trips + (1 if before else 0)) * step
            if 'r15' in scratch:
                self.e('movabs $%#x, %%r15' % (adv & ((1 << 64) - 1)))
                if narrow:
                    self.e('add %%%s, %%%s' % (w['r15'], ename))
                else:
                    self.e('add %%r15, %%%s' % end)
            else:
                self.e('movabs $%#x, %%%s' % (adv & ((1 << 64) - 1), ind))
                # ind holds adv, end the start: swap them into place
                self.e('xchg %%%s, %%%s' % (ind, end))
                if narrow:
                    self.e('add %%%s, %%%s' % (w[ind], ename))
                else:
                    self.e('add %%%s, %%%s' % (ind, end))
        # a second write to the induction register (no induction then)
        dup = r.random() < 0.1
        dup_at = (r.randrange(m), 0)
        blocks = [self.label('B') for _ in range(m)]
        exits = [self.label('X') for _ in range(m)]
        share_exit = m > 1 and r.random() < 0.1
        detours = {}
        if r.random() < 0.15 and mode == 'value':
            self.special_pending = True
        else:
            self.special_pending = False
        self.e('jmp %s' % blocks[0])
        for i in range(m):
            self.at(blocks[i])
            for k in range(body_n[i] + 1):
                if i == ub and k == ui:
                    self.update(kind, iname, step, narrow, ind)
                if k == body_n[i]:
                    break
                if dup and (i, k) == dup_at:
                    self.e(r.choice(['or $0, %{0}', 'and $-1, %{0}',
                                     'mov %{0}, %{0}', 'lea 0(%{0}), %{0}'])
                           .format(ind))
                if self.special_pending and r.random() < 0.5:
                    if self.special(scratch, True):
                        self.special_pending = False
                    continue
                if mode != 'value' and r.random() < 0.5:
                    t = r.choice(scratch)
                    self.e('movzbl %d(%%%s), %%%s' % (
                        r.randint(-3, 3) if mode == 'pointer' else 0,
                        ind, R32[t]))
                    continue
                self.op(scratch)
            if mode == 'guard' and i == 0:
                t = r.choice(scratch)
                self.e('mov (%%%s), %%%s' % (ind, R8[t]))
            ex = exits[0] if share_exit and i == m - 1 else exits[i]
            nxt = blocks[(i + 1) % m]
            if i == tb:
                if flags:
                    cond_out, cond_stay = 'z', 'nz'
                else:
                    self.e('cmp %%%s, %%%s' % (ename, iname))
                    cond_out, cond_stay = 'e', 'ne'
            else:
                # an exit taken at times (data), or a detour that rejoins
                t = r.choice(scratch)
                if mode == 'value':
                    self.e('mov %%%s, %%%s' % (iname if not narrow else ind, t))
                    self.e('and $0xff8, %%%s' % t)
                    self.e('movzbl buf+7(%%%s), %%%s' % (t, R32[t]))
                else:
                    self.e('movzbl (%%%s), %%%s' % (ind, R32[t]))
                if r.random() < 0.3:
                    # taken every 2nd, 8th or 64th trip or so
                    detours[i] = self.label('D')
                    self.e('test $%d, %%%s' % (r.choice([1, 7, 63]) <<
                                               r.randint(0, 1), R8[t]))
                    cond_out, cond_stay = 'z', 'nz'
                    ex = detours[i]
                elif r.random() < 0.3:
                    self.e('cmp $%d, %%%s' % (r.randint(0, 255), R8[t]))
                    cond_out, cond_stay = 'e', 'ne'
                else:  # rarer
                    self.e('movzwl buf(%%%s), %%%s' % (t, R32[t])
                           if mode == 'value' else
                           'movzwl (%%%s), %%%s' % (ind, R32[t]))
                    self.e('cmp $%d, %%%s' % (r.randint(0, 65535), R16[t]))
                    cond_out, cond_stay = 'e', 'ne'
            lay = r.choice(['fall', 'target', 'jmp'])
            if lay == 'fall' and i + 1 < m:
                self.e('j%s %s' % (cond_out, ex))
            elif lay == 'target' or (lay == 'fall' and i + 1 == m):
                self.e('j%s %s' % (cond_stay, nxt))
                self.e('jmp %s' % ex)
            else:
                self.e('j%s %s' % (cond_out, ex))
                self.e('jmp %s' % nxt)
        for i, d in detours.items():
            self.at(d)
            self.ops([g for g in scratch if g != 'r15'], 0, 2)
            self.e('jmp %s' % blocks[(i + 1) % m])
        done = self.label('E')
        for i in range(m):
            if share_exit and i == m - 1:
                continue
            self.at(exits[i])
            self.e('add $%d, %%%s' % (i + 1, r.choice(scratch)))
            self.e('jmp %s' % done)
        self.at(done)
        self.mix([ind] + r.sample(scratch, 3))
        self.e('ret')
        self.budget += (trips + 1) * (sum(body_n) * 3 + 4 * m)

    def update(self, kind, iname, step, narrow, ind):
        if kind == 'inc':
            self.e('inc %' + iname)
        elif kind == 'dec':
            self.e('dec %' + iname)
        elif kind == 'add':
            self.e('add $%d, %%%s' % (step, iname))
        elif kind == 'sub':
            self.e('sub $%d, %%%s' % (-step, iname))
        else:
            self.e('lea %d(%%%s), %%%s' % (step, ind, ind))

    # ---- the loop and rep instructions, jrcxz ----

    def rcx_loop(self, name):
        r = self.r
        n = r.randint(1, 300)
        scratch = [g for g in REGS if g not in ('rcx', 'rdi', 'rax', 'rsi')]
        self.at(name)
        self.init(scratch)
        top, out = self.label('L'), self.label('O')
        k = r.choice(['loop', 'jrcxz', 'rep'])
        self.e('mov $%d, %%ecx' % n)
        self.at(top)
        self.ops(scratch, 1, 3)
        if k == 'loop':
            self.e('loop %s' % top)
        elif k == 'jrcxz':
            self.e('jrcxz %s' % out)
            self.e('dec %rcx')
            self.e('jmp %s' % top)
        else:
            self.e('lea buf+%d(%%rip), %%rdi' % r.randint(0, 64))
            self.e('lea buf+%d(%%rip), %%rsi' % r.randint(0, 2000))
            self.e('mov %ecx, %eax')
            self.e('and $15, %ecx')
            self.e(r.choice(['rep stosb', 'rep stosq', 'rep movsb']))
            self.e('mov %eax, %ecx')
            self.e('loop %s' % top)
        self.at(out)
        self.mix(r.sample(scratch, 3))
        self.e('ret')
        self.budget += n * 8

    # ---- control-flow graphs ----

    def cfg(self, name):
        """A function of blocks joined by every kind of branch, forward
        only, run many times with other data (r14)."""
        r = self.r
        nb = r.randint(3, 9)
        body = self.label('G')
        labs = [self.label('C') for _ in range(nb)]
        scratch = [g for g in REGS if g not in ('r14', 'r15')]
        reps = r.randint(4, 60)
        self.at(name)
        self.init(scratch)
        self.e('mov $%d, %%r14' % self.imm())
        self.e('mov $%d, %%r15d' % reps)
        top = self.label('T')
        self.at(top)
        if r.random() < 0.5:
            self.e('call %s' % body)
        else:
            self.e('lea %s(%%rip), %%rbx' % body)
            self.e('call *%rbx')
        self.e('imul $0x5e3779b1, %r14, %r14')
        self.e('add $%d, %%r14' % self.imm(16))
        self.e('mov %r14, %r13')
        self.e('shr $%d, %%r13' % r.randint(1, 40))
        self.e('dec %r15d')
        self.e('jnz %s' % top)
        self.mix(['rax', 'rbx', 'rdx', 'r13'])
        self.e('ret')

        self.e('.p2align %d' % r.choice([0, 4]))
        self.at(body)
        for i in range(nb):
            self.at(labs[i])
            self.ops(scratch, 0, 3)
            later = labs[i + 1:]
            kinds = ['jcc', 'jcc', 'jcc', 'jmp', 'ijmp', 'ijmpreg', 'call',
                     'icall', 'ret', 'pushret', 'syscall', 'fall', 'noret',
                     'jccnext', 'overlap']
            k = r.choice(kinds) if later else 'ret'
            if k == 'jcc':
                self.e(r.choice(['test $%d, %%r14' % (1 << r.randint(0, 30)),
                                 'cmp $%d, %%r13b' % r.randint(0, 255),
                                 'cmp $%d, %%r14' % self.imm()]))
                self.e('j%s %s' % (r.choice(CC), r.choice(later)))
                if r.random() < 0.3 and len(later) > 1:
                    self.e('jmp %s' % r.choice(later[1:]))
            elif k == 'jccnext':  # both ways the same place
                f = self.label('N')
                self.e('test $%d, %%r14' % (1 << r.randint(0, 30)))
                self.e('jz %s' % f)
                self.at(f)
            elif k == 'jmp':
                self.e('jmp %s' % r.choice(later))
            elif k in ('ijmp', 'ijmpreg'):
                t = r.choice([g for g in scratch if g != 'r13'])
                tbl = self.label('J')
                self.e('mov %%r14, %%%s' % t)
                self.e('shr $%d, %%%s' % (r.randint(0, 20), t))
                self.e('and $3, %%%s' % t)
                if k == 'ijmp':
                    self.e('jmp *%s(,%%%s,8)' % (tbl, t))
                else:
                    self.e('mov %s(,%%%s,8), %%%s' % (tbl, t, t))
                    self.e('jmp *%%%s' % t)
                self.data.append('%s: .quad %s' % (
                    tbl, ', '.join(r.choice(later) for _ in range(4))))
            elif k == 'call':
                self.e('call leaf%d' % r.randint(0, 3))
            elif k == 'icall':
                self.e('lea leaf%d(%%rip), %%rdx' % r.randint(0, 3))
                self.e('call *%rdx')
            elif k == 'ret':
                self.e('ret')
            elif k == 'pushret':  # a return that goes where no call was
                self.e('lea %s(%%rip), %%rdx' % r.choice(later))
                self.e('push %rdx')
                self.e('ret')
            elif k == 'syscall':
                self.e('mov $39, %eax')
                self.e('syscall')
                self.e('mov $%d, %%ecx' % self.imm())
                self.e('mov $%d, %%r11' % self.imm())
                self.e('xor %eax, %eax')
            elif k == 'noret':  # a call that never returns
                f = self.label('F')
                self.e('call %s' % f)
                self.e('ud2')
                self.at(f)
                self.e('add $8, %rsp')
                self.e('jmp %s' % r.choice(later))
            elif k == 'overlap':
                # "jmp .+1" into its own second byte, ff c0: inc %eax
                self.e('.byte 0xeb, 0xff, 0xc0')
        self.budget += reps * nb * 12

    def leaves(self):
        r = self.r
        for i in range(4):
            self.at('leaf%d' % i)
            k = r.choice(['plain', 'loop', 'tail'])
            if k == 'plain':
                self.e('lea %d(%%rax,%%rax,2), %%rax' % self.imm(8))
                self.e('ret')
            elif k == 'loop':
                top = self.label('Q')
                self.e('push %rcx')
                self.e('mov $%d, %%ecx' % r.randint(1, 20))
                self.at(top)
                self.e('add %rcx, %rax')
                self.e('rol $5, %rax')
                self.e('dec %ecx')
                self.e('jnz %s' % top)
                self.e('pop %rcx')
                self.e('ret')
            else:
                self.e('xor $%d, %%rax' % self.imm(16))
                self.e('jmp leaf%d' % ((i + 1) % 4) if i < 3 else 'ret')

    # ---- the program ----

    def program(self):
        r = self.r
        frags = []
        while self.budget < 12000 and len(frags) < 10:
            name = 'frag%d' % len(frags)
            k = r.random()
            if k < 0.6:
                self.loop(name)
            elif k < 0.75:
                self.rcx_loop(name)
            else:
                self.cfg(name)
            frags.append(name)
        self.leaves()
        body = '\n'.join(self.text)
        calls = '\n'.join('\tcall %s' % f for f in frags)
        buf = ', '.join('%#x' % r.getrandbits(64) for _ in range(520))
        return PROLOGUE + calls + EPILOGUE.format(
            alarm='1' if self.is_async else '0',
            usec=r.choice([2000, 3000, 5000])) + body + DATA.format(
            buf=buf, more='\n'.join(self.data))


PROLOGUE = r'''/* generated by tests/random/asmgen.py */
	.text
	.globl _start
_start:
	call setup
'''

EPILOGUE = r'''
	call finish
	/* not reached */
	ud2

/* the handlers of the faults the fragments make and go on from */
setup:
	mov $11, %edi
	lea sa_segv(%rip), %rsi
	call sigact
	mov $4, %edi
	lea sa_ill(%rip), %rsi
	call sigact
	mov $8, %edi
	lea sa_fpe(%rip), %rsi
	call sigact
	mov $5, %edi
	lea sa_trap(%rip), %rsi
	call sigact
	mov ${alarm}, %eax
	test %eax, %eax
	jz 1f
	mov $14, %edi
	lea sa_alrm(%rip), %rsi
	call sigact
	movq ${usec}, itv+8(%rip)
	movq ${usec}, itv+24(%rip)
	mov $38, %eax	/* setitimer(ITIMER_REAL, &itv, NULL) */
	xor %edi, %edi
	lea itv(%rip), %rsi
	xor %edx, %edx
	syscall
1:	ret

sigact:
	mov $13, %eax
	xor %edx, %edx
	mov $8, %r10d
	syscall
	test %rax, %rax
	jnz die
	ret

die:
	mov $3, %edi
	mov $231, %eax
	syscall

finish:
	mov ${alarm}, %eax
	test %eax, %eax
	jz 1f
	movq $0, itv+8(%rip)
	movq $0, itv+24(%rip)
	mov $38, %eax
	xor %edi, %edi
	lea itv(%rip), %rsi
	xor %edx, %edx
	syscall
1:	mov acc(%rip), %rax
	xor nsync(%rip), %rax
	lea out+16(%rip), %rdi
	mov $16, %ecx
2:	mov %eax, %edx
	and $15, %edx
	movzbl hex(%rdx), %edx
	dec %rdi
	mov %dl, (%rdi)
	shr $4, %rax
	dec %ecx
	jnz 2b
	mov $1, %eax
	mov $1, %edi
	lea out(%rip), %rsi
	mov $17, %edx
	syscall
	mov $231, %eax
	xor %edi, %edi
	syscall

/* SIGSEGV: in the guard page, access given back; at the load from
   (%r10), %r11 set and the load skipped; anywhere else, exit 3 */
on_segv:
	addq $1, nsync(%rip)
	mov 16(%rsi), %rax
	lea guard+4096(%rip), %rdi
	cmp %rdi, %rax
	jb 1f
	lea 4096(%rdi), %rcx
	cmp %rcx, %rax
	jae 1f
	mov $4096, %esi
	mov $3, %edx
	mov $10, %eax
	syscall
	ret
1:	mov 168(%rdx), %rax
	cmpw $0x8b4d, (%rax)
	jne die
	cmpb $0x1a, 2(%rax)
	jne die
	movq $0x5a5a, 64(%rdx)
	addq $3, 168(%rdx)
	ret
on_ill:
	addq $1, nsync(%rip)
	addq $2, 168(%rdx)
	ret
on_fpe:
	addq $3, nsync(%rip)
	addq $3, 168(%rdx)
	ret
on_trap:
	addq $5, nsync(%rip)
	ret
restore:
	mov $15, %eax
	syscall

	.globl random_mask_lo, random_mask_hi
random_mask_lo:
on_alrm:
	addq $1, nalrm(%rip)
	mov nalrm(%rip), %ecx
	and $7, %ecx
	jz 2f
1:	add %rcx, %rax
	dec %ecx
	jnz 1b
2:	ret
restore_alrm:
	mov $15, %eax
	syscall
random_mask_hi:

'''

DATA = r'''
	.data
	.p2align 6
acc:	.quad 0x243f6a8885a308d3
nsync:	.quad 0
nalrm:	.quad 0
itv:	.quad 0, 0, 0, 0
hex:	.ascii "0123456789abcdef"
out:	.ascii "0123456789abcdef\n"
	.p2align 3
/* rt_sigaction's: handler, SA_SIGINFO | SA_RESTORER | SA_RESTART,
   restorer, mask; SIGTRAP's with SA_NODEFER too: a trap in a handler that
   blocks SIGTRAP (a tracer's step) makes the kernel reset the handler to
   SIG_DFL, and the next int3 kills the program under any ptrace stepper */
sa_segv: .quad on_segv, 0x14000004, restore, 0
sa_ill:	.quad on_ill, 0x14000004, restore, 0
sa_fpe:	.quad on_fpe, 0x14000004, restore, 0
sa_trap: .quad on_trap, 0x54000004, restore, 0
sa_alrm: .quad on_alrm, 0x14000004, restore_alrm, 0
{more}
	.p2align 6
buf:	.quad {buf}
	.bss
	.p2align 12
guard:	.zero 8192
'''


def main():
    args = sys.argv[1:]
    is_async = '--async' in args
    args = [a for a in args if a != '--async']
    if len(args) != 1:
        sys.exit('usage: asmgen.py SEED [--async]')
    sys.stdout.write(Gen(int(args[0]), is_async).program())


if __name__ == '__main__':
    main()
