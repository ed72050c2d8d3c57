// SPDX-License-Identifier: MIT
/*
 * Per-process address spaces: the recorded mappings (for symbols and for
 * naming what is missing) and the libipt image built from them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode/internal.h"

struct qd_space *qd_space_new(int32_t pid)
{
	struct qd_space *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pid = pid;
	s->image = pt_image_alloc(NULL);
	if (!s->image) {
		free(s);
		return NULL;
	}
	return s;
}

void qd_space_free(struct qd_space *space)
{
	if (!space)
		return;
	pt_image_free(space->image);
	free(space->maps);
	free(space);
}

struct qd_space *qd_space_clone(const struct qd_space *space, int32_t pid)
{
	struct qd_space *s = qd_space_new(pid);

	if (!s)
		return NULL;
	if (space->nr_maps) {
		s->maps = malloc(space->nr_maps * sizeof(*s->maps));
		if (!s->maps)
			goto fail;
		memcpy(s->maps, space->maps, space->nr_maps * sizeof(*s->maps));
		s->nr_maps = s->cap_maps = space->nr_maps;
	}
	if (pt_image_copy(s->image, space->image) < 0)
		goto fail;
	return s;
fail:
	qd_space_free(s);
	return NULL;
}

/* Cut [start, end) out of the existing maps (the new one replaces it). */
static int punch(struct qd_space *s, uint64_t start, uint64_t end)
{
	size_t i;

	for (i = 0; i < s->nr_maps; i++) {
		struct qd_map *m = &s->maps[i];

		if (m->end <= start || m->start >= end)
			continue;
		if (m->start < start && m->end > end) {
			/* split in two */
			struct qd_map tail = *m;

			if (s->nr_maps == s->cap_maps) {
				size_t nc = s->cap_maps * 2 + 8;
				struct qd_map *nm = realloc(s->maps,
							    nc * sizeof(*nm));

				if (!nm)
					return -ENOMEM;
				s->maps = nm;
				s->cap_maps = nc;
				m = &s->maps[i];
			}
			tail.pgoff += end - m->start;
			tail.start = end;
			m->end = start;
			memmove(&s->maps[i + 2], &s->maps[i + 1],
				(s->nr_maps - i - 1) * sizeof(*m));
			s->maps[i + 1] = tail;
			s->nr_maps++;
			return 0;
		}
		if (m->start < start) {
			m->end = start;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
		} else {
			memmove(m, m + 1, (s->nr_maps - i - 1) * sizeof(*m));
			s->nr_maps--;
			i--;
		}
	}
	return 0;
}

static int insert(struct qd_space *s, const struct qd_map *map)
{
	size_t i;

	if (s->nr_maps == s->cap_maps) {
		size_t nc = s->cap_maps * 2 + 8;
		struct qd_map *nm = realloc(s->maps, nc * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		s->maps = nm;
		s->cap_maps = nc;
	}
	for (i = 0; i < s->nr_maps && s->maps[i].start < map->start; i++)
		;
	memmove(&s->maps[i + 1], &s->maps[i],
		(s->nr_maps - i) * sizeof(*map));
	s->maps[i] = *map;
	s->nr_maps++;
	return 0;
}

/* Add file bytes [off, off + size) at @vaddr to the image. */
static int add_bytes(struct qd_space *s, struct pt_image_section_cache *isc,
		     const char *path, uint64_t off, uint64_t size,
		     uint64_t vaddr)
{
	int isid, err;

	if (!size || !isc) /* no image: lookups only */
		return 0;
	isid = pt_iscache_add_file(isc, path, off, size, vaddr);
	if (isid < 0)
		return isid == -pte_nomem ? -ENOMEM : 0;
	if (pt_image_add_cached(s->image, isc, isid, NULL) >= 0)
		return 0;
	/* a cached section serves at most 65535 images (libipt counts its
	 * users in 16 bits; many epochs or processes): one of its own */
	err = pt_image_add_file(s->image, path, off, size, NULL, vaddr);
	return err == -pte_nomem ? -ENOMEM : 0;
}

int qd_space_map(struct qd_space *s, struct pt_image_section_cache *isc,
		 uint64_t start, uint64_t len, uint64_t pgoff,
		 struct qd_file *file)
{
	struct qd_map map = { start, start + len, pgoff, file, 0, false };
	uint64_t fend = pgoff + len;
	size_t i;
	int err;

	if (!len || start + len < start)
		return 0;
	s->last = NULL;
	memset(s->sym_hit, 0, sizeof(s->sym_hit));
	s->last_src_lo = s->last_src_hi = 0;
	if (!file->used) /* -j's workers map what the session mapped: no
			  * write to a file they share */
		file->used = true;
	if (!file->found) {
		/* a missing file does not hide code we have (--image) */
		for (i = 0; i < s->nr_maps; i++)
			if (s->maps[i].file->found && s->maps[i].start < map.end &&
			    s->maps[i].end > start)
				return 0;
	}
	err = punch(s, start, start + len);
	if (err)
		return err;
	/* libipt: a newer section replaces the overlapping part of older */
	if (file->found && file->is_elf) {
		for (i = 0; i < file->nr_segs; i++) {
			const struct qd_seg *g = &file->segs[i];
			uint64_t lo = g->offset, hi = g->offset + g->filesz;

			if (lo < pgoff)
				lo = pgoff;
			if (hi > fend)
				hi = fend;
			if (hi > file->size)
				hi = file->size;
			if (lo >= hi)
				continue;
			if (!map.has_bias) {
				map.sym_bias = (int64_t)(start - pgoff +
							 g->offset - g->vaddr);
				map.has_bias = true;
			}
			err = add_bytes(s, isc, file->found, lo, hi - lo,
					start + (lo - pgoff));
			if (err)
				return err;
		}
	} else if (file->found) {
		uint64_t hi = fend < file->size ? fend : file->size;

		if (pgoff < hi) {
			err = add_bytes(s, isc, file->found, pgoff, hi - pgoff,
					start);
			if (err)
				return err;
		}
	}
	return insert(s, &map);
}

int qd_space_copy(struct qd_space *to, struct pt_image_section_cache *isc,
		  const struct qd_space *from)
{
	size_t i;
	int err;

	for (i = 0; from && i < from->nr_maps; i++) {
		const struct qd_map *m = &from->maps[i];

		err = qd_space_map(to, isc, m->start, m->end - m->start,
				   m->pgoff, m->file);
		if (err)
			return err;
	}
	return 0;
}

static bool map_ends_by(const void *m, const void *ip)
{
	return ((const struct qd_map *)m)->end <= *(const uint64_t *)ip;
}

bool qd_space_conflicts(const struct qd_space *s, uint64_t start,
			uint64_t len, uint64_t pgoff,
			const struct qd_file *file)
{
	size_t i;

	if (!file->found || !len || start + len < start)
		return false;
	/* from the first map that ends after @start (sorted, disjoint) */
	for (i = qd_partition(s->maps, s->nr_maps, sizeof(*s->maps),
			      map_ends_by, &start);
	     i < s->nr_maps && s->maps[i].start < start + len; i++) {
		const struct qd_map *m = &s->maps[i];

		/* the same file at the same place: the same code */
		if (m->file->found &&
		    (m->file != file || m->start - m->pgoff != start - pgoff))
			return true;
	}
	return false;
}

const struct qd_map *qd_space_find(struct qd_space *s, uint64_t ip)
{
	size_t lo = 0, hi = s->nr_maps;

	if (s->last && ip >= s->last->start && ip < s->last->end)
		return s->last;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ip >= s->maps[lo - 1].end)
		return NULL;
	s->last = &s->maps[lo - 1];
	return s->last;
}

