/* SPDX-License-Identifier: BSD-2-Clause */
/* Bounded XDR: byte-exact encodings, and every truncation of valid
 * arguments is rejected without reading past the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nfs4_xdr.h"

static void test_primitives(void **state)
{
	(void)state;
	uint8_t buf[64];
	struct xdr_out o;
	xdr_out_init(&o, buf, sizeof(buf));
	xdr_put_u32(&o, 0x01020304);
	xdr_put_u64(&o, 0x0a0b0c0d0e0f1011ull);
	xdr_put_opaque(&o, "abcde", 5);
	xdr_put_bool(&o, true);
	static const uint8_t want[] = {
		1, 2, 3, 4, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11,
		0, 0, 0, 5, 'a', 'b', 'c', 'd', 'e', 0, 0, 0, 0, 0, 0, 1,
	};
	assert_int_equal(o.p - buf, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	struct xdr_in in;
	xdr_in_init(&in, want, sizeof(want));
	assert_int_equal(xdr_get_u32(&in), 0x01020304);
	assert_true(xdr_get_u64(&in) == 0x0a0b0c0d0e0f1011ull);
	struct xdr_opaque s = xdr_get_opaque(&in, 5);
	assert_int_equal(s.len, 5);
	assert_memory_equal(s.data, "abcde", 5);
	assert_true(xdr_get_bool(&in));
	assert_false(in.bad);
	assert_int_equal(xdr_in_left(&in), 0);
	(void)xdr_get_u32(&in);
	assert_true(in.bad);
	/* opaque longer than its limit, bool other than 0/1, overflow */
	xdr_in_init(&in, want + 12, 12);
	(void)xdr_get_opaque(&in, 4);
	assert_true(in.bad);
	static const uint8_t two[] = { 0, 0, 0, 2 };
	xdr_in_init(&in, two, 4);
	(void)xdr_get_bool(&in);
	assert_true(in.bad);
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff };
	xdr_in_init(&in, huge, 4);
	assert_int_equal(xdr_get_count(&in, UINT32_MAX, 4), 0);
	assert_true(in.bad);
	xdr_out_init(&o, buf, 6);
	xdr_put_u32(&o, 1);
	xdr_put_u32(&o, 2);
	assert_true(o.bad);
	assert_int_equal(o.p - buf, 4);
}

