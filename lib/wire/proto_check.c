/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The call-header checker, the three list walkers and the iterators over a
 * checked header's chunks.  The rules are written down in proto.h.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/proto.h>

#include "proto_walk.h"
#include "util/trace.h"
#include "xdr.h"

/*
 * Every error label of the call checker ends here (tail calls): records
 * the reason, reports it to the probe call_check_fail (docs/tracing.md)
 * and returns ret.  One probe site, as perf probe wants one address per
 * event; cold and out of line, so the checker's paths keep no frame.  (The
 * header's length is not passed: keeping it live cost the hot path two
 * instructions; the receive path's call_reject has it.)
 */
#if RPCRDMA_HAVE_SDT
static __attribute__((noinline, cold)) int check_fail(struct rpcrdma_hdr *hdr,
						      enum rpcrdma_check_reason why, int ret)
{
	hdr->reason = why;
	RPCRDMA_TRACE(call_check_fail, 0, why, ret);
	return ret;
}
#else
static inline int check_fail(struct rpcrdma_hdr *hdr, enum rpcrdma_check_reason why, int ret)
{
	hdr->reason = why;
	return ret;
}
#endif

void rpcrdma_limits_init(struct rpcrdma_limits *limits)
{
	memset(limits, 0, sizeof(*limits));
	limits->size = sizeof(*limits);
}

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

const uint32_t *rpcrdma_walk_read_list(const uint32_t *p, const uint32_t *end,
				       const struct rpcrdma_limits *limits, struct rpcrdma_hdr *hdr)
{
	struct rpcrdma__lim lim;

	rpcrdma__lim_resolve(limits, &lim);
	return walk_read(p, end, &lim, hdr);
}

const uint32_t *rpcrdma_walk_write_list(const uint32_t *p, const uint32_t *end,
					const struct rpcrdma_limits *limits, bool allow_empty_chunks,
					struct rpcrdma_hdr *hdr)
{
	struct rpcrdma__lim lim;

	rpcrdma__lim_resolve(limits, &lim);
	return walk_write(p, end, &lim, allow_empty_chunks, hdr);
}

const uint32_t *rpcrdma_walk_reply_chunk(const uint32_t *p, const uint32_t *end,
					 const struct rpcrdma_limits *limits, bool allow_empty_chunks,
					 struct rpcrdma_hdr *hdr)
{
	struct rpcrdma__lim lim;

	rpcrdma__lim_resolve(limits, &lim);
	return walk_reply(p, end, &lim, allow_empty_chunks, hdr);
}

/* ------------------------------------------------------------------------
 * The call checker.
 *
 * check_call() is the hot path, inlined into both entry points: for an
 * aligned buffer of 28 bytes or more with version 1 it fills the fixed
 * fields, and when the message is RDMA_MSG with three empty lists (wire
 * words all zero) it is done.  Otherwise:
 *  - the plain checker sends RDMA_MSG calls to the fast stages (msg_*()),
 *    one per kind of non-empty list, reached by tail calls;
 *  - everything else goes to the general path, check_lists() (RDMA_NOMSG,
 *    other types, caller limits), or check_call_full() for what is short,
 *    misaligned or of another version, which repeats every check from the
 *    start with the error labels.
 */

/*
 * Message type, then the three lists, then the rules that tie them.
 * The callers checked 28 <= len <= RPCRDMA__MAX_SCAN, alignment, version.
 */
