/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Server connections: accept with RFC 8797 private data (queue pair, the
 * credit grant, pools and the resource-controller charges).  The
 * connection's lifetime and send queue are in rdma_conn.c, the device it
 * is accepted on in rdma_dev.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_backward.h"
#include "rdma_internal.h"
#include "util/trace.h"

/*
 * The steps of rpcrdma__conn_accept, as Linux's svc_rdma_accept takes
 * them: admit the request (listener open, device, grant, id), read the
 * peer's private data and size the queues, charge and reserve the CQ,
 * create the QP, the pools and the initial receives, then accept with our
 * private data.  A failed step leaves the undo to conn_accept_undo.
 */

/* Under the listener lock: the device, the credit grant (*grant) and the
 * connection id; puts conn on the listener's and the device's counts.
 * 0 or a negative errno with nothing done. */
/* The index in l->spread a new connection joins (l->lock held): the poller
 * with the fewest connections, ties taken in turn; 0 without a spread. */
static unsigned spread_pick(struct rpcrdma_listener *l)
{
	unsigned n = l->nspread, best = 0;

	if (n <= 1)
		return 0;
	unsigned start = l->spread_next++ % n;
	for (unsigned k = 0; k < n; k++) {
		unsigned i = (start + k) % n;
		if (k == 0 || l->spread_conns[i] < l->spread_conns[best])
			best = i;
	}
	return best;
}

static int conn_admit(struct rpcrdma_listener *l, struct rdma_cm_id *id,
		      struct rpcrdma__conn *conn, uint32_t *grant)
{
	struct rpcrdma__dev *dev;
	uint32_t limit;
	int err;

	pthread_mutex_lock(&l->lock);
	if (l->closing) {
		err = -ESHUTDOWN;
		goto out;
	}
	err = rpcrdma__dev_get(l, id->verbs, &dev);
	if (err)
		goto out;
	/* The grant: configured maximum, the device's work-request limit,
	 * the receives actually posted (on the SRQ: not promised yet; none
	 * left, a receive queue of its own). */
	conn->bc_recvs = l->bc_recvs;   /* receives beyond the grant */
	conn->on_srq = dev->srq && dev->srq_unpromised > conn->bc_recvs;
	limit = dev->max_qp_wr;
	if (conn->on_srq && limit > dev->srq_unpromised)
		limit = dev->srq_unpromised;
	if (limit <= conn->bc_recvs ||
	    rpcrdma_credits_init(&conn->credits, limit - conn->bc_recvs, l->opts.max_credits)) {
		err = -ENOSPC;
		goto out;
	}
	/* Ids 1 .. INT_MAX, not reused until the range wraps. */
	err = rpcrdma_idr_alloc_cyclic(l->conn_ids, conn, 1, 0);
	if (err < 0)
		goto out;
	conn->conn_id = (uint64_t)err;
	err = 0;
	*grant = rpcrdma_credits_grant(&conn->credits);
	RPCRDMA_TRACE(credit_grant, conn->conn_id, *grant, dev->max_qp_wr, l->opts.max_credits,
		      conn->on_srq);
	if (conn->on_srq)
		dev->srq_unpromised -= rpcrdma__conn_recvs(conn, *grant);
	conn->l = l;
	conn->dev = dev;   /* before the list: rpcrdma__dev_find_conn reads it */
	conn->spread_idx = spread_pick(l);
	l->spread_conns[conn->spread_idx]++;
	rpcrdma__list_add_tail(&l->conns, &conn->lnode);
	l->nconns++;
	dev->nconns++;
out:
	pthread_mutex_unlock(&l->lock);
	return err;
}

/* The connection's state, the peer's private data (RFC 8797) and the
 * send queue's size.  Cannot fail. */
