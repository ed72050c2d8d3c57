// SPDX-License-Identifier: MIT
/*
 * qpt decode's printers (cli/decode_print.c) at every fill of the
 * writer's buffer: each item (instructions with and without a symbol, a
 * name that needs escaping, the longest prefix, a 15-byte instruction,
 * branches, calls, events with a long message), in text and JSON, is
 * printed after 0 to CAP bytes already buffered, with the printers'
 * caches cold and warm.  The buffer ends at a page without access, so a
 * printer that writes one byte past the room it reserved faults; what
 * reaches the file must be the filler and the item's line exactly as
 * printed into an empty buffer.  One line is checked against the layout
 * perf script prints (hand-written).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/decode_print.h"

/* The smallest buffer the writer takes: every boundary is near. */
#define CAP (2 * OUT_RESERVE_MAX)

struct bench {
	struct printer *o;
	int fd;
	char *map; /* two pages: the second has no access */
	size_t page;
	char *buf; /* CAP bytes that end where the second page begins */
	char got[1 << 14];
	size_t len;
};

static int setup(void **state)
{
	struct bench *b = calloc(1, sizeof(*b));

	if (!b)
		return -1;
	b->o = printer_new();
	b->fd = memfd_create("test_print", MFD_CLOEXEC);
	b->page = (size_t)sysconf(_SC_PAGESIZE);
	b->map = mmap(NULL, 2 * b->page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!b->o || b->fd < 0 || b->map == MAP_FAILED ||
	    mprotect(b->map + b->page, b->page, PROT_NONE))
		return -1;
	b->buf = b->map + b->page - CAP;
	decode_print_init(b->o);
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	struct bench *b = *state;

	munmap(b->map, 2 * b->page);
	close(b->fd);
	printer_free(b->o);
	free(b);
	return 0;
}

/* Forget what the printers remember of @ip and of names (its next line
 * is made anew). */
static void cold(struct printer *o, uint64_t ip)
{
	struct print_cache *c = o->c;
	size_t i;

	memset(c->syms, 0, sizeof(c->syms));
	for (i = 0; i < sizeof(c->hex16) / sizeof(c->hex16[0]); i++)
		if (c->hex16[i].v == ip)
			memset(&c->hex16[i], 0, sizeof(c->hex16[i]));
	for (i = 0; i < sizeof(c->asm_cache) / sizeof(c->asm_cache[0]); i++)
		if (c->asm_cache[i].ip == ip)
			memset(&c->asm_cache[i], 0, sizeof(c->asm_cache[i]));
	for (i = 0; i < sizeof(c->lines) / sizeof(c->lines[0]); i++)
		if (c->lines[i].ip == ip)
			c->lines[i].len = 0;
	o->pfx_valid = false;
}

/*
 * Print @it after @fill bytes of filler, into the guarded buffer (or the
 * printer's own when @fill < 0), and read back what reached the file.
 */
static const char *print_at(struct bench *b, const struct qpt_item *it,
			    bool json, int fill, bool keep)
{
	struct printer *o = b->o;
	ssize_t n;

	assert_int_equal(ftruncate(b->fd, 0), 0);
	assert_int_equal(lseek(b->fd, 0, SEEK_SET), 0);
	if (fill < 0)
		out_init(&o->w, b->fd, json, o->buf, sizeof(o->buf));
	else
		out_init(&o->w, b->fd, json, b->buf, CAP);
	o->json = json;
	o->call_depth = 0;
	if (!keep)
		cold(o, it->ip);
	for (; fill > 0; fill--)
		out_char(&o->w, '.');
	print_item(o, it);
	assert_int_equal(out_flush(&o->w), 0);
	b->len = 0;
	while ((n = pread(b->fd, b->got + b->len, sizeof(b->got) - 1 - b->len,
			  (off_t)b->len)) > 0)
		b->len += (size_t)n;
	b->got[b->len] = '\0';
	return b->got;
}

/* @it printed after every fill, cold and warm, equals its line printed
 * into an empty buffer after the filler. */
static void check_fills(struct bench *b, const struct qpt_item *it,
			enum mode mode)
{
	char ref[1 << 13];
	int json, fill, warm;

	b->o->mode = mode;
	for (json = 0; json < 2; json++) {
		size_t len;

		print_at(b, it, json, -1, false);
		len = b->len;
		/* --calls prints calls and returns only */
		assert_true(len < sizeof(ref));
		assert_true(len > 0 || mode == MODE_CALLS);
		memcpy(ref, b->got, len + 1);
		for (fill = 0; fill <= CAP; fill++)
			for (warm = 0; warm < 2; warm++) {
				const char *got =
				    print_at(b, it, json, fill, warm);

				assert_int_equal(b->len, (size_t)fill + len);
				assert_memory_equal(got + fill, ref, len);
				assert_true(!fill ||
					    strspn(got, ".") == (size_t)fill);
			}
	}
}