size_t qd_space_code(struct qd_space *s, uint64_t ip, uint8_t *buf,
		     const uint8_t **code)
{
	const struct qd_map *m = qd_space_find(s, ip);

	if (m && m->file->data) {
		uint64_t off = ip - m->start + m->pgoff;

		if (off + 15 <= m->file->size && ip + 15 <= m->end) {
			*code = m->file->data + off;
			return 15;
		}
	}
	*code = buf;
	return qd_space_read(s, ip, buf, 15);
}

size_t qd_space_read(struct qd_space *s, uint64_t ip, uint8_t *buf,
		     size_t n)
{
	size_t done = 0;

	while (done < n) {
		const struct qd_map *m = qd_space_find(s, ip + done);
		uint64_t off, avail;

		if (!m || !m->file->data)
			break;
		off = ip + done - m->start + m->pgoff;
		if (off >= m->file->size)
			break;
		avail = m->file->size - off;
		if (avail > m->end - (ip + done))
			avail = m->end - (ip + done);
		if (avail > n - done)
			avail = n - done;
		memcpy(buf + done, m->file->data + off, (size_t)avail);
		done += (size_t)avail;
	}
	return done;
}

const char *qd_space_sym(struct qd_space *s, uint64_t ip, uint64_t *off)
{
	const struct qd_map *m;
	struct qd_sym_hit *h;
	uint64_t link, from, to, below, above;
	unsigned i;

	for (i = 0; i < QD_SYM_HITS; i++) {
		h = &s->sym_hit[i];
		if (ip >= h->lo && ip < h->hi)
			goto cached;
	}
	m = qd_space_find(s, ip);
	if (!m || !m->has_bias || !m->file->nr_syms)
		return NULL;
	link = ip - (uint64_t)m->sym_bias;
	h = &s->sym_hit[s->sym_next];
	s->sym_next = (s->sym_next + 1) % QD_SYM_HITS;
	h->sym = qd_file_sym_range(m->file, link, &from, &to);
	/* the addresses around ip with this answer, in this mapping */
	below = link - from;
	above = to - link;
	h->lo = ip - (below < ip - m->start ? below : ip - m->start);
	h->hi = ip + (above < m->end - ip ? above : m->end - ip);
	if (h->sym)
		h->base = h->sym->addr + (uint64_t)m->sym_bias;
cached:
	if (!h->sym)
		return NULL;
	*off = ip - h->base;
	return h->sym->name;
}

const char *qd_space_srcline(struct qd_space *s, uint64_t ip, unsigned *line)
{
	const struct qd_map *m;
	uint64_t lo, hi;
	const char *src;

	if (ip >= s->last_src_lo && ip < s->last_src_hi) {
		*line = s->last_line;
		return s->last_src;
	}
	m = qd_space_find(s, ip);
	*line = 0;
	if (!m || !m->has_bias ||
	    qd_file_srcline(m->file, ip - (uint64_t)m->sym_bias, &src, line,
			    &lo, &hi) != 1)
		return NULL;
	/* the row's runtime addresses, within the mapping */
	lo += (uint64_t)m->sym_bias;
	hi += (uint64_t)m->sym_bias;
	s->last_src_lo = lo > m->start ? lo : m->start;
	s->last_src_hi = hi < m->end ? hi : m->end;
	s->last_src = src;
	s->last_line = *line;
	return src;
}
