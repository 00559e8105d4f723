/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client over RPC-over-RDMA: the transport of <rpcrdma/client.h>.
 * Calls are encoded and started on the client's loop thread; the RDMA
 * client picks inline, read chunk (the put_bulk item, or position zero),
 * write chunk (over res_bulk) and reply chunk (res_max above the inline
 * size); a krb5i / krb5p call (RFC 8267 section 4.3) only inline or by
 * position-zero read chunk, its reply only inline or by reply chunk.  Its completions (on the poller) are handed back to the loop,
 * which decodes them: a call's deadline and its reply are then seen by
 * one thread.  A call that times out breaks the connection (its credit
 * would be lost otherwise, as rpcrdma_client_call does) unless it still
 * waited for the grant; its buffers stay ours until the RDMA client gives
 * the call back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/client.h>
#include <rpcrdma/poller.h>

#include "clnt_int.h"
#include "rdma/client/rdma_client_int.h"

struct rpcrdma__clnt_rdma {
	struct rpcrdma_poller *poller;
	bool own_poller;
	struct rpcrdma_client *cl;
};

struct rdma_call {
	struct rpcrdma_client_call call;
	struct rpcrdma__clnt_work work;
	struct iovec iov;
	struct rpcrdma__creq *r;
	uint8_t *reply;
	int status;
	bool timed_out;   /* loop thread only */
};

static void rdma_call_free(struct rdma_call *rc)
{
	free(rc->reply);
	free(rc);
}

/* On the loop: the RDMA client gave the call back. */
static void rdma_finish(struct rpcrdma_clnt *c, struct rpcrdma__clnt_work *w)
{
	struct rdma_call *rc = rpcrdma__container_of(w, struct rdma_call, work);
	struct rpcrdma__creq *r = rc->r;

	r->xprt = NULL;
	if (rc->timed_out) {
		rpcrdma__clnt_complete(c, r, -ETIMEDOUT);
	} else {
		rpcrdma__list_del(&r->node);   /* from the pending calls */
		if (rc->status)
			rpcrdma__clnt_complete(c, r, rc->status);
		else
			rpcrdma__clnt_complete_reply(c, r, rc->reply, rc->call.reply_got,
						     r->req->res_bulk, rc->call.bulk_got);
	}
	rdma_call_free(rc);
}

static void rdma_done(struct rpcrdma_client_call *call, int status, void *arg)
{
	struct rpcrdma_clnt *c = arg;
	struct rdma_call *rc = rpcrdma__container_of(call, struct rdma_call, call);

	rc->status = status;
	rpcrdma__clnt_loop_queue(c, &rc->work);
}

/* A call from the server, on a poller thread (clnt_bc.c dispatches). */
static void rdma_backward_call(void *arg, const void *msg, size_t len)
{
	rpcrdma__clnt_backward_call(arg, msg, len);
}

static int rdma_bc_reply(struct rpcrdma_clnt *c, const void *msg, size_t len)
{
	return rpcrdma__client_backward_reply(c->rdma->cl, msg, len);
}

