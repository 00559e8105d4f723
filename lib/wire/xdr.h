/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal XDR word helpers for the wire-format layer.
 *
 * Transport headers are walked as arrays of 32-bit big-endian words between
 * a cursor p and an end pointer.  Constants are compared in wire order (the
 * RPCRDMA_XDR_* words of proto.h); only fields whose value is needed are
 * byte-swapped.  Each decode/encode helper handles one item and returns the
 * advanced pointer; the caller has checked that the item fits.
 */
#ifndef RPCRDMA_LIB_XDR_H
#define RPCRDMA_LIB_XDR_H

#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/proto.h>

#include "util/byteorder.h"

/** Words left between p and end (p <= end). */
static inline size_t xdr_left(const uint32_t *p, const uint32_t *end)
{
	return (size_t)(end - p);
}

/** Bytes left between p and end (p <= end). */
static inline size_t xdr_left_bytes(const uint32_t *p, const uint32_t *end)
{
	return (size_t)((const char *)end - (const char *)p);
}

/** Decodes handle, length, 64-bit offset (4 words). */
static inline const uint32_t *xdr_decode_segment(const uint32_t *p, struct rpcrdma_segment *seg)
{
	seg->handle = rpcrdma__be32_to_cpu(p[0]);
	seg->length = rpcrdma__be32_to_cpu(p[1]);
	seg->offset = (uint64_t)rpcrdma__be32_to_cpu(p[2]) << 32 | rpcrdma__be32_to_cpu(p[3]);
	return p + 4;
}

/** Encodes handle, length, 64-bit offset (4 words). */
static inline uint32_t *xdr_encode_segment(uint32_t *p, uint32_t handle, uint32_t length,
					   uint64_t offset)
{
	p[0] = rpcrdma__cpu_to_be32(handle);
	p[1] = rpcrdma__cpu_to_be32(length);
	p[2] = rpcrdma__cpu_to_be32((uint32_t)(offset >> 32));
	p[3] = rpcrdma__cpu_to_be32((uint32_t)offset);
	return p + 4;
}

/** Encodes one word given in host order. */
static inline uint32_t *xdr_encode_u32(uint32_t *p, uint32_t v)
{
	*p = rpcrdma__cpu_to_be32(v);
	return p + 1;
}

/** Limits with defaults resolved, as the walkers use them. */
struct rpcrdma__lim {
	uint32_t max_segments;
	uint32_t max_chunk_bytes;
	uint32_t max_read_chunks;
	uint32_t max_write_chunks;
};

/* The defaults, visible to the compiler so that it can fold them. */
static const struct rpcrdma__lim rpcrdma__default_lim = {
	.max_segments = RPCRDMA_DEFAULT_MAX_SEGMENTS,
	.max_chunk_bytes = RPCRDMA_DEFAULT_MAX_CHUNK_BYTES,
	.max_read_chunks = RPCRDMA_DEFAULT_MAX_READ_CHUNKS,
	.max_write_chunks = RPCRDMA_DEFAULT_MAX_WRITE_CHUNKS,
};

void rpcrdma__lim_resolve(const struct rpcrdma_limits *limits, struct rpcrdma__lim *out);

/** The call checker without its fast paths (for differential tests). */
int rpcrdma__check_call_general(const void *buf, size_t len, struct rpcrdma_hdr *hdr);

/** The largest header a checker looks at: the result must fit an int. */
#define RPCRDMA__MAX_SCAN ((size_t)0x7ffffffc)

#endif /* RPCRDMA_LIB_XDR_H */
