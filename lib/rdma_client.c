/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client transport: connect with RFC 8797 private data, call encoding
 * (inline, read chunks, position zero), write and reply chunks, credit
 * following, reply matching by xid, timeout and reconnect.  This file:
 * options, create and destroy, synchronous calls; the rest is in
 * rdma_client_conn.c, rdma_client_send.c and rdma_client_reply.c
 * (rdma_client_int.h lists what they share).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "diag_int.h"
#include "rdma_client_int.h"

void rpcrdma_client_opts_init(struct rpcrdma_client_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->max_credits = 32;
	o->recv_inline = 4096;
	o->send_inline = 4096;
	o->connect_timeout_ms = 5000;
	o->reconnect_min_ms = 100;
	o->reconnect_max_ms = 2000;
}

/* ---- registered bounce buffers (their rule: rdma_client_int.h) ---- */

static size_t buf_class(size_t len)
{
	size_t c = 4096;

	while (c < len && c < ((size_t)1 << 40))
		c <<= 1;
	return c;
}

/* A buffer of at least len bytes with `access`; b->len = len. */
static int bufs_get(struct cconn *cc, struct rpcrdma__mrbuf *b, size_t len, int access)
{
	struct rpcrdma__list *l = access == BUF_WRITE ? &cc->wbufs : &cc->rbufs;
	size_t cls = buf_class(len);
	struct rpcrdma__mrbuf *hit = NULL;
	int err;

	pthread_mutex_lock(&cc->buf_lock);
	for (struct rpcrdma__list *n = l->next; n != l; n = n->next) {
		struct rpcrdma__mrbuf *x = rpcrdma__container_of(n, struct rpcrdma__mrbuf, node);

		if (x->cap == cls) {
			hit = x;
			rpcrdma__list_del(n);
			cc->buf_bytes -= x->cap;
			break;
		}
	}
	pthread_mutex_unlock(&cc->buf_lock);
	if (hit) {
		*b = *hit;
		free(hit);
	} else {
		err = rpcrdma__mrbuf_alloc(b, cc->pd, cls, access);
		if (err)   /* -ENOBUFS means "wait for a send buffer" to req_send's callers */
			return err == -ENOBUFS ? -ENOMEM : err;
		b->cap = cls;
	}
	b->len = len;
	rpcrdma__list_init(&b->node);
	return 0;
}

/* Keeps b for later calls (or frees it past the cap); b is zeroed. */
void rpcrdma__clt_bufs_put(struct cconn *cc, struct rpcrdma__mrbuf *b, int access)
{
	struct rpcrdma__mrbuf *keep;

	if (!b->mr)
		return;
	pthread_mutex_lock(&cc->buf_lock);
	if (cc->buf_bytes + b->cap <= BUF_CACHE_MAX && (keep = malloc(sizeof(*keep)))) {
		*keep = *b;
		rpcrdma__list_add_tail(access == BUF_WRITE ? &cc->wbufs : &cc->rbufs, &keep->node);
		cc->buf_bytes += b->cap;
		pthread_mutex_unlock(&cc->buf_lock);
		memset(b, 0, sizeof(*b));
		return;
	}
	pthread_mutex_unlock(&cc->buf_lock);
	rpcrdma__mrbuf_free(b);
}

