/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bridge's XDR-stream adaptors (tirpc/internal.h): decoding RPC calls
 * and arguments from iovecs cut anywhere, splicing a write chunk's bytes
 * back into a reply, and encoding results whose bulk item goes to chunk
 * space while the rest stays inline -- each checked against libtirpc's own
 * xdrmem streams, byte for byte -- and what a call's credential makes the
 * bridge do (RPCSEC_GSS: encode once, no bulk item when sealed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../internal.h"

/* A result type like an rpcgen one: fixed fields, a string, two opaques. */
struct res {
	u_int tag;
	char *name;
	struct { u_int len; char *val; } small;
	struct { u_int len; char *val; } data;
	int32_t tail;
};

static bool_t xdr_res(XDR *x, struct res *r)
{
	return xdr_u_int(x, &r->tag) && xdr_string(x, &r->name, 255) &&
	       xdr_bytes(x, &r->small.val, &r->small.len, 1u << 24) &&
	       xdr_bytes(x, &r->data.val, &r->data.len, 1u << 24) && xdr_int32_t(x, &r->tail);
}

static void res_fill(struct res *r, u_int small, u_int len)
{
	memset(r, 0, sizeof(*r));
	r->tag = 0xdeadbeef;
	r->name = strdup("bridge");
	r->small.len = small;
	r->small.val = malloc(small + 1);
	for (u_int i = 0; i < small; i++)
		r->small.val[i] = (char)(i * 7 + 1);
	r->data.len = len;
	r->data.val = malloc(len + 1);
	for (u_int i = 0; i < len; i++)
		r->data.val[i] = (char)(i * 13 + 5);
	r->tail = -42;
}

static void res_eq(const struct res *a, const struct res *b)
{
	assert_int_equal(a->tag, b->tag);
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->small.len, b->small.len);
	assert_memory_equal(a->small.val, b->small.val, a->small.len);
	assert_int_equal(a->data.len, b->data.len);
	if (a->data.len)
		assert_memory_equal(a->data.val, b->data.val, a->data.len);
	assert_int_equal(a->tail, b->tail);
}

static void res_free(struct res *r)
{
	xdr_free((xdrproc_t)xdr_res, (char *)r);
}

/* The reference encoding, by libtirpc's xdrmem. */
static size_t mem_encode(struct res *r, char *buf, size_t cap)
{
	XDR x;
	xdrmem_create(&x, buf, (u_int)cap, XDR_ENCODE);
	assert_true(xdr_res(&x, r));
	return xdr_getpos(&x);
}

/* A call message (header + AUTH_SYS-like credential + arguments). */
static size_t call_encode(struct res *args, char *buf, size_t cap)
{
	XDR x;
	struct rpc_msg m;
	char cred[20] = "0123456789abcdefghi";
	memset(&m, 0, sizeof(m));
	m.rm_xid = 0x01020304;
	m.rm_direction = CALL;
	m.rm_call.cb_rpcvers = 2;
	m.rm_call.cb_prog = 0x20000099;
	m.rm_call.cb_vers = 1;
	m.rm_call.cb_proc = 2;
	m.rm_call.cb_cred.oa_flavor = AUTH_SYS;
	m.rm_call.cb_cred.oa_base = cred;
	m.rm_call.cb_cred.oa_length = sizeof(cred);
	m.rm_call.cb_verf = _null_auth;
	xdrmem_create(&x, buf, (u_int)cap, XDR_ENCODE);
	assert_true(xdr_callmsg(&x, &m));
	assert_true(xdr_res(&x, args));
	return xdr_getpos(&x);
}

/* Cuts [0, len) into iovecs of sizes 1, 2, 3, ..., step apart. */
static unsigned cut(char *buf, size_t len, unsigned step, struct iovec *iov, unsigned max)
{
	unsigned n = 0;
	size_t off = 0, k = 1;
	while (off < len && n < max - 1) {
		size_t l = k < len - off ? k : len - off;
		iov[n].iov_base = buf + off;
		iov[n].iov_len = l;
		n++;
		off += l;
		k = (k + step) % 61 + 1;
		if (n % 5 == 0 && n < max - 1) {  /* empty iovecs too */
			iov[n].iov_base = buf + off;
			iov[n].iov_len = 0;
			n++;
		}
	}
	if (off < len) {
		iov[n].iov_base = buf + off;
		iov[n].iov_len = len - off;
		n++;
	}
	return n;
}

