/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RPCSEC_GSS version 1 wire codec (RFC 2203 section 5): the credential,
 * rpc_gss_init_arg / rpc_gss_init_res, and the integrity and privacy
 * framing of arguments and results.  Pure functions over buffers: every
 * length is checked against its bound before the bytes it claims, so a
 * length near 2^32 is refused, never added to a pointer.
 */
#include <errno.h>

#include "gss/gss_int.h"
#include "util/byteorder.h"

static size_t pad4(uint32_t len)
{
	return ((size_t)len + 3) & ~(size_t)3;
}

size_t rpcrdma__gss_opaque_len(uint32_t len)
{
	return 4 + pad4(len);
}

const uint8_t *rpcrdma__gss_get_opaque(const uint8_t *p, const uint8_t *end, uint32_t max,
				       const uint8_t **body, uint32_t *len)
{
	if (__builtin_expect(end - p < 4, 0))
		return NULL;
	uint32_t n = rpcrdma__get_be32(p);
	p += 4;
	if (__builtin_expect(n > max, 0))
		return NULL;
	if (__builtin_expect((size_t)(end - p) < pad4(n), 0))
		return NULL;
	*body = p;
	*len = n;
	return p + pad4(n);
}

uint8_t *rpcrdma__gss_put_opaque(uint8_t *p, const void *body, uint32_t len)
{
	p = rpcrdma__put_be32(p, len);
	if (len)
		memcpy(p, body, len);
	memset(p + len, 0, pad4(len) - len);
	return p + pad4(len);
}

/* ----------------------------------------------------------- credential */

int rpcrdma__gss_cred_decode(const uint8_t *p, size_t len, struct rpcrdma__gss_cred *c)
{
	const uint8_t *end = p + len;

	memset(c, 0, sizeof(*c));
	if (len < 4)
		goto out_bad;
	if (rpcrdma__get_be32(p) != RPCRDMA__GSS_VERS_1)
		goto out_version;
	if (len < 20)
		goto out_bad;
	c->proc = rpcrdma__get_be32(p + 4);
	c->seq = rpcrdma__get_be32(p + 8);
	c->service = rpcrdma__get_be32(p + 12);
	p = rpcrdma__gss_get_opaque(p + 16, end, RPCRDMA__GSS_HANDLE_MAX, &c->handle,
				    &c->handle_len);
	if (!p || p != end)
		goto out_bad;
	return 0;
out_version:
	return -EPROTONOSUPPORT;
out_bad:
	memset(c, 0, sizeof(*c));
	return -EBADMSG;
}

size_t rpcrdma__gss_cred_len(uint32_t handle_len)
{
	return 16 + rpcrdma__gss_opaque_len(handle_len);
}

int rpcrdma__gss_cred_encode(uint8_t *p, size_t room, const struct rpcrdma__gss_cred *c)
{
	if (c->handle_len > RPCRDMA__GSS_HANDLE_MAX)
		return -EINVAL;
	size_t n = rpcrdma__gss_cred_len(c->handle_len);
	if (room < n)
		return -EMSGSIZE;
	p = rpcrdma__put_be32(p, RPCRDMA__GSS_VERS_1);
	p = rpcrdma__put_be32(p, c->proc);
	p = rpcrdma__put_be32(p, c->seq);
	p = rpcrdma__put_be32(p, c->service);
	rpcrdma__gss_put_opaque(p, c->handle, c->handle_len);
	return (int)n;
}

/* ------------------------------------------------------ INIT arg / res */

int rpcrdma__gss_init_arg_decode(const uint8_t *p, size_t len, const uint8_t **tok,
				 uint32_t *tok_len)
{
	const uint8_t *end = p + len;

	p = rpcrdma__gss_get_opaque(p, end, RPCRDMA__GSS_TOKEN_MAX, tok, tok_len);
	if (!p || p != end)
		return -EBADMSG;
	return 0;
}

