/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client transport: connect with RFC 8797 private data, call encoding
 * (inline, read chunks, position zero), write and reply chunks, credit
 * following, reply matching by xid, timeout and reconnect.  This file:
 * options, create and destroy, synchronous calls, abort; the other files,
 * from the top down, and what they share: rdma_client_int.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* Takes call back from the calls waiting for the grant: true when it
 * was there (its done callback is then never called). */
static bool sync_unqueue(struct rpcrdma_client *c, struct rpcrdma_client_call *call)
{
	bool found = false;

	pthread_mutex_lock(&c->lock);
	for (struct rpcrdma__list *n = c->waiting.next; n != &c->waiting; n = n->next) {
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
	return found;
}

/* A call timed out: counts it and breaks the current connection, if any,
 * with -ETIMEDOUT (shared by the sync wait and by rpcrdma__client_abort). */
static void timeout_break(struct rpcrdma_client *c)
{
	struct cconn *cc;

	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_TIMEOUTS, 1);
	pthread_mutex_lock(&c->lock);
	cc = c->cc;
	if (cc)
		atomic_fetch_add(&cc->refs, 1);
	pthread_mutex_unlock(&c->lock);
	if (cc) {
		rpcrdma__client_break(c, cc, -ETIMEDOUT);
		cconn_put(cc);
	}
}

/* w->m held, call timed out: drops the connection (the call completes
 * -ECONNRESET) or takes the call back if it still waits for credits.
 * Returns with w->m held and w->done. */
static void sync_timeout(struct rpcrdma_client *c, struct rpcrdma_client_call *call,
			 struct sync_wait *w)
{
	pthread_mutex_unlock(&w->m);
	timeout_break(c);
	pthread_mutex_lock(&w->m);
	while (!w->done) {
		bool found;

		pthread_mutex_unlock(&w->m);
		found = sync_unqueue(c, call);
		pthread_mutex_lock(&w->m);
		if (found) {
			w->done = true;
			w->status = -ETIMEDOUT;
		} else if (!w->done) {
			pthread_cond_wait(&w->cv, &w->m);
		}
	}
}

bool rpcrdma__client_abort(struct rpcrdma_client *c, struct rpcrdma_client_call *call)
{
	if (sync_unqueue(c, call))
		return true;
	timeout_break(c);
	return false;
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
	/* Made in a batch (a completion handler's, a service's): its Send
	 * goes before the wait for its reply. */
	rpcrdma__batch_flush();
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
			sync_timeout(c, call, &w);
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
	c->recv_done = rpcrdma__client_recv_done;
	c->send_done = rpcrdma__client_send_done;
	c->poller = poller;
	atomic_init(&c->ready, false);
	memcpy(&c->dst, dst, dst->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
							 sizeof(struct sockaddr_in6));
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->connect_lock, NULL);
	pthread_cond_init(&c->reap_cv, NULL);
	rpcrdma__list_init(&c->waiting);
	rpcrdma__bcache_init(&c->creq_cache, 2 * opts.max_credits);
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
	if (!err)
		err = rpcrdma__pcap_open(opts.pcap_path, &c->pcap);
	if (!err) {
		err = rpcrdma__timer_open(&c->reap_src);
	}
	if (!err) {
		c->reap_src.handle = rpcrdma__client_reaper_handle;
		err = rpcrdma__poller_add(poller, &c->reap_src);
		c->reap_added = !err;
	}
	if (!err)
		err = rpcrdma__client_connect(c);
	if (err) {
		reaper_stop(c);
		rpcrdma__client_reap(c, true);
		if (c->reap_src.fd >= 0)
			close(c->reap_src.fd);
		free(c->xbuckets);
		rpcrdma__pcap_close(c->pcap);
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
		rpcrdma__client_break(c, cc, -ECANCELED);
		cconn_put(cc);
	}
	/* Wait until every WR of every connection flushed, then free. */
	reaper_stop(c);
	rpcrdma__client_reap(c, true);
	close(c->reap_src.fd);
	while (!rpcrdma__list_empty(&c->waiting)) {
		struct creq *r = rpcrdma__container_of(rpcrdma__list_pop(&c->waiting), struct creq, node);

		pthread_mutex_lock(&c->lock);
		xid_del(c, r);
		pthread_mutex_unlock(&c->lock);
		r->done(r->call, -ECANCELED, r->arg);
		free(r);
	}
	for (struct creq *r; (r = creq_block_pop(&c->creq_cache));)
		free(r);
	free(c->xbuckets);  /* empty: every call completed */
	rpcrdma__pcap_close(c->pcap);
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