void rpcrdma__clt_bufs_fini(struct cconn *cc)
{
	struct rpcrdma__list *lists[2] = { &cc->rbufs, &cc->wbufs }, *n;

	for (int i = 0; i < 2; i++) {
		while ((n = rpcrdma__list_pop(lists[i]))) {
			struct rpcrdma__mrbuf *b = rpcrdma__container_of(n, struct rpcrdma__mrbuf, node);

			rpcrdma__mrbuf_free(b);
			free(b);
		}
	}
	pthread_mutex_destroy(&cc->buf_lock);
}

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
	rpcrdma__clt_bufs_fini(cc);
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
void rpcrdma__clt_reap(struct rpcrdma_client *c, bool wait)
{
	for (;;) {
		struct cconn *found = NULL;
		bool busy = false;

		pthread_mutex_lock(&c->lock);
		for (struct rpcrdma__list *n = c->graveyard.next; n != &c->graveyard; n = n->next) {
			struct cconn *cc = rpcrdma__container_of(n, struct cconn, gnode);

			if (atomic_load(&cc->refs) == 0) {
				found = cc;
				rpcrdma__list_del(&cc->gnode);
				ready_update(c);
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
		rpcrdma__clt_send_release(c, cc, d);
		cconn_put(cc);
	}
}

/*
 * Breaks the current connection: fails the calls sent on it.  Takes the
 * client lock itself.  The connection is freed when its last WR flushed.
 */
void rpcrdma__clt_break(struct rpcrdma_client *c, struct cconn *cc, int status)
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
	ready_update(c);
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

	rdma_disconnect(cc->id);
	if (cc->qp) {
		struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

		ibv_modify_qp(cc->qp, &attr, IBV_QP_STATE);
		cconn_drain(c, cc);
	}
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_DISCONNECTS, 1);
	while (!rpcrdma__list_empty(&failed)) {
		struct creq *r = rpcrdma__container_of(rpcrdma__list_pop(&failed), struct creq, node);

		req_release(cc, r);
		r->done(r->call, status, r->arg);
		free(r);
	}
	if (was_current)
		cconn_put(cc);
}

/* Client lock held.  Every 20 ms while on: rpcrdma__clt_reaper_handle frees what has
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
int rpcrdma__clt_reaper_handle(struct rpcrdma__source *s, unsigned budget)
{
	struct rpcrdma_client *c = rpcrdma__container_of(s, struct rpcrdma_client, reap_src);
	bool empty;

	(void)budget;
	rpcrdma__timer_ack(s);
	rpcrdma__clt_reap(c, false);
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

static int cm_client_handle(struct rpcrdma__source *s, unsigned budget)
{
	struct cconn *cc = rpcrdma__container_of(s, struct cconn, cm_src);
	struct rdma_cm_event *ev;
	int n = 0;

	while ((unsigned)n < budget && rdma_get_cm_event(cc->ech, &ev) == 0) {
		enum rdma_cm_event_type type = ev->event;

		rdma_ack_cm_event(ev);
		n++;
		if (type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			/* Calls in flight fail with -ENODEV; rpcrdma__clt_reap() frees the rest. */
			if (!atomic_exchange(&cc->dev_removed, true))
				rpcrdma__count(&cc->c->stats, NULL, RPCRDMA_STAT_DEVICE_REMOVALS, 1);
			rpcrdma__clt_break(cc->c, cc, -ENODEV);
			pthread_mutex_lock(&cc->c->lock);
			reaper_arm(cc->c, true);
			pthread_mutex_unlock(&cc->c->lock);
		} else if (type == RDMA_CM_EVENT_DISCONNECTED || type == RDMA_CM_EVENT_CONNECT_ERROR) {
			rpcrdma__clt_break(cc->c, cc, -ECONNRESET);
		}
	}
	return n;
}

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

