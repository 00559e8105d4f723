/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Client side of the wire format: the call-header encoder and the reply
 * checker (same contract as the call checker, see proto.h).
 */
#include <errno.h>
#include <stdint.h>

#include <rpcrdma/proto.h>

#include "proto_walk.h"
#include "util/trace.h"
#include "xdr.h"

/* Every error label of the reply checker ends here (tail calls), as in
 * proto_check.c: the reason, the probe reply_check_fail, ret. */
#if RPCRDMA_HAVE_SDT
static __attribute__((noinline, cold)) int reply_fail(struct rpcrdma_hdr *hdr,
						      enum rpcrdma_check_reason why, int ret)
{
	hdr->reason = why;
	RPCRDMA_TRACE(reply_check_fail, 0, why, ret);
	return ret;
}
#else
static inline int reply_fail(struct rpcrdma_hdr *hdr, enum rpcrdma_check_reason why, int ret)
{
	hdr->reason = why;
	return ret;
}
#endif

size_t rpcrdma_call_hdr_size(const struct rpcrdma_call_desc *d)
{
	size_t n = 4; /* xid, vers, credits, type */
	uint64_t sum = 0;

	if (!d || (d->type != RPCRDMA_MSG && d->type != RPCRDMA_NOMSG))
		return 0;
	if ((d->nreads && !d->reads) || (d->nwrites && !d->writes) ||
	    (d->write_chunks && !d->write_chunk_segs) || (d->nreply && !d->reply))
		return 0;
	for (uint32_t i = 0; i < d->write_chunks; i++)
		sum += d->write_chunk_segs[i];
	if (sum != d->nwrites)
		return 0;
	n += (size_t)d->nreads * 6 + 1;
	n += (size_t)d->write_chunks * 2 + (size_t)d->nwrites * 4 + 1;
	n += d->has_reply ? 2 + (size_t)d->nreply * 4 : 1;
	return n * 4;
}

int rpcrdma_encode_call(void *out, size_t len, const struct rpcrdma_call_desc *d)
{
	size_t need;
	uint32_t *p = out;
	const struct rpcrdma_segment *w;

	/* The common call, inline with no chunk: seven words (what the
	 * general path below writes for it, without the walk). */
	if (d && d->type == RPCRDMA_MSG && !d->nreads && !d->write_chunks && !d->nwrites &&
	    !d->has_reply && !(d->nreply && !d->reply) && out && !((uintptr_t)out & 3)) {
		if (len < RPCRDMA_HDRLEN_MIN)
			return -EMSGSIZE;
		p[0] = d->xid;
		p[1] = RPCRDMA_XDR_VERSION;
		xdr_encode_u32(p + 2, d->credits);
		xdr_encode_u32(p + 3, d->type);
		p[4] = RPCRDMA_XDR_ZERO;
		p[5] = RPCRDMA_XDR_ZERO;
		p[6] = RPCRDMA_XDR_ZERO;
		return RPCRDMA_HDRLEN_MIN;
	}
	need = rpcrdma_call_hdr_size(d);
	if (need == 0 || !out || ((uintptr_t)out & 3))
		return -EINVAL;
	if (need > len || need > RPCRDMA__MAX_SCAN)
		return -EMSGSIZE;

	*p++ = d->xid;
	*p++ = RPCRDMA_XDR_VERSION;
	p = xdr_encode_u32(p, d->credits);
	p = xdr_encode_u32(p, d->type);

	for (uint32_t i = 0; i < d->nreads; i++) {
		const struct rpcrdma_read_segment *r = &d->reads[i];

		*p++ = RPCRDMA_XDR_ONE;
		p = xdr_encode_u32(p, r->position);
		p = xdr_encode_segment(p, r->seg.handle, r->seg.length, r->seg.offset);
	}
	*p++ = RPCRDMA_XDR_ZERO;

	w = d->writes;
	for (uint32_t c = 0; c < d->write_chunks; c++) {
		*p++ = RPCRDMA_XDR_ONE;
		p = xdr_encode_u32(p, d->write_chunk_segs[c]);
		for (uint32_t i = 0; i < d->write_chunk_segs[c]; i++, w++)
			p = xdr_encode_segment(p, w->handle, w->length, w->offset);
	}
	*p++ = RPCRDMA_XDR_ZERO;

	if (d->has_reply) {
		*p++ = RPCRDMA_XDR_ONE;
		p = xdr_encode_u32(p, d->nreply);
		for (uint32_t i = 0; i < d->nreply; i++)
			p = xdr_encode_segment(p, d->reply[i].handle, d->reply[i].length,
					       d->reply[i].offset);
	} else {
		*p++ = RPCRDMA_XDR_ZERO;
	}
	return (int)need;
}

/* ------------------------------------------------------------------------
 * The reply checker.
 */

