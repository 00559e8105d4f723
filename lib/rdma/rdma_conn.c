/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Server connections: accept with RFC 8797 private data (queue pair, the
 * credit grant, pools and the resource-controller charges), send-queue
 * accounting, close and teardown.  The device's resources are in
 * rdma_dev.c, the listener in rdma_listener.c, device removal in
 * rdma_devrm.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_backward.h"
#include "rdma_internal.h"
#include "util/diag_int.h"
#include "util/trace.h"

/* ---- references and teardown ---- */

void rpcrdma__conn_get(struct rpcrdma__conn *conn)
{
	atomic_fetch_add_explicit(&conn->refs, 1, memory_order_relaxed);
}

static void conn_free(struct rpcrdma__conn *conn)
{
	struct rpcrdma_listener *l = conn->l;
	struct rpcrdma__dev *dev = conn->dev;
	unsigned lost;

	/* Every WR completed: every context must be back in its pool. */
	lost = conn->send_pool.count - conn->send_pool.nfree;
	if (conn->have_recv_pool)
		lost += conn->recv_pool.count - conn->recv_pool.nfree;
	if (conn->have_recv_more)
		lost += conn->recv_more.count - conn->recv_more.nfree;
	if (lost)
		rpcrdma__count(&l->stats, NULL, RPCRDMA_STAT_CTXT_LOST, lost);
	RPCRDMA_TRACE(conn_free, conn->conn_id, lost);

	pthread_mutex_lock(&l->lock);
	conn->freeing = true;
	rpcrdma__qpmap_del(dev, conn);
	rpcrdma__list_del(&conn->lnode);
	rpcrdma_idr_remove(l->conn_ids, (int)conn->conn_id);
	if (conn->on_srq)
		dev->srq_unpromised += rpcrdma__conn_recvs(conn, rpcrdma_credits_grant(&conn->credits));
	pthread_mutex_unlock(&l->lock);

	rpcrdma__bc_conn_free(conn);
	if (conn->qp)
		rdma_destroy_qp(conn->id);
	rpcrdma__send_pool_fini(&conn->send_pool);
	if (conn->have_recv_pool)
		rpcrdma__pool_fini(&conn->recv_pool);
	if (conn->have_recv_more)
		rpcrdma__pool_fini(&conn->recv_more);
	rpcrdma__poller_cq_put(conn->cq, (int)(conn->sq_depth +
		rpcrdma__conn_recvs(conn, rpcrdma_credits_grant(&conn->credits))));
	rpcrdma__rescg_ledger_release(&conn->led);
	/* Waits for CM events of this id fetched but not yet acknowledged. */
	rdma_destroy_id(conn->id);
	rpcrdma__read_cache_fini(conn);
	pthread_mutex_destroy(&conn->read_lock);
	pthread_mutex_destroy(&conn->lock);
	free(conn);

	/* Last: shutdown waits for nconns, then frees the devices and l. */
	pthread_mutex_lock(&l->lock);
	rpcrdma__count(&l->stats, NULL, RPCRDMA_STAT_DISCONNECTS, 1);
	l->nconns--;
	dev->nconns--;
	pthread_cond_broadcast(&l->conns_cond);
	pthread_mutex_unlock(&l->lock);
}

/* Reports a connection event to the listener's log hook (if any). */
void rpcrdma__conn_log(const struct rpcrdma_listener *l, enum rpcrdma_log_event ev,
		       struct rdma_cm_id *id, const char *why, int err)
{
	if (!l || !l->opts.log_fn)
		return;
	struct sockaddr *peer = id ? rdma_get_peer_addr(id) : NULL;
	socklen_t plen = !peer ? 0 : peer->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
				 : peer->sa_family == AF_INET ? sizeof(struct sockaddr_in) : 0;
	const char *netid = peer && peer->sa_family == AF_INET6 ? "rdma6" : "rdma";
	rpcrdma__log(l->opts.log_fn, l->opts.log_arg, ev, netid, plen ? peer : NULL, plen,
		     why ? why : "closed", err);
}

void rpcrdma__conn_established(struct rpcrdma__conn *conn)
{
	if (atomic_exchange_explicit(&conn->established, true, memory_order_acq_rel))
		return;
	RPCRDMA_TRACE(conn_established, conn->conn_id);
	pthread_mutex_lock(&conn->lock);
	if (conn->state == RPCRDMA__CONN_ACCEPTING)
		conn->state = RPCRDMA__CONN_CONNECTED;
	pthread_mutex_unlock(&conn->lock);
	rpcrdma__count(&conn->l->stats, NULL, RPCRDMA_STAT_CONNECTS, 1);
}