RPCRDMA__INLINE int check_lists_impl(const uint32_t *p, size_t len, uint32_t type,
				     const struct rpcrdma__lim *lim, struct rpcrdma_hdr *hdr)
{
	const uint32_t *q = p + 4, *end = p + len / 4;

	hdr->type = rpcrdma__be32_to_cpu(type);
	if (rpcrdma__unlikely(type != RPCRDMA_XDR_MSG && type != RPCRDMA_XDR_NOMSG))
		goto out_proc;

	/* Read list.  Chunks come in increasing position order, so a
	 * position-zero chunk is the first entry: RDMA_MSG must not have one,
	 * RDMA_NOMSG must (its call is in it). */
	hdr->read_list = q;
	if (*q == RPCRDMA_XDR_ZERO) {
		hdr->read_chunks = 0;
		hdr->read_segments = 0;
		if (rpcrdma__unlikely(type == RPCRDMA_XDR_NOMSG))
			goto out_nomsg;
		q++;
	} else {
		q = walk_read(q, end, lim, hdr);
		if (rpcrdma__unlikely(!q))
			goto out_inval;
		if (rpcrdma__unlikely((type == RPCRDMA_XDR_NOMSG) != (p[5] == RPCRDMA_XDR_ZERO)))
			goto out_nomsg;
		if (rpcrdma__unlikely(q >= end))
			goto out_short;
	}

	/* Write list (after an empty read list, p[5]: inside the 28 bytes). */
	hdr->write_list = q;
	if (*q == RPCRDMA_XDR_ZERO) {
		hdr->write_chunks = 0;
		hdr->write_segments = 0;
		q++;
	} else {
		q = walk_write(q, end, lim, 0, hdr);
		if (rpcrdma__unlikely(!q))
			goto out_inval;
	}

	/* Reply chunk. */
	if (rpcrdma__unlikely(q >= end))
		goto out_short;
	if (*q == RPCRDMA_XDR_ZERO) {
		hdr->reply_chunk = NULL;
		hdr->reply_segments = 0;
		q++;
	} else {
		q = walk_reply(q, end, lim, 0, hdr);
		if (rpcrdma__unlikely(!q))
			goto out_inval;
	}

	hdr->reason = RPCRDMA_CHECK_OK;
	hdr->hdrlen = (uint32_t)((const char *)q - (const char *)p);
	return (int)hdr->hdrlen;

out_proc:
	if (type == RPCRDMA_XDR_DONE || type == RPCRDMA_XDR_ERROR)
		return check_fail(hdr, RPCRDMA_CHECK_DROP, 0);
	return check_fail(hdr, RPCRDMA_CHECK_PROC, -EINVAL);
out_short:
	return check_fail(hdr, RPCRDMA_CHECK_SHORT, -EINVAL);
out_nomsg:
	return check_fail(hdr, type == RPCRDMA_XDR_MSG ? RPCRDMA_CHECK_POS_ZERO : RPCRDMA_CHECK_NOMSG,
			  -EINVAL);
out_inval: /* the walker recorded the reason */
	return check_fail(hdr, hdr->reason, -EINVAL);
}

/*
 * Two instances: one with the default limits folded in as constants (the
 * plain checker), one reading a caller's limits.  lim == NULL selects the
 * first.
 */
static __attribute__((noinline)) int check_lists_default(const uint32_t *p, size_t len,
							 uint32_t type, struct rpcrdma_hdr *hdr)
{
	return check_lists_impl(p, len, type, &rpcrdma__default_lim, hdr);
}

static __attribute__((noinline)) int check_lists_limits(const uint32_t *p, size_t len,
							uint32_t type, const struct rpcrdma__lim *lim,
							struct rpcrdma_hdr *hdr)
{
	return check_lists_impl(p, len, type, lim, hdr);
}

RPCRDMA__INLINE int check_lists(const uint32_t *p, size_t len, uint32_t type,
				const struct rpcrdma__lim *lim, struct rpcrdma_hdr *hdr)
{
	return lim ? check_lists_limits(p, len, type, lim, hdr)
		   : check_lists_default(p, len, type, hdr);
}

/* Every check from the start, for what the hot path does not take. */
static __attribute__((noinline)) int check_call_full(const uint32_t *p, size_t len,
						     const struct rpcrdma__lim *lim,
						     struct rpcrdma_hdr *hdr)
{
	uint32_t type;

