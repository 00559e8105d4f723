/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The call-header checker, the three list walkers and the iterators over a
 * checked header's chunks.  The rules are written down in proto.h.
 */
#include <errno.h>
#include <stdint.h>

#include <rpcrdma/proto.h>

#include "xdr.h"

const struct rpcrdma__lim rpcrdma__default_lim = {
	.max_segments = RPCRDMA_DEFAULT_MAX_SEGMENTS,
	.max_chunk_bytes = RPCRDMA_DEFAULT_MAX_CHUNK_BYTES,
	.max_read_chunks = RPCRDMA_DEFAULT_MAX_READ_CHUNKS,
	.max_write_chunks = RPCRDMA_DEFAULT_MAX_WRITE_CHUNKS,
};

/* A field is taken from the caller's struct when its size covers it. */
#define LIM_FIELD(l, f)                                                       \
	((l)->size >= offsetof(struct rpcrdma_limits, f) + sizeof((l)->f) && (l)->f)

void rpcrdma__lim_resolve(const struct rpcrdma_limits *l, struct rpcrdma__lim *out)
{
	*out = rpcrdma__default_lim;
	if (!l)
		return;
	if (LIM_FIELD(l, max_segments))
		out->max_segments = l->max_segments;
	if (LIM_FIELD(l, max_chunk_bytes))
		out->max_chunk_bytes = l->max_chunk_bytes;
	if (LIM_FIELD(l, max_read_chunks))
		out->max_read_chunks = l->max_read_chunks;
	if (LIM_FIELD(l, max_write_chunks))
		out->max_write_chunks = l->max_write_chunks;
}

const char *rpcrdma_check_reason_str(enum rpcrdma_check_reason reason)
{
	switch (reason) {
	case RPCRDMA_CHECK_OK: return "ok";
	case RPCRDMA_CHECK_SHORT: return "header truncated";
	case RPCRDMA_CHECK_ALIGN: return "buffer not 4-byte aligned";
	case RPCRDMA_CHECK_VERSION: return "unsupported version";
	case RPCRDMA_CHECK_PROC: return "unknown or unsupported message type";
	case RPCRDMA_CHECK_DROP: return "RDMA_DONE or RDMA_ERROR dropped";
	case RPCRDMA_CHECK_DISCRIM: return "bad list discriminator";
	case RPCRDMA_CHECK_POSITION: return "read position not a multiple of 4";
	case RPCRDMA_CHECK_OVERLAP: return "read chunks out of order or overlapping";
	case RPCRDMA_CHECK_POS_ZERO: return "position-zero read chunk with RDMA_MSG";
	case RPCRDMA_CHECK_NOMSG: return "RDMA_NOMSG without its message chunk";
	case RPCRDMA_CHECK_NO_SEGMENTS: return "chunk with no segments";
	case RPCRDMA_CHECK_TOO_MANY_SEGMENTS: return "too many segments in a chunk";
	case RPCRDMA_CHECK_TOO_MANY_CHUNKS: return "too many chunks";
	case RPCRDMA_CHECK_CHUNK_LENGTH: return "chunk too long";
	case RPCRDMA_CHECK_REPLY_READS: return "read list in a reply";
	case RPCRDMA_CHECK_REPLY_CHUNK: return "reply chunk in an RDMA_MSG reply";
	case RPCRDMA_CHECK_ERRCODE: return "unknown RDMA_ERROR code";
	}
	return "unknown reason";
}

/* ------------------------------------------------------------------------
 * Walkers.  Each entry is bounds-checked against end before it is read.
 */