static int cconn_open(struct rpcrdma_client *c, struct cconn **out)
{
	struct rpcrdma_cm_private ours, peer;
	struct rdma_conn_param param;
	struct ibv_device_attr attr;
	uint8_t pdata[RPCRDMA_CM_PRIVATE_SIZE];
	struct cconn *cc;
	struct rpcrdma__ctxt *x;
	int err, tmo = c->opts.connect_timeout_ms;
	uint32_t credits = c->opts.max_credits, nrecv;

	cc = calloc(1, sizeof(*cc));
	if (!cc)
		return -ENOMEM;
	cc->c = c;
	atomic_init(&cc->dead, false);
	atomic_init(&cc->refs, 1);
	pthread_mutex_init(&cc->buf_lock, NULL);
	rpcrdma__list_init(&cc->rbufs);
	rpcrdma__list_init(&cc->wbufs);
	rpcrdma__list_init(&cc->posted);
	cc->ech = rdma_create_event_channel();
	if (!cc->ech) {
		err = -errno;
		goto fail;
	}
	if (rdma_create_id(cc->ech, &cc->id, cc, RDMA_PS_TCP)) {
		err = -errno;
		cc->id = NULL;
		goto fail;
	}
	if (rdma_resolve_addr(cc->id, NULL, (struct sockaddr *)&c->dst, tmo)) {
		err = -errno;
		goto fail;
	}
	err = wait_event(cc->ech, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, tmo);
	if (err)
		goto fail;
	if (rdma_resolve_route(cc->id, tmo)) {
		err = -errno;
		goto fail;
	}
	err = wait_event(cc->ech, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, tmo);
	if (err)
		goto fail;
	if (ibv_query_device(cc->id->verbs, &attr)) {
		err = -EIO;
		goto fail;
	}
	cc->pd = ibv_alloc_pd(cc->id->verbs);
	if (!cc->pd) {
		err = -ENOMEM;
		goto fail;
	}
	cc->sq_depth = credits * 2 + 4;
	if (cc->sq_depth > (uint32_t)attr.max_qp_wr)
		cc->sq_depth = (uint32_t)attr.max_qp_wr;
	if (credits > (uint32_t)attr.max_qp_wr)
		credits = (uint32_t)attr.max_qp_wr;
	/* One more Send than the pool holds: the drain (rpcrdma__clt_break).  The
	 * receives: the credits and the early slack (rpcrdma__clt_recv_done). */
	nrecv = credits + RPCRDMA__EARLY_SLACK;
	if (nrecv > (uint32_t)attr.max_qp_wr)
		nrecv = (uint32_t)attr.max_qp_wr;
	cc->early_slack = nrecv - credits;
	cc->cq_entries = (int)(cc->sq_depth + 1 + nrecv);
	err = rpcrdma__poller_cq_get(c->poller, cc->id->verbs, cc->cq_entries, &cc->cq);
	if (err) {
		cc->cq = NULL;
		goto fail;
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
		goto fail;
	cc->qp = cc->id->qp;
	cc->max_inline = qa.cap.max_inline_data;
	err = rpcrdma__pool_init(&cc->recv_pool, cc->pd, RPCRDMA__WR_CLT_RECV, nrecv,
				 sizeof(struct crecv), c->opts.recv_inline, IBV_ACCESS_LOCAL_WRITE);
	if (err)
		goto fail;
	err = rpcrdma__pool_init(&cc->send_pool, cc->pd, RPCRDMA__WR_CLT_SEND, cc->sq_depth,
				 sizeof(struct csend), c->opts.send_inline, IBV_ACCESS_LOCAL_WRITE);
	if (err)
		goto fail;
	cc->sig_every = cc->sq_depth / 4 < RPCRDMA__SIG_EVERY ? cc->sq_depth / 4 :
								RPCRDMA__SIG_EVERY;
	if (cc->sig_every == 0)
		cc->sig_every = 1;
	cc->drain = calloc(1, sizeof(*cc->drain));
	if (!cc->drain) {
		err = -ENOMEM;
		goto fail;
	}
	cc->drain->c.type = RPCRDMA__WR_CLT_SEND;   /* no pool: see rpcrdma__clt_send_release */
	cc->drain->cc = cc;
	ours.remote_invalidate = false;  /* plain MRs: no remote invalidation */
	ours.inline_send = c->opts.send_inline;
	ours.inline_recv = c->opts.recv_inline;
	rpcrdma_cm_private_encode(pdata, sizeof(pdata), &ours);
	memset(&param, 0, sizeof(param));
	param.private_data = pdata;
	param.private_data_len = sizeof(pdata);
	param.responder_resources = (uint8_t)(attr.max_qp_rd_atom > 255 ? 255 : attr.max_qp_rd_atom);
	param.initiator_depth = (uint8_t)(attr.max_qp_init_rd_atom > 255 ? 255 :
					  attr.max_qp_init_rd_atom);
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(cc->id, &param)) {
		err = -errno;
		goto fail;
	}
	err = wait_event(cc->ech, RDMA_CM_EVENT_ESTABLISHED, &peer, tmo);
	if (err)
		goto fail;
	/*
	 * Receives are posted only now: the server sends nothing before our
	 * first call, and a QP that never reached RTS may never flush the
	 * receives posted to it (seen with rxe on Linux 6.1), which would keep
	 * a failed connection from ever being freed.
	 */
	while ((x = rpcrdma__pool_get(&cc->recv_pool))) {
		err = post_recv(cc, (struct crecv *)x);
		if (err)
			goto fail_connected;
	}
	cc->send_max = c->opts.send_inline < peer.inline_recv ? c->opts.send_inline :
								peer.inline_recv;
	fcntl(cc->ech->fd, F_SETFL, fcntl(cc->ech->fd, F_GETFL) | O_NONBLOCK);
	cc->cm_src.fd = cc->ech->fd;
	cc->cm_src.handle = cm_client_handle;
	err = rpcrdma__poller_add(c->poller, &cc->cm_src);
	if (err)
		goto fail_connected;
	cc->cm_added = true;
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_CONNECTS, 1);
	*out = cc;
	return 0;
