/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box: the RPCSEC_GSS wire codec (lib/gss/gss_xdr.c).  Round trips,
 * every truncation of a valid item, and each length word replaced by
 * values near 2^32 and just over its bound.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gss/gss_int.h"
#include "svc/svc_int.h"

/* A copy of exactly n bytes on the heap, so ASan sees a read past it. */
static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	assert_non_null(b);
	if (n)
		memcpy(b, p, n);
	return b;
}

static void test_cred_roundtrip(void **state)
{
	(void)state;
	uint8_t buf[256], h[5] = {1, 2, 3, 4, 5};
	struct rpcrdma__gss_cred c = {.proc = RPCRDMA__GSS_DATA, .seq = 77,
				      .service = RPCRDMA__GSS_SVC_PRIVACY,
				      .handle = h, .handle_len = 5}, d;
	int n = rpcrdma__gss_cred_encode(buf, sizeof(buf), &c);
	assert_int_equal(n, 16 + 4 + 8);
	assert_int_equal((size_t)n, rpcrdma__gss_cred_len(5));
	assert_int_equal(rpcrdma__get_be32(buf), 1);
	assert_int_equal(buf[4 + 16 + 5], 0); /* padding zeroed */
	assert_int_equal(rpcrdma__gss_cred_decode(buf, (size_t)n, &d), 0);
	assert_int_equal(d.proc, c.proc);
	assert_int_equal(d.seq, 77);
	assert_int_equal(d.service, RPCRDMA__GSS_SVC_PRIVACY);
	assert_int_equal(d.handle_len, 5);
	assert_memory_equal(d.handle, h, 5);
	/* every truncation fails, and so does a word too many */
	for (int i = 0; i < n; i++) {
		uint8_t *b = dup_exact(buf, (size_t)i);
		assert_int_not_equal(rpcrdma__gss_cred_decode(b, (size_t)i, &d), 0);
		free(b);
	}
	memset(buf + n, 0, 4);
	assert_int_equal(rpcrdma__gss_cred_decode(buf, (size_t)n + 4, &d), -EBADMSG);
	/* version 2 */
	rpcrdma__put_be32(buf, 2);
	assert_int_equal(rpcrdma__gss_cred_decode(buf, (size_t)n, &d), -EPROTONOSUPPORT);
	/* room */
	assert_int_equal(rpcrdma__gss_cred_encode(buf, (size_t)n - 1, &c), -EMSGSIZE);
	c.handle_len = RPCRDMA__GSS_HANDLE_MAX + 1;
	assert_int_equal(rpcrdma__gss_cred_encode(buf, sizeof(buf), &c), -EINVAL);
}

static void test_cred_handle_lengths(void **state)
{
	(void)state;
	uint8_t buf[16 + 4 + RPCRDMA__GSS_HANDLE_MAX + 8];
	uint8_t h[RPCRDMA__GSS_HANDLE_MAX] = {0};
	struct rpcrdma__gss_cred c = {.handle = h, .handle_len = RPCRDMA__GSS_HANDLE_MAX}, d;
	int n = rpcrdma__gss_cred_encode(buf, sizeof(buf), &c);
	assert_true(n > 0);
	assert_int_equal(rpcrdma__gss_cred_decode(buf, (size_t)n, &d), 0);
	static const uint32_t bad[] = {RPCRDMA__GSS_HANDLE_MAX + 1, 0x7fffffff, 0x80000000,
				       0xfffffffc, 0xfffffffd, 0xffffffff};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rpcrdma__put_be32(buf + 16, bad[i]);
		uint8_t *b = dup_exact(buf, (size_t)n);
		assert_int_equal(rpcrdma__gss_cred_decode(b, (size_t)n, &d), -EBADMSG);
		free(b);
	}
}

static void test_opaque(void **state)
{
	(void)state;
	uint8_t buf[16];
	const uint8_t *body;
	uint32_t len;
	assert_ptr_equal(rpcrdma__gss_put_opaque(buf, "abc", 3), buf + 8);
	assert_int_equal(buf[7], 0);
	assert_ptr_equal(rpcrdma__gss_get_opaque(buf, buf + 8, 3, &body, &len), buf + 8);
	assert_int_equal(len, 3);
	assert_null(rpcrdma__gss_get_opaque(buf, buf + 8, 2, &body, &len)); /* over max */
	assert_null(rpcrdma__gss_get_opaque(buf, buf + 7, 3, &body, &len)); /* padding cut */
	assert_null(rpcrdma__gss_get_opaque(buf, buf + 3, 3, &body, &len));
	rpcrdma__put_be32(buf, 0xfffffffd);
	assert_null(rpcrdma__gss_get_opaque(buf, buf + 16, UINT32_MAX, &body, &len));
	assert_int_equal(rpcrdma__gss_opaque_len(0), 4);
	assert_int_equal(rpcrdma__gss_opaque_len(5), 12);
}

