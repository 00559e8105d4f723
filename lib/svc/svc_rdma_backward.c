/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The service's backward direction over RPC-over-RDMA (RFC 8167), its
 * half above the transport: a connection's backward slot
 * (svc_backward.h), whose calls the RDMA transport posts
 * (rpcrdma__bc_send, rdma/rdma_backward.c) and whose replies, close and
 * end it hands up through the upcalls here.  The transport keeps the
 * credits and the posting thread; the service the pending calls.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "rdma/rdma_internal.h"
#include "rdma/rdma_backward.h"
#include "svc_backward.h"
#include "svc_int.h"
#include "svc_rdma_int.h"

static const struct rpcrdma__svc_bc_ops rdma_bc_ops = {
	.headroom = RPCRDMA_HDRLEN_MIN,
	.send = rpcrdma__bc_send,
};

/* A REPLY to a backward call, on a poller thread. */
static void up_reply(void *upper, const uint8_t *msg, size_t len)
{
	rpcrdma__svc_bc_reply(upper, msg, len, false);
}

/* The connection closes. */
static void up_down(void *upper, int err)
{
	rpcrdma__svc_bc_down(upper, err, false);
}

/* The connection is freed: the slot goes with it. */
static void up_release(void *upper)
{
	rpcrdma__svc_bc_release(upper);
	free(upper);
}

static const struct rpcrdma__bc_upcalls svc_upcalls = {
	.reply = up_reply,
	.down = up_down,
	.release = up_release,
};

struct slot_args {
	struct rpcrdma_svc *svc;
	const char *netid;
};

/* The slot of the transport's backward state b (conn->lock held). */
static void *slot_make(struct rpcrdma__rdma_bc *b, bool down, void *arg)
{
	const struct slot_args *a = arg;
	struct rpcrdma__svc_bc_slot *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	rpcrdma__svc_bc_slot_init(s, a->svc, a->netid, &rdma_bc_ops, b);
	s->down = down;
	return s;
}

struct rpcrdma__svc_bc_slot *rpcrdma__bc_slot(struct rpcrdma__conn *conn,
					      struct rpcrdma_svc *svc, const char *netid)
{
	struct slot_args a = { .svc = svc, .netid = netid };

	return rpcrdma__bc_attach(conn, &svc_upcalls, slot_make, &a);
}