fail_connected:
	rdma_disconnect(cc->id);
fail:
	/* A flush completion (the CM may have moved the QP to error already)
	 * may have broken it first: then it is in the graveyard already. */
	pthread_mutex_lock(&c->lock);
	if (!cc->dead) {
		cc->dead = true;
		rpcrdma__list_add_tail(&c->graveyard, &cc->gnode);
		ready_update(c);
	}
	pthread_mutex_unlock(&c->lock);
	if (cc->qp) {
		struct ibv_qp_attr qattr = { .qp_state = IBV_QPS_ERR };

		ibv_modify_qp(cc->qp, &qattr, IBV_QP_STATE);
	}
	cconn_put(cc);  /* freed by rpcrdma__clt_reap() once posted receives flushed */
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
int rpcrdma__clt_connect(struct rpcrdma_client *c)
{
	struct cconn *cc;
	int err = 0;

	pthread_mutex_lock(&c->connect_lock);
	rpcrdma__clt_reap(c, false);
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
			ready_update(c);
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

/* ---- sending ---- */

static struct rpcrdma_segment mr_seg(const struct rpcrdma__mrbuf *b)
{
	struct rpcrdma_segment s = {
		.handle = b->mr->rkey,
		.length = (uint32_t)b->len,
		.offset = (uintptr_t)b->addr,
	};
	return s;
}

/* Builds and posts the Send of r on cc (client lock held). */
static int req_send(struct rpcrdma_client *c, struct cconn *cc, struct creq *r)
{
	struct rpcrdma_client_call *call = r->call;
	struct rpcrdma_call_desc d = { .xid = r->xid, .credits = c->opts.max_credits,
				       .type = RPCRDMA_MSG };
	struct rpcrdma_read_segment rs[2];
	struct rpcrdma_segment ws, rps;
	uint32_t wsegs = 1, nrs = 0;
	size_t total = rpcrdma__iov_total(call->iov, call->iovcnt), cut = 0, cutlen = 0, hmax, body;
	struct csend *s;
	struct ibv_send_wr *bad;
	int hlen, err;

	s = (struct csend *)rpcrdma__pool_get_owned(&cc->send_pool);
	if (!s)
		return -ENOBUFS;
	if (call->reply_bulk && call->reply_bulk_len) {
		err = bufs_get(cc, &r->wr, call->reply_bulk_len, BUF_WRITE);
		if (err)
			goto fail;
		ws = mr_seg(&r->wr);
		d.writes = &ws;
		d.nwrites = 1;
		d.write_chunk_segs = &wsegs;
		d.write_chunks = 1;
	}
	if (call->reply_len + RPCRDMA_HDRLEN_MIN > c->opts.recv_inline) {
		err = bufs_get(cc, &r->rp, call->reply_len, BUF_WRITE);
		if (err)
			goto fail;
		rps = mr_seg(&r->rp);
		d.has_reply = true;
		d.reply = &rps;
		d.nreply = 1;
	}
	/*
	 * Too long to send inline: the data item by read chunk at its
	 * position, the rest inline (RDMA_MSG); when even the rest does not
	 * fit, the rest by position-zero read chunk (RDMA_NOMSG) with the
	 * data item still in its own read chunk at its position in the call
	 * (RFC 8166 section 3.5.3); without a data item, the whole call by
	 * position-zero read chunk.
	 */
	/* RDMA_MSG, no read chunk (all empty lists: the shortest header) */
	hmax = d.nwrites || d.has_reply ? rpcrdma_call_hdr_size(&d) : RPCRDMA_HDRLEN_MIN;
	if (hmax + total > cc->send_max) {
		hmax += RPCRDMA_READ_ENTRY_SIZE;          /* RDMA_MSG + 1 entry */
		if (call->bulk_length) {
			size_t pad = (4 - (call->bulk_length & 3)) & 3;

			cut = call->bulk_offset;
			cutlen = call->bulk_length;
			if (pad <= total - cut - cutlen)
				cutlen += pad;
			err = bufs_get(cc, &r->rd, call->bulk_length, BUF_READ);
			if (err)
				goto fail;
			rpcrdma__iov_copy(r->rd.addr, call->iov, call->iovcnt, cut, call->bulk_length);
		}
		if (!call->bulk_length || hmax + total - cutlen > cc->send_max) {
			/* The call (without the data item) by position zero. */
			err = bufs_get(cc, &r->pz, total - cutlen, BUF_READ);
			if (err)
				goto fail;
			rpcrdma__iov_copy_without(r->pz.addr, call->iov, call->iovcnt, total, cut,
						  cutlen);
			rs[nrs].position = 0;
			rs[nrs++].seg = mr_seg(&r->pz);
			d.type = RPCRDMA_NOMSG;
		}
		if (call->bulk_length) {
			rs[nrs].position = (uint32_t)cut;
			rs[nrs++].seg = mr_seg(&r->rd);
		}
		d.reads = rs;
		d.nreads = nrs;
		rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_CALLS_READ, 1);
	}
	hlen = rpcrdma_encode_call(s->c.buf, s->c.pool->buf_size, &d);
	body = d.type == RPCRDMA_NOMSG ? 0 : total - cutlen;
	if (hlen < 0 || (size_t)hlen + body > cc->send_max) {
		err = hlen < 0 ? hlen : -EMSGSIZE;
		goto fail;
	}
	if (body)
		rpcrdma__iov_copy_without(s->c.buf + hlen, call->iov, call->iovcnt, total, cut,
					  cutlen);
	s->cc = cc;
	s->sge.addr = (uintptr_t)s->c.buf;
	s->sge.length = (uint32_t)(hlen + body);
	s->sge.lkey = s->c.lkey;
	/* Every field a Send's provider reads (no memset of the rest). */
	s->wr.wr_id = (uintptr_t)&s->c;
	s->wr.next = NULL;
	s->wr.imm_data = 0;
	s->wr.sg_list = &s->sge;
	s->wr.num_sge = 1;
	s->wr.opcode = IBV_WR_SEND;
	bool sig = cc->unsignaled + 1 >= cc->sig_every;

	s->wr.send_flags = sig ? IBV_SEND_SIGNALED : 0;
	if (s->sge.length <= cc->max_inline)
		s->wr.send_flags |= IBV_SEND_INLINE;
	r->cc = cc;
	atomic_fetch_add(&cc->refs, 1);
	err = ibv_post_send(cc->qp, &s->wr, &bad);
	if (err) {
		atomic_fetch_sub(&cc->refs, 1);
		err = -err;
		goto fail;
	}
	cc->unsignaled = sig ? 0 : cc->unsignaled + 1;
	rpcrdma__list_add_tail(&cc->posted, &s->c.node);
	if (s->wr.send_flags & IBV_SEND_INLINE)
		rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_SENDS_INLINE, 1);
	if (!sig)
		rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_SENDS_UNSIGNALED, 1);
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_CALLS, 1);
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_BYTES_SENT, s->sge.length);
	return 0;