static int check_reply_lists(const uint32_t *base, const uint32_t *end, uint32_t type,
			     const struct rpcrdma__lim *lim, struct rpcrdma_hdr *hdr)
{
	const uint32_t *p = base + 4;

	hdr->read_list = p;
	if (rpcrdma__unlikely(*p != RPCRDMA_XDR_ZERO))
		goto out_reads;
	p = walk_write(p + 1, end, lim, 1, hdr);
	if (rpcrdma__unlikely(!p))
		goto out_inval;
	p = walk_reply(p, end, lim, 1, hdr);
	if (rpcrdma__unlikely(!p))
		goto out_inval;
	if (type == RPCRDMA_XDR_MSG) {
		if (rpcrdma__unlikely(hdr->reply_chunk))
			goto out_reply_chunk;
	} else {
		/* RDMA_NOMSG: the reply is in the reply chunk, so an absent or
		 * empty one (no segment, or segments of 0 bytes) has none. */
		struct rpcrdma_chunk ch;

		if (rpcrdma__unlikely(!rpcrdma_reply_chunk(hdr, &ch) || ch.length == 0))
			goto out_nomsg;
	}
	hdr->hdrlen = (uint32_t)((const char *)p - (const char *)base);
	return (int)hdr->hdrlen;

out_reads:
	return reply_fail(hdr, RPCRDMA_CHECK_REPLY_READS, -EINVAL);
out_reply_chunk:
	return reply_fail(hdr, RPCRDMA_CHECK_REPLY_CHUNK, -EINVAL);
out_nomsg:
	return reply_fail(hdr, RPCRDMA_CHECK_NOMSG, -EINVAL);
out_inval: /* the walker recorded the reason */
	return reply_fail(hdr, hdr->reason, -EINVAL);
}

static int check_error(const uint32_t *p, size_t len, struct rpcrdma_hdr *hdr)
{
	if (rpcrdma__unlikely(len < RPCRDMA_HDRLEN_ERR))
		goto out_short;
	hdr->err = rpcrdma__be32_to_cpu(p[4]);
	if (p[4] == RPCRDMA_XDR_ERR_CHUNK) {
		hdr->hdrlen = RPCRDMA_HDRLEN_ERR;
		return RPCRDMA_HDRLEN_ERR;
	}
	if (rpcrdma__unlikely(p[4] != RPCRDMA_XDR_ERR_VERS))
		goto out_errcode;
	if (rpcrdma__unlikely(len < RPCRDMA_HDRLEN_ERR_VERS))
		goto out_short;
	hdr->vers_low = rpcrdma__be32_to_cpu(p[5]);
	hdr->vers_high = rpcrdma__be32_to_cpu(p[6]);
	hdr->hdrlen = RPCRDMA_HDRLEN_ERR_VERS;
	return RPCRDMA_HDRLEN_ERR_VERS;

out_short:
	return reply_fail(hdr, RPCRDMA_CHECK_SHORT, -EINVAL);
out_errcode:
	return reply_fail(hdr, RPCRDMA_CHECK_ERRCODE, -EINVAL);
}

static inline __attribute__((always_inline)) int
check_reply(const void *buf, size_t len, struct rpcrdma_hdr *hdr, const struct rpcrdma__lim *lim)
{
	const uint32_t *p = buf;
	uint32_t type;

	if (rpcrdma__unlikely(len < 16 || ((uintptr_t)buf & 3)))
		goto out_short;
	hdr->xid = p[0];
	if (rpcrdma__unlikely(p[1] != RPCRDMA_XDR_VERSION))
		goto out_version;
	type = p[3];
	hdr->vers = RPCRDMA_PROTO_VERSION;
	hdr->credits = rpcrdma__be32_to_cpu(p[2]);
	hdr->type = rpcrdma__be32_to_cpu(type);
	hdr->reason = RPCRDMA_CHECK_OK;
	hdr->read_list = NULL;
	hdr->read_chunks = 0;
	hdr->read_segments = 0;
	hdr->write_list = NULL;
	hdr->write_chunks = 0;
	hdr->write_segments = 0;
	hdr->reply_chunk = NULL;
	hdr->reply_segments = 0;
	hdr->err = 0;
	hdr->vers_low = 0;
	hdr->vers_high = 0;
	hdr->hdrlen = 0;
	if (len > RPCRDMA__MAX_SCAN)
		len = RPCRDMA__MAX_SCAN;

	switch (type) {
	case RPCRDMA_XDR_MSG:
	case RPCRDMA_XDR_NOMSG:
		if (rpcrdma__unlikely(len < RPCRDMA_HDRLEN_MIN))
			goto out_short_msg;
		return check_reply_lists(p, p + len / 4, type, lim, hdr);
	case RPCRDMA_XDR_ERROR:
		return check_error(p, len, hdr);
	case RPCRDMA_XDR_DONE:
		return reply_fail(hdr, RPCRDMA_CHECK_DROP, 0);
	default:
		goto out_proc;
	}

out_short:
	return reply_fail(hdr, ((uintptr_t)buf & 3) ? RPCRDMA_CHECK_ALIGN : RPCRDMA_CHECK_SHORT,
			  -EINVAL);
out_version:
	hdr->vers = rpcrdma__be32_to_cpu(p[1]);
	return reply_fail(hdr, RPCRDMA_CHECK_VERSION, -EPROTONOSUPPORT);
out_short_msg:
	return reply_fail(hdr, RPCRDMA_CHECK_SHORT, -EINVAL);
out_proc:
	return reply_fail(hdr, RPCRDMA_CHECK_PROC, -EINVAL);
}

int rpcrdma_check_reply(const void *buf, size_t len, struct rpcrdma_hdr *hdr)
{
	return check_reply(buf, len, hdr, &rpcrdma__default_lim);
}

int rpcrdma_check_reply_ex(const void *buf, size_t len, struct rpcrdma_hdr *hdr,
			   const struct rpcrdma_limits *limits)
{
	struct rpcrdma__lim lim;

	rpcrdma__lim_resolve(limits, &lim);
	return check_reply(buf, len, hdr, &lim);
}
