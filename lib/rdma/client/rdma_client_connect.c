/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client's connects: resolve, the connection's resources, connect
 * with RFC 8797 private data, start, and back off between reconnects.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_client_int.h"

/* Waits up to timeout_ms for the next CM event, which must be `want`. */
static int wait_event(struct rdma_event_channel *ech, enum rdma_cm_event_type want,
		      struct rpcrdma_cm_private *priv, int timeout_ms)
{
	struct pollfd pfd = { .fd = ech->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int err = 0, n;

	/* A connect to a server that is going away may never be answered. */
	do
		n = poll(&pfd, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return -ETIMEDOUT;
	if (n < 0)
		return -errno;
	if (rdma_get_cm_event(ech, &ev))
		return -errno;
	if (ev->event != want) {
		switch (ev->event) {
		case RDMA_CM_EVENT_REJECTED:
			err = -ECONNREFUSED;
			break;
		case RDMA_CM_EVENT_ADDR_ERROR:
		case RDMA_CM_EVENT_ROUTE_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
			err = -EHOSTUNREACH;
			break;
		default:
			err = -ECONNABORTED;
		}
	} else if (priv) {
		rpcrdma_cm_private_decode(ev->param.conn.private_data,
					  ev->param.conn.private_data_len, priv);
	}
	rdma_ack_cm_event(ev);
	return err;
}

/* A connection not yet connected: refs 1, lists empty. */
static struct cconn *cconn_alloc(struct rpcrdma_client *c)
{
	struct cconn *cc = calloc(1, sizeof(*cc));