fail:
	req_release(cc, r);
	rpcrdma__pool_put_owned(&s->c);
	return err;
}

/* Sends waiting calls while the grant allows (client lock held).  Calls
 * that cannot be encoded are moved to *failed. */
void rpcrdma__clt_pump_locked(struct rpcrdma_client *c, struct rpcrdma__list *failed, int *status)
{
	struct cconn *cc = c->cc;

	while (cc && !cc->dead && !rpcrdma__list_empty(&c->waiting) &&
	       c->inflight < rpcrdma_client_credits_grant(&c->credits)) {
		struct creq *r = rpcrdma__container_of(c->waiting.next, struct creq, node);
		int err = req_send(c, cc, r);

		if (err == -ENOBUFS)
			break;  /* send buffers come back with send completions */
		rpcrdma__list_del(&r->node);
		if (err) {
			*status = err;
			xid_del(c, r);
			rpcrdma__list_add_tail(failed, &r->node);
			continue;
		}
		rpcrdma__list_add_tail(&c->sent, &r->node);
		if (++c->inflight > c->max_inflight)
			c->max_inflight = c->inflight;
	}
}

int rpcrdma_client_call_async(struct rpcrdma_client *c, struct rpcrdma_client_call *call,
			      rpcrdma_client_done done, void *arg)
{
	struct creq *r;
	int err;

	size_t total;

	if (!c || !call || !done || call->size < sizeof(*call) || !call->iov)
		return -EINVAL;
	total = rpcrdma__iov_total(call->iov, call->iovcnt);
	if (total < 4 || (call->reply_len && !call->reply_buf) ||
	    call->bulk_offset + call->bulk_length > total ||
	    (call->bulk_length && (call->bulk_offset < 4 || (call->bulk_offset & 3))))
		return -EINVAL;
	err = client_connected(c);
	if (err)
		return err;
	uint32_t xid;

	if (rpcrdma__likely(call->iov[0].iov_len >= 4))
		memcpy(&xid, call->iov[0].iov_base, 4);
	else
		rpcrdma__iov_copy((uint8_t *)&xid, call->iov, call->iovcnt, 0, 4);
	call->reply_got = call->bulk_got = 0;
	pthread_mutex_lock(&c->lock);
	if (!c->cc || c->cc->dead) {
		/* Broken since we connected: nothing would ever send or fail a
		 * call queued now. */
		pthread_mutex_unlock(&c->lock);
		return -ENOTCONN;
	}
	r = creq_get(c);
	if (!r) {
		pthread_mutex_unlock(&c->lock);
		return -ENOMEM;
	}
	r->call = call;
	r->done = done;
	r->arg = arg;
	r->xid = xid;
	err = xid_add(c, r);
	if (err) {
		creq_put(c, r);
		pthread_mutex_unlock(&c->lock);
		return err;
	}
	/*
	 * Sent at once when nothing waits before it and the grant allows; a
	 * call that cannot be sent then is refused here (done is never
	 * called on the caller's thread, which may hold the lock its done
	 * callback takes).  Otherwise it waits: a reply (grant) or a send
	 * completion (send buffer) pumps the queue, a break fails it.
	 */
	if (rpcrdma__list_empty(&c->waiting) &&
	    c->inflight < rpcrdma_client_credits_grant(&c->credits)) {
		err = req_send(c, c->cc, r);
		if (!err) {
			rpcrdma__list_add_tail(&c->sent, &r->node);
			if (++c->inflight > c->max_inflight)
				c->max_inflight = c->inflight;
			pthread_mutex_unlock(&c->lock);
			return 0;
		}
		if (err != -ENOBUFS) {
			xid_del(c, r);
			creq_put(c, r);
			pthread_mutex_unlock(&c->lock);
			return err;
		}
	}
	rpcrdma__list_add_tail(&c->waiting, &r->node);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* ---- completions ---- */

/*
 * Gives back s and every Send posted before it (their completions, if
 * any, came first) to the send pool, and all but one of their references
 * (the caller's cconn_put drops the last, and wakes a reaper); true when
 * calls wait, perhaps for a send buffer.
 */
bool rpcrdma__clt_send_release(struct rpcrdma_client *c, struct cconn *cc, struct csend *s)
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

void rpcrdma__clt_send_done(struct rpcrdma__ctxt *x, const struct ibv_wc *wc)
{
	struct csend *s = (struct csend *)x;
	struct cconn *cc = s->cc;
	struct rpcrdma_client *c = cc->c;
	/* A call that found no send buffer waits in c->waiting (under the
	 * client lock, as the buffers come back): the pump sends it. */
	bool waiters = rpcrdma__clt_send_release(c, cc, s);

	if (wc->status != IBV_WC_SUCCESS) {
		if (s != cc->drain)
			rpcrdma__count(&c->stats, NULL, wc->status == IBV_WC_WR_FLUSH_ERR ?
				       RPCRDMA_STAT_FLUSHED : RPCRDMA_STAT_ERR_WC, 1);
		rpcrdma__clt_break(c, cc, -ECONNRESET);
	} else if (waiters) {
		pump(c);
	}
	cconn_put(cc);
}

/* ---- synchronous calls ---- */

struct sync_wait {
	pthread_mutex_t m;
	pthread_cond_t cv;
	bool done;
	int status;
};

static void sync_done(struct rpcrdma_client_call *call, int status, void *arg)
{
	struct sync_wait *w = arg;

	(void)call;
	pthread_mutex_lock(&w->m);
	w->done = true;
	w->status = status;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->m);
}