const uint32_t *rpcrdma__walk_read(const uint32_t *p, const uint32_t *end,
				   const struct rpcrdma__lim *lim, struct rpcrdma_hdr *hdr)
{
	uint32_t chunks = 0, segs = 0, cur_segs = 0, cur_pos = 0;
	uint64_t cur_len = 0;

	hdr->read_list = p;
	for (;;) {
		uint32_t pos, len;

		if (rpcrdma__unlikely(p >= end))
			goto out_short;
		if (*p == RPCRDMA_XDR_ZERO)
			break;
		if (rpcrdma__unlikely(*p != RPCRDMA_XDR_ONE))
			goto out_discrim;
		if (rpcrdma__unlikely(xdr_left(p, end) < 6))
			goto out_short;
		pos = xdr_to_host(p[1]);
		len = xdr_to_host(p[3]);
		p += 6;
		if (chunks && pos == cur_pos) {
			/* another segment of the current chunk */
			if (rpcrdma__unlikely(++cur_segs > lim->max_segments))
				goto out_segments;
			cur_len += len;
		} else {
			if (rpcrdma__unlikely(pos & 3))
				goto out_position;
			/* The previous chunk occupies [cur_pos, cur_pos + roundup4(cur_len)). */
			if (chunks && rpcrdma__unlikely(pos < (uint64_t)cur_pos + ((cur_len + 3) & ~(uint64_t)3)))
				goto out_overlap;
			if (rpcrdma__unlikely(++chunks > lim->max_read_chunks))
				goto out_chunks;
			cur_pos = pos;
			cur_len = len;
			cur_segs = 1;
		}
		if (rpcrdma__unlikely(cur_len > lim->max_chunk_bytes))
			goto out_length;
		segs++;
	}
	hdr->read_chunks = chunks;
	hdr->read_segments = segs;
	return p + 1;

out_short:
	hdr->reason = RPCRDMA_CHECK_SHORT;
	return NULL;
out_discrim:
	hdr->reason = RPCRDMA_CHECK_DISCRIM;
	return NULL;
out_position:
	hdr->reason = RPCRDMA_CHECK_POSITION;
	return NULL;
out_overlap:
	hdr->reason = RPCRDMA_CHECK_OVERLAP;
	return NULL;
out_segments:
	hdr->reason = RPCRDMA_CHECK_TOO_MANY_SEGMENTS;
	return NULL;
out_chunks:
	hdr->reason = RPCRDMA_CHECK_TOO_MANY_CHUNKS;
	return NULL;
out_length:
	hdr->reason = RPCRDMA_CHECK_CHUNK_LENGTH;
	return NULL;
}

/*
 * One write or reply chunk at p (its segment-count word).  Returns the
 * pointer past it and its segment count in *nsegs, or NULL with the reason.
 */
static const uint32_t *walk_chunk(const uint32_t *p, const uint32_t *end,
				  const struct rpcrdma__lim *lim, int allow_empty,
				  uint32_t *nsegs, struct rpcrdma_hdr *hdr)
{
	uint64_t total = 0;
	uint32_t n;

	if (rpcrdma__unlikely(p >= end))
		goto out_short;
	n = xdr_to_host(*p++);
	if (rpcrdma__unlikely(n == 0 && !allow_empty))
		goto out_nosegs;
	if (rpcrdma__unlikely(n > lim->max_segments))
		goto out_segments;
	/* Compare the count with the words left before multiplying. */
	if (rpcrdma__unlikely(n > xdr_left(p, end) / 4))
		goto out_short;
	for (uint32_t i = 0; i < n; i++, p += 4)
		total += xdr_to_host(p[1]);
	if (rpcrdma__unlikely(total > lim->max_chunk_bytes))
		goto out_length;
	*nsegs = n;
	return p;

out_short:
	hdr->reason = RPCRDMA_CHECK_SHORT;
	return NULL;
out_nosegs:
	hdr->reason = RPCRDMA_CHECK_NO_SEGMENTS;
	return NULL;
out_segments:
	hdr->reason = RPCRDMA_CHECK_TOO_MANY_SEGMENTS;
	return NULL;
out_length:
	hdr->reason = RPCRDMA_CHECK_CHUNK_LENGTH;
	return NULL;
}

const uint32_t *rpcrdma__walk_write(const uint32_t *p, const uint32_t *end,
				    const struct rpcrdma__lim *lim, int allow_empty,
				    struct rpcrdma_hdr *hdr)
{
	uint32_t chunks = 0, segs = 0;

	hdr->write_list = p;
	for (;;) {
		uint32_t n;

		if (rpcrdma__unlikely(p >= end))
			goto out_short;
		if (*p == RPCRDMA_XDR_ZERO)
			break;
		if (rpcrdma__unlikely(*p != RPCRDMA_XDR_ONE))
			goto out_discrim;
		if (rpcrdma__unlikely(++chunks > lim->max_write_chunks))
			goto out_chunks;
		p = walk_chunk(p + 1, end, lim, allow_empty, &n, hdr);
		if (rpcrdma__unlikely(!p))
			return NULL;
		segs += n; /* <= max_write_chunks * max_segments, and <= len / 16 */
	}
	hdr->write_chunks = chunks;
	hdr->write_segments = segs;
	return p + 1;

out_short:
	hdr->reason = RPCRDMA_CHECK_SHORT;
	return NULL;
out_discrim:
	hdr->reason = RPCRDMA_CHECK_DISCRIM;
	return NULL;
out_chunks:
	hdr->reason = RPCRDMA_CHECK_TOO_MANY_CHUNKS;
	return NULL;
}

const uint32_t *rpcrdma__walk_reply(const uint32_t *p, const uint32_t *end,
				    const struct rpcrdma__lim *lim, int allow_empty,
				    struct rpcrdma_hdr *hdr)
{
	const uint32_t *chunk;
	uint32_t n;

