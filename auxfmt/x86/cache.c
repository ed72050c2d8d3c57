// SPDX-License-Identifier: MIT
/* Decoded instructions by address: a set-associative cache with
 * generations. */
#include <stdlib.h>
#include <string.h>

#include "auxfmt/bigmem.h"
#include "auxfmt/x86/x86.h"

/* The bytes of @c's entries (set_mask + 1 sets of QX86_WAYS). */
static size_t ent_bytes(const struct qx86_cache *c)
{
	return (size_t)(c->set_mask + 1) * QX86_WAYS * sizeof(*c->ent);
}

struct qx86_cache *qx86_cache_new(unsigned order)
{
	struct qx86_cache *c;

	if (order < 2 || order > 24)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->set_mask = ((uint64_t)1 << (order - 2)) - 1;
	c->ent = bigmem_zalloc(ent_bytes(c));
	c->x = qx86_new();
	if (!c->ent || !c->x) {
		qx86_cache_free(c);
		return NULL;
	}
	c->gen = 1; /* entries of generation 0 are empty */
	return c;
}

void qx86_cache_free(struct qx86_cache *c)
{
	if (!c)
		return;
	qx86_free(c->x);
	bigmem_free(c->ent, ent_bytes(c));
	free(c);
}

void qx86_cache_forget(struct qx86_cache *c)
{
	c->code = NULL;
	if (++c->gen == 0) {
		memset(c->ent, 0, ent_bytes(c));
		c->gen = 1;
	}
}

void qx86_cache_use(struct qx86_cache *c, const void *code)
{
	if (code != c->code) {
		qx86_cache_forget(c);
		c->code = code;
	}
}

int qx86_cache_add(struct qx86_cache *c, uint64_t ip, int bits,
		   const uint8_t *p, size_t n, const struct qx86_cached **out)
{
	struct qx86_cached *e = qx86_cache_set(c, ip);
	struct qx86_insn insn;
	unsigned i;
	int len;

	len = qx86_decode(c->x, p, n, bits, ip, &insn);
	if (len < 0)
		return len;
	/* a free way (of an older generation), else each in turn */
	for (i = 0; i < QX86_WAYS && e[i].gen == c->gen; i++)
		;
	e += i < QX86_WAYS ? i : c->clock++ % QX86_WAYS;
	e->ip = ip;
	e->gen = c->gen;
	e->bits = (uint8_t)bits;
	memcpy(e->raw, p, (size_t)len);
	memset(e->raw + len, 0, sizeof(e->raw) - (size_t)len);
	e->insn = insn;
	*out = e;
	return 0;
}
