/* SPDX-License-Identifier: MIT */
/*
 * qpt: capture and decode hardware control-flow traces through the perf AUX
 * area.  This header holds what every part of the library shares: the export
 * macro, the version, the error convention and the log callback.
 *
 * Error convention (one for the whole library):
 *   int return; >= 0 is success (and may carry a count);
 *   -errno for operating-system failures;
 *   -QPT_E_* (4096 and up) for format, decode and usage failures.
 * qpt_strerror() names any of them.  Where the code alone cannot say what
 * was wrong, there is also one optional line (no newline), never more:
 *   - an object keeps it for its last failed call: qpt_X_errmsg() ("" when
 *     none) and, for input, qpt_X_errpos(), the input offset (the reader,
 *     the decoder, the LBR tracker and reader, the perfmon reader; a
 *     reader that fails to open is handed back for this, to be freed);
 *   - the capture calls that take options write it into the caller's
 *     opts.errbuf (opts.errlen bytes; NULL: none).
 * Nothing else carries errors: no bare -1, no NULL-for-error pointers, no
 * errno left for the caller to read.  The library never prints or exits:
 * diagnostics that are not errors (warnings about a file) go through a
 * qpt_log_fn the caller installs in a context, a decode's progress
 * through its qpt_progress_fn (decode.h).
 *
 * Structs grow at their end, as libipt's do, and carry their size:
 *   - options (qpt_X_opts): .size, the caller's sizeof, set with the
 *     defaults by qpt_X_opts_init() (an inline wrapper of
 *     qpt_X_opts_init_sized(), which writes no byte past that size); the
 *     library reads what both know and rejects unknown non-zero bytes;
 *   - outputs filled into the caller's struct: the qpt_X_sized() function
 *     takes the caller's sizeof (the inline wrapper without _sized passes
 *     it); the library fills what fits, zeros what it does not know, and
 *     returns -QPT_E_INVAL for a size below the first version's;
 *   - structs handed to a callback (items, LBR records and samples) or
 *     lent by an object (the reader's features): .struct_size first,
 *     the bytes the library filled; read a later field only where
 *     QPT_SIZED_HAS() says it is there.  Their arrays carry the element
 *     size (e.g. qpt_lbr_record's entry_size) and are read through an
 *     accessor.
 */
#ifndef QPT_QPT_H
#define QPT_QPT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef QPT_API
#define QPT_API __attribute__((visibility("default")))
#endif

#define QPT_VERSION_MAJOR 0
#define QPT_VERSION_MINOR 1
#define QPT_VERSION_PATCH 0

/* The library's version as "MAJOR.MINOR.PATCH"; a static string. */
QPT_API const char *qpt_version(void);

enum qpt_error {
	QPT_E_FIRST = 4096,
	QPT_E_FORMAT = QPT_E_FIRST, /* malformed input bytes */
	QPT_E_TRUNCATED,	/* input ends inside a structure */
	QPT_E_UNSUPPORTED,	/* valid input this version cannot handle */
	QPT_E_INVAL,		/* bad argument or option */
	QPT_E_NOPMU,		/* the requested PMU does not exist here */
	QPT_E_NOIMAGE,		/* no code image for an address */
	QPT_E_MISMATCH,		/* image present but its build-id differs */
	QPT_E_DECODE,		/* trace decoder error (see the log) */
	QPT_E_LOST,		/* trace data was lost (overflow, overrun) */
	QPT_E_STATE,		/* call not valid in the object's state */
	QPT_E_EOS,		/* end of stream */
	QPT_E_LAST,
};

/*
 * A message for any value this library returns as an error: -errno or
 * -QPT_E_*.  The sign is ignored.  Returns a static string; never NULL.
 */
QPT_API const char *qpt_strerror(int err);

/* Whether *@p, a struct @type handed to a callback, holds @field. */
#define QPT_SIZED_HAS(type, p, field)                                      \
	((p)->struct_size >=                                               \
	 offsetof(type, field) + sizeof(((type *)0)->field))

enum qpt_log_level {
	QPT_LOG_WARN,
	QPT_LOG_INFO,
	QPT_LOG_DEBUG,
};

/* A diagnostic callback.  @msg is one line without its newline. */
typedef void (*qpt_log_fn)(enum qpt_log_level level, const char *msg,
			   void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* QPT_QPT_H */
