// SPDX-License-Identifier: MIT
/*
 * The x86 layer against objdump (binutils, an independent decoder) on
 * every instruction of the .text of each file given: the length (the
 * distance to the next address objdump prints), the branch class (from
 * objdump's mnemonic), a direct branch's target (objdump's operand), the
 * REP-string and CPUID flags.  Each instruction is decoded from the bytes
 * of the section as they follow one another, not cut at objdump's
 * lengths.  Each result is also Zydis's own (the fast path of the layer
 * takes the common instructions without Zydis).  Usage: test_x86_objdump
 * FILE...  (77: no objdump; files that are not there are skipped: the C
 * library's path differs by system)
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auxfmt/x86/x86_priv.h"

#define MAX_SHOWN 20

struct insn {
	uint64_t addr;
	size_t off; /* into the section's bytes */
	char *text; /* objdump's: prefixes, mnemonic, operands */
};

struct listing {
	struct insn *v;
	size_t n, cap;
	uint8_t *bytes;
	size_t nbytes, cap_bytes;
};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = need * 2;
	p = realloc(p, *cap * size);
	if (!p) {
		perror("realloc");
		exit(1);
	}
	return p;
}

/* "  401000:\t48 89 e7   \tmov    %rsp,%rdi": 1 when it is one. */
static int parse_line(char *line, struct listing *l)
{
	char *tab1 = strchr(line, '\t'), *tab2, *end, *p;
	struct insn *in;
	uint64_t addr;

	if (!tab1 || tab1 == line || tab1[-1] != ':')
		return 0;
	addr = strtoull(line, &end, 16);
	if (end != tab1 - 1)
		return 0;
	tab2 = strchr(tab1 + 1, '\t');
	if (!tab2)
		return 0; /* no text: objdump wrapped the bytes */
	l->v = grow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	in = &l->v[l->n++];
	in->addr = addr;
	in->off = l->nbytes;
	for (p = tab1 + 1; p < tab2; p++) {
		if (!isxdigit((unsigned char)p[0]))
			continue;
		l->bytes = grow(l->bytes, &l->cap_bytes, l->nbytes + 1, 1);
		l->bytes[l->nbytes++] = (uint8_t)strtoul(p, NULL, 16);
		p++;
	}
	in->text = strdup(tab2 + 1);
	if (!in->text)
		exit(1);
	in->text[strcspn(in->text, "\n")] = '\0';
	return 1;
}

static int read_listing(const char *file, struct listing *l)
{
	char cmd[4200], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d -z --insn-width=15 -j .text '%s'", file);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0)
		parse_line(line, l);
	free(line);
	return pclose(f) == 0 && l->n ? 0 : -1;
}

static const char *const prefixes[] = {
	"bnd", "notrack", "rep", "repz", "repe", "repnz", "repne", "lock",
	"data16", "data32", "addr32", "cs", "ds", "es", "ss", "fs", "gs",
	"xacquire", "xrelease", NULL,
};

static bool is_prefix(const char *w)
{
	int i;

	if (!strncmp(w, "rex", 3))
		return true;
	for (i = 0; prefixes[i]; i++)
		if (!strcmp(w, prefixes[i]))
			return true;
	return false;
}