static void test_bitmap(void **state)
{
	(void)state;
	uint8_t buf[32];
	struct xdr_out o;
	xdr_out_init(&o, buf, sizeof(buf));
	struct nfs4_bitmap b = { { 0x00100002, 0, 0 }, false };
	nfs4_enc_bitmap(&o, &b); /* trailing zero words trimmed */
	static const uint8_t want[] = { 0, 0, 0, 1, 0x00, 0x10, 0x00, 0x02 };
	assert_int_equal(o.p - buf, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(nfs4_bitmap_xdr_size(&b), 8);
	/* a fourth word with a bit set is recorded as "extra" */
	static const uint8_t four[] = { 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8 };
	struct xdr_in in;
	xdr_in_init(&in, four, sizeof(four));
	nfs4_dec_bitmap(&in, &b);
	assert_false(in.bad);
	assert_true(b.extra);
	assert_true(nfs4_bm_isset(&b, 0));
}

static void test_exchange_id_result(void **state)
{
	(void)state;
	union nfs4_res r;
	memset(&r, 0, sizeof(r));
	r.exchange_id.clientid = 0x0102030405060708ull;
	r.exchange_id.seqid = 1;
	r.exchange_id.flags = EXCHGID4_FLAG_USE_NON_PNFS;
	r.exchange_id.major_id = (struct xdr_opaque){ (const uint8_t *)"srv", 3 };
	r.exchange_id.scope = (struct xdr_opaque){ (const uint8_t *)"srv", 3 };
	r.exchange_id.impl_domain = (struct xdr_opaque){ (const uint8_t *)"d", 1 };
	r.exchange_id.impl_name = (struct xdr_opaque){ (const uint8_t *)"n", 1 };
	uint8_t buf[128];
	struct xdr_out o;
	xdr_out_init(&o, buf, sizeof(buf));
	nfs4_codec(OP_EXCHANGE_ID)->enc(&o, NFS4_OK, &r);
	static const uint8_t want[] = {
		1, 2, 3, 4, 5, 6, 7, 8,	/* clientid */
		0, 0, 0, 1,		/* sequenceid */
		0, 1, 0, 0,		/* flags */
		0, 0, 0, 0,		/* SP4_NONE */
		0, 0, 0, 0, 0, 0, 0, 0, /* so_minor_id */
		0, 0, 0, 3, 's', 'r', 'v', 0, /* so_major_id */
		0, 0, 0, 3, 's', 'r', 'v', 0, /* server scope */
		0, 0, 0, 1,		/* one impl id */
		0, 0, 0, 1, 'd', 0, 0, 0,
		0, 0, 0, 1, 'n', 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* date */
	};
	assert_int_equal(o.p - buf, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

/* Valid arguments of some operations, as a client encodes them. */
static size_t sample_args(uint32_t op, uint8_t *buf, size_t cap)
{
	struct xdr_out o;
	xdr_out_init(&o, buf, cap);
	struct nfs4_stateid s = { 1, { 1, 2, 3 } };
	switch (op) {
	case OP_OPEN:
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, 3);
		xdr_put_u32(&o, 0);
		xdr_put_u64(&o, 7);
		xdr_put_opaque(&o, "owner", 5);
		xdr_put_u32(&o, OPEN4_CREATE);
		xdr_put_u32(&o, EXCLUSIVE4_1);
		xdr_put_fixed(&o, "verifier", 8);
		xdr_put_u32(&o, 1);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, CLAIM_NULL);
		xdr_put_opaque(&o, "name", 4);
		break;
	case OP_LOCK:
		xdr_put_u32(&o, WRITE_LT);
		xdr_put_bool(&o, false);
		xdr_put_u64(&o, 0);
		xdr_put_u64(&o, 10);
		xdr_put_bool(&o, true);
		xdr_put_u32(&o, 0);
		nfs4_enc_stateid(&o, &s);
		xdr_put_u32(&o, 0);
		xdr_put_u64(&o, 7);
		xdr_put_opaque(&o, "lockowner", 9);
		break;
	case OP_CREATE_SESSION:
		xdr_put_u64(&o, 7);
		xdr_put_u32(&o, 1);
		xdr_put_u32(&o, 0);
		for (int c = 0; c < 2; c++) {
			for (int i = 0; i < 6; i++)
				xdr_put_u32(&o, 4096);
			xdr_put_u32(&o, 1);
			xdr_put_u32(&o, 8);
		}
		xdr_put_u32(&o, 0x40000000);
		xdr_put_u32(&o, 1);
		xdr_put_u32(&o, AUTH_SYS);
		xdr_put_u32(&o, 0);
		xdr_put_opaque(&o, "host", 4);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, 1);
		xdr_put_u32(&o, 10);
		break;
	case OP_EXCHANGE_ID:
		xdr_put_fixed(&o, "verifier", 8);
		xdr_put_opaque(&o, "client", 6);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, SP4_MACH_CRED);
		xdr_put_u32(&o, 1);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, 1);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, 1);
		xdr_put_opaque(&o, "kernel.org", 10);
		xdr_put_opaque(&o, "Linux", 5);
		xdr_put_u64(&o, 0);
		xdr_put_u32(&o, 0);
		break;
	case OP_WRITE:
		nfs4_enc_stateid(&o, &s);
		xdr_put_u64(&o, 0);
		xdr_put_u32(&o, FILE_SYNC4);
		xdr_put_opaque(&o, "data!", 5);
		break;
	case OP_TEST_STATEID:
		xdr_put_u32(&o, 2);
		nfs4_enc_stateid(&o, &s);
		nfs4_enc_stateid(&o, &s);
		break;
	case OP_SETATTR:
		nfs4_enc_stateid(&o, &s);
		xdr_put_u32(&o, 2);
		xdr_put_u32(&o, 1u << FATTR4_SIZE);
		xdr_put_u32(&o, 1u << (FATTR4_MODE - 32));
		xdr_put_u32(&o, 12);
		xdr_put_u64(&o, 5);
		xdr_put_u32(&o, 0644);
		break;
	case OP_CREATE:
		xdr_put_u32(&o, NF4LNK);
		xdr_put_opaque(&o, "target", 6);
		xdr_put_opaque(&o, "ln", 2);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, 0);
		break;
	default:
		return 0;
	}
	assert_false(o.bad);
	return (size_t)(o.p - buf);
}

static void test_truncations(void **state)
{
	(void)state;
	static const uint32_t ops[] = {
		OP_OPEN, OP_LOCK, OP_CREATE_SESSION, OP_EXCHANGE_ID, OP_WRITE,
		OP_TEST_STATEID, OP_SETATTR, OP_CREATE,
	};
	uint8_t buf[512];
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t len = sample_args(ops[i], buf, sizeof(buf));
		assert_true(len > 0);
		const struct nfs4_codec *c = nfs4_codec(ops[i]);
		assert_non_null(c);
		union nfs4_args a;
		struct xdr_in in;
		xdr_in_init(&in, buf, len);
		c->dec(&in, &a);
		assert_false(in.bad);
		assert_int_equal(xdr_in_left(&in), 0);
		for (size_t cut = 0; cut < len; cut++) {
			/* an exactly sized copy, so ASan sees any overread */
			uint8_t *copy = malloc(cut ? cut : 1);
			memcpy(copy, buf, cut);
			xdr_in_init(&in, copy, cut);
			c->dec(&in, &a);
			assert_true(in.bad);
			free(copy);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_primitives),
		cmocka_unit_test(test_bitmap),
		cmocka_unit_test(test_exchange_id_result),
		cmocka_unit_test(test_truncations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
