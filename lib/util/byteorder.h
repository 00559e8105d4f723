/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Byte order, the RPC message constants (RFC 5531) and the branch hints:
 * the one copy every layer uses.
 *
 * XDR is big-endian 32-bit words.  Two forms:
 * - words already loaded (the wire checkers walk a uint32_t cursor):
 *   rpcrdma__be32_to_cpu / rpcrdma__cpu_to_be32, and RPCRDMA__BE32 for
 *   constants kept pre-swapped, usable in constant expressions, so that
 *   code compares raw wire words and never swaps a field it only compares;
 * - byte buffers at any alignment: rpcrdma__get_be32 / rpcrdma__put_be32
 *   (one 4-byte load or store and a swap), and the _raw32 forms that move
 *   a word already in wire order.
 *
 * Part of lib/util: included by any lib folder, through util/util.h or
 * alone; includes nothing of the library's.  Not installed.
 */
#ifndef RPCRDMA_UTIL_BYTEORDER_H
#define RPCRDMA_UTIL_BYTEORDER_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#define rpcrdma__likely(x) __builtin_expect(!!(x), 1)
#define rpcrdma__unlikely(x) __builtin_expect(!!(x), 0)
#else
#define rpcrdma__likely(x) (x)
#define rpcrdma__unlikely(x) (x)
#endif

/* A 32-bit constant in network byte order, usable in constant expressions. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define RPCRDMA__BE32(x) ((uint32_t)(x))
#else
#define RPCRDMA__BE32(x) __builtin_bswap32((uint32_t)(x))
#endif

/** A wire word to host order (run time). */
static inline uint32_t rpcrdma__be32_to_cpu(uint32_t w)
{
	return RPCRDMA__BE32(w);
}

/** A host-order value to a wire word (run time); the same swap. */
static inline uint32_t rpcrdma__cpu_to_be32(uint32_t v)
{
	return RPCRDMA__BE32(v);
}

/** The big-endian word at p (any alignment), in host order. */
static inline uint32_t rpcrdma__get_be32(const uint8_t *p)
{
	uint32_t w;
	memcpy(&w, p, 4);
	return RPCRDMA__BE32(w);
}

/** The word at p as it is on the wire (compare it with RPCRDMA__BE32). */
static inline uint32_t rpcrdma__get_raw32(const uint8_t *p)
{
	uint32_t w;
	memcpy(&w, p, 4);
	return w;
}

/** Stores a word already in wire order at p; returns p + 4. */
static inline uint8_t *rpcrdma__put_raw32(uint8_t *p, uint32_t raw)
{
	memcpy(p, &raw, 4);
	return p + 4;
}

/** Stores v big-endian at p (any alignment); returns p + 4. */
static inline uint8_t *rpcrdma__put_be32(uint8_t *p, uint32_t v)
{
	return rpcrdma__put_raw32(p, RPCRDMA__BE32(v));
}

/* The RPC message (RFC 5531), in host order: the protocol version, the
 * message direction, the reply status, and the two rejections. */
#define RPCRDMA__RPC_VERSION 2u
#define RPCRDMA__RPC_CALL 0u
#define RPCRDMA__RPC_REPLY 1u
#define RPCRDMA__MSG_ACCEPTED 0u
#define RPCRDMA__MSG_DENIED 1u
#define RPCRDMA__RPC_MISMATCH 0u
#define RPCRDMA__AUTH_ERROR 1u

#endif /* RPCRDMA_UTIL_BYTEORDER_H */
