/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RPC-over-RDMA header of a backward-direction message (RFC 8167):
 * RDMA_MSG, version 1, no chunks, the RPC message inline.  Shared by the
 * server side (rdma_backward.c) and the client side (rdma_client_backward.c).
 * Not installed.
 */
#ifndef RPCRDMA_RDMA_BC_HDR_H
#define RPCRDMA_RDMA_BC_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/proto.h>

#include "util/byteorder.h"

/* True when the n bytes at p are RDMA_MSG, version 1, no chunks, then an
 * RPC message of direction msg_type (RPCRDMA__RPC_CALL or _REPLY). */
static inline bool rpcrdma__bc_hdr_ok(const uint8_t *p, size_t n, uint32_t msg_type)
{
	return n >= RPCRDMA_HDRLEN_MIN + 12 && rpcrdma__get_be32(p + 4) == RPCRDMA_PROTO_VERSION &&
	       rpcrdma__get_be32(p + 12) == RPCRDMA_MSG && !rpcrdma__get_be32(p + 16) &&
	       !rpcrdma__get_be32(p + 20) && !rpcrdma__get_be32(p + 24) &&
	       rpcrdma__get_be32(p + RPCRDMA_HDRLEN_MIN + 4) == msg_type;
}

/* Writes at p the header for the RPC message msg (at least 4 bytes: its
 * xid is the header's) with credits, then msg itself (len bytes) after
 * it.  p has room for RPCRDMA_HDRLEN_MIN + len bytes. */
static inline void rpcrdma__bc_hdr_put(uint8_t *p, const uint8_t *msg, size_t len,
				       uint32_t credits)
{
	memcpy(p, msg, 4);
	(void)rpcrdma__put_be32(p + 4, RPCRDMA_PROTO_VERSION);
	(void)rpcrdma__put_be32(p + 8, credits);
	(void)rpcrdma__put_be32(p + 12, RPCRDMA_MSG);
	memset(p + 16, 0, 12);                          /* no chunks */
	memcpy(p + RPCRDMA_HDRLEN_MIN, msg, len);
}

#endif
