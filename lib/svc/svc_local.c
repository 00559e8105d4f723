/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One message at a time into the service (svc_local.h): a transport whose
 * "connection" is a callback.  References: the opener's, and one per call
 * from rpcrdma__svc_local_call to its done(); the last destroys the xprt.
 */
#include <errno.h>
#include <stdlib.h>

#include "svc_int.h"
#include "svc_local.h"

struct rpcrdma__svc_local {
	struct rpcrdma__svc_xprt *xprt;
	atomic_int refs;
	pthread_mutex_t lock;           /* held around fn: close waits for it */
	rpcrdma__svc_local_reply_fn fn; /* NULL once closed */
	void *arg;
};

struct local_call {
	struct iovec iov;
	uint8_t *reply;
};

static void local_put(struct rpcrdma__svc_local *l)
{
	if (atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) != 1)
		return;
	struct rpcrdma__svc_xprt *x = l->xprt;
	pthread_mutex_destroy(&l->lock);
	free(l);
	rpcrdma__svc_xprt_destroy(x);
}

static void *local_reply_buf(void *priv, void *ctx, size_t max)
{
	struct local_call *lc = ctx;
	(void)priv;
	free(lc->reply);
	lc->reply = malloc(max ? max : 1);
	return lc->reply;
}

static void local_done(void *priv, void *ctx, void *buf, size_t len)
{
	struct rpcrdma__svc_local *l = priv;
	struct local_call *lc = ctx;
	if (len && buf) {
		pthread_mutex_lock(&l->lock);
		if (l->fn)
			l->fn(l->arg, buf, len);
		pthread_mutex_unlock(&l->lock);
	}
	rpcrdma__svc_xprt_complete(l->xprt);
	free(lc->iov.iov_base);
	free(lc->reply);
	free(lc);
	local_put(l);
}

static const struct rpcrdma__svc_xprt_ops local_ops = {
	.reply_buf = local_reply_buf,
	.done = local_done,
};

int rpcrdma__svc_local_open(struct rpcrdma_svc *svc, const char *netid,
			    rpcrdma__svc_local_reply_fn fn, void *arg,
			    struct rpcrdma__svc_local **out)
{
	*out = NULL;
	struct rpcrdma__svc_local *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	struct rpcrdma__svc_xprt_info info = {
		.size = sizeof(info),
		.netid = netid,
		.flags = RPCRDMA__SVC_XPRT_CONGESTION_CONTROL,
	};
	int rc = rpcrdma__svc_xprt_create(svc, &local_ops, l, &info, &l->xprt);
	if (rc) {
		free(l);
		return rc;
	}
	atomic_init(&l->refs, 1);
	pthread_mutex_init(&l->lock, NULL);
	l->fn = fn;
	l->arg = arg;
	*out = l;
	return 0;
}

int rpcrdma__svc_local_call(struct rpcrdma__svc_local *l, const void *msg, size_t len,
			    const struct sockaddr *peer, socklen_t peer_len)
{
	pthread_mutex_lock(&l->lock);
	bool open = l->fn != NULL;
	pthread_mutex_unlock(&l->lock);
	if (!open)
		return -ENOTCONN;
	struct local_call *lc = calloc(1, sizeof(*lc));
	void *copy = malloc(len ? len : 1);
	if (!lc || !copy) {
		free(lc);
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, msg, len);
	lc->iov.iov_base = copy;
	lc->iov.iov_len = len;
	atomic_fetch_add(&l->refs, 1);
	int rc = rpcrdma__svc_xprt_recv(l->xprt, &lc->iov, 1, peer, peer_len, lc);
	if (rc) {
		free(copy);
		free(lc);
		local_put(l);
	}
	return rc;
}

void rpcrdma__svc_local_close(struct rpcrdma__svc_local *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->fn = NULL;
	pthread_mutex_unlock(&l->lock);
	local_put(l);
}
