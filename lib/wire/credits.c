/* SPDX-License-Identifier: BSD-2-Clause */
/* Credit grants, server and client side (RFC 8166 section 3.3). */
#include <errno.h>
#include <stddef.h>

#include <rpcrdma/credits.h>

#include "xdr.h"

int rpcrdma_credits_init(struct rpcrdma_credits *c, uint32_t device_max, uint32_t configured_max)
{
	uint32_t grant;

	if (!c || device_max == 0)
		return -EINVAL;
	if (configured_max == 0)
		configured_max = RPCRDMA_DEFAULT_CREDITS;
	grant = device_max < configured_max ? device_max : configured_max;
	c->grant = grant;
	c->grant_word = rpcrdma__cpu_to_be32(grant);
	return 0;
}

int rpcrdma_client_credits_init(struct rpcrdma_client_credits *c, uint32_t max)
{
	if (!c || max == 0)
		return -EINVAL;
	c->max = max;
	c->grant = 1; /* until the first reply grants more */
	return 0;
}

uint32_t rpcrdma_client_credits_update(struct rpcrdma_client_credits *c, uint32_t granted)
{
	if (granted == 0)
		granted = 1;
	else if (granted > c->max)
		granted = c->max;
	c->grant = granted;
	return granted;
}
