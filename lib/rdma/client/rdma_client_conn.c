/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client's connections once open: the Sends they give back, break on
 * a disconnect, error completion or timeout, drain, reap once every work
 * request flushed (rdma_client_connect.c opens them).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/diag_int.h"
#include "rdma_client_int.h"

/* ---- connection lifetime ---- */

static void cconn_free(struct cconn *cc)
{
	unsigned lost = (cc->recv_pool.count - cc->recv_pool.nfree) +
			(cc->send_pool.count - cc->send_pool.nfree);

	if (lost)
		rpcrdma__count(&cc->c->stats, NULL, RPCRDMA_STAT_CTXT_LOST, lost);
	if (cc->cm_added)
		rpcrdma__poller_del(cc->c->poller, &cc->cm_src);
	if (cc->qp)
		rdma_destroy_qp(cc->id);
	rpcrdma__pool_fini(&cc->recv_pool);
	rpcrdma__pool_fini(&cc->send_pool);
	free(cc->drain);
	rpcrdma__client_bufs_fini(cc);
	if (cc->cq)
		rpcrdma__poller_cq_put(cc->cq, cc->cq_entries);
	/* After a device removal nothing of ours may stay on the device, or
	 * the kernel's delete waits for us: the CQ goes with its last user. */
	if (cc->cq && atomic_load(&cc->dev_removed))
		rpcrdma__poller_cq_drop(cc->c->poller, cc->cq);
	if (cc->pd)
		ibv_dealloc_pd(cc->pd);
	if (cc->id)
		rdma_destroy_id(cc->id);
	if (cc->ech)
		rdma_destroy_event_channel(cc->ech);
	free(cc);
}

/* Frees the dead connections whose work requests all completed. */
void rpcrdma__client_reap(struct rpcrdma_client *c, bool wait)
{
	/* A batch this thread holds (a connect from a done callback) holds
	 * its connection: posted before waiting for it. */
	if (wait)
		rpcrdma__batch_flush();
	for (;;) {
		struct cconn *found = NULL;
		bool busy = false;

		pthread_mutex_lock(&c->lock);
		for (struct rpcrdma__list *n = c->graveyard.next; n != &c->graveyard; n = n->next) {
			struct cconn *cc = rpcrdma__container_of(n, struct cconn, gnode);

			if (atomic_load(&cc->refs) == 0) {
				found = cc;
				rpcrdma__list_del(&cc->gnode);
				client_ready_update(c);
				break;
			}
			busy = true;
		}
		if (!found && busy && wait && c->poller->opts.mode != RPCRDMA_POLLER_DIRECT) {
			/* Woken by the cconn_put() that drops a last reference. */
			struct timespec dl;

			clock_gettime(CLOCK_REALTIME, &dl);
			dl.tv_sec += 1;
			pthread_cond_timedwait(&c->reap_cv, &c->lock, &dl);
		}
		pthread_mutex_unlock(&c->lock);
		if (found) {
			cconn_free(found);
			continue;
		}
		if (!busy || !wait)
			return;
		if (c->poller->opts.mode == RPCRDMA_POLLER_DIRECT)
			rpcrdma_poller_poll(c->poller, 0);
	}
}

/*
 * Gives back s and every Send posted before it (their completions, if
 * any, came first) to the send pool, and all but one of their references
 * (the caller's cconn_put drops the last, and wakes a reaper); true when
 * calls wait, perhaps for a send buffer.
 */
bool rpcrdma__client_send_release(struct rpcrdma_client *c, struct cconn *cc, struct csend *s)
{
	bool waiters;
	int n = 0;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct rpcrdma__list *x = rpcrdma__list_pop(&cc->posted);

		if (!x)
			break;  /* not reached: s is on the list */
		n++;
		if (x == &cc->drain->c.node)
			break;  /* the drain is the last, and no pool's */
		rpcrdma__pool_put_owned(rpcrdma__container_of(x, struct rpcrdma__ctxt, node));
		if (x == &s->c.node)
			break;
	}
	waiters = !rpcrdma__list_empty(&c->waiting);
	pthread_mutex_unlock(&c->lock);
	if (n > 1)
		atomic_fetch_sub_explicit(&cc->refs, n - 1, memory_order_acq_rel);
	return waiters;
}

/*
 * After the QP went to the error state: Sends that completed without
 * asking for a completion are given back only by a later completion, so
 * one more, signaled, Send is posted; its flush comes after every other
 * Send's.  If even that cannot be posted, the QP takes no more work and
 * completes none: everything posted is given back at once.
 */