	if (rpcrdma__unlikely(len <= RPCRDMA_HDRLEN_ERR))
		goto out_tiny;
	if (rpcrdma__unlikely((uintptr_t)p & 3))
		goto out_align;
	hdr->xid = p[0];
	if (rpcrdma__unlikely(p[1] != RPCRDMA_XDR_VERSION))
		goto out_version;
	hdr->vers = RPCRDMA_PROTO_VERSION;
	hdr->credits = rpcrdma__be32_to_cpu(p[2]);
	type = p[3];
	if (rpcrdma__unlikely(len < RPCRDMA_HDRLEN_MIN))
		goto out_proc; /* 21..27 bytes */
	if (len > RPCRDMA__MAX_SCAN)
		len = RPCRDMA__MAX_SCAN; /* the header cannot be longer; keeps hdrlen an int */
	return check_lists(p, len, type, lim, hdr);

out_tiny:
	/* 16..20 bytes: RDMA_DONE and RDMA_ERROR of version 1 are dropped as
	 * Linux drops them (it reads the type right after the four fixed
	 * words); answering them could make two peers answer each other's
	 * errors forever.  Anything else this short is [SHORT]. */
	if (len >= RPCRDMA_HDRLEN_FIXED && !((uintptr_t)p & 3) && p[1] == RPCRDMA_XDR_VERSION &&
	    (p[3] == RPCRDMA_XDR_DONE || p[3] == RPCRDMA_XDR_ERROR)) {
		hdr->xid = p[0];
		hdr->vers = RPCRDMA_PROTO_VERSION;
		hdr->credits = rpcrdma__be32_to_cpu(p[2]);
		type = p[3];
		goto out_proc;
	}
	goto out_short;
out_short:
	return check_fail(hdr, RPCRDMA_CHECK_SHORT, -EINVAL);
out_align:
	return check_fail(hdr, RPCRDMA_CHECK_ALIGN, -EINVAL);
out_version:
	hdr->vers = rpcrdma__be32_to_cpu(p[1]);
	return check_fail(hdr, RPCRDMA_CHECK_VERSION, -EPROTONOSUPPORT);
out_proc:
	/* Too short for a list-carrying message: drop or reject by type. */
	hdr->type = rpcrdma__be32_to_cpu(type);
	if (type == RPCRDMA_XDR_DONE || type == RPCRDMA_XDR_ERROR)
		return check_fail(hdr, RPCRDMA_CHECK_DROP, 0);
	return check_fail(hdr, (type == RPCRDMA_XDR_MSG || type == RPCRDMA_XDR_NOMSG) ?
				       RPCRDMA_CHECK_SHORT : RPCRDMA_CHECK_PROC,
			  -EINVAL);
}

/*
 * Fast stages for RDMA_MSG with the default limits (the plain checker).
 * The hot path dispatches on which list is non-empty straight to a leaf
 * that walks it and handles what follows, so the common shapes (a read
 * list, a write list or a reply chunk alone) pay for no general machinery
 * and no register spills.  They apply the rules of check_lists() (more
 * strictly where that is cheaper) and hand any header they would reject to
 * it (msg_fallback()).  rpcrdma__check_call_general() runs the general path
 * alone so that tests and the fuzz target compare the two.
 *
 * A fast stage that finds a fault hands the header to the general path,
 * which then decides, so a rejected header gets the general path's reason
 * (the fast stages need only be exact about what they accept).
 */
static __attribute__((noinline, cold)) int msg_fallback(const uint32_t *p, const uint32_t *end,
							struct rpcrdma_hdr *hdr)
{
	return check_lists_default(p, (size_t)(end - p) * 4, RPCRDMA_XDR_MSG, hdr);
}

static int msg_done(const uint32_t *p, const uint32_t *q, struct rpcrdma_hdr *hdr)
{
	hdr->reason = RPCRDMA_CHECK_OK;
	hdr->hdrlen = (uint32_t)((const char *)q - (const char *)p);
	return (int)hdr->hdrlen;
}

