/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The list walkers, inlined into the call and reply checkers (and wrapped
 * by the public rpcrdma_walk_* functions).  Rules: see proto.h.
 *
 * Each walker takes q at the list's first word and end one past the last
 * readable word.  Every item is bounds-checked against end before it is
 * read; counts from the wire are compared with the words left before any
 * multiplication.  On failure they set hdr->reason and return NULL.
 */
#ifndef RPCRDMA_LIB_PROTO_WALK_H
#define RPCRDMA_LIB_PROTO_WALK_H

#include <stdint.h>

#include <rpcrdma/proto.h>

#include "xdr.h"

#define RPCRDMA__INLINE static inline __attribute__((always_inline))

/*
 * Consecutive entries with the same position form one chunk.  A chunk's
 * segment count and length are checked when it closes (at the next
 * position or the list's end), the number of chunks at the end: sums are
 * kept in 64 bits so nothing overflows before then, and a long list costs
 * no more than its bytes.  The first entry opens the first chunk, so the
 * loop only handles entries that follow one.
 */
RPCRDMA__INLINE const uint32_t *walk_read(const uint32_t *q, const uint32_t *end,
					  const struct rpcrdma__lim *lim, struct rpcrdma_hdr *hdr)
{
	/* Entries are 6 words: a chunk's segment count is (q - start) / 6. */
	const uint32_t *list = q, *start = q;
	uint64_t cur_len, min_next;
	uint32_t chunks = 1, pos, cur_pos;

	hdr->read_list = q;
	if (rpcrdma__unlikely(q >= end))
		goto out_short;
	if (*q == RPCRDMA_XDR_ZERO) {
		hdr->read_chunks = 0;
		hdr->read_segments = 0;
		return q + 1;
	}
	if (rpcrdma__unlikely(*q != RPCRDMA_XDR_ONE))
		goto out_discrim;
	/* the entry and the word after it (next entry or terminator) */
	if (rpcrdma__unlikely(xdr_left_bytes(q, end) < 7 * 4))
		goto out_short;
	pos = cur_pos = rpcrdma__be32_to_cpu(q[1]);
	if (rpcrdma__unlikely(pos & 3))
		goto out_position;
	cur_len = rpcrdma__be32_to_cpu(q[3]);
	q += 6;

	while (*q != RPCRDMA_XDR_ZERO) {
		if (rpcrdma__unlikely(*q != RPCRDMA_XDR_ONE))
			goto out_discrim;
		if (rpcrdma__unlikely(xdr_left_bytes(q, end) < 7 * 4))
			goto out_short;
		pos = rpcrdma__be32_to_cpu(q[1]);
		if (pos != cur_pos) {
			/* close the current chunk */
			if (rpcrdma__unlikely(xdr_left(start, q) > 6 * (size_t)lim->max_segments ||
					      cur_len > lim->max_chunk_bytes))
				goto out_chunk;
			/* it occupies [cur_pos, cur_pos + roundup4(cur_len));
			 * a position-zero chunk is the message the others are
			 * spliced into, so it occupies nothing of their stream */
			min_next = cur_pos ? cur_pos + ((cur_len + 3) & ~(uint64_t)3) : 0;
			/* a new chunk: aligned, at or after the previous one's end */
			if (rpcrdma__unlikely((pos & 3) || pos < min_next))
				goto out_position;
			chunks++;
			cur_pos = pos;
			cur_len = 0;
			start = q;
		}
		cur_len += rpcrdma__be32_to_cpu(q[3]);
		q += 6;
	}
	if (rpcrdma__unlikely(xdr_left(start, q) > 6 * (size_t)lim->max_segments ||
			      cur_len > lim->max_chunk_bytes))
		goto out_chunk;
	if (rpcrdma__unlikely(chunks > lim->max_read_chunks))
		goto out_chunks;
	hdr->read_chunks = chunks;
	hdr->read_segments = (uint32_t)(xdr_left(list, q) / 6);
	return q + 1;

out_short:
	hdr->reason = RPCRDMA_CHECK_SHORT;
	return NULL;
out_discrim:
	hdr->reason = RPCRDMA_CHECK_DISCRIM;
	return NULL;
out_chunk:
	hdr->reason = xdr_left(start, q) > 6 * (size_t)lim->max_segments
			      ? RPCRDMA_CHECK_TOO_MANY_SEGMENTS
			      : RPCRDMA_CHECK_CHUNK_LENGTH;
	return NULL;
out_position:
	hdr->reason = (pos & 3) ? RPCRDMA_CHECK_POSITION : RPCRDMA_CHECK_OVERLAP;
	return NULL;
out_chunks:
	hdr->reason = RPCRDMA_CHECK_TOO_MANY_CHUNKS;
	return NULL;
}

