/* SPDX-License-Identifier: BSD-2-Clause */
/* Black-box: the public XDR streams (rpcrdma/xdr.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include <rpcrdma/xdr.h>

static void test_encode_bytes(void **state)
{
	(void)state;
	uint8_t buf[64];
	struct rpcrdma_xdr_enc e;
	memset(buf, 0xee, sizeof(buf));
	rpcrdma_xdr_enc_init(&e, buf, sizeof(buf));
	assert_int_equal(rpcrdma_xdr_put_u32(&e, 0x01020304), 0);
	assert_int_equal(rpcrdma_xdr_put_u64(&e, 0x1122334455667788ull), 0);
	assert_int_equal(rpcrdma_xdr_put_string(&e, "hello"), 0);
	assert_int_equal(rpcrdma_xdr_put_fixed(&e, "ab", 2), 0);
	assert_int_equal(rpcrdma_xdr_put_opaque(&e, NULL, 0), 0);
	static const uint8_t exp[] = {
		1, 2, 3, 4, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0,
		'a', 'b', 0, 0, 0, 0, 0, 0,
	};
	assert_int_equal(rpcrdma_xdr_enc_len(&e), sizeof(exp));
	assert_memory_equal(buf, exp, sizeof(exp));
	assert_int_equal(rpcrdma_xdr_enc_room(&e), sizeof(buf) - sizeof(exp));
	/* exactly full, then refused without advancing */
	assert_non_null(rpcrdma_xdr_reserve(&e, 29)); /* 32 with padding */
	assert_int_equal(rpcrdma_xdr_enc_room(&e), 0);
	assert_int_equal(rpcrdma_xdr_put_u32(&e, 1), -EMSGSIZE);
	assert_null(rpcrdma_xdr_reserve(&e, 1));
	assert_int_equal(rpcrdma_xdr_enc_len(&e), 64);

	uint8_t small[7];
	rpcrdma_xdr_enc_init(&e, small, sizeof(small));
	assert_int_equal(rpcrdma_xdr_put_opaque(&e, "abc", 3), -EMSGSIZE);
	assert_int_equal(rpcrdma_xdr_put_u64(&e, 1), -EMSGSIZE);
	assert_int_equal(rpcrdma_xdr_enc_len(&e), 0);
}

static void test_decode_segments(void **state)
{
	(void)state;
	static const uint8_t data[] = {
		0, 0, 0, 7, 0, 0, 0, 3, 'x', 'y', 'z', 0,
		0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9,
	};
	/* every split into three segments (with empty ones) decodes alike */
	for (size_t a = 0; a <= sizeof(data); a++) {
		for (size_t b = a; b <= sizeof(data); b++) {
			struct iovec iov[4] = {
				{ (void *)data, a }, { NULL, 0 },
				{ (void *)(data + a), b - a },
				{ (void *)(data + b), sizeof(data) - b },
			};
			struct rpcrdma_xdr_dec d;
			uint32_t v, len;
			uint64_t q;
			char s[8];
			int bl;
			rpcrdma_xdr_dec_init(&d, iov, 4);
			assert_int_equal(rpcrdma_xdr_dec_left(&d), sizeof(data));
			assert_int_equal(rpcrdma_xdr_get_u32(&d, &v), 0);
			assert_int_equal(v, 7);
			assert_int_equal(rpcrdma_xdr_get_string(&d, s, sizeof(s), 7), 0);
			assert_string_equal(s, "xyz");
			(void)len;
			assert_int_equal(rpcrdma_xdr_get_bool(&d, &bl), 0);
			assert_int_equal(bl, 1);
			assert_int_equal(rpcrdma_xdr_get_u64(&d, &q), 0);
			assert_int_equal(q, 9);
			assert_int_equal(rpcrdma_xdr_dec_pos(&d), sizeof(data));
			assert_int_equal(rpcrdma_xdr_get_u32(&d, &v), -EBADMSG);
		}
	}
}

