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

/* The headers' macros agree with the library's string. */
static void test_version_macros(void **state)
{
	(void)state;
	char buf[64];
	snprintf(buf, sizeof(buf), "%d.%d.%d", RPCRDMA_VERSION_MAJOR,
		 RPCRDMA_VERSION_MINOR, RPCRDMA_VERSION_PATCH);
	assert_string_equal(buf, rpcrdma_version_string());
	assert_true(RPCRDMA_VERSION_NUMBER ==
		    RPCRDMA_VERSION_ENCODE(RPCRDMA_VERSION_MAJOR, RPCRDMA_VERSION_MINOR,
					   RPCRDMA_VERSION_PATCH));
#if RPCRDMA_VERSION_NUMBER < RPCRDMA_VERSION_ENCODE(0, 1, 0)
	fail_msg("RPCRDMA_VERSION_NUMBER unusable in #if");
#endif
	assert_int_equal(RPCRDMA_PROTO_VERSION, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_string),
		cmocka_unit_test(test_version_macros),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