size_t rpcrdma__gss_init_res_len(const struct rpcrdma__gss_init_res *r)
{
	return rpcrdma__gss_opaque_len(r->handle_len) + 12 +
	       rpcrdma__gss_opaque_len(r->token_len);
}

int rpcrdma__gss_init_res_encode(uint8_t *p, size_t room, const struct rpcrdma__gss_init_res *r)
{
	if (r->handle_len > RPCRDMA__GSS_HANDLE_MAX || r->token_len > RPCRDMA__GSS_TOKEN_MAX)
		return -EINVAL;
	size_t n = rpcrdma__gss_init_res_len(r);
	if (room < n)
		return -EMSGSIZE;
	p = rpcrdma__gss_put_opaque(p, r->handle, r->handle_len);
	p = rpcrdma__put_be32(p, r->major);
	p = rpcrdma__put_be32(p, r->minor);
	p = rpcrdma__put_be32(p, r->window);
	rpcrdma__gss_put_opaque(p, r->token, r->token_len);
	return (int)n;
}

int rpcrdma__gss_init_res_decode(const uint8_t *p, size_t len, struct rpcrdma__gss_init_res *r)
{
	const uint8_t *end = p + len;

	memset(r, 0, sizeof(*r));
	p = rpcrdma__gss_get_opaque(p, end, RPCRDMA__GSS_HANDLE_MAX, &r->handle, &r->handle_len);
	if (!p || end - p < 12)
		goto out_bad;
	r->major = rpcrdma__get_be32(p);
	r->minor = rpcrdma__get_be32(p + 4);
	r->window = rpcrdma__get_be32(p + 8);
	p = rpcrdma__gss_get_opaque(p + 12, end, RPCRDMA__GSS_TOKEN_MAX, &r->token,
				    &r->token_len);
	if (!p || p != end)
		goto out_bad;
	return 0;
out_bad:
	memset(r, 0, sizeof(*r));
	return -EBADMSG;
}

/* ----------------------------------------------- integrity and privacy */

int rpcrdma__gss_integ_decode(const uint8_t *p, size_t len, const uint8_t **body,
			      uint32_t *body_len, const uint8_t **mic, uint32_t *mic_len)
{
	const uint8_t *end = p + len;

	/* The body is bounded only by what arrived (and the record size). */
	p = rpcrdma__gss_get_opaque(p, end, UINT32_MAX, body, body_len);
	if (!p || *body_len < 4)
		return -EBADMSG;
	p = rpcrdma__gss_get_opaque(p, end, RPCRDMA__GSS_MIC_MAX, mic, mic_len);
	if (!p)
		return -EBADMSG;
	return 0;
}

int rpcrdma__gss_integ_frame(uint8_t *p, size_t room, uint32_t blen, const uint8_t *mic,
			     uint32_t mic_len)
{
	size_t a = rpcrdma__gss_opaque_len(blen);
	if (mic_len > RPCRDMA__GSS_MIC_MAX || room < a ||
	    room - a < rpcrdma__gss_opaque_len(mic_len) || a + 4 + mic_len > INT32_MAX)
		return -EMSGSIZE;
	rpcrdma__put_be32(p, blen);
	memset(p + 4 + blen, 0, a - 4 - blen);
	rpcrdma__gss_put_opaque(p + a, mic, mic_len);
	return (int)(a + rpcrdma__gss_opaque_len(mic_len));
}

int rpcrdma__gss_priv_decode(const uint8_t *p, size_t len, const uint8_t **body,
			     uint32_t *body_len)
{
	if (!rpcrdma__gss_get_opaque(p, p + len, UINT32_MAX, body, body_len))
		return -EBADMSG;
	return 0;
}

int rpcrdma__gss_body_seq(const uint8_t *body, size_t len, uint32_t *seq)
{
	if (len < 4)
		return -EBADMSG;
	*seq = rpcrdma__get_be32(body);
	return 0;
}
