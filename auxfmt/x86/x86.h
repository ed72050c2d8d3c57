/* SPDX-License-Identifier: MIT */
/*
 * The x86 layer: every x86 instruction qpt looks at is decoded here, once,
 * by Zydis (the common ones of 64-bit code by tables checked against
 * Zydis: fast.c), for all its users (the emulated source's classifier, the
 * decoder's walk of libipt blocks, qpt decode's disassembly).  It says
 * what an instruction does to the flow of control (its branch class), its
 * length, a direct branch's target and an indirect branch's operand; its
 * text in Intel syntax; and it keeps decoded instructions by address.
 */
#ifndef QPT_X86_X86_H
#define QPT_X86_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum qx86_class {
	QX86_NONE,     /* goes on to the next instruction (or faults) */
	QX86_JCC,      /* Jcc rel: @cond is its condition (tttn, 0..15) */
	QX86_LOOP,     /* JrCXZ, LOOP, LOOPE, LOOPNE: @cond says which */
	QX86_JMP,      /* near direct jump: @target */
	QX86_JMP_IND,  /* near indirect jump: @opnd */
	QX86_CALL,     /* near direct call: @target */
	QX86_CALL_IND, /* near indirect call: @opnd */
	QX86_RET,      /* near return: @imm bytes released after the pop */
	QX86_FAR_JMP,  /* jmp ptr16:32, jmp m16:xx (@opnd) */
	QX86_FAR_CALL, /* call ptr16:32, call m16:xx (@opnd) */
	QX86_FAR_RET,  /* far return: @imm bytes released */
	QX86_SYSCALL,
	QX86_SYSENTER,
	QX86_SYSRET,   /* sysret, sysexit */
	QX86_INT,      /* int n, int3, int1, into: @imm is the vector */
	QX86_IRET,     /* iret, iretd, iretq */
	QX86_NCLASSES
};

/* @cond of QX86_LOOP (after the 16 conditions of Jcc) */
enum qx86_loop_cond {
	QX86_COND_LOOPNE = 16,
	QX86_COND_LOOPE,
	QX86_COND_LOOP,
	QX86_COND_CXZ, /* JCXZ, JECXZ, JRCXZ */
};

/* @flags */
#define QX86_F_REP 1u	/* a REP string instruction: may run again at its ip */
#define QX86_F_CPUID 2u /* CPUID (some hypervisors swallow its trap) */

enum qx86_opnd_type { QX86_OPND_NONE, QX86_OPND_REG, QX86_OPND_MEM };
enum qx86_seg { QX86_SEG_NONE, QX86_SEG_FS, QX86_SEG_GS };

/*
 * The operand of an indirect branch: a register, or memory at
 * seg:[base + index * scale + disp] of @size bytes.  Registers are
 * numbered as in the encoding: 0..15 for rax, rcx, rdx, rbx, rsp, rbp,
 * rsi, rdi, r8..r15 (or their 32/16-bit parts); -1 none.  A rip-relative
 * address is resolved: base -1 and @disp the absolute address.  Segments
 * other than fs and gs are flat (QX86_SEG_NONE).
 */
struct qx86_opnd {
	uint8_t type;	    /* enum qx86_opnd_type */
	int8_t base, index; /* REG: the register in @base */
	uint8_t scale;	    /* 1, 2, 4 or 8 */
	uint8_t seg;	    /* enum qx86_seg */
	uint8_t size;	    /* bytes of the value (8 for a near branch in
			     * 64-bit mode) */
	uint64_t disp;	    /* sign-extended */
};

struct qx86_insn {
	uint8_t len;	 /* 1..15 */
	uint8_t cls;	 /* enum qx86_class */
	uint8_t cond;	 /* JCC: tttn; LOOP: enum qx86_loop_cond */
	uint8_t flags;	 /* QX86_F_* */
	uint8_t asz;	 /* address size in bits: LOOP counts in CX, ECX or
			  * RCX, and a memory operand's address wraps */
	uint16_t imm;	 /* RET, FAR_RET: bytes released; INT: vector */
	uint64_t target; /* JCC, LOOP, JMP, CALL */
	struct qx86_opnd opnd; /* indirect branches (near and far) */
};

/* The decoders for each mode (opaque).  A qx86 is not changed by use:
 * threads may share it. */
struct qx86;

/* NULL when out of memory. */
struct qx86 *qx86_new(void);
void qx86_free(struct qx86 *x);

/*
 * Decode the instruction at the start of [@p, @p + @n) that executes at
 * @ip in @bits mode (16, 32 or 64).  Returns its length (1..15), or
 * -QPT_E_TRUNCATED when the bytes end before the instruction does,
 * -QPT_E_FORMAT when they are no valid instruction, -QPT_E_INVAL for bad
 * @bits.  @out is zeroed first.
 */
