/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Backward calls on a client's connection (the NFSv4.1 backchannel): each
 * call the server sends on the client's connection goes to the service set
 * by rpcrdma_clnt_set_backchannel through an entry point of its own
 * (svc_local.h), and the encoded reply goes back on the connection through
 * the transport's bc_reply.
 */
#include <errno.h>

#include "clnt_int.h"
#include "svc/svc_local.h"

/* The reply callback of the entry point: back on the connection. */
static void bc_reply(void *arg, const void *reply, size_t len)
{
	struct rpcrdma_clnt *c = arg;
	int rc = c->ops->bc_reply ? c->ops->bc_reply(c, reply, len) : -EOPNOTSUPP;

	if (rc)
		rpcrdma__clnt_count(c, RPCRDMA_STAT_ERR_DROPPED, 1);
}

int rpcrdma__clnt_bc_set(struct rpcrdma_clnt *c, struct rpcrdma_svc *svc)
{
	struct rpcrdma__svc_local *ep = NULL, *old;
	int rc = 0;

	if (svc) {
		rc = rpcrdma__svc_local_open(svc, c->netid, bc_reply, c, &ep);
		if (rc)
			return rc;
	}
	pthread_mutex_lock(&c->bc_lock);
	old = c->bc_ep;
	c->bc_ep = ep;
	atomic_store(&c->bc_svc, svc);
	pthread_mutex_unlock(&c->bc_lock);
	rpcrdma__svc_local_close(old);
	return 0;
}

void rpcrdma__clnt_backward_call(struct rpcrdma_clnt *c, const void *msg, size_t len)
{
	int rc = -ENOTCONN;

	/* Held across the dispatch: set_backchannel waits for it. */
	pthread_mutex_lock(&c->bc_lock);
	if (c->bc_ep)
		rc = rpcrdma__svc_local_call(c->bc_ep, msg, len, (const struct sockaddr *)&c->addr,
					     c->addrlen);
	pthread_mutex_unlock(&c->bc_lock);
	if (rc)
		rpcrdma__clnt_count(c, RPCRDMA_STAT_ERR_DROPPED, 1);
}