static void dec_call_iov(void **state)
{
	(void)state;
	static char buf[16384];
	struct iovec iov[4096];
	struct res in, out;

	res_fill(&in, 37, 5001);
	size_t len = call_encode(&in, buf, sizeof(buf));
	for (unsigned step = 0; step < 9; step++) {
		unsigned n = step == 0 ? 1 : cut(buf, len, step, iov, 4096);
		if (step == 0) {
			iov[0].iov_base = buf;
			iov[0].iov_len = len;
		}
		struct rpcrdma__tx_dec d;
		XDR x;
		struct rpc_msg m;
		char area[2 * MAX_AUTH_BYTES];
		memset(&m, 0, sizeof(m));
		m.rm_call.cb_cred.oa_base = area;
		m.rm_call.cb_verf.oa_base = area + MAX_AUTH_BYTES;
		rpcrdma__tx_dec_init(&x, &d, iov, n);
		assert_true(xdr_callmsg(&x, &m));
		assert_int_equal(m.rm_xid, 0x01020304);
		assert_int_equal(m.rm_call.cb_prog, 0x20000099);
		assert_int_equal(m.rm_call.cb_proc, 2);
		assert_int_equal(m.rm_call.cb_cred.oa_length, 20);
		assert_memory_equal(area, "0123456789abcdefghi", 20);
		memset(&out, 0, sizeof(out));
		assert_true(xdr_res(&x, &out));
		res_eq(&in, &out);
		assert_int_equal(xdr_getpos(&x), len);
		/* Positions: back to the arguments and decode again. */
		u_int argpos = (u_int)(len - mem_encode(&in, buf + sizeof(buf) / 2, sizeof(buf) / 2));
		assert_true(xdr_setpos(&x, argpos));
		res_free(&out);
		memset(&out, 0, sizeof(out));
		assert_true(xdr_res(&x, &out));
		res_eq(&in, &out);
		res_free(&out);
	}
	res_free(&in);
}

/* Every truncation of the message fails to decode, never reads past it. */
static void dec_truncated(void **state)
{
	(void)state;
	struct res in, out;
	res_fill(&in, 5, 1500);
	size_t cap = 4096;
	char *buf = malloc(cap);
	size_t len = mem_encode(&in, buf, cap);
	for (size_t l = 0; l < len; l++) {
		char *copy = malloc(l ? l : 1);  /* exact size: ASan sees over-reads */
		memcpy(copy, buf, l);
		struct iovec iov[2] = { { copy, l / 2 }, { copy + l / 2, l - l / 2 } };
		struct rpcrdma__tx_dec d;
		XDR x;
		rpcrdma__tx_dec_init(&x, &d, iov, 2);
		memset(&out, 0, sizeof(out));
		assert_false(xdr_res(&x, &out));
		res_free(&out);
		free(copy);
	}
	free(buf);
	res_free(&in);
}

/*
 * The encoder's output is xdrmem's, byte for byte; its count is
 * xdr_sizeof's; its bulk item is the largest opaque (the first of equal
 * ones), 4-aligned, followed by its pad; none below bulk_min.
 */
static void enc_matches_xdrmem(void **state)
{
	(void)state;
	static const u_int sizes[] = { 0, 1, 3, 4, 1023, 1024, 1025, 4096, 65537, 1u << 20 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct res in;
		res_fill(&in, 1100, sizes[i]);
		size_t cap = sizes[i] + 4096;
		char *ref = malloc(cap), *buf = malloc(cap);
		size_t len = mem_encode(&in, ref, cap);

		struct rpcrdma__tx_enc e;
		XDR x;
		rpcrdma__tx_enc_init(&x, &e, NULL, cap, RPCRDMA__TX_BULK_MIN);
		assert_true(xdr_res(&x, &in));
		assert_int_equal(e.pos, len);
		assert_int_equal(xdr_sizeof((xdrproc_t)xdr_res, &in), len);
		size_t count_off = e.bulk_off, count_len = e.bulk_len;

		rpcrdma__tx_enc_init(&x, &e, buf, len, RPCRDMA__TX_BULK_MIN);
		assert_true(xdr_res(&x, &in));
		assert_int_equal(e.pos, len);
		assert_memory_equal(buf, ref, len);
		assert_int_equal(e.bulk_off, count_off);
		assert_int_equal(e.bulk_len, count_len);
		/* tag 4, name 4+8, small 4+1100, data's length word 4 */
		size_t data_off = 4 + 12 + 4 + 1100 + 4;
		if (sizes[i] > 1100) {
			assert_int_equal(e.bulk_off, data_off);
			assert_int_equal(e.bulk_len, sizes[i]);
		} else {
			assert_int_equal(e.bulk_off, 20);   /* small: 1100 >= 1024 */
			assert_int_equal(e.bulk_len, 1100);
		}
		/* One byte short: the encoder refuses, writes nothing past. */
		rpcrdma__tx_enc_init(&x, &e, buf, len - 1, RPCRDMA__TX_BULK_MIN);
		assert_false(xdr_res(&x, &in));
		rpcrdma__tx_enc_init(&x, &e, NULL, len - 1, RPCRDMA__TX_BULK_MIN);
		assert_false(xdr_res(&x, &in));
		free(ref);
		free(buf);
		res_free(&in);
	}
	/* Below bulk_min: no bulk item. */
	struct res in;
	res_fill(&in, 10, 1000);
	struct rpcrdma__tx_enc e;
	XDR x;
	rpcrdma__tx_enc_init(&x, &e, NULL, 1u << 20, RPCRDMA__TX_BULK_MIN);
	assert_true(xdr_res(&x, &in));
	assert_int_equal(e.bulk_len, 0);
	res_free(&in);
}