/*
 * A non-empty reply chunk at q (a readable word): walk_chunk() written out
 * for the default limits (so n <= RPCRDMA_DEFAULT_MAX_SEGMENTS before the
 * loop, which then runs at least once).
 */
static __attribute__((noinline)) int msg_reply(const uint32_t *q, const uint32_t *end,
					       struct rpcrdma_hdr *hdr, const uint32_t *p)
{
	const uint32_t *s, *e;
	uint64_t total = 0;
	uint32_t n;

	if (rpcrdma__unlikely(*q != RPCRDMA_XDR_ONE))
		goto out_discrim;
	if (rpcrdma__unlikely(xdr_left(q, end) < 2))
		goto out_short;
	n = rpcrdma__be32_to_cpu(q[1]);
	if (rpcrdma__unlikely(n == 0))
		goto out_nosegs;
	if (rpcrdma__unlikely(n > RPCRDMA_DEFAULT_MAX_SEGMENTS))
		goto out_many;
	s = q + 2;
	/* Compare the count with the words left before multiplying. */
	if (rpcrdma__unlikely(n > xdr_left_bytes(s, end) / RPCRDMA_SEGMENT_SIZE))
		goto out_short;
	e = s + 4 * (size_t)n;
	do {
		total += rpcrdma__be32_to_cpu(s[1]);
		s += 4;
	} while (s != e);
	if (rpcrdma__unlikely(total > RPCRDMA_DEFAULT_MAX_CHUNK_BYTES))
		goto out_length;
	hdr->reply_chunk = q + 1;
	hdr->reply_segments = n;
	return msg_done(p, e, hdr);

/* the reasons walk_reply() gives, in the same order */
out_discrim:
	return check_fail(hdr, RPCRDMA_CHECK_DISCRIM, -EINVAL);
out_short:
	return check_fail(hdr, RPCRDMA_CHECK_SHORT, -EINVAL);
out_nosegs:
	return check_fail(hdr, RPCRDMA_CHECK_NO_SEGMENTS, -EINVAL);
out_many:
	return check_fail(hdr, RPCRDMA_CHECK_TOO_MANY_SEGMENTS, -EINVAL);
out_length:
	return check_fail(hdr, RPCRDMA_CHECK_CHUNK_LENGTH, -EINVAL);
}

/* The reply chunk word at q, bounds unchecked. */
RPCRDMA__INLINE int msg_after_write(const uint32_t *p, const uint32_t *q, const uint32_t *end,
				    struct rpcrdma_hdr *hdr)
{
	if (rpcrdma__unlikely(q >= end)) {
		return check_fail(hdr, RPCRDMA_CHECK_SHORT, -EINVAL);
	}
	if (*q != RPCRDMA_XDR_ZERO)
		return msg_reply(q, end, hdr, p);
	hdr->reply_chunk = NULL;
	hdr->reply_segments = 0;
	return msg_done(p, q + 1, hdr);
}

/* A non-empty write list at q (a readable word). */
static __attribute__((noinline)) int msg_write(const uint32_t *p, const uint32_t *q,
					       const uint32_t *end, struct rpcrdma_hdr *hdr)
{
	q = walk_write(q, end, &rpcrdma__default_lim, 0, hdr);
	if (rpcrdma__unlikely(!q)) /* the walker recorded the reason */
		return check_fail(hdr, hdr->reason, -EINVAL);
	return msg_after_write(p, q, end, hdr);
}

/*
 * A non-empty read list at p + 4: walk_read() written out for RDMA_MSG
 * (no position-zero chunk) and the default limits.  Each entry must be
 * followed by at least three words (next entry or terminator, then a write
 * list and a reply chunk word, which every valid header has), so the words
 * after the list need no further bounds checks.  msg_read() takes the
 * first entry; a list of more entries continues in msg_read_more().
 */