/*
 * One write or reply chunk at q (its segment-count word).  Returns the
 * pointer past it with its segment count in *nsegs.
 */
RPCRDMA__INLINE const uint32_t *walk_chunk(const uint32_t *q, const uint32_t *end,
					   const struct rpcrdma__lim *lim, int allow_empty,
					   uint32_t *nsegs, struct rpcrdma_hdr *hdr)
{
	uint64_t total = 0;
	uint32_t n;

	if (rpcrdma__unlikely(q >= end))
		goto out_short;
	n = rpcrdma__be32_to_cpu(*q++);
	if (rpcrdma__unlikely(n - 1 >= lim->max_segments)) {
		/* n == 0 (wraps to UINT32_MAX) or n > max */
		if (n == 0 && allow_empty)
			goto empty;
		goto out_count;
	}
	/* Compare the count with the words left before multiplying. */
	if (rpcrdma__unlikely(n > xdr_left_bytes(q, end) / RPCRDMA_SEGMENT_SIZE))
		goto out_short;
	for (uint32_t i = n; i; i--, q += 4)
		total += rpcrdma__be32_to_cpu(q[1]);
	if (rpcrdma__unlikely(total > lim->max_chunk_bytes))
		goto out_length;
empty:
	*nsegs = n;
	return q;

out_short:
	hdr->reason = RPCRDMA_CHECK_SHORT;
	return NULL;
out_count:
	hdr->reason = n ? RPCRDMA_CHECK_TOO_MANY_SEGMENTS : RPCRDMA_CHECK_NO_SEGMENTS;
	return NULL;
out_length:
	hdr->reason = RPCRDMA_CHECK_CHUNK_LENGTH;
	return NULL;
}

RPCRDMA__INLINE const uint32_t *walk_write(const uint32_t *q, const uint32_t *end,
					   const struct rpcrdma__lim *lim, int allow_empty,
					   struct rpcrdma_hdr *hdr)
{
	uint32_t chunks = 0, segs = 0, n;

	hdr->write_list = q;
	for (;;) {
		if (rpcrdma__unlikely(q >= end))
			goto out_short;
		if (*q == RPCRDMA_XDR_ZERO)
			break;
		if (rpcrdma__unlikely(*q != RPCRDMA_XDR_ONE))
			goto out_discrim;
		if (rpcrdma__unlikely(++chunks > lim->max_write_chunks))
			goto out_chunks;
		q = walk_chunk(q + 1, end, lim, allow_empty, &n, hdr);
		if (rpcrdma__unlikely(!q))
			return NULL;
		segs += n; /* <= max_write_chunks * max_segments, and <= len / 16 */
	}
	hdr->write_chunks = chunks;
	hdr->write_segments = segs;
	return q + 1;

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

RPCRDMA__INLINE const uint32_t *walk_reply(const uint32_t *q, const uint32_t *end,
					   const struct rpcrdma__lim *lim, int allow_empty,
					   struct rpcrdma_hdr *hdr)
{
	const uint32_t *chunk;
	uint32_t n;

	if (rpcrdma__unlikely(q >= end))
		goto out_short;
	if (*q == RPCRDMA_XDR_ZERO) {
		hdr->reply_chunk = NULL;
		hdr->reply_segments = 0;
		return q + 1;
	}
	if (rpcrdma__unlikely(*q != RPCRDMA_XDR_ONE))
		goto out_discrim;
	chunk = q + 1;
	q = walk_chunk(chunk, end, lim, allow_empty, &n, hdr);
	if (rpcrdma__unlikely(!q))
		return NULL;
	hdr->reply_chunk = chunk;
	hdr->reply_segments = n;
	return q;

out_short:
	hdr->reason = RPCRDMA_CHECK_SHORT;
	return NULL;
out_discrim:
	hdr->reason = RPCRDMA_CHECK_DISCRIM;
	return NULL;
}

#endif /* RPCRDMA_LIB_PROTO_WALK_H */