static void test_decode_bounds(void **state)
{
	(void)state;
	uint8_t data[12] = { 0, 0, 0, 5, 'a', 'b', 'c', 'd', 'e', 0, 0, 0 };
	struct iovec iov = { data, sizeof(data) };
	struct rpcrdma_xdr_dec d;
	uint8_t out[16];
	uint32_t len;
	const void *ref;

	rpcrdma_xdr_dec_init(&d, &iov, 1);
	assert_int_equal(rpcrdma_xdr_get_opaque(&d, out, 4, &len), -EBADMSG); /* > max */
	assert_int_equal(rpcrdma_xdr_dec_pos(&d), 0);
	assert_int_equal(rpcrdma_xdr_get_opaque_ref(&d, &ref, 5, &len), 0);
	assert_int_equal(len, 5);
	assert_ptr_equal(ref, data + 4);
	assert_int_equal(rpcrdma_xdr_dec_left(&d), 0);

	/* a length that runs past the end */
	data[3] = 9;
	rpcrdma_xdr_dec_init(&d, &iov, 1);
	assert_int_equal(rpcrdma_xdr_get_opaque(&d, out, 16, &len), -EBADMSG);
	data[3] = 0xff;
	data[0] = 0xff;
	rpcrdma_xdr_dec_init(&d, &iov, 1);
	assert_int_equal(rpcrdma_xdr_skip(&d, 0xfffffffful), -EBADMSG);
	assert_int_equal(rpcrdma_xdr_get_opaque(&d, out, SIZE_MAX, &len), -EBADMSG);
	/* bool other than 0/1; string with NUL; string longer than the room */
	uint8_t b2[12] = { 0, 0, 0, 2, 0, 0, 0, 2, 'a', 0, 0, 0 };
	iov.iov_base = b2;
	rpcrdma_xdr_dec_init(&d, &iov, 1);
	int bl;
	assert_int_equal(rpcrdma_xdr_get_bool(&d, &bl), -EBADMSG);
	assert_int_equal(rpcrdma_xdr_dec_pos(&d), 0);
	assert_int_equal(rpcrdma_xdr_skip(&d, 4), 0);
	char s[4];
	assert_int_equal(rpcrdma_xdr_get_string(&d, s, sizeof(s), 255), -EBADMSG);
	assert_int_equal(rpcrdma_xdr_dec_pos(&d), 4);
	b2[9] = 'b';
	assert_int_equal(rpcrdma_xdr_get_string(&d, s, 2, 255), -EBADMSG);
	assert_int_equal(rpcrdma_xdr_get_string(&d, s, sizeof(s), 255), 0);
	assert_string_equal(s, "ab");
	/* zero-copy refuses data that spans segments */
	uint8_t c1[6] = { 0, 0, 0, 4, 'a', 'b' }, c2[2] = { 'c', 'd' };
	struct iovec two[2] = { { c1, 6 }, { c2, 2 } };
	rpcrdma_xdr_dec_init(&d, two, 2);
	assert_int_equal(rpcrdma_xdr_get_opaque_ref(&d, &ref, 8, &len), -EXDEV);
	assert_int_equal(rpcrdma_xdr_dec_pos(&d), 0);
	assert_int_equal(rpcrdma_xdr_get_opaque(&d, out, 8, &len), 0);
	assert_memory_equal(out, "abcd", 4);
	/* fixed-length zero copy: in one segment, spanning two, too long */
	rpcrdma_xdr_dec_init(&d, two, 2);
	assert_int_equal(rpcrdma_xdr_get_fixed_ref(&d, &ref, 3), 0);  /* + 1 pad byte */
	assert_ptr_equal(ref, c1);
	assert_int_equal(rpcrdma_xdr_dec_pos(&d), 4);
	assert_int_equal(rpcrdma_xdr_get_fixed_ref(&d, &ref, 4), -EXDEV);
	assert_int_equal(rpcrdma_xdr_dec_pos(&d), 4);
	assert_int_equal(rpcrdma_xdr_get_fixed_ref(&d, &ref, 5), -EBADMSG);
	assert_int_equal(rpcrdma_xdr_get_fixed_ref(&d, &ref, SIZE_MAX), -EBADMSG);
	uint8_t c3[4] = { 1, 2, 3, 4 }, c4[4] = { 5, 6, 7, 8 };
	struct iovec two4[2] = { { c3, 4 }, { c4, 4 } };
	rpcrdma_xdr_dec_init(&d, two4, 2);
	assert_int_equal(rpcrdma_xdr_get_fixed_ref(&d, &ref, 4), 0);
	assert_ptr_equal(ref, c3);
	assert_int_equal(rpcrdma_xdr_get_fixed_ref(&d, &ref, 4), 0);   /* second segment */
	assert_ptr_equal(ref, c4);
	assert_int_equal(rpcrdma_xdr_dec_left(&d), 0);
	/* no segments at all */
	rpcrdma_xdr_dec_init(&d, NULL, 0);
	uint32_t v;
	assert_int_equal(rpcrdma_xdr_get_u32(&d, &v), -EBADMSG);
}

