/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Limits on a listener's connections (xprt.h, CONNECTION LIMITS): the idle
 * timeout's sweep, the connection cap that closes the least recently
 * active connection; and rpcrdma_listener_foreach_conn.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "rdma_internal.h"

/* ---- the connection cap ---- */

/* Listener lock held: a connection that counts (accepted, neither
 * closing nor being freed).  One still in rpcrdma__conn_accept has no
 * reference, CQ or QP yet: closing it freed it under the accept. */
static bool conn_open(const struct rpcrdma__conn *c)
{
	return c->accepted && !c->closing_started && !c->freeing;
}

static bool conn_busy(const struct rpcrdma__conn *c)
{
	return atomic_load_explicit(&c->outstanding, memory_order_relaxed) != 0;
}

void rpcrdma__conn_cap(struct rpcrdma_listener *l)
{
	struct rpcrdma__conn *idle = NULL, *any = NULL, *victim;
	uint32_t open = 0;

	if (!l->opts.max_conns)
		return;
	pthread_mutex_lock(&l->lock);
	for (struct rpcrdma__list *n = l->conns.next; n != &l->conns; n = n->next) {
		struct rpcrdma__conn *c = rpcrdma__container_of(n, struct rpcrdma__conn, lnode);
		uint64_t t = atomic_load_explicit(&c->last_ns, memory_order_relaxed);

		if (!conn_open(c))
			continue;
		open++;
		if (!any || t < atomic_load_explicit(&any->last_ns, memory_order_relaxed))
			any = c;
		if (!conn_busy(c) &&
		    (!idle || t < atomic_load_explicit(&idle->last_ns, memory_order_relaxed)))
			idle = c;
	}
	victim = open >= l->opts.max_conns ? (idle ? idle : any) : NULL;
	if (victim)
		rpcrdma__conn_get(victim);
	pthread_mutex_unlock(&l->lock);
	if (!victim)
		return;
	rpcrdma__count(&victim->stats, &l->stats, RPCRDMA_STAT_CAP_CLOSES, 1);
	rpcrdma__conn_close(victim, "connection cap");
	rpcrdma__conn_put(victim);
}

/* ---- the idle timeout ---- */

/* The first idle connection (a reference taken), or NULL. */
static struct rpcrdma__conn *find_idle(struct rpcrdma_listener *l, uint64_t now)
{
	uint64_t span = (uint64_t)l->opts.idle_timeout_ms * 1000000u;
	struct rpcrdma__conn *found = NULL;

	pthread_mutex_lock(&l->lock);
	for (struct rpcrdma__list *n = l->conns.next; n != &l->conns; n = n->next) {
		struct rpcrdma__conn *c = rpcrdma__container_of(n, struct rpcrdma__conn, lnode);
		uint64_t t = atomic_load_explicit(&c->last_ns, memory_order_relaxed);

		/* t after now: active (or accepted) since the sweep read the
		 * clock; now - t would wrap to idle for ages. */
		if (conn_open(c) && !conn_busy(c) && t <= now && now - t >= span) {
			found = c;
			rpcrdma__conn_get(c);
			break;
		}
	}
	pthread_mutex_unlock(&l->lock);
	return found;
}

static int idle_handle(struct rpcrdma__source *s, unsigned budget)
{
	struct rpcrdma_listener *l = rpcrdma__container_of(s, struct rpcrdma_listener, idle_src);
	uint64_t now = rpcrdma__coarse_ns();
	struct rpcrdma__conn *c;
	int n = 0;

	(void)budget;
	rpcrdma__timer_ack(s);
	/* One at a time: closing takes the connection's lock, not ours.  A
	 * closed one is closing_started, and is not found again. */
	while ((c = find_idle(l, now))) {
		rpcrdma__count(&c->stats, &l->stats, RPCRDMA_STAT_IDLE_CLOSES, 1);
		rpcrdma__conn_close(c, "idle timeout");
		rpcrdma__conn_put(c);
		n++;
	}
	return n;
}

int rpcrdma__idle_start(struct rpcrdma_listener *l)
{
	unsigned period = l->opts.idle_timeout_ms / 4;
	bool armed = false;
	int err;

	if (!l->opts.idle_timeout_ms)
		return 0;
	if (period < 100)
		period = 100;
	if (period > 10000)
		period = 10000;
	err = rpcrdma__timer_open(&l->idle_src);
	if (err)
		return err;
	l->idle_src.handle = idle_handle;
	err = rpcrdma__poller_add(l->poller, &l->idle_src);
	if (err) {
		close(l->idle_src.fd);
		l->idle_src.fd = -1;
		return err;
	}
	rpcrdma__timer_arm(&l->idle_src, &armed, true, period, period);
	return 0;
}

void rpcrdma__idle_stop(struct rpcrdma_listener *l)
{
	if (l->idle_src.fd >= 0)
		rpcrdma__poller_del(l->poller, &l->idle_src);
}

/* ---- listing ---- */

int rpcrdma_listener_foreach_conn(struct rpcrdma_listener *l,
				  void (*fn)(uint64_t, uint32_t, const struct rpcrdma_stats *, void *),
				  void *arg)
{
	struct rpcrdma_stats st;
	void *p;
	int n = 0;

	if (!l || !fn)
		return -EINVAL;
	pthread_mutex_lock(&l->lock);
	for (int id = 1; (id = rpcrdma_idr_get_next(l->conn_ids, id, &p)) >= 0; id++) {
		struct rpcrdma__conn *c = p;

		rpcrdma__counters_read(&c->stats, &st);
		fn(c->conn_id, rpcrdma_credits_grant(&c->credits), &st, arg);
		n++;
		if (id == INT_MAX)
			break;
	}
	pthread_mutex_unlock(&l->lock);
	return n;
}