	if (!cc)
		return NULL;
	cc->c = c;
	atomic_init(&cc->dead, false);
	atomic_init(&cc->refs, 1);
	pthread_mutex_init(&cc->buf_lock, NULL);
	rpcrdma__list_init(&cc->rbufs);
	rpcrdma__list_init(&cc->wbufs);
	rpcrdma__list_init(&cc->posted);
	return cc;
}

/* The event channel and the id, resolved to the server's address and a
 * route to it. */
static int cconn_resolve(struct cconn *cc, int tmo)
{
	int err;

	cc->ech = rdma_create_event_channel();
	if (!cc->ech)
		return -errno;
	if (rdma_create_id(cc->ech, &cc->id, cc, RDMA_PS_TCP)) {
		cc->id = NULL;
		return -errno;
	}
	if (rdma_resolve_addr(cc->id, NULL, (struct sockaddr *)&cc->c->dst, tmo))
		return -errno;
	err = wait_event(cc->ech, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, tmo);
	if (err)
		return err;
	if (rdma_resolve_route(cc->id, tmo))
		return -errno;
	return wait_event(cc->ech, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, tmo);
}

/*
 * The Sends a connection holds at most: one for each call in flight (up to
 * credits), given back only by the completion of a signaled Send at or
 * after it; the finished calls' Sends since the last signaled one (fewer
 * than sig_every); the replies to the server's calls (BC_RECVS).  One Send
 * in sig_every is signaled, sig_every at most a quarter of the pool (so an
 * empty pool holds a signaled Send) and at most RPCRDMA__SIG_EVERY.  Short
 * of one, a call waits for a send completion (send_waited).  One WR of the
 * QP stays for the drain.
 */
uint32_t rpcrdma__client_send_depth(uint32_t credits, uint32_t max_wr, uint32_t *sig_every)
{
	uint64_t sig = ((uint64_t)credits + RPCRDMA__CLIENT_BC_RECVS) / 3;
	uint64_t depth;

	if (sig > RPCRDMA__SIG_EVERY)
		sig = RPCRDMA__SIG_EVERY;
	if (sig == 0)
		sig = 1;
	depth = (uint64_t)credits + sig + RPCRDMA__CLIENT_BC_RECVS;
	if (max_wr < 2)
		max_wr = 2;
	if (depth > max_wr - 1)
		depth = max_wr - 1;
	if (sig > depth / 4)
		sig = depth / 4 ? depth / 4 : 1;
	*sig_every = (uint32_t)sig;
	return (uint32_t)depth;
}

/* The protection domain, the CQ, the QP and the context pools, sized by
 * the credits we ask for within what the device allows (*attr). */
static int cconn_resources(struct cconn *cc, const struct ibv_device_attr *attr)
{
	struct rpcrdma_client *c = cc->c;
	uint32_t credits = c->opts.max_credits, nrecv;
	int err;

	cc->pd = ibv_alloc_pd(cc->id->verbs);
	if (!cc->pd)
		return -ENOMEM;
	cc->sq_depth = rpcrdma__client_send_depth(credits, (uint32_t)attr->max_qp_wr,
						  &cc->sig_every);
	cc->no_drain = cc->id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	if (cc->no_drain)
		cc->sig_every = 1;
	if (credits > (uint32_t)attr->max_qp_wr)
		credits = (uint32_t)attr->max_qp_wr;
	/* One more Send than the pool holds: the drain (rpcrdma__client_break).  The
	 * receives: the credits, the calls from the server (RFC 8167, kept
	 * apart: rdma_client_backward.c) and the early slack
	 * (rpcrdma__client_recv_done). */
	if (credits + RPCRDMA__CLIENT_BC_RECVS > (uint32_t)attr->max_qp_wr)
		credits = (uint32_t)attr->max_qp_wr - RPCRDMA__CLIENT_BC_RECVS;
	nrecv = credits + RPCRDMA__CLIENT_BC_RECVS + RPCRDMA__EARLY_SLACK;
	if (nrecv > (uint32_t)attr->max_qp_wr)
		nrecv = (uint32_t)attr->max_qp_wr;
	cc->early_slack = nrecv - credits - RPCRDMA__CLIENT_BC_RECVS;
	cc->cq_entries = (int)(cc->sq_depth + 1 + nrecv);
	err = rpcrdma__poller_cq_get(c->poller, cc->id->verbs, cc->cq_entries, &cc->cq);
	if (err) {
		cc->cq = NULL;
		return err;
	}
	struct ibv_qp_init_attr qa = {
		.send_cq = cc->cq->cq,
		.recv_cq = cc->cq->cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = cc->sq_depth + 1, .max_recv_wr = nrecv,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	err = rpcrdma__create_qp(cc->id, cc->pd, &qa);
	if (err)
		return err;
	cc->qp = cc->id->qp;
	cc->max_inline = qa.cap.max_inline_data;
	err = rpcrdma__pool_init(&cc->recv_pool, cc->pd, c->recv_done, nrecv,
				 sizeof(struct crecv), c->opts.recv_inline, IBV_ACCESS_LOCAL_WRITE);
	if (err)
		return err;
	return rpcrdma__pool_init(&cc->send_pool, cc->pd, c->send_done, cc->sq_depth,
				  sizeof(struct csend), c->opts.send_inline, IBV_ACCESS_LOCAL_WRITE);
}

/* The drain's Send. */
static int cconn_send_setup(struct cconn *cc)
{
	cc->drain = calloc(1, sizeof(*cc->drain));
	if (!cc->drain)
		return -ENOMEM;
	cc->drain->c.cqe.done = cc->c->send_done; /* no pool: see rpcrdma__client_send_release */
	cc->drain->cc = cc;
	return 0;
}

/* Connects with our RFC 8797 private data; *peer: the server's. */
static int cconn_connect(struct cconn *cc, const struct ibv_device_attr *attr,
			 struct rpcrdma_cm_private *peer, int tmo)
{
	struct rpcrdma_client *c = cc->c;
	struct rpcrdma_cm_private ours;
	struct rdma_conn_param param;
	uint8_t pdata[RPCRDMA_CM_PRIVATE_SIZE];
	int err;

	ours.remote_invalidate = false;  /* plain MRs: no remote invalidation */
	ours.inline_send = c->opts.send_inline;
	ours.inline_recv = c->opts.recv_inline;
	rpcrdma_cm_private_encode(pdata, sizeof(pdata), &ours);
	memset(&param, 0, sizeof(param));
	param.private_data = pdata;
	param.private_data_len = sizeof(pdata);
	param.responder_resources = (uint8_t)(attr->max_qp_rd_atom > 255 ? 255 :
					      attr->max_qp_rd_atom);
	param.initiator_depth = (uint8_t)(attr->max_qp_init_rd_atom > 255 ? 255 :
					  attr->max_qp_init_rd_atom);
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	err = rpcrdma__connect(cc->id, &param);
	if (err)
		return err;
	return wait_event(cc->ech, RDMA_CM_EVENT_ESTABLISHED, peer, tmo);
}

/* Connected: posts the receives and hands the CM events to the poller. */
static int cconn_start(struct cconn *cc, const struct rpcrdma_cm_private *peer)
{
	struct rpcrdma_client *c = cc->c;
	struct rpcrdma__ctxt *x;
	int err;

	/*
	 * Receives are posted only now: the server sends nothing before our
	 * first call, and a QP that never reached RTS may never flush the
	 * receives posted to it (seen with rxe on Linux 6.1), which would keep
	 * a failed connection from ever being freed.
	 */
	while ((x = rpcrdma__pool_get(&cc->recv_pool))) {
		err = post_recv(cc, (struct crecv *)x);
		if (err)
			return err;
	}
	cc->send_max = c->opts.send_inline < peer->inline_recv ? c->opts.send_inline :
								 peer->inline_recv;
	fcntl(cc->ech->fd, F_SETFL, fcntl(cc->ech->fd, F_GETFL) | O_NONBLOCK);
	cc->cm_src.fd = cc->ech->fd;
	cc->cm_src.handle = rpcrdma__client_cm_handle;
	err = rpcrdma__poller_add(c->poller, &cc->cm_src);
	if (err)
		return err;
	cc->cm_added = true;
	return 0;
}

/* A connection that failed to open: to the graveyard, freed by
 * rpcrdma__client_reap() once its posted receives flushed. */
static void cconn_discard(struct rpcrdma_client *c, struct cconn *cc)
{
	/* A flush completion (the CM may have moved the QP to error already)
	 * may have broken it first: then it is in the graveyard already. */
	pthread_mutex_lock(&c->lock);
	if (!cc->dead) {
		cc->dead = true;
		rpcrdma__list_add_tail(&c->graveyard, &cc->gnode);
		client_ready_update(c);
	}
	pthread_mutex_unlock(&c->lock);
	if (cc->qp)
		rpcrdma__qp_error(cc->qp);
	cconn_put(cc);
}

static int cconn_open(struct rpcrdma_client *c, struct cconn **out)
{
	struct rpcrdma_cm_private peer;
	struct ibv_device_attr attr;
	struct cconn *cc;
	int err, tmo = c->opts.connect_timeout_ms;

	cc = cconn_alloc(c);
	if (!cc)
		return -ENOMEM;
	err = cconn_resolve(cc, tmo);
	if (err)
		goto fail;
	if (ibv_query_device(cc->id->verbs, &attr)) {
		err = -EIO;
		goto fail;
	}
	err = cconn_resources(cc, &attr);
	if (!err)
		err = cconn_send_setup(cc);
	if (!err)
		err = cconn_connect(cc, &attr, &peer, tmo);
	if (err)
		goto fail;
	err = cconn_start(cc, &peer);
	if (err)
		goto fail_connected;
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_CONNECTS, 1);
	*out = cc;
	return 0;
fail_connected:
	rpcrdma__disconnect(cc->id);
fail:
	cconn_discard(c, cc);
	return err;
}

/* Connect lock held: whether the reconnect backoff holds the next try back. */
static bool backoff_holds(const struct rpcrdma_client *c)
{
	return atomic_load(&c->backoff_ms) != 0 && rpcrdma__now_ns() < c->retry_at_ns;
}

/* Connect lock held: a reconnect failed with err; wait before the next. */
static void backoff_failed(struct rpcrdma_client *c, int err)
{
	int ms = atomic_load(&c->backoff_ms);

	if (c->opts.reconnect_min_ms == 0)
		return;
	ms = ms == 0 ? c->opts.reconnect_min_ms :
	     ms > c->opts.reconnect_max_ms / 2 ? c->opts.reconnect_max_ms : ms * 2;
	c->retry_at_ns = rpcrdma__now_ns() + (uint64_t)ms * 1000000u;
	c->backoff_err = err;
	atomic_store(&c->backoff_ms, ms);
}

/* client_connected's slow path: the connection is not ready. */
int rpcrdma__client_connect(struct rpcrdma_client *c)
{
	struct cconn *cc;
	int err = 0;

	pthread_mutex_lock(&c->connect_lock);
	rpcrdma__client_reap(c, false);
	pthread_mutex_lock(&c->lock);
	cc = c->cc;
	pthread_mutex_unlock(&c->lock);
	if (!cc && backoff_holds(c)) {
		err = c->backoff_err;
	} else if (!cc) {
		err = cconn_open(c, &cc);
		if (!err) {
			pthread_mutex_lock(&c->lock);
			c->cc = cc;
			client_ready_update(c);
			if (c->connected_once)
				rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_RECONNECTS, 1);
			c->connected_once = true;
			pthread_mutex_unlock(&c->lock);
			atomic_store(&c->backoff_ms, 0);
		} else {
			rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_CONNECT_FAILS, 1);
			if (c->connected_once)
				backoff_failed(c, err);
		}
	}
	pthread_mutex_unlock(&c->connect_lock);
	return err;
}
