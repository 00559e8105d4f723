/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Server-side encoders: the reply header, the write list and reply chunk of
 * a reply, and RDMA_ERROR.  Each checks the space first and writes word by
 * word with pre-swapped constants.
 */
#include <errno.h>
#include <stdint.h>

#include <rpcrdma/proto.h>

#include "xdr.h"

/* A usable output buffer: not NULL, 4-byte aligned. */
#define OUT_OK(out) ((out) && ((uintptr_t)(out) & 3) == 0)

int rpcrdma_encode_reply_hdr(void *out, size_t len, const struct rpcrdma_hdr *call,
			     uint32_t credit_word, bool nomsg)
{
	uint32_t *p = out;

	if (rpcrdma__unlikely(len < RPCRDMA_HDRLEN_MIN || !OUT_OK(out)))
		goto out_size;
	p[0] = call->xid;
	p[1] = RPCRDMA_XDR_VERSION; /* the checker accepted only version 1 */
	p[2] = credit_word;
	p[3] = nomsg ? RPCRDMA_XDR_NOMSG : RPCRDMA_XDR_MSG;
	p[4] = RPCRDMA_XDR_ZERO;
	p[5] = RPCRDMA_XDR_ZERO;
	p[6] = RPCRDMA_XDR_ZERO;
	return RPCRDMA_HDRLEN_MIN;

out_size:
	return OUT_OK(out) ? -EMSGSIZE : -EINVAL;
}

/*
 * Encodes one chunk (nsegs word and segments) from ch with written bytes
 * spread over its segments.  Returns the advanced pointer, NULL when out of
 * space (*err = -EMSGSIZE) or written > the chunk's length (*err = -EINVAL).
 */
static uint32_t *encode_chunk(uint32_t *p, const uint32_t *end, struct rpcrdma_chunk *ch,
			      uint32_t written, int *err)
{
	struct rpcrdma_segment seg;

	if (rpcrdma__unlikely(written > ch->length)) {
		*err = -EINVAL;
		return NULL;
	}
	if (rpcrdma__unlikely(xdr_left(p, end) < 1 || ch->nsegs > (xdr_left(p, end) - 1) / 4)) {
		*err = -EMSGSIZE;
		return NULL;
	}
	*p++ = rpcrdma__cpu_to_be32(ch->nsegs);
	while (rpcrdma_next_segment(ch, &seg)) {
		uint32_t n = written < seg.length ? written : seg.length;

		p = xdr_encode_segment(p, seg.handle, n, seg.offset);
		written -= n;
	}
	return p;
}

/* The write list at p; returns the advanced pointer or NULL with *err. */
static uint32_t *encode_write_list(uint32_t *p, const uint32_t *end, const struct rpcrdma_hdr *call,
				   const uint32_t *written, uint32_t nwritten, int *err)
{
	struct rpcrdma_chunk_iter it;
	struct rpcrdma_chunk ch;
	uint32_t i = 0;

	rpcrdma_write_chunks(call, &it);
	while (rpcrdma_next_chunk(&it, &ch)) {
		if (rpcrdma__unlikely(p >= end))
			goto out_size;
		*p++ = RPCRDMA_XDR_ONE;
		p = encode_chunk(p, end, &ch, i < nwritten && written ? written[i] : 0, err);
		if (!p)
			return NULL;
		i++;
	}
	if (rpcrdma__unlikely(p >= end))
		goto out_size;
	*p++ = RPCRDMA_XDR_ZERO;
	return p;

out_size:
	*err = -EMSGSIZE;
	return NULL;
}

/* The reply chunk at p (or the absent word); NULL with *err on failure. */
static uint32_t *encode_reply_chunk(uint32_t *p, const uint32_t *end, const struct rpcrdma_hdr *call,
				    uint32_t written, int *err)
{
	struct rpcrdma_chunk ch;

	if (rpcrdma__unlikely(p >= end))
		goto out_size;
	if (!rpcrdma_reply_chunk(call, &ch)) {
		*p++ = RPCRDMA_XDR_ZERO;
		return p;
	}
	*p++ = RPCRDMA_XDR_ONE;
	return encode_chunk(p, end, &ch, written, err);

out_size:
	*err = -EMSGSIZE;
	return NULL;
}