	if (rpcrdma__unlikely(p >= end))
		goto out_short;
	if (*p == RPCRDMA_XDR_ZERO) {
		hdr->reply_chunk = NULL;
		hdr->reply_segments = 0;
		return p + 1;
	}
	if (rpcrdma__unlikely(*p != RPCRDMA_XDR_ONE))
		goto out_discrim;
	chunk = p + 1;
	p = walk_chunk(chunk, end, lim, allow_empty, &n, hdr);
	if (rpcrdma__unlikely(!p))
		return NULL;
	hdr->reply_chunk = chunk;
	hdr->reply_segments = n;
	return p;

out_short:
	hdr->reason = RPCRDMA_CHECK_SHORT;
	return NULL;
out_discrim:
	hdr->reason = RPCRDMA_CHECK_DISCRIM;
	return NULL;
}

const uint32_t *rpcrdma_walk_read_list(const uint32_t *p, const uint32_t *end,
				       const struct rpcrdma_limits *limits, struct rpcrdma_hdr *hdr)
{
	struct rpcrdma__lim lim;

	rpcrdma__lim_resolve(limits, &lim);
	return rpcrdma__walk_read(p, end, &lim, hdr);
}

const uint32_t *rpcrdma_walk_write_list(const uint32_t *p, const uint32_t *end,
					const struct rpcrdma_limits *limits, bool allow_empty_chunks,
					struct rpcrdma_hdr *hdr)
{
	struct rpcrdma__lim lim;

	rpcrdma__lim_resolve(limits, &lim);
	return rpcrdma__walk_write(p, end, &lim, allow_empty_chunks, hdr);
}

const uint32_t *rpcrdma_walk_reply_chunk(const uint32_t *p, const uint32_t *end,
					 const struct rpcrdma_limits *limits, bool allow_empty_chunks,
					 struct rpcrdma_hdr *hdr)
{
	struct rpcrdma__lim lim;

	rpcrdma__lim_resolve(limits, &lim);
	return rpcrdma__walk_reply(p, end, &lim, allow_empty_chunks, hdr);
}

/* ------------------------------------------------------------------------
 * The call checker.
 */

/* Headers with chunks: walk the three lists, then the type rules. */
static int check_call_lists(const uint32_t *base, const uint32_t *end, uint32_t type,
			    const struct rpcrdma__lim *lim, struct rpcrdma_hdr *hdr)
{
	const uint32_t *p;
	int pos_zero;

	p = rpcrdma__walk_read(base + 4, end, lim, hdr);
	if (rpcrdma__unlikely(!p))
		return -EINVAL;
	p = rpcrdma__walk_write(p, end, lim, 0, hdr);
	if (rpcrdma__unlikely(!p))
		return -EINVAL;
	p = rpcrdma__walk_reply(p, end, lim, 0, hdr);
	if (rpcrdma__unlikely(!p))
		return -EINVAL;

	/* Chunks are in increasing position order: a position-zero chunk is first. */
	pos_zero = hdr->read_chunks && hdr->read_list[1] == RPCRDMA_XDR_ZERO;
	if (type == RPCRDMA_XDR_MSG) {
		if (rpcrdma__unlikely(pos_zero))
			goto out_pos_zero;
	} else if (rpcrdma__unlikely(!pos_zero)) {
		goto out_nomsg;
	}
	hdr->hdrlen = (uint32_t)((const char *)p - (const char *)base);
	return (int)hdr->hdrlen;

out_pos_zero:
	hdr->reason = RPCRDMA_CHECK_POS_ZERO;
	return -EINVAL;
out_nomsg:
	hdr->reason = RPCRDMA_CHECK_NOMSG;
	return -EINVAL;
}