void rpcrdma__conn_put(struct rpcrdma__conn *conn)
{
	if (atomic_fetch_sub_explicit(&conn->refs, 1, memory_order_acq_rel) == 1)
		conn_free(conn);
}

/* Whether c, a chain on the send queue or waiting for room, is a reply
 * (else a call's RDMA Reads). */
static bool is_send(const struct rpcrdma__ctxt *c)
{
	return c->cqe.done == rpcrdma__send_done;
}

/* Gives back every Send still posted (the drain's completion, or a QP
 * that refused the drain). */
static void sends_release_all(struct rpcrdma__conn *conn)
{
	struct rpcrdma__list done;

	rpcrdma__list_init(&done);
	rpcrdma__conn_sends_done(conn, NULL, &done);
	rpcrdma__sends_release(&done);
}

void rpcrdma__conn_drain_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct rpcrdma__conn *conn = rpcrdma__container_of(cqe, struct rpcrdma__conn, drain.cqe);

	(void)wc;   /* flushed, normally; success is as good */
	/* Sends that completed without asking for a completion, after the
	 * last one that did: the drain completes after them all. */
	sends_release_all(conn);
	rpcrdma__conn_put(conn);
}

void rpcrdma__conn_close(struct rpcrdma__conn *conn, const char *why)
{
	bool drop;

	pthread_mutex_lock(&conn->lock);
	drop = !conn->closing_started;
	conn->closing_started = true;
	conn->state = RPCRDMA__CONN_CLOSING;
	pthread_mutex_unlock(&conn->lock);
	if (!drop)
		return;
	RPCRDMA_TRACE(conn_close, conn->conn_id, why, atomic_load(&conn->outstanding));
	rpcrdma__conn_log(conn->l, RPCRDMA_LOG_CONN_CLOSED, conn->id, why, 0);
	rpcrdma__bc_conn_close(conn);
	/* Moves the QP to the error state: every posted WR completes flushed. */
	rdma_disconnect(conn->id);
	if (conn->qp) {
		struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
		struct ibv_send_wr wr = { .wr_id = (uintptr_t)&conn->drain, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		ibv_modify_qp(conn->qp, &attr, IBV_QP_STATE);
		/* Receives taken from a shared queue are not flushed: only
		 * this Send's completion, queued after theirs, tells that the
		 * poller has handled them; and Sends that completed silently
		 * are given back by it.  The send queue keeps a WR for it.  If
		 * the QP refuses it all the same, it takes no more work and
		 * completes none: the Sends are given back at once. */
		conn->drain.cqe.done = rpcrdma__conn_drain_done;
		rpcrdma__conn_get(conn);
		if (ibv_post_send(conn->qp, &wr, &bad)) {
			sends_release_all(conn);
			rpcrdma__conn_put(conn);
		}
	}
	rpcrdma__budget_conn_close(conn);  /* calls waiting to be pulled */
	/* Chains still waiting for send-queue room are never posted. */
	for (;;) {
		struct rpcrdma__list *n;

		pthread_mutex_lock(&conn->lock);
		n = rpcrdma__list_pop(&conn->sq_wait);
		pthread_mutex_unlock(&conn->lock);
		if (!n)
			break;
		struct rpcrdma__ctxt *c = rpcrdma__container_of(n, struct rpcrdma__ctxt, node);

		if (is_send(c))
			rpcrdma__send_abort((struct rpcrdma__send *)c);
		else
			rpcrdma__read_abort((struct rpcrdma__read *)c);
	}
	/* Calls waiting for a send context are released unanswered. */
	rpcrdma__recv_resume(conn);
	rpcrdma__conn_put(conn);      /* the "connected" reference */
}

void rpcrdma__conn_wc_failed(struct rpcrdma__conn *conn, const struct ibv_wc *wc,
			     const char *what)
{
	if (wc->status == IBV_WC_SUCCESS)
		return;
	RPCRDMA_TRACE(wc_error, conn->conn_id, wc->status, ibv_wc_status_str(wc->status), what,
		      wc->opcode, wc->vendor_err);
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_FLUSHED, 1);
	} else {
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_ERR_WC, 1);
		rpcrdma__conn_close(conn, what);
	}
}

/* ---- send-queue accounting ---- */

/*
 * conn->lock held: posts first (NULL: nothing more) behind the chains
 * conn's batch queued, as one list.  0, or ibv_post_send's error with
 * *lost set when queued chains (already counted as posted, on conn->sends)
 * went unposted: the connection is then closed (conn_post_lost), and the
 * drain gives their Sends back.
 */
