// SPDX-License-Identifier: MIT
/* perf.data input: waits for the auxfmt reader. */
#include "decode/decoder.h"

int qpt_decoder_run_file(struct qpt_decoder *dec, const char *path,
			 qpt_item_fn fn, void *ctx)
{
	(void)path;
	(void)fn;
	(void)ctx;
	if (!dec)
		return -QPT_E_INVAL;
	return -QPT_E_UNSUPPORTED;
}