static bool one_of(const char *w, const char *list)
{
	size_t n = strlen(w);
	const char *p = list;

	while ((p = strstr(p, w))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

/* What objdump's text says: the class, a direct target, the flags. */
struct want {
	int cls;
	bool has_target;
	uint64_t target;
	unsigned flags;
};

static int class_of(const char *m, const char *ops, bool *direct)
{
	bool ind = ops[0] == '*';

	*direct = false;
	if (!strcmp(m, "jmp") || !strcmp(m, "call")) {
		*direct = !ind;
		if (m[0] == 'j')
			return ind ? QX86_JMP_IND : QX86_JMP;
		return ind ? QX86_CALL_IND : QX86_CALL;
	}
	if (one_of(m, "ret retw retl"))
		return QX86_RET;
	if (one_of(m, "ljmp ljmpw ljmpl ljmpq"))
		return QX86_FAR_JMP;
	if (one_of(m, "lcall lcallw lcalll lcallq"))
		return QX86_FAR_CALL;
	if (one_of(m, "lret lretw lretl lretq"))
		return QX86_FAR_RET;
	if (one_of(m, "iret iretw iretl iretq"))
		return QX86_IRET;
	if (!strcmp(m, "syscall"))
		return QX86_SYSCALL;
	if (!strcmp(m, "sysenter"))
		return QX86_SYSENTER;
	if (one_of(m, "sysret sysretl sysretq sysexit sysexitl sysexitq"))
		return QX86_SYSRET;
	if (one_of(m, "int int3 int1 icebp into"))
		return QX86_INT;
	*direct = true;
	if (one_of(m, "jrcxz jecxz jcxz loop loope loopne loopz loopnz"))
		return QX86_LOOP;
	if (m[0] == 'j')
		return QX86_JCC;
	*direct = false;
	return QX86_NONE;
}

static void want_of(const char *text, struct want *w)
{
	char buf[512], *words[16], *save = NULL, *t, *m = NULL, *ops = "";
	bool rep = false, direct;
	int n = 0, i;

	memset(w, 0, sizeof(*w));
	snprintf(buf, sizeof(buf), "%s", text);
	for (t = strtok_r(buf, " ", &save); t && n < 16;
	     t = strtok_r(NULL, " ", &save))
		words[n++] = t;
	for (i = 0; i < n && is_prefix(words[i]); i++)
		rep |= !strncmp(words[i], "rep", 3);
	if (i == n)
		return; /* prefixes alone */
	m = words[i];
	if (i + 1 < n)
		ops = words[i + 1];
	/* older objdumps: callq, jmpq, retq */
	if (one_of(m, "callq jmpq retq"))
		m[strlen(m) - 1] = '\0';
	w->cls = class_of(m, ops, &direct);
	if (direct) {
		w->has_target = true;
		w->target = strtoull(ops, NULL, 16);
	}
	if (rep && one_of(m, "movsb movsw movsl movsq stos stosb stosw stosl "
			  "stosq lods lodsb lodsw lodsl lodsq cmpsb cmpsw "
			  "cmpsl cmpsq scas scasb scasw scasl scasq insb "
			  "insw insl outsb outsw outsl movs cmps ins outs"))
		w->flags |= QX86_F_REP;
	if (!strcmp(m, "cpuid"))
		w->flags |= QX86_F_CPUID;
}

/* Whether qx86_decode's result (@n, *@d) for @p is Zydis's own (it may
 * come from the fast path), and count those the fast path took. */
static unsigned long fast;

static bool zydis_agrees(const struct qx86 *x, const uint8_t *p, size_t n,
			 uint64_t ip, int len, const struct qx86_insn *d)
{
	struct qx86_insn z, f;

	fast += qx86_fast(p, n, ip, &f) > 0;
	return qx86_decode_zydis(x, p, n, 64, ip, &z) == len &&
	       (len < 0 || !memcmp(&z, d, sizeof(z)));
}

/* The layer on instruction @i of @l: 0, or 1 after saying what differs. */
static int check(const struct qx86 *x, const struct listing *l, size_t i,
		 const char *file)
{
	const struct insn *in = &l->v[i];
	size_t avail = l->nbytes - in->off, len;
	struct qx86_insn d;
	struct want w;
	int n;

	if (strstr(in->text, "(bad)"))
		return 0; /* objdump has no instruction here either */
	len = i + 1 < l->n ? (size_t)(l->v[i + 1].addr - in->addr)
			   : l->nbytes - in->off;
	if (i + 1 < l->n && l->v[i + 1].off - in->off != len)
		return 0; /* not contiguous: objdump skipped bytes */
	want_of(in->text, &w);
	n = qx86_decode(x, l->bytes + in->off, avail < 15 ? avail : 15, 64,
			in->addr, &d);
	if (!zydis_agrees(x, l->bytes + in->off, avail < 15 ? avail : 15,
			  in->addr, n, &d)) {
		fprintf(stderr,
			"%s: %#llx \"%s\": the fast path differs "
			"from Zydis\n",
			file, (unsigned long long)in->addr, in->text);
		return 1;
	}
	if (n == (int)len && d.cls == w.cls && d.flags == w.flags &&
	    (!w.has_target || d.target == w.target))
		return 0;
	fprintf(stderr,
		"%s: %#llx \"%s\": length %d (objdump %zu), class %d (%d), "
		"target %#llx (%#llx), flags %u (%u)\n",
		file, (unsigned long long)in->addr, in->text, n, len, d.cls,
		w.cls, (unsigned long long)d.target,
		(unsigned long long)w.target, d.flags, w.flags);
	return 1;
}

static void free_listing(struct listing *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
	free(l->bytes);
}

int main(int argc, char **argv)
{
	struct qx86 *x = qx86_new();
	unsigned long bad = 0, total = 0, branches = 0;
	int a;

	if (!x)
		return 1;
	if (system("objdump --version >/dev/null 2>&1")) {
		fprintf(stderr, "no objdump: skipped\n");
		qx86_free(x);
		return 77;
	}
	for (a = 1; a < argc; a++) {
		struct listing l;
		size_t i;

		memset(&l, 0, sizeof(l));
		if (access(argv[a], R_OK)) {
			printf("%s: not here, skipped\n", argv[a]);
			continue;
		}
		if (read_listing(argv[a], &l)) {
			fprintf(stderr, "%s: objdump gave no .text\n", argv[a]);
			return 1;
		}
		for (i = 0; i < l.n; i++) {
			struct want w;

			if (check(x, &l, i, argv[a]) && ++bad >= MAX_SHOWN)
				break;
			want_of(l.v[i].text, &w);
			branches += w.cls != QX86_NONE;
		}
		total += l.n;
		printf("%s: %zu instructions\n", argv[a], l.n);
		free_listing(&l);
	}
	qx86_free(x);
	printf("%lu instructions (%lu branches, %lu by the fast path), %lu "
	       "differ from objdump or Zydis\n",
	       total, branches, fast, bad);
	return bad || !branches ? 1 : 0;
}
