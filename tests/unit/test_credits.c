/* SPDX-License-Identifier: BSD-2-Clause */
/* Credits: server grant and its cached wire word, client clamping. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rpcrdma/credits.h>

static void test_server_grant(void **state)
{
	(void)state;
	struct rpcrdma_credits c;
	assert_int_equal(rpcrdma_credits_init(&c, 128, 32), 0);
	assert_int_equal(rpcrdma_credits_grant(&c), 32);
	assert_memory_equal(&c.grant_word, "\x00\x00\x00\x20", 4);
	assert_int_equal(rpcrdma_credits_init(&c, 16, 32), 0);
	assert_int_equal(rpcrdma_credits_grant(&c), 16);
	uint32_t w = rpcrdma_credits_word(&c);
	assert_memory_equal(&w, "\x00\x00\x00\x10", 4);
	assert_int_equal(rpcrdma_credits_init(&c, 1000, 0), 0);
	assert_int_equal(rpcrdma_credits_grant(&c), RPCRDMA_DEFAULT_CREDITS);
	assert_int_equal(rpcrdma_credits_init(&c, 0x01020304, 0xffffffffu), 0);
	w = rpcrdma_credits_word(&c);
	assert_memory_equal(&w, "\x01\x02\x03\x04", 4);
	assert_int_equal(rpcrdma_credits_init(&c, 0, 32), -EINVAL);
	assert_int_equal(rpcrdma_credits_init(NULL, 1, 1), -EINVAL);
}

static void test_client_clamp(void **state)
{
	(void)state;
	struct rpcrdma_client_credits c;
	assert_int_equal(rpcrdma_client_credits_init(&c, 0), -EINVAL);
	assert_int_equal(rpcrdma_client_credits_init(NULL, 4), -EINVAL);
	assert_int_equal(rpcrdma_client_credits_init(&c, 32), 0);
	assert_int_equal(rpcrdma_client_credits_grant(&c), 1);
	assert_int_equal(rpcrdma_client_credits_update(&c, 0), 1);
	assert_int_equal(rpcrdma_client_credits_update(&c, 8), 8);
	assert_int_equal(rpcrdma_client_credits_grant(&c), 8);
	assert_int_equal(rpcrdma_client_credits_update(&c, 32), 32);
	assert_int_equal(rpcrdma_client_credits_update(&c, 33), 32);
	assert_int_equal(rpcrdma_client_credits_update(&c, 0xffffffffu), 32);
	assert_int_equal(rpcrdma_client_credits_update(&c, 0), 1);
	assert_int_equal(rpcrdma_client_credits_grant(&c), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_server_grant),
		cmocka_unit_test(test_client_clamp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