static void conn_setup(struct rpcrdma_listener *l, struct rpcrdma__conn *conn,
		       const struct rdma_cm_event *ev, uint32_t grant)
{
	struct rdma_cm_id *id = ev->id;
	struct rpcrdma_cm_private peer;

	conn->id = id;
	atomic_init(&conn->refs, 1);
	atomic_init(&conn->established, false);
	pthread_mutex_init(&conn->lock, NULL);
	pthread_mutex_init(&conn->read_lock, NULL);
	rpcrdma__read_cache_init(conn);
	rpcrdma__list_init(&conn->sq_wait);
	rpcrdma__list_init(&conn->send_wait);
	rpcrdma__list_init(&conn->sends);
	rpcrdma__list_init(&conn->reads);
	rpcrdma__rb_conn_init(&conn->rb, &conn->stats);
	conn->state = RPCRDMA__CONN_ACCEPTING;
	id->context = conn;

	rpcrdma_cm_private_decode(ev->param.conn.private_data, ev->param.conn.private_data_len,
				  &peer);
	conn->peer_recv_inline = peer.inline_recv;
	conn->peer_send_inline = peer.inline_send;
	conn->peer_rinv = peer.remote_invalidate;
	conn->send_inline = l->opts.send_inline < peer.inline_recv ? l->opts.send_inline :
								     peer.inline_recv;

	/* What the connection can have outstanding: a Send from each of
	 * the send pool's contexts (grant + 8 + sig_every, silent ones
	 * included: conn->sends) and from each backward call (bc_recvs),
	 * one more WR a call for its RDMA Writes or Reads (most chains are
	 * a Send alone or one Write and the Send), and the drain.  A chain
	 * that finds no room waits (sq_wait, counted as sq_starved); with the
	 * default grant of 64 (155 WRs) the longest reply chain
	 * (RPCRDMA__CHAIN_MAX) fits beside sig_every - 1 silent Sends.  Each
	 * WR is a slot of the provider's ring (soft-RoCE: 512 bytes, a power
	 * of two slots): grant * 4 + 32 (288 WRs, 512 slots) took 256 KiB a
	 * connection, 155 take 128 KiB. */
	conn->sig_every = RPCRDMA__SIG_EVERY;
	conn->sq_depth = grant * 2 + 8 + conn->sig_every + conn->bc_recvs + 1;
	if (conn->sq_depth > conn->dev->max_qp_wr)
		conn->sq_depth = conn->dev->max_qp_wr;
	/* Silent Sends take at most sig_every - 1 WRs: half the queue or
	 * less (grant 8: 41 WRs, as the 64 of before kept sig_every). */
	if (conn->sq_depth < 2 * conn->sig_every)
		conn->sig_every = 1;    /* a small queue: every Send signaled */
	conn->no_drain = conn->dev->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	if (conn->no_drain)
		conn->sig_every = 1;
	conn->sq_avail = conn->sq_depth - 1;
}

/* Everything the connection costs, before anything is created, and its
 * CQ entries (conn->cq).  0, or a negative errno (-EAGAIN, a refusal,
 * rejects the request) with conn->cq NULL. */
static int conn_charge(struct rpcrdma_listener *l, struct rpcrdma__conn *conn, uint32_t grant)
{
	int err;

	err = rpcrdma__rescg_ledger_init(&conn->led, l->opts.resource_group,
					 ibv_get_device_name(conn->id->verbs->device));
	if (!err)
		err = rpcrdma__listener_charge(l, &conn->led, RPCRDMA_RES_HCA_OBJECT,
					       rpcrdma__rescg_conn_objects(conn->on_srq));
	if (!err)
		err = rpcrdma__conn_cq_get(conn, (int)(conn->sq_depth + rpcrdma__conn_recvs(conn, grant)));
	return err;
}

/* The QP on conn's CQ (and the device's SRQ), entered in the device's QP
 * map.  0 or a negative errno. */
static int conn_create_qp(struct rpcrdma_listener *l, struct rpcrdma__conn *conn, uint32_t grant)
{
	struct rpcrdma__dev *dev = conn->dev;
	struct rdma_cm_id *id = conn->id;
	struct ibv_qp_init_attr qa = {
		.send_cq = conn->cq->cq,
		.recv_cq = conn->cq->cq,
		.srq = conn->on_srq ? dev->srq : NULL,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = conn->sq_depth,
			.max_recv_wr = conn->on_srq ? 0 : rpcrdma__conn_recvs(conn, grant),
			.max_send_sge = 1,  /* every WR we post has one SGE */
			.max_recv_sge = 1,
		},
	};
	int err;

	err = rpcrdma__create_qp(id, dev->pd, &qa);
	if (err)
		return err;
	pthread_mutex_lock(&l->lock);   /* rpcrdma__dev_find_conn reads them */
	conn->qp = id->qp;
	conn->qp_num = id->qp->qp_num;
	rpcrdma__qpmap_add(dev, conn);
	pthread_mutex_unlock(&l->lock);
	conn->max_send_sge = qa.cap.max_send_sge;
	conn->max_inline = qa.cap.max_inline_data;
	return 0;
}

/* Without the SRQ, the receive pool and its posted receives: the backward
 * ones and RPCRDMA__IDLE_RECVS of the grant's, the rest and the send pool
 * waiting for the first call (rpcrdma__conn_recv_more,
 * rpcrdma__conn_send_pool): an idle connection registers 6 receive
 * buffers of 4 KiB, not 66.  0 or a negative errno. */
static int conn_pools(struct rpcrdma_listener *l, struct rpcrdma__conn *conn, uint32_t grant)
{
	struct ibv_pd *pd = conn->dev->pd;
	uint32_t now = grant < RPCRDMA__IDLE_RECVS ? grant : RPCRDMA__IDLE_RECVS;
	int err;

	if (conn->on_srq)
		return 0;
	conn->recv_more_n = grant - now;
	err = rpcrdma__pool_init(&conn->recv_pool, pd, rpcrdma__recv_done,
				 rpcrdma__conn_recvs(conn, now),
				 sizeof(struct rpcrdma_call), l->opts.recv_inline,
				 IBV_ACCESS_LOCAL_WRITE);
	if (err)
		return err;
	conn->have_recv_pool = true;
	return rpcrdma__recv_post_pool(conn, &conn->recv_pool);
}

