// SPDX-License-Identifier: MIT
/* The library's one error convention: qpt_strerror() and qpt_version(). */
#include <string.h>

#include "qpt/qpt.h"

#define QPT_STR2(x) #x
#define QPT_STR(x) QPT_STR2(x)

const char *qpt_version(void)
{
	return QPT_STR(QPT_VERSION_MAJOR) "." QPT_STR(
		QPT_VERSION_MINOR) "." QPT_STR(QPT_VERSION_PATCH);
}

static const char *const qpt_errstr[QPT_E_LAST - QPT_E_FIRST] = {
	[QPT_E_FORMAT - QPT_E_FIRST] = "malformed input",
	[QPT_E_TRUNCATED - QPT_E_FIRST] = "input truncated",
	[QPT_E_UNSUPPORTED - QPT_E_FIRST] = "unsupported input",
	[QPT_E_INVAL - QPT_E_FIRST] = "invalid argument",
	[QPT_E_NOPMU - QPT_E_FIRST] = "no such PMU on this machine",
	[QPT_E_NOIMAGE - QPT_E_FIRST] = "no code image for this address",
	[QPT_E_MISMATCH - QPT_E_FIRST] = "image does not match the recording",
	[QPT_E_DECODE - QPT_E_FIRST] = "trace decoding error",
	[QPT_E_LOST - QPT_E_FIRST] = "trace data lost",
	[QPT_E_STATE - QPT_E_FIRST] = "operation not valid in this state",
	[QPT_E_EOS - QPT_E_FIRST] = "end of stream",
};

const char *qpt_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	if (err >= QPT_E_FIRST && err < QPT_E_LAST)
		return qpt_errstr[err - QPT_E_FIRST];
	if (err < QPT_E_FIRST)
		return strerror(err); /* glibc: a static or thread-local string */
	return "unknown error";
}