static void test_init(void **state)
{
	(void)state;
	uint8_t buf[128], tok[9] = "token-abc";
	uint8_t h[16];
	memset(h, 0xab, sizeof(h));
	struct rpcrdma__gss_init_res r = {.handle = h, .handle_len = 16, .major = 1,
					  .minor = 2, .window = 128, .token = tok,
					  .token_len = 9}, d;
	int n = rpcrdma__gss_init_res_encode(buf, sizeof(buf), &r);
	assert_int_equal(n, 20 + 12 + 16);
	assert_int_equal((size_t)n, rpcrdma__gss_init_res_len(&r));
	assert_int_equal(rpcrdma__gss_init_res_decode(buf, (size_t)n, &d), 0);
	assert_int_equal(d.handle_len, 16);
	assert_int_equal(d.major, 1);
	assert_int_equal(d.minor, 2);
	assert_int_equal(d.window, 128);
	assert_int_equal(d.token_len, 9);
	assert_memory_equal(d.token, tok, 9);
	for (int i = 0; i < n; i++) {
		uint8_t *b = dup_exact(buf, (size_t)i);
		assert_int_equal(rpcrdma__gss_init_res_decode(b, (size_t)i, &d), -EBADMSG);
		free(b);
	}
	assert_int_equal(rpcrdma__gss_init_res_encode(buf, (size_t)n - 1, &r), -EMSGSIZE);
	/* handle and token lengths near 2^32 */
	for (uint32_t v = 0xfffffff0; v != 0; v++) {
		uint8_t c[128];
		memcpy(c, buf, (size_t)n);
		rpcrdma__put_be32(c, v);
		assert_int_equal(rpcrdma__gss_init_res_decode(c, (size_t)n, &d), -EBADMSG);
		memcpy(c, buf, (size_t)n);
		rpcrdma__put_be32(c + 32, v);
		assert_int_equal(rpcrdma__gss_init_res_decode(c, (size_t)n, &d), -EBADMSG);
	}

	/* init_arg: the token exactly filling the arguments */
	const uint8_t *t;
	uint32_t tl;
	uint8_t *e = rpcrdma__gss_put_opaque(buf, tok, 9);
	assert_int_equal(rpcrdma__gss_init_arg_decode(buf, (size_t)(e - buf), &t, &tl), 0);
	assert_int_equal(tl, 9);
	assert_int_equal(rpcrdma__gss_init_arg_decode(buf, (size_t)(e - buf) + 4, &t, &tl),
			 -EBADMSG);
	assert_int_equal(rpcrdma__gss_init_arg_decode(buf, (size_t)(e - buf) - 1, &t, &tl),
			 -EBADMSG);
	rpcrdma__put_be32(buf, RPCRDMA__GSS_TOKEN_MAX + 1);
	assert_int_equal(rpcrdma__gss_init_arg_decode(buf, sizeof(buf), &t, &tl), -EBADMSG);
}

static void test_integ_priv(void **state)
{
	(void)state;
	uint8_t buf[64], mic[6] = "MICMIC";
	const uint8_t *b, *m;
	uint32_t bl, ml, seq;

	rpcrdma__put_be32(buf + 4, 42);        /* seq */
	memcpy(buf + 8, "args!", 5);           /* 5 bytes of arguments */
	int n = rpcrdma__gss_integ_frame(buf, sizeof(buf), 9, mic, 6);
	assert_int_equal(n, 16 + 12);
	assert_int_equal(rpcrdma__gss_integ_decode(buf, (size_t)n, &b, &bl, &m, &ml), 0);
	assert_int_equal(bl, 9);
	assert_ptr_equal(b, buf + 4);
	assert_int_equal(ml, 6);
	assert_memory_equal(m, mic, 6);
	assert_int_equal(rpcrdma__gss_body_seq(b, bl, &seq), 0);
	assert_int_equal(seq, 42);
	for (int i = 0; i < n; i++) {
		uint8_t *c = dup_exact(buf, (size_t)i);
		assert_int_equal(rpcrdma__gss_integ_decode(c, (size_t)i, &b, &bl, &m, &ml),
				 -EBADMSG);
		free(c);
	}
	assert_int_equal(rpcrdma__gss_integ_frame(buf, (size_t)n - 1, 9, mic, 6), -EMSGSIZE);
	assert_int_equal(rpcrdma__gss_integ_frame(buf, sizeof(buf), 9, mic,
						  RPCRDMA__GSS_MIC_MAX + 1), -EMSGSIZE);
	/* a body shorter than its sequence number */
	rpcrdma__gss_put_opaque(buf, "ab", 2);
	rpcrdma__gss_put_opaque(buf + 8, mic, 6);
	assert_int_equal(rpcrdma__gss_integ_decode(buf, 20, &b, &bl, &m, &ml), -EBADMSG);
	assert_int_equal(rpcrdma__gss_body_seq(b, 3, &seq), -EBADMSG);
	/* lengths near 2^32 */
	for (uint32_t v = 0xfffffff0; v != 0; v++) {
		rpcrdma__put_be32(buf, v);
		assert_int_equal(rpcrdma__gss_integ_decode(buf, 28, &b, &bl, &m, &ml), -EBADMSG);
		assert_int_equal(rpcrdma__gss_priv_decode(buf, 28, &b, &bl), -EBADMSG);
	}
	rpcrdma__gss_put_opaque(buf, "wrapped", 7);
	assert_int_equal(rpcrdma__gss_priv_decode(buf, 12, &b, &bl), 0);
	assert_int_equal(bl, 7);
	assert_int_equal(rpcrdma__gss_priv_decode(buf, 11, &b, &bl), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cred_roundtrip),
		cmocka_unit_test(test_cred_handle_lengths),
		cmocka_unit_test(test_opaque),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_integ_priv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