/* Round trip of random values through encoder and a split decoder. */
static void test_roundtrip_property(void **state)
{
	(void)state;
	unsigned seed = 12345;
	for (int iter = 0; iter < 2000; iter++) {
		uint8_t buf[256];
		uint32_t vals[8];
		size_t olen;
		uint8_t op[40];
		struct rpcrdma_xdr_enc e;
		rpcrdma_xdr_enc_init(&e, buf, sizeof(buf));
		for (int i = 0; i < 8; i++) {
			seed = seed * 1103515245u + 12345u;
			vals[i] = seed;
			assert_int_equal(rpcrdma_xdr_put_u32(&e, vals[i]), 0);
		}
		olen = (seed >> 8) % 40;
		for (size_t i = 0; i < olen; i++)
			op[i] = (uint8_t)(seed >> (i % 24));
		assert_int_equal(rpcrdma_xdr_put_opaque(&e, op, olen), 0);
		size_t n = rpcrdma_xdr_enc_len(&e);
		assert_int_equal(n, 32 + 4 + ((olen + 3) & ~(size_t)3));
		size_t cut = (seed >> 3) % (n + 1);
		struct iovec iov[2] = { { buf, cut }, { buf + cut, n - cut } };
		struct rpcrdma_xdr_dec d;
		rpcrdma_xdr_dec_init(&d, iov, 2);
		for (int i = 0; i < 8; i++) {
			uint32_t v;
			assert_int_equal(rpcrdma_xdr_get_u32(&d, &v), 0);
			assert_int_equal(v, vals[i]);
		}
		uint8_t back[40];
		uint32_t bl;
		assert_int_equal(rpcrdma_xdr_get_opaque(&d, back, sizeof(back), &bl), 0);
		assert_int_equal(bl, olen);
		assert_memory_equal(back, op, olen);
		assert_int_equal(rpcrdma_xdr_dec_left(&d), 0);
	}
}

/* Empty streams: a NULL buffer of length 0 on either side (no pointer
 * arithmetic on NULL: UBSan checks it in the sanitizer build). */
static void test_null_buffers(void **state)
{
	(void)state;
	struct rpcrdma_xdr_enc e;
	rpcrdma_xdr_enc_init(&e, NULL, 0);
	assert_int_equal(rpcrdma_xdr_enc_room(&e), 0);
	assert_int_equal(rpcrdma_xdr_put_fixed(&e, "", 0), 0);
	assert_null(rpcrdma_xdr_reserve(&e, 1));
	assert_int_equal(rpcrdma_xdr_put_u32(&e, 1), -EMSGSIZE);
	assert_int_equal(rpcrdma_xdr_put_opaque(&e, NULL, 0), -EMSGSIZE);
	assert_int_equal(rpcrdma_xdr_enc_len(&e), 0);

	struct iovec v[2] = { { NULL, 0 }, { NULL, 0 } };
	struct rpcrdma_xdr_dec d;
	uint32_t u;
	rpcrdma_xdr_dec_init(&d, v, 2);
	assert_int_equal(rpcrdma_xdr_dec_left(&d), 0);
	assert_int_equal(rpcrdma_xdr_get_u32(&d, &u), -EBADMSG);
	assert_int_equal(rpcrdma_xdr_skip(&d, 0), 0);
	assert_int_equal(rpcrdma_xdr_get_fixed(&d, NULL, 0), 0);
	assert_int_equal(rpcrdma_xdr_dec_pos(&d), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_bytes),
		cmocka_unit_test(test_decode_segments),
		cmocka_unit_test(test_decode_bounds),
		cmocka_unit_test(test_roundtrip_property),
		cmocka_unit_test(test_null_buffers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