static inline __attribute__((always_inline)) int
check_call(const void *buf, size_t len, struct rpcrdma_hdr *hdr, const struct rpcrdma__lim *lim)
{
	const uint32_t *p = buf;
	uint32_t type;

	if (rpcrdma__unlikely(len <= RPCRDMA_HDRLEN_ERR || ((uintptr_t)buf & 3)))
		goto out_short;
	hdr->xid = p[0];
	if (rpcrdma__unlikely(p[1] != RPCRDMA_XDR_VERSION))
		goto out_version;
	type = p[3];
	hdr->vers = RPCRDMA_VERSION;
	hdr->credits = xdr_to_host(p[2]);
	hdr->type = xdr_to_host(type);
	hdr->reason = RPCRDMA_CHECK_OK;
	if (rpcrdma__unlikely(type != RPCRDMA_XDR_MSG && type != RPCRDMA_XDR_NOMSG))
		goto out_proc;
	if (rpcrdma__unlikely(len < RPCRDMA_HDRLEN_MIN))
		goto out_short_msg;

	hdr->read_list = p + 4;
	hdr->read_chunks = 0;
	hdr->read_segments = 0;
	hdr->write_list = p + 5;
	hdr->write_chunks = 0;
	hdr->write_segments = 0;
	hdr->reply_chunk = NULL;
	hdr->reply_segments = 0;
	hdr->err = 0;
	hdr->vers_low = 0;
	hdr->vers_high = 0;
	/* The common call: three empty lists, RDMA_MSG. */
	if (rpcrdma__likely((p[4] | p[5] | p[6] | (type ^ RPCRDMA_XDR_MSG)) == 0)) {
		hdr->hdrlen = RPCRDMA_HDRLEN_MIN;
		return RPCRDMA_HDRLEN_MIN;
	}
	if (len > RPCRDMA__MAX_SCAN)
		len = RPCRDMA__MAX_SCAN;
	return check_call_lists(p, p + len / 4, type, lim, hdr);

out_short:
	hdr->reason = ((uintptr_t)buf & 3) ? RPCRDMA_CHECK_ALIGN : RPCRDMA_CHECK_SHORT;
	return -EINVAL;
out_version:
	hdr->vers = xdr_to_host(p[1]);
	hdr->reason = RPCRDMA_CHECK_VERSION;
	return -EPROTONOSUPPORT;
out_proc:
	if (type == RPCRDMA_XDR_DONE || type == RPCRDMA_XDR_ERROR) {
		hdr->reason = RPCRDMA_CHECK_DROP;
		return 0;
	}
	hdr->reason = RPCRDMA_CHECK_PROC;
	return -EINVAL;
out_short_msg:
	hdr->reason = RPCRDMA_CHECK_SHORT;
	return -EINVAL;
}

int rpcrdma_check_call(const void *buf, size_t len, struct rpcrdma_hdr *hdr)
{
	return check_call(buf, len, hdr, &rpcrdma__default_lim);
}

int rpcrdma_check_call_ex(const void *buf, size_t len, struct rpcrdma_hdr *hdr,
			  const struct rpcrdma_limits *limits)
{
	struct rpcrdma__lim lim;

	rpcrdma__lim_resolve(limits, &lim);
	return check_call(buf, len, hdr, &lim);
}

/* ------------------------------------------------------------------------
 * Iterators over a checked header.
 */

void rpcrdma_read_chunks(const struct rpcrdma_hdr *hdr, struct rpcrdma_chunk_iter *it)
{
	it->p_ = hdr->read_list;
	it->left_ = hdr->read_segments;
	it->read_ = 1;
}

void rpcrdma_write_chunks(const struct rpcrdma_hdr *hdr, struct rpcrdma_chunk_iter *it)
{
	it->p_ = hdr->write_list;
	it->left_ = hdr->write_chunks;
	it->read_ = 0;
}

/* Sums the lengths of n segments at p, stride words apart. */
static uint64_t chunk_length(const uint32_t *p, uint32_t n, uint32_t stride)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < n; i++, p += stride)
		total += xdr_to_host(p[1]);
	return total;
}

bool rpcrdma_next_chunk(struct rpcrdma_chunk_iter *it, struct rpcrdma_chunk *ch)
{
	const uint32_t *p = it->p_;
	uint32_t n;

	if (it->left_ == 0)
		return false;
	if (it->read_) {
		/* entries: 1, position, handle, length, offset hi, offset lo */
		uint32_t pos = p[1];

		for (n = 1; n < it->left_ && p[6 * n + 1] == pos; n++)
			;
		ch->position = xdr_to_host(pos);
		ch->p_ = p + 2;
		ch->stride_ = 6;
		it->p_ = p + 6 * (size_t)n;
		it->left_ -= n;
	} else {
		/* 1, nsegs, segments */
		n = xdr_to_host(p[1]);
		ch->position = 0;
		ch->p_ = p + 2;
		ch->stride_ = 4;
		it->p_ = p + 2 + 4 * (size_t)n;
		it->left_--;
	}
	ch->nsegs = n;
	ch->left_ = n;
	ch->length = chunk_length(ch->p_, n, ch->stride_);
	return true;
}

bool rpcrdma_reply_chunk(const struct rpcrdma_hdr *hdr, struct rpcrdma_chunk *ch)
{
	if (!hdr->reply_chunk)
		return false;
	ch->position = 0;
	ch->nsegs = hdr->reply_segments;
	ch->left_ = hdr->reply_segments;
	ch->p_ = hdr->reply_chunk + 1;
	ch->stride_ = 4;
	ch->length = chunk_length(ch->p_, ch->nsegs, 4);
	return true;
}

bool rpcrdma_next_segment(struct rpcrdma_chunk *ch, struct rpcrdma_segment *seg)
{
	if (ch->left_ == 0)
		return false;
	xdr_decode_segment(ch->p_, seg);
	ch->p_ += ch->stride_;
	ch->left_--;
	return true;
}
