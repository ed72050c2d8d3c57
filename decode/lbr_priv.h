/* SPDX-License-Identifier: MIT */
/* decode/lbr_*.c: what the LBR parts share. */
#ifndef QPT_DECODE_LBR_PRIV_H
#define QPT_DECODE_LBR_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/lbr.h"

/* Room for @need elements of @size bytes in the array *@pp (void **)
 * of *@cap: grown by doubling.  Returns 0 or -ENOMEM (the array kept). */
int qd_grow(void *pp, size_t *cap, size_t need, size_t size);

/* Thread ids to array positions (open addressing). */
struct qd_tidmap {
	int32_t *keys;
	size_t *vals; /* position + 1; 0: empty */
	size_t cap, n;
};

int qd_tidmap_put(struct qd_tidmap *m, int32_t tid, size_t pos);
bool qd_tidmap_get(const struct qd_tidmap *m, int32_t tid, size_t *pos);
void qd_tidmap_free(struct qd_tidmap *m);
/*
 * The element of thread @tid in the array *@pp (void **: @n elements of
 * @size bytes, room for *@cap) that @m maps: found, or appended zeroed
 * (*@made set).  Returns its position or -ENOMEM.
 */
long qd_tid_slot(struct qd_tidmap *m, void *pp, size_t *n, size_t *cap,
		 size_t size, int32_t tid, bool *made);

/* Keep a one-line message about the failure at input offset @pos of the
 * tracker's last call ("" with NULL @msg), for qpt_lbr_errpos/errmsg. */
void qd_lbr_set_error(struct qpt_lbr *l, uint64_t pos, const char *msg);

#endif
