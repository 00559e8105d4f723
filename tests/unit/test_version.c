/* SPDX-License-Identifier: BSD-2-Clause */
/* Black-box: links the shared library only, as a user would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <rpcrdma/rpcrdma.h>

static void test_version_string(void **state)
{
	(void)state;
	const char *v = rpcrdma_version_string();
	assert_non_null(v);
	unsigned a, b, c;
	assert_int_equal(sscanf(v, "%u.%u.%u", &a, &b, &c), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_string),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
