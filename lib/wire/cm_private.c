/* SPDX-License-Identifier: BSD-2-Clause */
/* RFC 8797 connection parameters in the CM private data. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/cm_private.h>

#include "util/byteorder.h"

/* Sizes are sent as (size / 1024) - 1 in one byte. */
static uint8_t encode_size(uint32_t size)
{
	if (size < RPCRDMA_CM_DEFAULT_INLINE)
		size = RPCRDMA_CM_DEFAULT_INLINE;
	if (size > RPCRDMA_CM_MAX_INLINE)
		size = RPCRDMA_CM_MAX_INLINE;
	return (uint8_t)((size >> 10) - 1);
}

static uint32_t decode_size(uint8_t v)
{
	return ((uint32_t)v + 1) << 10;
}

int rpcrdma_cm_private_encode(void *out, size_t len, const struct rpcrdma_cm_private *p)
{
	uint8_t *b = out;

	if (!out || !p)
		return -EINVAL;
	if (len < RPCRDMA_CM_PRIVATE_SIZE)
		return -EMSGSIZE;
	rpcrdma__put_be32(b, RPCRDMA_CM_PRIVATE_MAGIC);
	b[4] = RPCRDMA_CM_PRIVATE_VERSION;
	b[5] = p->remote_invalidate ? RPCRDMA_CM_FLAG_REMOTE_INVALIDATE : 0;
	b[6] = encode_size(p->inline_send);
	b[7] = encode_size(p->inline_recv);
	return RPCRDMA_CM_PRIVATE_SIZE;
}

int rpcrdma_cm_private_decode(const void *buf, size_t len, struct rpcrdma_cm_private *p)
{
	const uint8_t *b = buf;
	uint32_t magic;

	if (!p)
		return -EINVAL;
	p->remote_invalidate = false;
	p->inline_send = RPCRDMA_CM_DEFAULT_INLINE;
	p->inline_recv = RPCRDMA_CM_DEFAULT_INLINE;
	if (!buf || len < RPCRDMA_CM_PRIVATE_SIZE)
		return 0;
	magic = rpcrdma__get_be32(b);
	if (magic != RPCRDMA_CM_PRIVATE_MAGIC || b[4] != RPCRDMA_CM_PRIVATE_VERSION)
		return 0;
	p->remote_invalidate = (b[5] & RPCRDMA_CM_FLAG_REMOTE_INVALIDATE) != 0;
	p->inline_send = decode_size(b[6]);
	p->inline_recv = decode_size(b[7]);
	return 1;
}
