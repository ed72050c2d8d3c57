// SPDX-License-Identifier: MIT
/* The error convention: every code has its own message, errno passes through. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "qpt/qpt.h"

static void test_every_code_named(void **state)
{
	int e, f;

	for (e = QPT_E_FIRST; e < QPT_E_LAST; e++) {
		const char *s = qpt_strerror(-e);

		assert_non_null(s);
		assert_string_not_equal(s, "unknown error");
		for (f = QPT_E_FIRST; f < e; f++)
			assert_string_not_equal(s, qpt_strerror(-f));
	}
}

static void test_errno_and_sign(void **state)
{
	assert_string_equal(qpt_strerror(-ENOENT), strerror(ENOENT));
	assert_string_equal(qpt_strerror(QPT_E_FORMAT),
			    qpt_strerror(-QPT_E_FORMAT));
	assert_string_equal(qpt_strerror(0), "success");
	assert_string_equal(qpt_strerror(-QPT_E_LAST), "unknown error");
}

static void test_version(void **state)
{
	assert_string_equal(qpt_version(), "0.1.0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code_named),
		cmocka_unit_test(test_errno_and_sign),
		cmocka_unit_test(test_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