/* Accepts with our private data and the RDMA Read depths.  0 or -errno. */
static int conn_send_accept(struct rpcrdma_listener *l, struct rpcrdma__conn *conn,
			    const struct rdma_cm_event *ev)
{
	struct rpcrdma__dev *dev = conn->dev;
	struct rpcrdma_cm_private ours;
	struct rdma_conn_param param;
	uint8_t pdata[RPCRDMA_CM_PRIVATE_SIZE];

	ours.remote_invalidate = false;   /* a server is never sent to with invalidate */
	ours.inline_send = conn->send_inline;
	ours.inline_recv = l->opts.recv_inline;
	rpcrdma_cm_private_encode(pdata, sizeof(pdata), &ours);
	memset(&param, 0, sizeof(param));
	param.private_data = pdata;
	param.private_data_len = sizeof(pdata);
	/* Several RDMA Reads outstanding: as many as both sides allow.  The
	 * request event's values are already from our side's view (the CM
	 * swaps the REQ's fields): its initiator_depth is the reads the
	 * client accepts from us (Linux's xprtrdma: its max_qp_rd_atom), its
	 * responder_resources the reads it would issue to us (xprtrdma: 0). */
	param.initiator_depth = ev->param.conn.initiator_depth;
	if (param.initiator_depth > dev->max_qp_init_rd_atom)
		param.initiator_depth = (uint8_t)dev->max_qp_init_rd_atom;
	param.responder_resources = ev->param.conn.responder_resources;
	if (param.responder_resources > dev->max_qp_rd_atom)
		param.responder_resources = (uint8_t)dev->max_qp_rd_atom;
	conn->max_reads = param.initiator_depth;
	param.rnr_retry_count = 7;
	return rpcrdma__accept(conn->id, &param);
}

/* Undoes a failed accept by hand (after conn_admit; the CQ entries are
 * already given back): the id is destroyed by the caller after the
 * reject.  Frees conn. */
static void conn_accept_undo(struct rpcrdma_listener *l, struct rpcrdma__conn *conn,
			     uint32_t grant)
{
	struct rpcrdma__dev *dev = conn->dev;
	struct rdma_cm_id *id = conn->id;

	pthread_mutex_lock(&l->lock);
	rpcrdma__qpmap_del(dev, conn);
	rpcrdma__list_del(&conn->lnode);
	rpcrdma_idr_remove(l->conn_ids, (int)conn->conn_id);
	l->nconns--;
	dev->nconns--;
	l->spread_conns[conn->spread_idx]--;
	if (conn->on_srq)
		dev->srq_unpromised += rpcrdma__conn_recvs(conn, grant);
	pthread_mutex_unlock(&l->lock);
	if (conn->qp)
		rdma_destroy_qp(id);
	rpcrdma__send_pool_fini(&conn->send_pool);
	if (conn->have_recv_pool)
		rpcrdma__pool_fini(&conn->recv_pool);
	rpcrdma__rescg_ledger_release(&conn->led);
	pthread_mutex_destroy(&conn->read_lock);
	pthread_mutex_destroy(&conn->lock);
	id->context = NULL;
	free(conn);
}

int rpcrdma__conn_accept(struct rpcrdma_listener *l, struct rdma_cm_event *ev)
{
	struct rpcrdma__conn *conn;
	uint32_t grant = 0;
	int err;

	conn = calloc(1, sizeof(*conn));
	if (!conn)
		return -ENOMEM;
	/* Before the list: the idle sweep and the cap read it. */
	atomic_init(&conn->last_ns, rpcrdma__coarse_ns());
	err = conn_admit(l, ev->id, conn, &grant);
	if (err)
		goto fail_free;
	conn_setup(l, conn, ev, grant);
	err = conn_charge(l, conn, grant);
	if (err)
		goto fail_nocq;
	err = conn_create_qp(l, conn, grant);
	if (err)
		goto fail;
	err = conn_pools(l, conn, grant);
	if (err)
		goto fail;
	err = conn_send_accept(l, conn, ev);
	if (err)
		goto fail;
	pthread_mutex_lock(&l->lock);
	conn->accepted = true;
	pthread_mutex_unlock(&l->lock);
	RPCRDMA_TRACE(conn_accept, conn->conn_id, grant, conn->sq_depth, conn->on_srq,
		      conn->send_inline, conn->max_reads);
	return 0;

fail:
	rpcrdma__poller_cq_put(conn->cq, (int)(conn->sq_depth + rpcrdma__conn_recvs(conn, grant)));
fail_nocq:
	conn_accept_undo(l, conn, grant);
	return err;
fail_free:
	free(conn);
	return err;
}
