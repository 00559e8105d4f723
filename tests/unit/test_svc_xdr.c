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

/* One buffer, no iovec kept: a copy of the stream is a saved position. */
static void test_dec_init_buf(void **state)
{
	(void)state;
	static const uint8_t data[] = { 0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 0, 1 };
	struct rpcrdma_xdr_dec d, save;
	const void *ref;
	uint32_t len, v;
	rpcrdma_xdr_dec_init_buf(&d, data, sizeof(data));
	assert_int_equal(rpcrdma_xdr_dec_left(&d), sizeof(data));
	save = d;
	assert_int_equal(rpcrdma_xdr_get_opaque_ref(&d, &ref, 8, &len), 0);
	assert_ptr_equal(ref, data + 4);
	assert_int_equal(len, 3);
	assert_int_equal(rpcrdma_xdr_get_u32(&d, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(rpcrdma_xdr_dec_left(&d), 0);
	assert_int_equal(rpcrdma_xdr_get_u32(&d, &v), -EBADMSG);
	d = save; /* back to the start */
	assert_int_equal(rpcrdma_xdr_dec_pos(&d), 0);
	assert_int_equal(rpcrdma_xdr_get_u32(&d, &v), 0);
	assert_int_equal(v, 3);
	/* empty, NULL: no arithmetic on NULL (UBSan) */
	rpcrdma_xdr_dec_init_buf(&d, NULL, 0);
	assert_int_equal(rpcrdma_xdr_dec_left(&d), 0);
	assert_int_equal(rpcrdma_xdr_get_u32(&d, &v), -EBADMSG);
	assert_int_equal(rpcrdma_xdr_skip(&d, 0), 0);
}

/* Array counts: bounded by max and by the bytes left for min_item each. */
static void test_get_count(void **state)
{
	(void)state;
	uint8_t data[12] = { 0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0, 8 };
	struct rpcrdma_xdr_dec d;
	uint32_t n = 99;
	rpcrdma_xdr_dec_init_buf(&d, data, sizeof(data));
	assert_int_equal(rpcrdma_xdr_get_count(&d, 1, 4, &n), -EBADMSG); /* > max */
	assert_int_equal(n, 99);
	assert_int_equal(rpcrdma_xdr_dec_pos(&d), 0);
	assert_int_equal(rpcrdma_xdr_get_count(&d, 2, 5, &n), -EBADMSG); /* 10 > 8 left */
	assert_int_equal(rpcrdma_xdr_get_count(&d, 2, 4, &n), 0);	  /* 8 <= 8 */
	assert_int_equal(n, 2);
	assert_int_equal(rpcrdma_xdr_dec_pos(&d), 4);
	rpcrdma_xdr_dec_init_buf(&d, data, sizeof(data));
	assert_int_equal(rpcrdma_xdr_get_count(&d, 2, SIZE_MAX, &n), -EBADMSG);
	data[3] = 0;
	assert_int_equal(rpcrdma_xdr_get_count(&d, 0, SIZE_MAX, &n), 0); /* 0 items fit */
	assert_int_equal(n, 0);
	/* min_item 0: only max bounds it */
	assert_int_equal(rpcrdma_xdr_get_count(&d, UINT32_MAX, 0, &n), 0);
	assert_int_equal(n, 7);
	rpcrdma_xdr_dec_init_buf(&d, data, 3); /* no whole word */
	assert_int_equal(rpcrdma_xdr_get_count(&d, UINT32_MAX, 0, &n), -EBADMSG);
}

/*
 * Issue 23 item 1: every getter that takes a length (from the data or from
 * the caller) with each length from 0xfffffff0 to 0xffffffff (and, for the
 * caller's size_t, SIZE_MAX - 15 to SIZE_MAX), over 0 to 8 bytes of data in
 * one heap buffer of exactly that size or split in two: -EBADMSG, and the
 * stream has not moved.  Nothing is read outside (ASan in the asan build).
 */
static void expect_refused(struct rpcrdma_xdr_dec *d, int rc)
{
	assert_int_equal(rc, -EBADMSG);
	assert_int_equal(rpcrdma_xdr_dec_pos(d), 0);
}

static void sweep_one(const uint8_t *buf, size_t len, size_t cut, uint32_t word,
		      size_t n)
{
	struct iovec iov[2] = { { (void *)buf, cut }, { (void *)(buf + cut), len - cut } };
	struct rpcrdma_xdr_dec d;
	uint8_t dst[16];
	char str[16];
	const void *ref;
	uint32_t l, cnt;
	(void)word;
#define AGAIN() rpcrdma_xdr_dec_init(&d, iov, 2)
	AGAIN(); expect_refused(&d, rpcrdma_xdr_get_opaque(&d, dst, SIZE_MAX, &l));
	AGAIN(); expect_refused(&d, rpcrdma_xdr_get_opaque(&d, dst, UINT32_MAX, &l));
	AGAIN(); expect_refused(&d, rpcrdma_xdr_get_opaque_ref(&d, &ref, SIZE_MAX, &l));
	AGAIN(); expect_refused(&d, rpcrdma_xdr_get_string(&d, str, sizeof(str), SIZE_MAX));
	AGAIN(); expect_refused(&d, rpcrdma_xdr_get_count(&d, UINT32_MAX, 1, &cnt));
	AGAIN(); expect_refused(&d, rpcrdma_xdr_get_fixed(&d, NULL, n));
	AGAIN(); expect_refused(&d, rpcrdma_xdr_get_fixed_ref(&d, &ref, n));
	AGAIN(); expect_refused(&d, rpcrdma_xdr_skip(&d, n));
	rpcrdma_xdr_dec_init_buf(&d, buf, len);
	expect_refused(&d, rpcrdma_xdr_get_opaque_ref(&d, &ref, SIZE_MAX, &l));
	rpcrdma_xdr_dec_init_buf(&d, buf, len);
	expect_refused(&d, rpcrdma_xdr_get_count(&d, UINT32_MAX, 1, &cnt));
	rpcrdma_xdr_dec_init_buf(&d, buf, len);
	expect_refused(&d, rpcrdma_xdr_skip(&d, n));
#undef AGAIN
}

static void test_lengths_near_2_32(void **state)
{
	(void)state;
	unsigned runs = 0;
	for (uint64_t w = 0xfffffff0u; w <= 0xffffffffu; w++) {
		for (size_t tail = 0; tail <= 8; tail++) {
			size_t len = 4 + tail;
			uint8_t *buf = malloc(len);
			assert_non_null(buf);
			buf[0] = (uint8_t)(w >> 24);
			buf[1] = (uint8_t)(w >> 16);
			buf[2] = (uint8_t)(w >> 8);
			buf[3] = (uint8_t)w;
			memset(buf + 4, 'a', tail);
			size_t big = SIZE_MAX - (0xffffffffu - (size_t)w);
			for (size_t cut = 0; cut <= len; cut++) {
				sweep_one(buf, len, cut, (uint32_t)w, (size_t)w);
				sweep_one(buf, len, cut, (uint32_t)w, big);
				runs++;
			}
			free(buf);
		}
	}
	assert_int_equal(runs, 16 * (5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13));
}

/* Signed and 64-bit integers and bool, both ways, at their extremes. */
static void test_signed_bool(void **state)
{
	(void)state;
	uint8_t buf[40];
	struct rpcrdma_xdr_enc e;
	rpcrdma_xdr_enc_init(&e, buf, sizeof(buf));
	assert_int_equal(rpcrdma_xdr_put_i32(&e, -1), 0);
	assert_int_equal(rpcrdma_xdr_put_i32(&e, INT32_MIN), 0);
	assert_int_equal(rpcrdma_xdr_put_i64(&e, -2), 0);
	assert_int_equal(rpcrdma_xdr_put_i64(&e, INT64_MIN), 0);
	assert_int_equal(rpcrdma_xdr_put_bool(&e, 42), 0);
	assert_int_equal(rpcrdma_xdr_put_bool(&e, 0), 0);
	assert_int_equal(rpcrdma_xdr_put_u64(&e, UINT64_MAX), 0);
	assert_int_equal(rpcrdma_xdr_enc_len(&e), 40);
	assert_int_equal(rpcrdma_xdr_put_bool(&e, 1), -EMSGSIZE);
	assert_int_equal(rpcrdma_xdr_put_i64(&e, 1), -EMSGSIZE);
	static const uint8_t want[40] = {
		0xff, 0xff, 0xff, 0xff, 0x80, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
		0x80, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 1, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	assert_memory_equal(buf, want, 40);
	struct rpcrdma_xdr_dec d;
	rpcrdma_xdr_dec_init_buf(&d, buf, 40);
	int32_t i;
	int64_t h;
	int b;
	assert_int_equal(rpcrdma_xdr_get_i32(&d, &i), 0);
	assert_int_equal(i, -1);
	assert_int_equal(rpcrdma_xdr_get_i32(&d, &i), 0);
	assert_true(i == INT32_MIN);
	assert_int_equal(rpcrdma_xdr_get_i64(&d, &h), 0);
	assert_true(h == -2);
	assert_int_equal(rpcrdma_xdr_get_i64(&d, &h), 0);
	assert_true(h == INT64_MIN);
	assert_int_equal(rpcrdma_xdr_get_bool(&d, &b), 0);
	assert_int_equal(b, 1);
	assert_int_equal(rpcrdma_xdr_get_bool(&d, &b), 0);
	assert_int_equal(b, 0);
	assert_int_equal(rpcrdma_xdr_get_i64(&d, &h), 0);
	assert_true(h == -1);
	assert_int_equal(rpcrdma_xdr_get_i32(&d, &i), -EBADMSG);
	assert_int_equal(rpcrdma_xdr_get_i64(&d, &h), -EBADMSG);
	rpcrdma_xdr_dec_init_buf(&d, buf, 4);
	assert_int_equal(rpcrdma_xdr_get_i64(&d, &h), -EBADMSG);
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
		cmocka_unit_test(test_dec_init_buf),
		cmocka_unit_test(test_get_count),
		cmocka_unit_test(test_lengths_near_2_32),
		cmocka_unit_test(test_signed_bool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
