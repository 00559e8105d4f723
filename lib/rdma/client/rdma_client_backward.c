/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client's backward direction over RPC-over-RDMA (RFC 8167), as
 * Linux's client does it: the connection keeps RPCRDMA__CLIENT_BC_RECVS
 * receives beyond its forward credits and its early slack for the calls
 * the server sends back (rdma_client_conn.c), and grants the server that
 * many in the rdma_credit of its backward replies.  A call arrives inline
 * (RDMA_MSG, no chunks, RPC msg_type CALL) and goes to the hook set with
 * rpcrdma__client_set_backward, on the poller thread; the reply goes back
 * inline, as RDMA_MSG with the call's xid.
 */
#include <errno.h>

#include "wire/wire.h"
#include "rdma_client_int.h"

void rpcrdma__client_set_backward(struct rpcrdma_client *c, rpcrdma__client_bc_fn fn, void *arg)
{
	pthread_mutex_lock(&c->lock);
	c->bc_arg = arg;
	atomic_store_explicit(&c->bc_fn, fn, memory_order_release);
	pthread_mutex_unlock(&c->lock);
}

bool rpcrdma__client_bc_recv(struct rpcrdma_client *c, struct cconn *cc, struct crecv *rv,
			     uint32_t len)
{
	const uint8_t *p = rv->c.buf;
	rpcrdma__client_bc_fn fn = atomic_load_explicit(&c->bc_fn, memory_order_acquire);

	/* RDMA_MSG, version 1, no chunks, then an RPC CALL. */
	if (!fn || !rpcrdma__bc_hdr_ok(p, len, RPCRDMA__RPC_CALL))
		return false;
	fn(c->bc_arg, p + RPCRDMA_HDRLEN_MIN, len - RPCRDMA_HDRLEN_MIN);
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_BYTES_RECV, len);
	if (atomic_load_explicit(&cc->dead, memory_order_acquire))
		rpcrdma__pool_put(&rv->c);
	else
		post_recv(cc, rv);
	cconn_put(cc);
	return true;
}

/* Client lock held: posts s (len bytes) on cc, one in sig_every signaled. */
static int bc_post(struct rpcrdma_client *c, struct cconn *cc, struct csend *s, uint32_t len)
{
	bool sig = cc->unsignaled + 1 >= cc->sig_every;

	s->cc = cc;
	s->sge.addr = (uintptr_t)s->c.buf;
	s->sge.length = len;
	s->sge.lkey = s->c.lkey;
	memset(&s->wr, 0, sizeof(s->wr));
	s->wr.wr_id = (uintptr_t)&s->c;
	s->wr.sg_list = &s->sge;
	s->wr.num_sge = 1;
	s->wr.opcode = IBV_WR_SEND;
	s->wr.send_flags = sig ? IBV_SEND_SIGNALED : 0;
	if (len <= cc->max_inline)
		s->wr.send_flags |= IBV_SEND_INLINE;
	int err = rpcrdma__client_post(c, cc, s, sig);

	if (err)
		return err;
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_BYTES_SENT, len);
	return 0;
}

int rpcrdma__client_backward_reply(struct rpcrdma_client *c, const void *msg, size_t len)
{
	struct cconn *cc;
	struct csend *s = NULL;
	int err = -ENOTCONN;

	if (len < 4)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	cc = c->cc;
	if (!cc || atomic_load(&cc->dead))
		goto out;
	err = -EMSGSIZE;
	if (RPCRDMA_HDRLEN_MIN + len > cc->send_max)
		goto out;
	err = -ENOBUFS;
	s = (struct csend *)rpcrdma__pool_get_owned(&cc->send_pool);
	if (!s)
		goto out;
	err = -EMSGSIZE;
	if (RPCRDMA_HDRLEN_MIN + len > s->c.pool->buf_size)
		goto out;
	uint8_t *p = s->c.buf;
	/* xid: the call's; credits: the backward grant */
	rpcrdma__bc_hdr_put(p, msg, len, RPCRDMA__CLIENT_BC_RECVS);
	err = bc_post(c, cc, s, (uint32_t)(RPCRDMA_HDRLEN_MIN + len));
	if (!err)
		s = NULL;
out:
	if (s)
		rpcrdma__pool_put_owned(&s->c);
	pthread_mutex_unlock(&c->lock);
	return err;
}