/*
 * Results spanning inline and chunk space: encode, cut the bulk item and
 * its pad out as the transport does for a write chunk (RFC 8166 3.4.5),
 * decode the inline rest with the chunk's bytes given apart, in iovecs cut
 * anywhere: the results come back whole.
 */
static void enc_dec_write_chunk(void **state)
{
	(void)state;
	static const u_int sizes[] = { 1024, 1025, 1026, 1027, 4096, 100001, 1u << 20 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct res in, out;
		res_fill(&in, sizes[i], sizes[i]);  /* equal lengths: the first is bulk */
		size_t cap = 2 * (size_t)sizes[i] + 4096;
		char *buf = malloc(cap);
		struct rpcrdma__tx_enc e;
		XDR x;
		rpcrdma__tx_enc_init(&x, &e, buf, cap, RPCRDMA__TX_BULK_MIN);
		assert_true(xdr_res(&x, &in));
		assert_int_equal(e.bulk_off, 20);
		assert_int_equal(e.bulk_len, sizes[i]);
		size_t pad = (4 - (e.bulk_len & 3)) & 3;
		char *chunk = malloc(e.bulk_len);
		memcpy(chunk, buf + e.bulk_off, e.bulk_len);
		size_t rest = e.pos - e.bulk_len - pad;
		char *inl = malloc(rest);
		memcpy(inl, buf, e.bulk_off);
		memcpy(inl + e.bulk_off, buf + e.bulk_off + e.bulk_len + pad,
		       e.pos - e.bulk_off - e.bulk_len - pad);
		struct iovec iov[512];
		unsigned n = cut(inl, rest, (unsigned)i + 1, iov, 512);

		struct rpcrdma__tx_dec d;
		rpcrdma__tx_dec_init(&x, &d, iov, n);
		rpcrdma__tx_dec_bulk(&d, chunk, e.bulk_len);
		memset(&out, 0, sizeof(out));
		assert_true(xdr_res(&x, &out));
		res_eq(&in, &out);
		assert_int_equal(xdr_getpos(&x), rest);
		res_free(&out);
		free(inl);
		free(chunk);
		free(buf);
		res_free(&in);
	}
}

/* XDR_INLINE: contiguous aligned bytes only, else NULL (callers fall back). */
static void dec_inline(void **state)
{
	(void)state;
	uint32_t words[4] = { htonl(1), htonl(2), htonl(3), htonl(4) };
	char *b = (char *)words;
	uint32_t other[4];     /* bytes 6..15 at an odd address */
	char *odd = (char *)other + 1;
	memcpy(odd, b + 6, 10);
	struct iovec iov[2] = { { b, 6 }, { odd, 10 } };
	struct rpcrdma__tx_dec d;
	XDR x;
	rpcrdma__tx_dec_init(&x, &d, iov, 2);
	int32_t *p = XDR_INLINE(&x, 4);
	assert_non_null(p);
	assert_int_equal(ntohl((uint32_t)*p), 1);
	assert_null(XDR_INLINE(&x, 4));   /* spans the two iovecs */
	int32_t v;
	assert_true(xdr_int32_t(&x, &v));
	assert_int_equal(v, 2);
	assert_null(XDR_INLINE(&x, 4));   /* misaligned: odd + 2 */
	assert_true(xdr_int32_t(&x, &v));
	assert_int_equal(v, 3);
	assert_true(xdr_int32_t(&x, &v));
	assert_int_equal(v, 4);
	assert_false(xdr_int32_t(&x, &v));
}

/*
 * What libtirpc's xdr_rpc_gss_wrap_data does to the stream (RFC 2203
 * 5.3.2.2, integrity): skip the length word, encode seq_num and the
 * results, XDR_INLINE them back for the MIC, write the length, then the
 * "MIC" (here a sum of the bytes).  FALSE when XDR_INLINE gives nothing,
 * as authgss has then nothing to sign.
 */
