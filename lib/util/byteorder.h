/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Byte order and the RPC constants (RFC 5531) every layer shares: 32-bit
 * big-endian words read from and written to byte buffers, constants in
 * network order usable in constant expressions, and the branch hints.
 * Part of lib/util: included by any lib folder, through util/util.h or
 * alone; includes nothing of the library's.  Not installed.
 */
#ifndef RPCRDMA_UTIL_BYTEORDER_H
#define RPCRDMA_UTIL_BYTEORDER_H

#include <stdint.h>
#include <string.h>

/* A 32-bit constant in network byte order, usable in constant expressions. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RPCRDMA__BE32(x) __builtin_bswap32((uint32_t)(x))
#else
#define RPCRDMA__BE32(x) ((uint32_t)(x))
#endif

static inline uint32_t rpcrdma__get_be32(const uint8_t *p)
{
	uint32_t w;
	memcpy(&w, p, 4);
	return RPCRDMA__BE32(w);
}

static inline uint32_t rpcrdma__get_raw32(const uint8_t *p)
{
	uint32_t w;
	memcpy(&w, p, 4);
	return w;
}

static inline uint8_t *rpcrdma__put_raw32(uint8_t *p, uint32_t raw)
{
	memcpy(p, &raw, 4);
	return p + 4;
}

static inline uint8_t *rpcrdma__put_be32(uint8_t *p, uint32_t v)
{
	return rpcrdma__put_raw32(p, RPCRDMA__BE32(v));
}

/* The RPC protocol version of every call and reply (RFC 5531). */
#define RPCRDMA__RPC_VERSION 2u

#endif /* RPCRDMA_UTIL_BYTEORDER_H */