int rpcrdma_client_call(struct rpcrdma_client *c, struct rpcrdma_client_call *call, int timeout_ms)
{
	struct sync_wait w = { .done = false };
	struct timespec dl;
	int err;

	pthread_mutex_init(&w.m, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w.cv, &ca);
	pthread_condattr_destroy(&ca);
	err = rpcrdma_client_call_async(c, call, sync_done, &w);
	if (err)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w.m);
	while (!w.done) {
		if (timeout_ms <= 0) {
			pthread_cond_wait(&w.cv, &w.m);
		} else if (pthread_cond_timedwait(&w.cv, &w.m, &dl) == ETIMEDOUT && !w.done) {
			struct cconn *cc;

			pthread_mutex_unlock(&w.m);
			/* Drop the connection: the call completes -ECONNRESET. */
			rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_TIMEOUTS, 1);
			pthread_mutex_lock(&c->lock);
			cc = c->cc;
			if (cc)
				atomic_fetch_add(&cc->refs, 1);
			pthread_mutex_unlock(&c->lock);
			if (cc) {
				rpcrdma__clt_break(c, cc, -ETIMEDOUT);
				cconn_put(cc);
			}
			pthread_mutex_lock(&w.m);
			while (!w.done) {
				/* Still waiting for credits: take it back. */
				bool found = false;

				pthread_mutex_unlock(&w.m);
				pthread_mutex_lock(&c->lock);
				for (struct rpcrdma__list *n = c->waiting.next; n != &c->waiting;
				     n = n->next) {
					struct creq *q = rpcrdma__container_of(n, struct creq, node);

					if (q->call == call) {
						rpcrdma__list_del(&q->node);
						xid_del(c, q);
						free(q);
						found = true;
						break;
					}
				}
				pthread_mutex_unlock(&c->lock);
				pthread_mutex_lock(&w.m);
				if (found) {
					w.done = true;
					w.status = -ETIMEDOUT;
				} else if (!w.done) {
					pthread_cond_wait(&w.cv, &w.m);
				}
			}
			break;
		}
	}
	err = w.status;
	pthread_mutex_unlock(&w.m);