static void cconn_drain(struct rpcrdma_client *c, struct cconn *cc)
{
	struct csend *d = cc->drain;
	struct ibv_send_wr *bad;
	bool empty;

	pthread_mutex_lock(&c->lock);
	empty = rpcrdma__list_empty(&cc->posted);
	/* Sends a batch queued, never posted, are before it on posted: it
	 * gives them back too (the batch's flush then finds none). */
	cc->bq_head = cc->bq_tail = NULL;
	if (!empty) {
		memset(&d->wr, 0, sizeof(d->wr));
		d->wr.wr_id = (uintptr_t)&d->c;
		d->wr.opcode = IBV_WR_SEND;
		d->wr.send_flags = IBV_SEND_SIGNALED;
		rpcrdma__list_add_tail(&cc->posted, &d->c.node);
		atomic_fetch_add(&cc->refs, 1);
		if (ibv_post_send(cc->qp, &d->wr, &bad) == 0)
			d = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	if (!empty && d) {
		rpcrdma__client_send_release(c, cc, d);
		cconn_put(cc);
	}
}

/*
 * Breaks the current connection: fails the calls sent on it.  Takes the
 * client lock itself.  The connection is freed when its last WR flushed.
 */
void rpcrdma__client_break(struct rpcrdma_client *c, struct cconn *cc, int status)
{
	struct rpcrdma__list failed;
	bool was_current;

	rpcrdma__list_init(&failed);
	pthread_mutex_lock(&c->lock);
	if (cc->dead) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	cc->dead = true;
	rpcrdma__client_log(c->opts.log_fn, c->opts.log_arg, (struct sockaddr *)&c->dst, status);
	rpcrdma__list_add_tail(&c->graveyard, &cc->gnode);
	was_current = c->cc == cc;
	if (was_current)
		c->cc = NULL;
	client_ready_update(c);
	for (struct rpcrdma__list *n = c->sent.next; n != &c->sent;) {
		struct creq *r = rpcrdma__container_of(n, struct creq, node);

		n = n->next;
		if (r->cc == cc) {
			rpcrdma__list_del(&r->node);
			rpcrdma__list_add_tail(&failed, &r->node);
			xid_del(c, r);
			c->inflight--;
		}
	}
	/* Calls queued behind the grant were meant for this connection too:
	 * fail them rather than leave them waiting for a reply that lets
	 * them go (the next call reconnects). */
	if (was_current) {
		while (!rpcrdma__list_empty(&c->waiting)) {
			struct rpcrdma__list *n = rpcrdma__list_pop(&c->waiting);

			xid_del(c, rpcrdma__container_of(n, struct creq, node));
			rpcrdma__list_add_tail(&failed, n);
		}
	}
	rpcrdma_client_credits_init(&c->credits, c->opts.max_credits);
	pthread_mutex_unlock(&c->lock);

	rpcrdma__disconnect(cc->id);
	if (cc->qp) {
		rpcrdma__qp_error(cc->qp);
		if (!cc->no_drain)
			cconn_drain(c, cc);
	}
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_DISCONNECTS, 1);
	while (!rpcrdma__list_empty(&failed)) {
		struct creq *r = rpcrdma__container_of(rpcrdma__list_pop(&failed), struct creq, node);

		rpcrdma__client_req_release(cc, r);
		r->done(r->call, status, r->arg);
		free(r);
	}
	if (was_current)
		cconn_put(cc);
}

/* Client lock held.  Every 20 ms while on: rpcrdma__client_reaper_handle frees what has
 * flushed. */
static void reaper_arm(struct rpcrdma_client *c, bool on)
{
	rpcrdma__timer_arm(&c->reap_src, &c->reap_armed, on, 1, 20);
}

/* Poller thread: frees the dead connections whose work requests all
 * completed (freeing removes their CM source from the poller, which a
 * thread may do for sources other than the one it is handling), then lets
 * librdmacm close the removed device: it does so once it resyncs its
 * device list with no id left there, which asking for the list does. */
int rpcrdma__client_reaper_handle(struct rpcrdma__source *s, unsigned budget)
{
	struct rpcrdma_client *c = rpcrdma__container_of(s, struct rpcrdma_client, reap_src);
	bool empty;

	(void)budget;
	rpcrdma__timer_ack(s);
	rpcrdma__client_reap(c, false);
	pthread_mutex_lock(&c->lock);
	empty = rpcrdma__list_empty(&c->graveyard);
	if (empty)
		reaper_arm(c, false);  /* under the lock: a new death re-arms after */
	pthread_mutex_unlock(&c->lock);
	if (empty) {
		struct ibv_context **list = rdma_get_devices(NULL);

		if (list)
			rdma_free_devices(list);
	}
	return 1;
}

int rpcrdma__client_cm_handle(struct rpcrdma__source *s, unsigned budget)
{
	struct cconn *cc = rpcrdma__container_of(s, struct cconn, cm_src);
	struct rdma_cm_event *ev;
	int n = 0;

	while ((unsigned)n < budget && rdma_get_cm_event(cc->ech, &ev) == 0) {
		enum rdma_cm_event_type type = ev->event;

		rdma_ack_cm_event(ev);
		n++;
		if (type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			/* Calls in flight fail with -ENODEV; rpcrdma__client_reap() frees the rest. */
			if (!atomic_exchange(&cc->dev_removed, true))
				rpcrdma__count(&cc->c->stats, NULL, RPCRDMA_STAT_DEVICE_REMOVALS, 1);
			rpcrdma__client_break(cc->c, cc, -ENODEV);
			pthread_mutex_lock(&cc->c->lock);
			reaper_arm(cc->c, true);
			pthread_mutex_unlock(&cc->c->lock);
		} else if (type == RDMA_CM_EVENT_DISCONNECTED || type == RDMA_CM_EVENT_CONNECT_ERROR) {
			rpcrdma__client_break(cc->c, cc, -ECONNRESET);
		}
	}
	return n;
}
