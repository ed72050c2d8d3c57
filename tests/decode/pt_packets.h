/* SPDX-License-Identifier: MIT */
/* Hand-written Intel PT streams for the decode tests (libipt's encoder). */
#ifndef QPT_TESTS_DECODE_PT_PACKETS_H
#define QPT_TESTS_DECODE_PT_PACKETS_H

#include <stddef.h>
#include <stdint.h>
#include <intel-pt.h>

/*
 * One packet of @type: MODE.Exec 64-bit; TNT-8 of one bit @v; CYC @v; TSC
 * @v; an
 * IP packet (TIP, TIP.PGE, TIP.PGD, FUP) to @v, suppressed when 0; PSB,
 * PSBEND and the others without payload.  Fails the test when the
 * encoder refuses it.
 */
void pt_put(struct pt_encoder *enc, enum pt_packet_type type, uint64_t v);

/* An encoder into [@buf, @buf + @size) that has written nothing. */
struct pt_encoder *pt_open(uint8_t *buf, size_t size);
/* An encoder into [@buf, @buf + @size) that has written PSB, MODE.Exec
 * 64-bit, PSBEND and TIP.PGE to @ip. */
struct pt_encoder *pt_begin(uint8_t *buf, size_t size, uint64_t ip);
/* The bytes @enc wrote; it is freed. */
size_t pt_end(struct pt_encoder *enc);

/* @len bytes of @code into a new file from the mkstemp template @path. */
void pt_code_file(char *path, const void *code, size_t len);

#endif