out:
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.m);
	return err;
}

/* ---- lifetime ---- */

/* Removes the reaper from the poller (waiting out a running round).  Its
 * timerfd stays open until every connection is freed: a CM handler may
 * still arm it, to no effect. */
static void reaper_stop(struct rpcrdma_client *c)
{
	if (c->reap_added)
		rpcrdma__poller_del(c->poller, &c->reap_src);
}

int rpcrdma_client_create(struct rpcrdma_poller *poller, const struct sockaddr *dst,
			  const struct rpcrdma_client_opts *uopts, struct rpcrdma_client **out)
{
	if (out)
		*out = NULL; /* api.h: a failed create leaves *out NULL */
	struct rpcrdma_client_opts opts;
	struct rpcrdma_client *c;
	int err;

	if (!poller || !dst || !out || (dst->sa_family != AF_INET && dst->sa_family != AF_INET6))
		return -EINVAL;
	rpcrdma_client_opts_init(&opts);
	if (uopts) {
		if (uopts->size < sizeof(size_t) || uopts->size > sizeof(opts))
			return -EINVAL;
		memcpy(&opts, uopts, uopts->size);
		opts.size = sizeof(opts);
	}
	if (opts.max_credits == 0 || opts.max_credits > 1024 || opts.recv_inline < 1024 ||
	    opts.recv_inline > 65536 || opts.send_inline < 1024 || opts.send_inline > 65536 ||
	    opts.connect_timeout_ms <= 0 || opts.reconnect_min_ms < 0 ||
	    opts.reconnect_max_ms < opts.reconnect_min_ms || opts.reconnect_max_ms > 600000)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->opts = opts;
	c->poller = poller;
	atomic_init(&c->ready, false);
	memcpy(&c->dst, dst, dst->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
							 sizeof(struct sockaddr_in6));
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->connect_lock, NULL);
	pthread_cond_init(&c->reap_cv, NULL);
	rpcrdma__list_init(&c->waiting);
	rpcrdma__list_init(&c->creq_cache);
	rpcrdma__list_init(&c->sent);
	rpcrdma__list_init(&c->graveyard);
	rpcrdma_client_credits_init(&c->credits, opts.max_credits);
	c->reap_src.fd = -1;
	/* Four buckets a credit (at least 64): in-flight xids are spread. */
	c->xmask = 63;
	while (c->xmask < 4u * opts.max_credits - 1)
		c->xmask = c->xmask * 2 + 1;
	c->xbuckets = calloc(c->xmask + 1u, sizeof(*c->xbuckets));
	err = c->xbuckets ? 0 : -ENOMEM;
	if (!err) {
		err = rpcrdma__timer_open(&c->reap_src);
	}
	if (!err) {
		c->reap_src.handle = rpcrdma__clt_reaper_handle;
		err = rpcrdma__poller_add(poller, &c->reap_src);
		c->reap_added = !err;
	}
	if (!err)
		err = client_connected(c);
	if (err) {
		reaper_stop(c);
		rpcrdma__clt_reap(c, true);
		if (c->reap_src.fd >= 0)
			close(c->reap_src.fd);
		free(c->xbuckets);
		pthread_cond_destroy(&c->reap_cv);
		pthread_mutex_destroy(&c->lock);
		pthread_mutex_destroy(&c->connect_lock);
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

void rpcrdma_client_destroy(struct rpcrdma_client *c)
{
	struct cconn *cc;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	cc = c->cc;
	if (cc)
		atomic_fetch_add(&cc->refs, 1);
	pthread_mutex_unlock(&c->lock);
	if (cc) {
		rpcrdma__clt_break(c, cc, -ECANCELED);
		cconn_put(cc);
	}
	/* Wait until every WR of every connection flushed, then free. */
	reaper_stop(c);
	rpcrdma__clt_reap(c, true);
	close(c->reap_src.fd);
	while (!rpcrdma__list_empty(&c->waiting)) {
		struct creq *r = rpcrdma__container_of(rpcrdma__list_pop(&c->waiting), struct creq, node);

		pthread_mutex_lock(&c->lock);
		xid_del(c, r);
		pthread_mutex_unlock(&c->lock);
		r->done(r->call, -ECANCELED, r->arg);
		free(r);
	}
	while (!rpcrdma__list_empty(&c->creq_cache))
		free(rpcrdma__container_of(rpcrdma__list_pop(&c->creq_cache), struct creq, node));
	free(c->xbuckets);  /* empty: every call completed */
	pthread_cond_destroy(&c->reap_cv);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->connect_lock);
	free(c);
}

uint32_t rpcrdma_client_credits(const struct rpcrdma_client *c)
{
	return rpcrdma_client_credits_grant(&c->credits);
}

uint32_t rpcrdma_client_max_inflight(const struct rpcrdma_client *c)
{
	return c->max_inflight;
}

int rpcrdma_client_backoff_ms(const struct rpcrdma_client *c)
{
	return atomic_load(&c->backoff_ms);
}

void rpcrdma_client_stats(const struct rpcrdma_client *c, struct rpcrdma_stats *out)
{
	rpcrdma__counters_read(&c->stats, out);
}
