/* SPDX-License-Identifier: MIT */
/*
 * Names and source lines of the addresses of one process, from the files
 * of its mappings: the same lookup the decoder makes for its items
 * (QPT_WANT_SYMBOLS, QPT_WANT_SRCLINE), for addresses that are not in a
 * decoded flow (a crash's faulting instruction, the frames of an unwound
 * stack, a sample's ip).  Files are found as the decoder finds them (under
 * the sysroot, in the build-id cache, by debuginfod); symbols come from
 * .symtab, the debug file's .symtab (by build-id), .dynsym and the PLT;
 * lines from the DWARF line tables of the file or of its debug file.
 */
#ifndef QPT_SYMBOLIZER_H
#define QPT_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct qpt_symbolizer;

struct qpt_symbolizer_opts {
	size_t size;		 /* sizeof(struct qpt_symbolizer_opts) */
	const char *sysroot;	 /* as qpt_decoder_opts; borrowed */
	const char *buildid_dir; /* as qpt_decoder_opts; borrowed */
	bool demangle;		 /* as qpt_decoder_opts */
};

QPT_API void
qpt_symbolizer_opts_init_sized(struct qpt_symbolizer_opts *opts, size_t size);
static inline void qpt_symbolizer_opts_init(struct qpt_symbolizer_opts *opts)
{
	qpt_symbolizer_opts_init_sized(opts, sizeof(*opts));
}

/*
 * A symbolizer with no mappings.  @opts may be NULL for defaults.
 * Returns 0, -ENOMEM, -QPT_E_INVAL (an @opts size unknown, or bytes past
 * the known size not zero).
 */
QPT_API int qpt_symbolizer_new(const struct qpt_symbolizer_opts *opts,
			       struct qpt_symbolizer **s);
/* Free it and every name and file name it gave; NULL is a no-op. */
QPT_API void qpt_symbolizer_free(struct qpt_symbolizer *s);

/*
 * Map [@start, @start + @len) of the file recorded as @path (borrowed for
 * the call) at file offset @pgoff; @bid: its build-id of @bid_size bytes
 * (0: unknown; a file whose build-id differs is not used).  A later
 * mapping replaces what it overlaps.  A file that cannot be found or read
 * gives no names.  Returns 0, -ENOMEM, -QPT_E_INVAL.
 */
QPT_API int qpt_symbolizer_map(struct qpt_symbolizer *s, uint64_t start,
			       uint64_t len, uint64_t pgoff, const char *path,
			       const uint8_t *bid, size_t bid_size);

/* The symbol holding @ip and *@off, @ip's offset in it; NULL when none
 * (or @s is NULL).  Valid until qpt_symbolizer_free(). */
QPT_API const char *qpt_symbolizer_sym(struct qpt_symbolizer *s, uint64_t ip,
				       uint64_t *off);
/* The source file of @ip (as qpt_item's srcfile) and *@line; NULL when
 * unknown (or @s is NULL).  Valid until qpt_symbolizer_free(). */
QPT_API const char *qpt_symbolizer_srcline(struct qpt_symbolizer *s,
					   uint64_t ip, unsigned *line);

#ifdef __cplusplus
}
#endif

#endif
