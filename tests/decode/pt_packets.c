// SPDX-License-Identifier: MIT
/* Hand-written Intel PT streams for the decode tests (pt_packets.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pt_packets.h"

void pt_put(struct pt_encoder *enc, enum pt_packet_type type, uint64_t v)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	if (type == ppt_mode) {
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	} else if (type == ppt_tnt_8) {
		p.payload.tnt.bit_size = 1;
		p.payload.tnt.payload = v;
	} else if (type == ppt_cyc) {
		p.payload.cyc.value = v;
	} else if (type == ppt_tsc) {
		p.payload.tsc.tsc = v;
	} else if (type == ppt_tip || type == ppt_tip_pge ||
		   type == ppt_tip_pgd || type == ppt_fup) {
		p.payload.ip.ipc = v ? pt_ipc_sext_48 : pt_ipc_suppressed;
		p.payload.ip.ip = v;
	}
	assert_true(pt_enc_next(enc, &p) >= 0);
}

struct pt_encoder *pt_open(uint8_t *buf, size_t size)
{
	struct pt_encoder *enc;
	struct pt_config cfg;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + size;
	enc = pt_alloc_encoder(&cfg);
	assert_non_null(enc);
	return enc;
}

struct pt_encoder *pt_begin(uint8_t *buf, size_t size, uint64_t ip)
{
	struct pt_encoder *enc = pt_open(buf, size);

	pt_put(enc, ppt_psb, 0);
	pt_put(enc, ppt_mode, 0);
	pt_put(enc, ppt_psbend, 0);
	pt_put(enc, ppt_tip_pge, ip);
	return enc;
}

size_t pt_end(struct pt_encoder *enc)
{
	uint64_t off = 0;

	assert_true(pt_enc_get_offset(enc, &off) >= 0);
	pt_free_encoder(enc);
	return (size_t)off;
}

void pt_code_file(char *path, const void *code, size_t len)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, code, len), (ssize_t)len);
	close(fd);
}
