/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma: RPC-over-RDMA credits (RFC 8166 section 3.3).
 *
 * Server side: a connection's grant is fixed when the connection is
 * accepted, so it is computed once and kept both in host order and as the
 * ready-to-send wire word every reply and every RDMA_ERROR carries.
 *
 * Client side: the grant a Requester may use is what the last reply granted,
 * clamped to 1..its own maximum (a grant of 0 would deadlock the connection,
 * a grant above what the Requester provisioned cannot be honoured); each
 * connection starts at 1 until the first reply arrives.
 *
 * These are small value types meant to be embedded in a connection object;
 * they hold no resources.  Read the fields only through the accessors.
 */
#ifndef RPCRDMA_CREDITS_H
#define RPCRDMA_CREDITS_H

#include <stdint.h>

#include <rpcrdma/api.h>

RPCRDMA_BEGIN_DECLS

/** Grant used when the configured maximum is 0 (Linux svcrdma's default). */
#define RPCRDMA_DEFAULT_CREDITS 64u

/** Server-side grant of one connection. */
struct rpcrdma_credits {
	uint32_t grant;      /**< host order, >= 1 once initialised */
	uint32_t grant_word; /**< the same value in wire order */
};

/**
 * Sets the grant to min(device_max, configured_max), where device_max is the
 * number of receives the device can hold for the connection (e.g. the QP's
 * or SRQ's work-request limit) and configured_max 0 means
 * RPCRDMA_DEFAULT_CREDITS.  Returns 0, or -EINVAL when device_max is 0
 * (there can be no grant of 0) or c is NULL.
 */
RPCRDMA_API int rpcrdma_credits_init(struct rpcrdma_credits *c, uint32_t device_max,
				     uint32_t configured_max);

/** The grant in host order. */
static inline uint32_t rpcrdma_credits_grant(const struct rpcrdma_credits *c)
{
	return c->grant;
}

/** The grant as the wire word to put in a header's credit field. */
static inline uint32_t rpcrdma_credits_word(const struct rpcrdma_credits *c)
{
	return c->grant_word;
}

/** Client-side view of the grant the Responder gives. */
struct rpcrdma_client_credits {
	uint32_t max;   /**< the Requester's maximum, >= 1 */
	uint32_t grant; /**< current grant, 1..max */
};

/**
 * Starts a connection: grant 1, maximum max.  Returns 0, or -EINVAL when
 * max is 0 or c is NULL.
 */
RPCRDMA_API int rpcrdma_client_credits_init(struct rpcrdma_client_credits *c, uint32_t max);

/**
 * Applies the grant (host order, as in struct rpcrdma_hdr.credits) from a
 * received reply: stores and returns it clamped to 1..max.
 */
RPCRDMA_API uint32_t rpcrdma_client_credits_update(struct rpcrdma_client_credits *c,
						   uint32_t granted);

/** The grant the Requester may currently use (calls in flight). */
static inline uint32_t rpcrdma_client_credits_grant(const struct rpcrdma_client_credits *c)
{
	return c->grant;
}

RPCRDMA_END_DECLS

#endif /* RPCRDMA_CREDITS_H */