/* After the read list: q is on its terminator; q + 1 and q + 2 are readable. */
RPCRDMA__INLINE int msg_read_done(const uint32_t *p, const uint32_t *q, const uint32_t *end,
				  uint32_t chunks, struct rpcrdma_hdr *hdr)
{
	hdr->read_chunks = chunks;
	hdr->read_segments = (uint32_t)(xdr_left(p + 4, q) / 6);
	hdr->write_list = ++q;
	if (*q != RPCRDMA_XDR_ZERO)
		return msg_write(p, q, end, hdr);
	hdr->write_chunks = 0;
	hdr->write_segments = 0;
	if (*++q != RPCRDMA_XDR_ZERO)
		return msg_reply(q, end, hdr, p);
	hdr->reply_chunk = NULL;
	hdr->reply_segments = 0;
	return msg_done(p, q + 1, hdr);
}

/* Entries after the first; q is on the second. */
static __attribute__((noinline)) int msg_read_more(const uint32_t *p, const uint32_t *q,
						   const uint32_t *end, uint32_t cur_pos,
						   uint64_t cur_len, struct rpcrdma_hdr *hdr)
{
	const uint32_t *start = p + 4;
	uint64_t min_next;
	uint32_t chunks = 1, pos;

	do {
		if (rpcrdma__unlikely(*q != RPCRDMA_XDR_ONE))
			goto out_fault;
		if (rpcrdma__unlikely(xdr_left_bytes(q, end) < 9 * 4))
			goto out_fault;
		pos = rpcrdma__be32_to_cpu(q[1]);
		if (pos != cur_pos) {
			/* close the current chunk, which occupies
			 * [cur_pos, cur_pos + roundup4(cur_len)) */
			if (rpcrdma__unlikely(xdr_left(start, q) > 6 * RPCRDMA_DEFAULT_MAX_SEGMENTS ||
					      cur_len > RPCRDMA_DEFAULT_MAX_CHUNK_BYTES))
				goto out_fault;
			min_next = cur_pos + ((cur_len + 3) & ~(uint64_t)3);
			if (rpcrdma__unlikely((pos & 3) || pos < min_next))
				goto out_fault;
			chunks++;
			cur_pos = pos;
			cur_len = 0;
			start = q;
		}
		cur_len += rpcrdma__be32_to_cpu(q[3]);
		q += 6;
	} while (*q != RPCRDMA_XDR_ZERO);
	if (rpcrdma__unlikely(xdr_left(start, q) > 6 * RPCRDMA_DEFAULT_MAX_SEGMENTS ||
			      cur_len > RPCRDMA_DEFAULT_MAX_CHUNK_BYTES ||
			      chunks > RPCRDMA_DEFAULT_MAX_READ_CHUNKS))
		goto out_fault;
	return msg_read_done(p, q, end, chunks, hdr);

out_fault:
	return msg_fallback(p, end, hdr);
}

static __attribute__((noinline)) int msg_read(const uint32_t *p, const uint32_t *end,
					      struct rpcrdma_hdr *hdr)
{
	const uint32_t *q = p + 4;
	uint32_t pos, len;

	if (rpcrdma__unlikely(*q != RPCRDMA_XDR_ONE))
		goto out_fault;
	if (rpcrdma__unlikely(xdr_left_bytes(q, end) < 9 * 4))
		goto out_fault;
	pos = rpcrdma__be32_to_cpu(q[1]);
	/* position zero is not allowed with RDMA_MSG */
	if (rpcrdma__unlikely(pos == 0 || (pos & 3)))
		goto out_fault;
	len = rpcrdma__be32_to_cpu(q[3]);
	q += 6;
	if (*q != RPCRDMA_XDR_ZERO)
		return msg_read_more(p, q, end, pos, len, hdr);
	/* one entry: one segment, one chunk */
	if (rpcrdma__unlikely(len > RPCRDMA_DEFAULT_MAX_CHUNK_BYTES))
		goto out_fault;
	return msg_read_done(p, q, end, 1, hdr);

out_fault:
	return msg_fallback(p, end, hdr);
}