int qx86_decode(const struct qx86 *x, const uint8_t *p, size_t n, int bits,
		uint64_t ip, struct qx86_insn *out);

/*
 * The instruction at [@p, @p + @n) at @ip in @bits mode as text in Intel
 * syntax, as ptxed prints it ("mov rdi, rsp", "call 0x401136", "jmp qword
 * ptr [rip+0x2f46]"), NUL-terminated in @buf of @size bytes (64 are
 * enough for nearly all, 128 in practice).  @x may be NULL (slower: the
 * decoder is set up for the call).  Returns the text's length, the
 * errors of qx86_decode, or -QPT_E_INVAL when @buf is too small.
 */
int qx86_format(const struct qx86 *x, const uint8_t *p, size_t n, int bits,
		uint64_t ip, char *buf, size_t size);

/* ---- decoded instructions by address ---- */

/* One decoded instruction: valid while @gen is the cache's. */
struct qx86_cached {
	uint64_t ip;
	uint32_t gen;
	uint8_t bits;
	uint8_t raw[15]; /* its bytes (insn.len of them) */
	struct qx86_insn insn;
};

/*
 * A cache of 2^order entries (64 bytes each) in sets of QX86_WAYS by ip:
 * bounded, and a loop decodes once (a direct-mapped one lost a quarter of
 * a libc-sized working set to collisions).  Entries are the code of one
 * address space: a new one (another process, an exec, code that changed)
 * starts a new generation (qx86_cache_forget, qx86_cache_use).
 */
#define QX86_WAYS 4

struct qx86_cache {
	struct qx86_cached *ent; /* from bigmem_zalloc */
	uint64_t set_mask; /* sets - 1 */
	uint32_t gen;
	uint32_t clock;	  /* the way to replace next */
	const void *code; /* the user's name for the code (qx86_cache_use) */
	struct qx86 *x;
};

/* NULL when out of memory. */
struct qx86_cache *qx86_cache_new(unsigned order);
void qx86_cache_free(struct qx86_cache *c);
/* Forget every entry (the code may differ from now on). */
void qx86_cache_forget(struct qx86_cache *c);
/* The entries from now on are of the code the caller names @code (an
 * address space that does not change while it is used): every entry is
 * forgotten when it is not the code named last. */
void qx86_cache_use(struct qx86_cache *c, const void *code);

/* The first entry of the set of @ip. */
static inline struct qx86_cached *qx86_cache_set(struct qx86_cache *c,
						 uint64_t ip)
{
	uint64_t h = (ip ^ (ip >> 15) ^ (ip >> 31)) & c->set_mask;

	return &c->ent[h * QX86_WAYS];
}

/* The instruction at @ip in @bits mode if it is kept, else NULL. */
static inline const struct qx86_cached *
qx86_cache_find(struct qx86_cache *c, uint64_t ip, int bits)
{
	const struct qx86_cached *e = qx86_cache_set(c, ip);
	unsigned i;

	for (i = 0; i < QX86_WAYS; i++)
		if (e[i].ip == ip && e[i].gen == c->gen && e[i].bits == bits)
			return &e[i];
	return NULL;
}

/*
 * Decode the instruction at the start of [@p, @p + @n) at @ip in @bits
 * mode and keep it: 0 with *@out set (valid until the next add or
 * forget), or the errors of qx86_decode (nothing is kept).
 */
int qx86_cache_add(struct qx86_cache *c, uint64_t ip, int bits,
		   const uint8_t *p, size_t n, const struct qx86_cached **out);

/* ---- register effects ---- */

/* What an instruction does to the general purpose registers, numbered as
 * in struct qx86_opnd (0..15: rax, rcx, ..., r15). */
struct qx86_gpr_fx {
	uint16_t writes; /* bit r: some part of register r is written (by an
			  * operand or implicitly) */
	int8_t step_reg; /* the 64-bit register to which all the instruction
			  * does is add @step (an induction step), or -1 */
	int64_t step;	 /* non-zero where step_reg is set */
	uint8_t pushed;	 /* the bytes it stores just below the stack
			  * pointer it starts with (push, near call: the
			  * value or return address pushed), else 0 */
};

/*
 * The register effects of the instruction at the start of [@p, @p + @n)
 * at @ip in @bits mode (only 64-bit code has induction steps).  Returns
 * its length, or the errors of qx86_decode.
 */
int qx86_gpr_effect(const struct qx86 *x, const uint8_t *p, size_t n,
		    int bits, uint64_t ip, struct qx86_gpr_fx *out);

#endif
