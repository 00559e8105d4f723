/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A service entry point for one message at a time (not installed): the
 * client's backchannel (rpcrdma_clnt_set_backchannel) hands each call the
 * server sends back to the service through it, and gets the encoded reply
 * back through a callback, to send on its own connection.
 *
 * An endpoint is one transport instance (struct rpcrdma__svc_xprt) of the
 * service: its calls count against opts.max_calls and the service's
 * counters, and rpcrdma_svc_destroy waits until every endpoint is gone.
 * Handlers run on the thread that calls rpcrdma__svc_local_call (the
 * client's), or later on any thread for a handler that answers
 * asynchronously; the reply callback runs on that thread.
 *
 * The one lib/svc header lib/clnt may include (clnt_bc.c); nothing below
 * lib/svc includes it.
 */
#ifndef RPCRDMA_SVC_LOCAL_H
#define RPCRDMA_SVC_LOCAL_H

#include <stddef.h>
#include <sys/socket.h>

#include <rpcrdma/svc.h>

struct rpcrdma__svc_local;

/* The encoded RPC reply reply[0..len-1] to a call (valid during the call). */
typedef void (*rpcrdma__svc_local_reply_fn)(void *arg, const void *reply, size_t len);

/* 0 and *out, -ENOMEM, -EINVAL (bad netid).  fn and arg stay valid until
 * rpcrdma__svc_local_close returns. */
int rpcrdma__svc_local_open(struct rpcrdma_svc *svc, const char *netid,
			    rpcrdma__svc_local_reply_fn fn, void *arg,
			    struct rpcrdma__svc_local **out);

/*
 * Hands one RPC call message (msg[0..len-1], copied) to the service.
 * 0: taken (the reply, if any, goes to fn, maybe before this returns);
 * -EBUSY: all slots taken; -ENOMEM; -ENOTCONN: closed.
 */
int rpcrdma__svc_local_call(struct rpcrdma__svc_local *l, const void *msg, size_t len,
			    const struct sockaddr *peer, socklen_t peer_len);

/* No fn after this returns (waits for one running; never from fn); the
 * endpoint goes with its last call.  NULL is a no-op. */
void rpcrdma__svc_local_close(struct rpcrdma__svc_local *l);

#endif /* RPCRDMA_SVC_LOCAL_H */