/* RDMA_MSG, default limits, only the reply chunk; 28 <= len <= MAX_SCAN. */
RPCRDMA__INLINE int msg_reply_only(const uint32_t *p, size_t len, struct rpcrdma_hdr *hdr)
{
	hdr->type = RPCRDMA_MSG;
	hdr->read_list = p + 4;
	hdr->write_list = p + 5;
	hdr->read_chunks = 0;
	hdr->read_segments = 0;
	hdr->write_chunks = 0;
	hdr->write_segments = 0;
	return msg_reply(p + 6, p + len / 4, hdr, p); /* p[6] != 0 */
}

/* RDMA_MSG, default limits, a read or write list; 28 <= len <= MAX_SCAN. */
RPCRDMA__INLINE int msg_lists(const uint32_t *p, size_t len, struct rpcrdma_hdr *hdr)
{
	const uint32_t *end = p + len / 4;

	hdr->type = RPCRDMA_MSG;
	hdr->read_list = p + 4;
	hdr->write_list = p + 5; /* msg_read() moves it */
	if (p[4] != RPCRDMA_XDR_ZERO)
		return msg_read(p, end, hdr);
	hdr->read_chunks = 0;
	hdr->read_segments = 0;
	return msg_write(p, p + 5, end, hdr);
}

RPCRDMA__INLINE int check_call(const void *buf, size_t len, struct rpcrdma_hdr *hdr,
			       const struct rpcrdma__lim *lim)
{
	const uint32_t *p = buf;
	uint32_t type, head;

	/* One compare for 28 <= len <= RPCRDMA__MAX_SCAN (len < 28 wraps). */
	if (rpcrdma__unlikely(len - RPCRDMA_HDRLEN_MIN > RPCRDMA__MAX_SCAN - RPCRDMA_HDRLEN_MIN ||
			      ((uintptr_t)buf & 3) || p[1] != RPCRDMA_XDR_VERSION))
		return check_call_full(p, len, lim, hdr);
	hdr->xid = p[0];
	hdr->vers = RPCRDMA_PROTO_VERSION;
	hdr->credits = rpcrdma__be32_to_cpu(p[2]);
	type = p[3];
	/* RDMA_MSG is the wire word 0, like an empty list. */
	head = type | p[4] | p[5];
	if (rpcrdma__unlikely((head | p[6]) != 0)) {
		if (!lim && head == 0)
			return msg_reply_only(p, len, hdr);
		if (!lim && type == RPCRDMA_XDR_MSG)
			return msg_lists(p, len, hdr);
		return check_lists(p, len, type, lim, hdr);
	}
	hdr->type = RPCRDMA_MSG;
	hdr->read_list = p + 4;
	hdr->write_list = p + 5;
	hdr->reply_chunk = NULL;
	hdr->read_chunks = 0;
	hdr->read_segments = 0;
	hdr->write_chunks = 0;
	hdr->write_segments = 0;
	hdr->reply_segments = 0;
	hdr->hdrlen = RPCRDMA_HDRLEN_MIN;
	hdr->reason = RPCRDMA_CHECK_OK;
	return RPCRDMA_HDRLEN_MIN;
}

int rpcrdma_check_call(const void *buf, size_t len, struct rpcrdma_hdr *hdr)
{
	return check_call(buf, len, hdr, NULL);
}

int rpcrdma__check_call_general(const void *buf, size_t len, struct rpcrdma_hdr *hdr)
{
	return check_call_full(buf, len, &rpcrdma__default_lim, hdr);
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
		total += rpcrdma__be32_to_cpu(p[1]);
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
		ch->position = rpcrdma__be32_to_cpu(pos);
		ch->p_ = p + 2;
		ch->stride_ = 6;
		it->p_ = p + 6 * (size_t)n;
		it->left_ -= n;
	} else {
		/* 1, nsegs, segments */
		n = rpcrdma__be32_to_cpu(p[1]);
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
