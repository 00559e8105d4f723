/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma: RPC-over-RDMA connection parameters in the CM private data
 * (RFC 8797).
 *
 * The 8-byte message carried in rdma_cm's connect request and accept:
 *
 *   byte 0..3  magic 0xf6ab0e18 (big-endian)
 *   byte 4     version (1)
 *   byte 5     flags: bit 0 = the sender accepts Send With Invalidate
 *   byte 6     maximum Send size it will use,      encoded (size/1024) - 1
 *   byte 7     maximum Receive size it can accept, encoded (size/1024) - 1
 *
 * Sizes therefore range over 1024..262144 in 1024-byte steps.  A peer that
 * sends no private data, too little, a wrong magic or an unknown version is
 * treated as an RFC 8166 peer with 1024-byte inline sizes and no remote
 * invalidation.  Private data may be padded by the CM (InfiniBand pads to a
 * fixed size); bytes after the first 8 are ignored.
 */
#ifndef RPCRDMA_CM_PRIVATE_H
#define RPCRDMA_CM_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/api.h>

RPCRDMA_BEGIN_DECLS

#define RPCRDMA_CM_PRIVATE_MAGIC 0xf6ab0e18u
#define RPCRDMA_CM_PRIVATE_VERSION 1u
#define RPCRDMA_CM_PRIVATE_SIZE 8u
#define RPCRDMA_CM_FLAG_REMOTE_INVALIDATE 0x01u
#define RPCRDMA_CM_DEFAULT_INLINE 1024u
#define RPCRDMA_CM_MAX_INLINE 262144u

/** Decoded connection parameters, host order. */
struct rpcrdma_cm_private {
	bool remote_invalidate; /**< peer accepts Send With Invalidate */
	uint32_t inline_send;   /**< bytes: largest Send the peer will post */
	uint32_t inline_recv;   /**< bytes: largest Send the peer can receive */
};

/**
 * Writes the 8-byte message.  Sizes are rounded down to a multiple of 1024
 * and clamped to 1024..262144 (what the encoding can express).  Returns 8,
 * -EMSGSIZE if len < 8, -EINVAL if out or p is NULL.
 */
RPCRDMA_API int rpcrdma_cm_private_encode(void *out, size_t len, const struct rpcrdma_cm_private *p);

/**
 * Reads a peer's message.  Returns 1 when valid RFC 8797 data was decoded
 * into p; 0 when buf is NULL/short or magic/version do not match, p then
 * holding the defaults (1024, 1024, no remote invalidation); -EINVAL if p
 * is NULL.  Unknown flag bits are ignored.
 */
RPCRDMA_API int rpcrdma_cm_private_decode(const void *buf, size_t len, struct rpcrdma_cm_private *p);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_CM_PRIVATE_H */