static struct qpt_item insn(uint64_t ip, const char *sym, uint64_t off,
			    const char *bytes, size_t n)
{
	struct qpt_item it = {
	    .struct_size = sizeof(it),
	    .type = QPT_ITEM_INSN,
	    .flags = QPT_ITEM_HAS_TID,
	    .ip = ip,
	    .size = (uint8_t)n,
	    .mode = 64,
	    .tid = 13741,
	    .sym = sym,
	    .symoff = off,
	};

	memcpy(it.raw, bytes, n);
	return it;
}

static void test_insn_line(void **state)
{
	struct bench *b = *state;
	struct qpt_item it =
	    insn(0x5555555552b0, "on_alarm", 0, "\x8b\x05\xca\x2d\x00\x00", 6);

	b->o->mode = MODE_INSN;
	assert_string_equal(
	    print_at(b, &it, false, -1, false),
	    "  13741      5555555552b0 on_alarm+0x0 insn: 8b 05 "
	    "ca 2d 00 00              mov eax, dword ptr "
	    "[rip+0x2dca]\n");
}

static void test_insns(void **state)
{
	struct bench *b = *state;
	/* 15 bytes: a nop with every prefix it takes */
	static const char nop15[] = "\x66\x66\x66\x66\x66\x66\x2e\x0f\x1f\x84"
				    "\x00\x00\x00\x00\x00";
	char name[200];
	struct qpt_item it;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	it = insn(0x5555555552b0, "on_alarm", 0, "\x8b\x05\xca\x2d\x00\x00", 6);
	check_fills(b, &it, MODE_INSN);
	it = insn(0x401000, NULL, 0, "\xc3", 1);
	check_fills(b, &it, MODE_INSN);
	it = insn(0xffffffffffffff00, "a\x01\"b\\", 0x7fffffffffffffff, nop15,
		  15);
	check_fills(b, &it, MODE_INSN);
	/* the widest prefix; a name and line longer than the line cache
	 * keeps */
	it = insn(UINT64_MAX, name, UINT64_MAX, nop15, 15);
	it.flags |= QPT_ITEM_HAS_CPU | QPT_ITEM_HAS_TIME;
	it.tid = INT32_MAX;
	it.cpu = INT32_MAX;
	it.time = UINT64_MAX;
	check_fills(b, &it, MODE_INSN);
	it.tid = -1;
	it.cpu = -1;
	check_fills(b, &it, MODE_INSN);
	/* bytes that are no instruction: no text */
	it = insn(0x401000, "f", 1, "\x0f\x0b\xff", 1);
	it.raw[0] = 0xd6;
	check_fills(b, &it, MODE_INSN);
}

static void test_branches_calls(void **state)
{
	struct bench *b = *state;
	struct qpt_item it = {
	    .struct_size = sizeof(it),
	    .type = QPT_ITEM_BRANCH,
	    .flags = QPT_ITEM_HAS_TID | QPT_ITEM_HAS_CPU | QPT_ITEM_HAS_TIME,
	    .ip = UINT64_MAX,
	    .to = UINT64_MAX - 1,
	    .tid = INT32_MAX,
	    .cpu = INT32_MAX,
	    .time = UINT64_MAX,
	    .sym = "caller\x7f",
	    .symoff = UINT64_MAX,
	    .to_sym = "callee",
	    .to_symoff = UINT64_MAX,
	};
	unsigned k;

	for (k = 0; k < QPT_BR_NR; k++) {
		it.kind = k;
		it.via = k == QPT_BR_TRACE_END ? QPT_BR_SYSCALL : QPT_BR_NR;
		check_fills(b, &it, MODE_BRANCHES);
		check_fills(b, &it, MODE_CALLS);
	}
}

static void test_events(void **state)
{
	struct bench *b = *state;
	char msg[700];
	struct qpt_item it = {
	    .struct_size = sizeof(it),
	    .type = QPT_ITEM_EVENT,
	    .flags = QPT_ITEM_HAS_TID | QPT_ITEM_IP_VALID,
	    .ip = UINT64_MAX,
	    .offset = UINT64_MAX,
	    .value = UINT64_MAX,
	    .tid = 7,
	    .msg = msg,
	};
	size_t i;

	/* longer than the buffer once escaped, control bytes among them */
	for (i = 0; i < sizeof(msg) - 1; i++)
		msg[i] = i % 7 ? (char)('a' + i % 26) : '\n';
	msg[sizeof(msg) - 1] = '\0';
	for (it.kind = 0; it.kind < QPT_EV_NR; it.kind++)
		check_fills(b, &it, MODE_INSN);
	it.msg = NULL;
	it.flags = 0;
	check_fills(b, &it, MODE_INSN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_insn_line, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_insns, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_branches_calls, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_events, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
