/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Server connections: references, close and teardown, send-queue
 * accounting, the pools made on the first call.  Accept is in
 * rdma_accept.c, the device's resources in rdma_dev.c, the listener in
 * rdma_listener.c, device removal in rdma_devrm.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_backward.h"
#include "rdma_internal.h"
#include "util/diag_int.h"
#include "util/trace.h"

/* ---- references and teardown ---- */

static void conn_free(struct rpcrdma__conn *conn)
{
	struct rpcrdma_listener *l = conn->l;
	struct rpcrdma__dev *dev = conn->dev;
	unsigned lost, spread_idx = conn->spread_idx;

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
	l->spread_conns[spread_idx]--;
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

/*
 * After the QP went to the error state: receives taken from a shared queue
 * are not flushed; only a Send's completion, queued after theirs, tells
 * that the poller has handled them, and Sends that completed silently are
 * given back by it.  The send queue keeps a WR for it.  If the QP refuses
 * it all the same, it takes no more work and completes none: the Sends are
 * given back at once.  (Not on iWARP: see conn->no_drain.)
 */
static void conn_drain(struct rpcrdma__conn *conn)
{
	struct ibv_send_wr wr = { .wr_id = (uintptr_t)&conn->drain, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	conn->drain.cqe.done = rpcrdma__conn_drain_done;
	rpcrdma__conn_get(conn);
	if (ibv_post_send(conn->qp, &wr, &bad)) {
		sends_release_all(conn);
		rpcrdma__conn_put(conn);
	}
}

/*
 * iWARP's close.  Soft-iWARP completes no WR its user posts once the QP
 * left RTS: libsiw writes it into the ring it shares with the kernel,
 * which flushes that ring only when it moves the QP to ERR itself (the
 * peer's close, siw_qp_llp_close) or from RTS, and never again once it is
 * in ERR.  A reply posted after the peer was killed, a receive posted
 * again, Reads waiting in the ORQ at a graceful close: none completes,
 * and each holds a reference.  And the flush at the peer's close can run
 * after ours (siw's CM work racing rdma_disconnect).  So, in two steps on
 * the thread that polls the connection's CQ:
 *  - conn_quiet, once the completions the QP raised before the close's
 *    move to ERR are handled (the successful ones: in ERR it raises
 *    none): its number leaves the QP map (no receive of the shared queue
 *    is left in the CQ to look for it, and a new QP may take it), and the
 *    QP is destroyed, which waits in the kernel for every user of it, the
 *    late flush included: the device touches none of its buffers after;
 *  - conn_gone, once the completions raised until then are handled too:
 *    what is still accounted as posted never completes, and is given
 *    back (Sends, Read chains, receives of its own queue), with the
 *    "connected" reference.
 * Over RoCE the drain WR (conn_drain) orders the same: flushes do come.
 */
static void conn_gone(struct rpcrdma__cq_wait *w)
{
	struct rpcrdma__conn *conn = rpcrdma__container_of(w, struct rpcrdma__conn, gone);
	struct rpcrdma__pool *pools[2] = {
		conn->have_recv_pool ? &conn->recv_pool : NULL,
		conn->have_recv_more ? &conn->recv_more : NULL,
	};
	struct rpcrdma__list *n;
	unsigned given = 0;

	sends_release_all(conn);
	for (;;) {
		pthread_mutex_lock(&conn->lock);
		n = rpcrdma__list_pop(&conn->reads);
		pthread_mutex_unlock(&conn->lock);
		if (!n)
			break;
		given++;
		rpcrdma__read_abort(rpcrdma__container_of(n, struct rpcrdma__read, c.node));
	}
	for (unsigned k = 0; k < 2; k++) {
		for (unsigned i = 0; pools[k] && i < pools[k]->count; i++) {
			struct rpcrdma_call *call =
				(struct rpcrdma_call *)(pools[k]->ctxts + i * pools[k]->ctxt_size);

			if (!call->posted)
				continue;
			call->posted = false;
			given++;
			rpcrdma__pool_put(&call->c);
			rpcrdma__conn_put(conn);
		}
	}
	RPCRDMA_TRACE(conn_gone, conn->conn_id, given);
	rpcrdma__conn_put(conn);        /* the "connected" reference */
}

static void conn_quiet(struct rpcrdma__cq_wait *w)
{
	struct rpcrdma__conn *conn = rpcrdma__container_of(w, struct rpcrdma__conn, gone);
	struct rpcrdma_listener *l = conn->l;

	pthread_mutex_lock(&l->lock);
	rpcrdma__qpmap_del(conn->dev, conn);
	pthread_mutex_unlock(&l->lock);
	rdma_destroy_qp(conn->id);
	pthread_mutex_lock(&conn->lock);
	conn->qp = NULL;                /* closing: nothing posts on it any more */
	pthread_mutex_unlock(&conn->lock);
	w->fn = conn_gone;
	rpcrdma__cq_after(conn->cq, w);
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
	rpcrdma__disconnect(conn->id);
	if (conn->qp) {
		rpcrdma__qp_error(conn->qp);
		if (!conn->no_drain)
			conn_drain(conn);
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
	if (conn->no_drain && conn->qp) {
		conn->gone.fn = conn_quiet;     /* it drops the "connected" reference */
		rpcrdma__cq_after(conn->cq, &conn->gone);
		return;
	}
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
	err = rpcrdma__post_send(conn->qp, head, &bad);
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
		if (send && may_batch && !conn->no_drain && rpcrdma__batch_open())
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
		} else {
			rpcrdma__list_add_tail(&conn->reads, node);
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
		} else {
			rpcrdma__list_add_tail(&conn->reads, &c->node);
		}
	}
}

void rpcrdma__conn_reads_done(struct rpcrdma__conn *conn, struct rpcrdma__list *node, unsigned n)
{
	bool lost = false;

	pthread_mutex_lock(&conn->lock);
	rpcrdma__list_del(node);
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

/* ---- the pools made on a connection's first call ---- */

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