static int post_locked(struct rpcrdma__conn *conn, struct ibv_send_wr *chain, bool *lost)
{
	struct ibv_send_wr *bad = NULL, *head = chain, *queued = conn->bq_head;
	int err;

	if (queued) {
		conn->bq_tail->next = chain;
		head = queued;
		conn->bq_head = conn->bq_tail = NULL;
	}
	if (!head)
		return 0;
	err = ibv_post_send(conn->qp, head, &bad);
	if (rpcrdma__unlikely(err && queued))
		goto out_queued;
	return err;

out_queued:
	/* Everything before bad went out: the queue did if bad is chain's. */
	for (struct ibv_send_wr *w = chain; w; w = w->next)
		if (w == bad)
			return err;
	*lost = true;
	return err;
}

/* A batch's post failed (post_locked): count it and close the connection. */
static void conn_post_lost(struct rpcrdma__conn *conn)
{
	rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_SENDS_BATCH_LOST, 1);
	rpcrdma__conn_close(conn, "posting a batch of replies failed");
}

/* The end of the batch that queued conn's replies: one post for them all. */
static void conn_batch_flush(struct rpcrdma__batch_item *it)
{
	struct rpcrdma__conn *conn = rpcrdma__container_of(it, struct rpcrdma__conn, bq);
	bool lost = false;

	pthread_mutex_lock(&conn->lock);
	conn->bq_listed = false;
	if (conn->state == RPCRDMA__CONN_CLOSING)
		conn->bq_head = conn->bq_tail = NULL;   /* the drain gives them back */
	else if (post_locked(conn, NULL, &lost))
		lost = true;
	pthread_mutex_unlock(&conn->lock);
	if (rpcrdma__unlikely(lost))
		conn_post_lost(conn);
	rpcrdma__conn_put(conn);        /* the batch's reference */
}

/* conn->lock held, inside a batch: queues a reply's chain of n WRs from
 * first (contiguous: first[n - 1] is its Send), posted at the batch's end. */
static void batch_queue_locked(struct rpcrdma__conn *conn, struct ibv_send_wr *first, unsigned n)
{
	if (conn->bq_head) {
		conn->bq_tail->next = first;
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_SENDS_BATCHED, 1);
	} else {
		conn->bq_head = first;
	}
	conn->bq_tail = &first[n - 1];
	if (!conn->bq_listed) {
		conn->bq_listed = true;
		conn->bq.flush = conn_batch_flush;
		rpcrdma__conn_get(conn);
		rpcrdma__batch_add(&conn->bq);
	}
}

static int conn_post(struct rpcrdma__conn *conn, struct ibv_send_wr *first, unsigned n,
		     struct rpcrdma__list *node, bool may_batch)
{
	bool send = is_send(rpcrdma__container_of(node, struct rpcrdma__ctxt, node));
	bool lost = false;
	int err = 0;

	/* Longer chains could wait for room forever (see conn->sends). */
	if (n > conn->sq_depth - conn->sig_every)
		return -EMSGSIZE;
	rpcrdma__conn_get(conn);
	pthread_mutex_lock(&conn->lock);
	if (conn->state == RPCRDMA__CONN_CLOSING) {
		err = -ENOTCONN;
	} else if (conn->sq_avail < n || !rpcrdma__list_empty(&conn->sq_wait)) {
		rpcrdma__list_add_tail(&conn->sq_wait, node);
		RPCRDMA_TRACE(sq_wait, conn->conn_id, n, conn->sq_avail, send);
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_SQ_STARVED, 1);
	} else {
		/* A lone Send (an inline reply) goes silent but once in
		 * sig_every; a chain's Send asks, so that its bulk buffer
		 * comes back at once. */
		bool quiet = send && n == 1 && conn->unsignaled + 1 < conn->sig_every;

		if (quiet)
			first->send_flags &= ~(unsigned)IBV_SEND_SIGNALED;
		conn->sq_avail -= n;
		RPCRDMA__PCAP(conn->l->pcap,
			      rpcrdma__pcap_post(conn->l->pcap, &conn->pcap, conn->id, true, first));
		if (send && may_batch && rpcrdma__batch_open())
			batch_queue_locked(conn, first, n);
		else
			err = post_locked(conn, first, &lost);
		if (err) {
			first->send_flags |= IBV_SEND_SIGNALED;
			conn->sq_avail += n;
			err = -err;
		} else if (send) {
			conn->unsignaled = quiet ? conn->unsignaled + 1 : 0;
			rpcrdma__list_add_tail(&conn->sends, node);
			if (quiet)
				rpcrdma__count(&conn->stats, &conn->l->stats,
					       RPCRDMA_STAT_SENDS_UNSIGNALED, 1);
		}
	}
	pthread_mutex_unlock(&conn->lock);
	if (rpcrdma__unlikely(lost))
		conn_post_lost(conn);
	if (err)
		rpcrdma__conn_put(conn);
	return err;
}

