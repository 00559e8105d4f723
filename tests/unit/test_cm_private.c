/* SPDX-License-Identifier: BSD-2-Clause */
/* RFC 8797 CM private data: byte-exact encoding, decoding, fallbacks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rpcrdma/cm_private.h>

static void test_encode(void **state)
{
	(void)state;
	uint8_t buf[16];
	struct rpcrdma_cm_private p = { .remote_invalidate = true, .inline_send = 4096,
					.inline_recv = 262144 };
	assert_int_equal(rpcrdma_cm_private_encode(buf, sizeof(buf), &p), 8);
	assert_memory_equal(buf, "\xf6\xab\x0e\x18\x01\x01\x03\xff", 8);
	/* rounding down, clamping */
	p = (struct rpcrdma_cm_private){ false, 1500, 1 << 30 };
	assert_int_equal(rpcrdma_cm_private_encode(buf, 8, &p), 8);
	assert_memory_equal(buf, "\xf6\xab\x0e\x18\x01\x00\x00\xff", 8);
	p = (struct rpcrdma_cm_private){ false, 0, 2047 };
	assert_int_equal(rpcrdma_cm_private_encode(buf, 8, &p), 8);
	assert_memory_equal(buf, "\xf6\xab\x0e\x18\x01\x00\x00\x00", 8);
	assert_int_equal(rpcrdma_cm_private_encode(buf, 7, &p), -EMSGSIZE);
	assert_int_equal(rpcrdma_cm_private_encode(NULL, 8, &p), -EINVAL);
	assert_int_equal(rpcrdma_cm_private_encode(buf, 8, NULL), -EINVAL);
}

static void test_decode(void **state)
{
	(void)state;
	struct rpcrdma_cm_private p;
	/* padded as InfiniBand CM pads */
	uint8_t pd[56] = "\xf6\xab\x0e\x18\x01\x01\x07\x0f";
	assert_int_equal(rpcrdma_cm_private_decode(pd, sizeof(pd), &p), 1);
	assert_true(p.remote_invalidate);
	assert_int_equal(p.inline_send, 8192);
	assert_int_equal(p.inline_recv, 16384);
	/* unknown flag bits ignored */
	pd[5] = 0xfe;
	assert_int_equal(rpcrdma_cm_private_decode(pd, 8, &p), 1);
	assert_false(p.remote_invalidate);
	/* round trip of every encodable size */
	for (uint32_t kb = 1; kb <= 256; kb++) {
		uint8_t b[8];
		struct rpcrdma_cm_private in = { kb & 1, kb * 1024, (257 - kb) * 1024 }, o;
		assert_int_equal(rpcrdma_cm_private_encode(b, 8, &in), 8);
		assert_int_equal(rpcrdma_cm_private_decode(b, 8, &o), 1);
		assert_int_equal(o.remote_invalidate, in.remote_invalidate);
		assert_int_equal(o.inline_send, in.inline_send);
		assert_int_equal(o.inline_recv, in.inline_recv);
	}
}

static void assert_defaults(const struct rpcrdma_cm_private *p)
{
	assert_false(p->remote_invalidate);
	assert_int_equal(p->inline_send, 1024);
	assert_int_equal(p->inline_recv, 1024);
}

static void test_fallback(void **state)
{
	(void)state;
	struct rpcrdma_cm_private p;
	const uint8_t good[8] = { 0xf6, 0xab, 0x0e, 0x18, 1, 1, 7, 7 };
	assert_int_equal(rpcrdma_cm_private_decode(NULL, 0, &p), 0);
	assert_defaults(&p);
	for (size_t len = 0; len < 8; len++) {
		assert_int_equal(rpcrdma_cm_private_decode(good, len, &p), 0);
		assert_defaults(&p);
	}
	for (size_t i = 0; i < 5; i++) {
		uint8_t bad[8];
		memcpy(bad, good, 8);
		bad[i] ^= 0x40;
		assert_int_equal(rpcrdma_cm_private_decode(bad, 8, &p), 0);
		assert_defaults(&p);
	}
	assert_int_equal(rpcrdma_cm_private_decode(good, 8, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_fallback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