static uint32_t clamp_u32(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static int rdma_start(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	struct rpcrdma_clnt_req *req = r->req;
	struct rdma_call *rc = calloc(1, sizeof(*rc));
	/* A reply that fits inline never fails for a small res_max, and only
	 * a res_max beyond what fits inline offers a reply chunk (a buffer of
	 * the whole inline size would offer one on every call, and servers
	 * then use it: nfsd sent every reply by reply chunk). */
	size_t inl = clamp_u32(c->opts.inline_size, 1024, 65536) - RPCRDMA_HDRLEN_MIN;
	size_t want = req->res_max, rlen;
	int err;

	/* krb5i / krb5p (RFC 8267 section 4.3): the results are checksummed
	 * or sealed as one piece, so no write chunk is offered; the bulk
	 * result comes in the reply itself (inline or by reply chunk) with
	 * the RPCSEC_GSS framing around it. */
	if (r->gss_wrapped)
		want += req->res_bulk_len + RPCRDMA__CLNT_GSS_SLACK;
	rlen = want > inl ? want : inl;

	if (!rc || !(rc->reply = malloc(rlen))) {
		free(rc);
		return -ENOMEM;
	}
	rc->r = r;
	rc->work.fn = rdma_finish;
	rc->iov.iov_base = r->msg + 4;
	rc->iov.iov_len = r->len;
	rc->call.size = sizeof(rc->call);
	rc->call.iov = &rc->iov;
	rc->call.iovcnt = 1;
	rc->call.bulk_offset = r->bulk_off;
	rc->call.bulk_length = r->bulk_len;
	rc->call.reply_buf = rc->reply;
	rc->call.reply_len = rlen;
	rc->call.reply_bulk = req->res_bulk_len && !r->gss_wrapped ? req->res_bulk : NULL;
	rc->call.reply_bulk_len = r->gss_wrapped ? 0 : req->res_bulk_len;
	r->xprt = rc;
	rpcrdma__clnt_pending_add(c, r);
	err = rpcrdma_client_call_async(c->rdma->cl, &rc->call, rdma_done, c);
	if (err) {
		rpcrdma__list_del(&r->node);
		r->xprt = NULL;
		rdma_call_free(rc);
	}
	return err;
}

static int rdma_expire(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	struct rdma_call *rc = r->xprt;

	if (!rc)
		return 0;
	if (rpcrdma__client_abort(c->rdma->cl, &rc->call)) {
		r->xprt = NULL;
		rdma_call_free(rc);
		return 0;
	}
	rc->timed_out = true;   /* rdma_finish completes it */
	return 1;
}

static const struct rpcrdma__clnt_loop_ops rdma_ops = {
	.start = rdma_start,
	.expire = rdma_expire,
};

static int rdma_create(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_rdma *x = calloc(1, sizeof(*x));
	struct rpcrdma_client_opts o;
	int err;

	if (!x)
		return -ENOMEM;
	c->rdma = x;
	x->poller = c->opts.poller;
	if (!x->poller) {
		err = rpcrdma_poller_create(NULL, &x->poller);
		if (err)
			goto fail;
		x->own_poller = true;
	}
	rpcrdma_client_opts_init(&o);
	o.max_credits = clamp_u32(c->opts.max_credits, 1, 1024);
	o.recv_inline = o.send_inline = clamp_u32(c->opts.inline_size, 1024, 65536);
	o.connect_timeout_ms = c->opts.connect_timeout_ms;
	o.reconnect_min_ms = c->opts.reconnect_min_ms;
	o.reconnect_max_ms = c->opts.reconnect_max_ms;
	o.log_fn = c->opts.log_fn;
	o.log_arg = c->opts.log_arg;
	err = rpcrdma_client_create(x->poller, (struct sockaddr *)&c->addr, &o, &x->cl);
	if (err)
		goto fail;
	err = rpcrdma__clnt_loop_create(c, &rdma_ops);
	if (err) {
		rpcrdma_client_destroy(x->cl);
		goto fail;
	}
	rpcrdma__client_set_backward(x->cl, rdma_backward_call, c);
	return 0;
fail:
	if (x->own_poller)
		rpcrdma_poller_destroy(x->poller);
	free(x);
	c->rdma = NULL;
	return err;
}

static void rdma_destroy(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_rdma *x = c->rdma;

	/* The loop stops; the RDMA client gives back its calls (-ECANCELED),
	 * queued to the stopped loop, whose destroy runs them. */
	rpcrdma__clnt_loop_stop(c);
	rpcrdma_client_destroy(x->cl);
	rpcrdma__clnt_loop_destroy(c);
	if (x->own_poller)
		rpcrdma_poller_destroy(x->poller);
	free(x);
	c->rdma = NULL;
}

static void rdma_stats(const struct rpcrdma_clnt *c, struct rpcrdma_stats *out)
{
	rpcrdma_client_stats(c->rdma->cl, out);
}

const struct rpcrdma__clnt_xprt_ops rpcrdma__clnt_rdma_ops = {
	.create = rdma_create,
	.destroy = rdma_destroy,
	.bc_reply = rdma_bc_reply,
	.stats = rdma_stats,
};