static bool_t wrap_like_authgss(XDR *x, struct res *r)
{
	u_int start = XDR_GETPOS(x), seq = 7;
	if (!XDR_SETPOS(x, start + 4) || !xdr_u_int(x, &seq) || !xdr_res(x, r))
		return FALSE;
	u_int end = XDR_GETPOS(x), len = end - start - 4;
	XDR_SETPOS(x, start + 4);
	const unsigned char *body = (const unsigned char *)XDR_INLINE(x, len);
	if (!body)
		return FALSE;
	u_int mic = 0;
	for (u_int i = 0; i < len; i++)
		mic += body[i];
	return XDR_SETPOS(x, start) && xdr_u_int(x, &len) && XDR_SETPOS(x, end) &&
	       xdr_u_int(x, &mic);
}

/* The flat encoder serves it as xdrmem does; the counting one cannot (so
 * the bridge encodes a call or reply under RPCSEC_GSS once). */
static void enc_gss_wrap_pattern(void **state)
{
	(void)state;
	struct res r;
	res_fill(&r, 10, 5000);
	size_t cap = 8192;
	char *a = calloc(1, cap), *b = calloc(1, cap);
	XDR xm, xs;
	struct rpcrdma__tx_enc e;
	xdrmem_create(&xm, a, (u_int)cap, XDR_ENCODE);
	assert_true(wrap_like_authgss(&xm, &r));
	rpcrdma__tx_enc_init(&xs, &e, b, cap, SIZE_MAX);
	assert_true(wrap_like_authgss(&xs, &r));
	assert_int_equal(e.pos, XDR_GETPOS(&xm));
	assert_memory_equal(a, b, e.pos);
	assert_int_equal(e.bulk_len, 0);      /* SIZE_MAX: no bulk item */
	rpcrdma__tx_enc_init(&xs, &e, NULL, cap, RPCRDMA__TX_BULK_MIN);
	assert_false(wrap_like_authgss(&xs, &r));
	free(a);
	free(b);
	res_free(&r);
}

/* rpcrdma__tx_auth_kind on the credentials a call can carry. */
static void auth_kind(void **state)
{
	(void)state;
	uint32_t gss[5] = { htonl(1), htonl(0), htonl(9), htonl(1), htonl(0) };
	assert_int_equal(rpcrdma__tx_auth_kind(AUTH_NONE, NULL, 0), RPCRDMA__TX_AUTH_PLAIN);
	assert_int_equal(rpcrdma__tx_auth_kind(AUTH_SYS, gss, sizeof(gss)), RPCRDMA__TX_AUTH_PLAIN);
	assert_int_equal(rpcrdma__tx_auth_kind(AUTH_SHORT, NULL, 0), RPCRDMA__TX_AUTH_PLAIN);
	/* DATA, service none */
	assert_int_equal(rpcrdma__tx_auth_kind(RPCSEC_GSS, gss, sizeof(gss)), RPCRDMA__TX_AUTH_ONCE);
	gss[3] = htonl(2); /* integrity */
	assert_int_equal(rpcrdma__tx_auth_kind(RPCSEC_GSS, gss, sizeof(gss)), RPCRDMA__TX_AUTH_SEALED);
	gss[3] = htonl(3); /* privacy */
	assert_int_equal(rpcrdma__tx_auth_kind(RPCSEC_GSS, gss, sizeof(gss)), RPCRDMA__TX_AUTH_SEALED);
	gss[3] = htonl(0xffffffffu); /* a hostile service number */
	assert_int_equal(rpcrdma__tx_auth_kind(RPCSEC_GSS, gss, sizeof(gss)), RPCRDMA__TX_AUTH_SEALED);
	gss[1] = htonl(1); /* INIT: not wrapped */
	assert_int_equal(rpcrdma__tx_auth_kind(RPCSEC_GSS, gss, sizeof(gss)), RPCRDMA__TX_AUTH_ONCE);
	/* too short a body, or none: still once, never PLAIN */
	assert_int_equal(rpcrdma__tx_auth_kind(RPCSEC_GSS, gss, 12), RPCRDMA__TX_AUTH_ONCE);
	assert_int_equal(rpcrdma__tx_auth_kind(RPCSEC_GSS, NULL, 400), RPCRDMA__TX_AUTH_ONCE);
	/* a flavour the bridge does not know (AUTH_DES, 3; 390003): sealed */
	assert_int_equal(rpcrdma__tx_auth_kind(3, NULL, 0), RPCRDMA__TX_AUTH_SEALED);
	assert_int_equal(rpcrdma__tx_auth_kind(390003, NULL, 0), RPCRDMA__TX_AUTH_SEALED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dec_call_iov),
		cmocka_unit_test(dec_truncated),
		cmocka_unit_test(enc_matches_xdrmem),
		cmocka_unit_test(enc_dec_write_chunk),
		cmocka_unit_test(dec_inline),
		cmocka_unit_test(enc_gss_wrap_pattern),
		cmocka_unit_test(auth_kind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