int rpcrdma_encode_write_list(void *out, size_t len, const struct rpcrdma_hdr *call,
			      const uint32_t *written, uint32_t nwritten)
{
	uint32_t *p = out, *q;
	int err = 0;

	if (!OUT_OK(out))
		return -EINVAL;
	q = encode_write_list(p, p + len / 4, call, written, nwritten, &err);
	return q ? (int)((char *)q - (char *)p) : err;
}

int rpcrdma_encode_reply_chunk(void *out, size_t len, const struct rpcrdma_hdr *call,
			       uint32_t written)
{
	uint32_t *p = out, *q;
	int err = 0;

	if (!OUT_OK(out))
		return -EINVAL;
	q = encode_reply_chunk(p, p + len / 4, call, written, &err);
	return q ? (int)((char *)q - (char *)p) : err;
}

int rpcrdma_encode_reply(void *out, size_t len, const struct rpcrdma_hdr *call,
			 uint32_t credit_word, const uint32_t *written, uint32_t nwritten,
			 bool nomsg, uint32_t reply_written)
{
	uint32_t *p = out;
	const uint32_t *end;
	int err = 0;

	if (!OUT_OK(out) || (nomsg && !call->reply_chunk))
		return -EINVAL;
	if (rpcrdma__unlikely(len < 5 * 4))
		return -EMSGSIZE;
	end = p + len / 4;
	p[0] = call->xid;
	p[1] = RPCRDMA_XDR_VERSION;
	p[2] = credit_word;
	p[3] = nomsg ? RPCRDMA_XDR_NOMSG : RPCRDMA_XDR_MSG;
	p[4] = RPCRDMA_XDR_ZERO; /* a reply has no read list */
	p = encode_write_list(p + 5, end, call, written, nwritten, &err);
	if (!p)
		return err;
	if (nomsg) {
		p = encode_reply_chunk(p, end, call, reply_written, &err);
		if (!p)
			return err;
	} else {
		if (rpcrdma__unlikely(p >= end))
			return -EMSGSIZE;
		*p++ = RPCRDMA_XDR_ZERO;
	}
	return (int)((char *)p - (char *)out);
}

/* The four fixed words of an RDMA_ERROR reply. */
static uint32_t *encode_error_prefix(uint32_t *p, const struct rpcrdma_hdr *call,
				     uint32_t credit_word)
{
	p[0] = call->xid;
	p[1] = rpcrdma__cpu_to_be32(call->vers); /* copied from the call, even if unsupported */
	p[2] = credit_word;
	p[3] = RPCRDMA_XDR_ERROR;
	return p + 4;
}

int rpcrdma_encode_err_vers(void *out, size_t len, const struct rpcrdma_hdr *call,
			    uint32_t credit_word)
{
	uint32_t *p = out;

	if (!OUT_OK(out))
		return -EINVAL;
	if (rpcrdma__unlikely(len < RPCRDMA_HDRLEN_ERR_VERS))
		return -EMSGSIZE;
	p = encode_error_prefix(p, call, credit_word);
	p[0] = RPCRDMA_XDR_ERR_VERS;
	p[1] = RPCRDMA_XDR_VERSION; /* lowest supported */
	p[2] = RPCRDMA_XDR_VERSION; /* highest supported */
	return RPCRDMA_HDRLEN_ERR_VERS;
}

int rpcrdma_encode_err_chunk(void *out, size_t len, const struct rpcrdma_hdr *call,
			     uint32_t credit_word)
{
	uint32_t *p = out;

	if (!OUT_OK(out))
		return -EINVAL;
	if (rpcrdma__unlikely(len < RPCRDMA_HDRLEN_ERR))
		return -EMSGSIZE;
	p = encode_error_prefix(p, call, credit_word);
	p[0] = RPCRDMA_XDR_ERR_CHUNK;
	return RPCRDMA_HDRLEN_ERR;
}
