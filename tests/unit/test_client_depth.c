/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client's send contexts per connection, sized from the credits it asks
 * for (rpcrdma__client_send_depth, issue 35): the calls in flight, the
 * finished calls' Sends waiting for the next signaled completion and the
 * backward replies, no more (32 credits used to take 68); one Send in
 * sig_every signaled, sig_every within a quarter of the pool so that an
 * empty pool always holds a signaled Send; the queue within what the
 * device allows, one WR kept for the drain; and counts near 2^32 neither
 * wrap nor exceed the device.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rdma/client/rdma_client_int.h"

/* Every rule of the sizing, for one case. */
static void check(uint32_t credits, uint32_t max_wr)
{
	uint32_t sig = 0, depth = rpcrdma__client_send_depth(credits, max_wr, &sig);
	uint32_t cap = max_wr < 2 ? 1 : max_wr - 1;

	assert_true(depth >= 1 && depth <= cap);
	assert_true(sig >= 1 && sig <= RPCRDMA__SIG_EVERY);
	assert_true(sig == 1 || sig <= depth / 4);
	/* enough for every call in flight and the finished calls' Sends
	 * before the next signaled one, when the device allows it */
	if ((uint64_t)credits + RPCRDMA__SIG_EVERY + RPCRDMA__CLIENT_BC_RECVS < cap)
		assert_true((uint64_t)depth >= (uint64_t)credits + sig - 1 + RPCRDMA__CLIENT_BC_RECVS);
}

static void test_depth_from_credits(void **state)
{
	uint32_t sig;

	(void)state;
	/* the default: 32 credits, 45 Sends (11 + 32 + 2), not 68 */
	assert_int_equal(rpcrdma__client_send_depth(32, 16384, &sig), 45);
	assert_int_equal(sig, 11);
	/* 128 credits: one in 16 signaled */
	assert_int_equal(rpcrdma__client_send_depth(128, 16384, &sig), 146);
	assert_int_equal(sig, 16);
	/* one credit: every Send signaled */
	assert_int_equal(rpcrdma__client_send_depth(1, 16384, &sig), 4);
	assert_int_equal(sig, 1);
	for (uint32_t c = 0; c <= 1024; c++)
		check(c, 16384);
}

static void test_depth_device_limits(void **state)
{
	uint32_t sig;
	const uint32_t big[] = { 0xffffffffu, 0xfffffffeu, 0x80000000u, 0x7fffffffu };

	(void)state;
	/* a small device: the queue, the drain's WR apart */
	assert_int_equal(rpcrdma__client_send_depth(32, 16, &sig), 15);
	assert_int_equal(sig, 3);
	for (uint32_t m = 0; m <= 64; m++)
		for (uint32_t c = 0; c <= 64; c++)
			check(c, m);
	/* counts near 2^32 */
	for (unsigned i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		check(big[i], 16384);
		check(big[i], big[i]);
		check(16, big[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_depth_from_credits),
		cmocka_unit_test(test_depth_device_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