int rpcrdma__conn_post(struct rpcrdma__conn *conn, struct ibv_send_wr *first, unsigned n,
		       struct rpcrdma__list *node)
{
	return conn_post(conn, first, n, node, false);
}

int rpcrdma__conn_post_reply(struct rpcrdma__conn *conn, struct ibv_send_wr *first, unsigned n,
			     struct rpcrdma__list *node)
{
	return conn_post(conn, first, n, node, true);
}

static struct ibv_send_wr *chain_head(struct rpcrdma__ctxt *c, unsigned *n)
{
	if (is_send(c)) {
		struct rpcrdma__send *s = (struct rpcrdma__send *)c;

		*n = s->nwr;
		return s->wrs;
	}
	*n = ((struct rpcrdma__read *)c)->nwr;
	return ((struct rpcrdma__read *)c)->wrs;
}

/* conn->lock held: posts the waiting chains that fit now, in order
 * (behind the chains a batch queued).  *lost: see post_locked. */
static void sq_post_waiting(struct rpcrdma__conn *conn, bool *lost)
{
	while (conn->state != RPCRDMA__CONN_CLOSING && !rpcrdma__list_empty(&conn->sq_wait)) {
		struct rpcrdma__ctxt *c =
			rpcrdma__container_of(conn->sq_wait.next, struct rpcrdma__ctxt, node);
		unsigned need;
		struct ibv_send_wr *wr = chain_head(c, &need);

		if (conn->sq_avail < need)
			break;
		rpcrdma__list_del(&c->node);
		RPCRDMA_TRACE(sq_resume, conn->conn_id, need, conn->sq_avail);
		conn->sq_avail -= need;
		RPCRDMA__PCAP(conn->l->pcap,
			      rpcrdma__pcap_post(conn->l->pcap, &conn->pcap, conn->id, true, wr));
		if (post_locked(conn, wr, lost)) {
			/* The QP is broken: the close path completes it. */
			conn->sq_avail += need;
			rpcrdma__list_add_tail(&conn->sq_wait, &c->node);
			break;
		}
		if (is_send(c)) {
			/* Signaled, as prep_send left it. */
			conn->unsignaled = 0;
			rpcrdma__list_add_tail(&conn->sends, &c->node);
		}
	}
}

void rpcrdma__conn_sq_release(struct rpcrdma__conn *conn, unsigned n)
{
	bool lost = false;

	pthread_mutex_lock(&conn->lock);
	conn->sq_avail += n;
	sq_post_waiting(conn, &lost);
	pthread_mutex_unlock(&conn->lock);
	if (rpcrdma__unlikely(lost))
		conn_post_lost(conn);
}

void rpcrdma__conn_sends_done(struct rpcrdma__conn *conn, struct rpcrdma__list *node,
			      struct rpcrdma__list *done)
{
	bool lost = false;
	unsigned n = 0;

	pthread_mutex_lock(&conn->lock);
	for (;;) {
		struct rpcrdma__list *x = rpcrdma__list_pop(&conn->sends);

		if (!x)
			break;
		rpcrdma__list_add_tail(done, x);
		n += rpcrdma__container_of(x, struct rpcrdma__send, c.node)->nwr;
		if (x == node)
			break;
	}
	conn->sq_avail += n;
	sq_post_waiting(conn, &lost);
	pthread_mutex_unlock(&conn->lock);
	if (rpcrdma__unlikely(lost))
		conn_post_lost(conn);
}


/* ---- accept ---- */

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

int rpcrdma__conn_send_pool(struct rpcrdma__conn *conn)
{
	return rpcrdma__pool_init(&conn->send_pool, conn->dev->pd, rpcrdma__send_done,
				  rpcrdma_credits_grant(&conn->credits) + 8 + conn->sig_every,
				  sizeof(struct rpcrdma__send), conn->send_inline,
				  IBV_ACCESS_LOCAL_WRITE);
}

int rpcrdma__conn_recv_more(struct rpcrdma__conn *conn)
{
	int err;

	if (conn->on_srq || conn->have_recv_more || !conn->recv_more_n)
		return 0;
	err = rpcrdma__pool_init(&conn->recv_more, conn->dev->pd, rpcrdma__recv_done,
				 conn->recv_more_n, sizeof(struct rpcrdma_call),
				 conn->l->opts.recv_inline, IBV_ACCESS_LOCAL_WRITE);
	if (err)
		return err;
	conn->have_recv_more = true;
	return rpcrdma__recv_post_pool(conn, &conn->recv_more);
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
	if (rdma_accept(conn->id, &param))
		return -errno;
	return 0;
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
