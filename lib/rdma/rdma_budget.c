/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The listener's options (defaults and checks) and its read budget: the
 * registered bytes calls' read chunks are pulled into, bounded over the
 * listener and per connection (xprt.h, READ BUDGET).  A call that does not
 * fit waits in its receive buffer, holding its credit, and is started by a
 * poller thread when a release makes room: nothing blocks, and a waiting
 * call is either pulled or released with its connection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rdma_internal.h"

void rpcrdma_listener_opts_init(struct rpcrdma_listener_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->max_credits = 64;
	o->recv_inline = 4096;
	o->send_inline = 4096;
	o->srq_depth = 2048;
	o->use_srq = 1;
	o->max_call_bytes = RPCRDMA_MAX_CALL_BYTES_DEFAULT;
	o->garbage_limit = 16;
	o->backlog = 64;
	o->bulk_cache_bytes = 64u << 20;
	o->read_budget_bytes = 64u << 20;
	o->read_conn_bytes = 16u << 20;
	o->idle_timeout_ms = 360000;
	o->max_conns = 256;
}

int rpcrdma__listener_opts_get(const struct rpcrdma_listener_opts *uopts,
			       struct rpcrdma_listener_opts *opts)
{
	size_t one;

	rpcrdma_listener_opts_init(opts);
	if (uopts) {
		if (uopts->size < sizeof(size_t) || uopts->size > sizeof(*opts))
			return -EINVAL;
		memcpy(opts, uopts, uopts->size);
		opts->size = sizeof(*opts);
	}
	if (opts->max_credits == 0 || opts->max_credits > 65535 || opts->recv_inline < 1024 ||
	    opts->recv_inline > 65536 || opts->send_inline < 1024 || opts->send_inline > 65536 ||
	    (opts->use_srq && opts->srq_depth == 0))
		return -EINVAL;
	/* One call of max_call_bytes always fits: a connection's share and
	 * the listener's budget are raised to it, so no call waits forever. */
	one = rpcrdma__mrcache_class(opts->max_call_bytes);
	if (opts->read_conn_bytes < one)
		opts->read_conn_bytes = one;
	if (opts->read_budget_bytes < opts->read_conn_bytes)
		opts->read_budget_bytes = opts->read_conn_bytes;
	return 0;
}

/* ---- accounting ---- */

static void peak(struct rpcrdma__counters *st, size_t used)
{
	if (st && used > atomic_load_explicit(&st->v[RPCRDMA_STAT_READ_BYTES_PEAK],
					      memory_order_relaxed))
		atomic_store_explicit(&st->v[RPCRDMA_STAT_READ_BYTES_PEAK], used,
				      memory_order_relaxed);
}

void rpcrdma__rb_init(struct rpcrdma__rb *b, size_t limit, size_t conn_limit,
		      struct rpcrdma__counters *stats)
{
	pthread_mutex_init(&b->lock, NULL);
	b->limit = limit;
	b->conn_limit = conn_limit;
	b->used = 0;
	b->nwaiting = 0;
	b->stats = stats;
	rpcrdma__list_init(&b->ready);
}

void rpcrdma__rb_fini(struct rpcrdma__rb *b)
{
	pthread_mutex_destroy(&b->lock);
}

void rpcrdma__rb_conn_init(struct rpcrdma__rb_conn *c, struct rpcrdma__counters *stats)
{
	memset(c, 0, sizeof(*c));
	rpcrdma__list_init(&c->waiting);
	rpcrdma__list_init(&c->rnode);
	c->stats = stats;
}

static struct rpcrdma__rb_wait *first_wait(struct rpcrdma__rb_conn *c)
{
	if (rpcrdma__list_empty(&c->waiting))
		return NULL;
	return rpcrdma__container_of(c->waiting.next, struct rpcrdma__rb_wait, node);
}

/* b->lock: c is on the ready list exactly when its first waiting call fits
 * its share; one that becomes ready goes to the end. */
static void ready_update(struct rpcrdma__rb *b, struct rpcrdma__rb_conn *c)
{
	struct rpcrdma__rb_wait *w = first_wait(c);
	bool ready = w && !c->dead && c->used + w->bytes <= b->conn_limit;

	if (ready == c->ready)
		return;
	if (ready)
		rpcrdma__list_add_tail(&b->ready, &c->rnode);
	else
		rpcrdma__list_del(&c->rnode);
	c->ready = ready;
}

/* b->lock: whether the first ready connection's first call fits now. */
static bool admittable(const struct rpcrdma__rb *b)
{
	const struct rpcrdma__rb_conn *c;

	if (rpcrdma__list_empty(&b->ready))
		return false;
	c = rpcrdma__container_of(b->ready.next, struct rpcrdma__rb_conn, rnode);
	return b->used + first_wait((struct rpcrdma__rb_conn *)c)->bytes <= b->limit;
}

static void charge(struct rpcrdma__rb *b, struct rpcrdma__rb_conn *c, struct rpcrdma__rb_wait *w)
{
	b->used += w->bytes;
	c->used += w->bytes;
	w->held = true;
	peak(b->stats, b->used);
	peak(c->stats, c->used);
}

int rpcrdma__rb_take(struct rpcrdma__rb *b, struct rpcrdma__rb_conn *c,
		     struct rpcrdma__rb_wait *w, size_t bytes)
{
	int ret;

	w->bytes = bytes;
	w->held = false;
	pthread_mutex_lock(&b->lock);
	if (c->dead) {
		ret = -ENOTCONN;
	} else if (rpcrdma__list_empty(&c->waiting) && rpcrdma__list_empty(&b->ready) &&
		   c->used + bytes <= b->conn_limit && b->used + bytes <= b->limit) {
		charge(b, c, w);
		ret = 1;
	} else {
		/* Behind its connection's earlier calls and the connections
		 * already waiting: it waits its turn. */
		rpcrdma__list_add_tail(&c->waiting, &w->node);
		b->nwaiting++;
		ready_update(b, c);
		ret = admittable(b) ? 2 : 0;
		if (c->stats)
			rpcrdma__count(c->stats, b->stats, RPCRDMA_STAT_READ_WAITS, 1);
	}
	pthread_mutex_unlock(&b->lock);
	return ret;
}

bool rpcrdma__rb_put(struct rpcrdma__rb *b, struct rpcrdma__rb_conn *c,
		     struct rpcrdma__rb_wait *w)
{
	bool more;

	pthread_mutex_lock(&b->lock);
	if (w->held) {
		b->used -= w->bytes;
		c->used -= w->bytes;
		w->held = false;
	}
	ready_update(b, c);
	more = admittable(b);
	pthread_mutex_unlock(&b->lock);
	return more;
}

struct rpcrdma__rb_wait *rpcrdma__rb_next(struct rpcrdma__rb *b, struct rpcrdma__rb_conn **conn)
{
	struct rpcrdma__rb_wait *w = NULL;

	pthread_mutex_lock(&b->lock);
	if (admittable(b)) {
		struct rpcrdma__rb_conn *c =
			rpcrdma__container_of(b->ready.next, struct rpcrdma__rb_conn, rnode);

		w = first_wait(c);
		rpcrdma__list_del(&w->node);
		b->nwaiting--;
		charge(b, c, w);
		/* Round robin: its next call, if any, goes behind the others. */
		rpcrdma__list_del(&c->rnode);
		c->ready = false;
		ready_update(b, c);
		*conn = c;
	}
	pthread_mutex_unlock(&b->lock);
	return w;
}

void rpcrdma__rb_conn_drain(struct rpcrdma__rb *b, struct rpcrdma__rb_conn *c,
			    struct rpcrdma__list *out)
{
	struct rpcrdma__list *n;

	pthread_mutex_lock(&b->lock);
	c->dead = true;
	ready_update(b, c);
	while ((n = rpcrdma__list_pop(&c->waiting))) {
		rpcrdma__list_add_tail(out, n);
		b->nwaiting--;
	}
	pthread_mutex_unlock(&b->lock);
}

/* ---- the transport's use of it ---- */

static void kick(struct rpcrdma_listener *l)
{
	uint64_t one = 1;

	if (write(l->rb_src.fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is full, so a wakeup is pending anyway. */
	}
}

/* Whether this thread is starting a call admitted after waiting (start). */
static _Thread_local bool starting;
bool rpcrdma__budget_starting(void)
{
	return starting;
}

/* Pulls a call admitted after waiting; a failure is answered as it would
 * have been on arrival.  A call with nothing to pull is delivered here,
 * on this thread (rpcrdma__budget_starting tells its handler). */
static void start(struct rpcrdma_call *call)
{
	starting = true;
	int err = rpcrdma__read_chunks(call);
	starting = false;

	if (err)
		rpcrdma__recv_pull_failed(call, err);
}

/* The eventfd's handler, on a poller thread: starts what fits now. */
static int rb_handle(struct rpcrdma__source *s, unsigned budget)
{
	struct rpcrdma_listener *l = rpcrdma__container_of(s, struct rpcrdma_listener, rb_src);
	struct rpcrdma__rb_conn *c;
	struct rpcrdma__rb_wait *w;
	uint64_t v;
	unsigned n = 0;

	if (read(s->fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: another thread took the wakeup; look all the same. */
	}
	if (budget == 0)
		budget = 1;
	while (n < budget && (w = rpcrdma__rb_next(&l->rb, &c))) {
		start(rpcrdma__container_of(w, struct rpcrdma_call, rbw));
		n++;
	}
	if (n == budget)
		kick(l);  /* more may fit: come back after the other sources */
	return (int)n;
}

int rpcrdma__budget_pull(struct rpcrdma_call *call)
{
	struct rpcrdma__conn *conn = call->conn;
	struct rpcrdma_listener *l = conn->l;
	int ret = rpcrdma__read_size(call);

	if (ret)
		return ret;
	ret = rpcrdma__rb_take(&l->rb, &conn->rb, &call->rbw,
			       rpcrdma__mrcache_class(call->pull_len));
	if (ret == 2)
		kick(l);
	if (ret == 1) {
		ret = rpcrdma__read_chunks(call);
		if (ret)
			rpcrdma__budget_release(call);
		return ret;
	}
	return ret == -ENOTCONN ? ret : 0;
}

void rpcrdma__budget_release(struct rpcrdma_call *call)
{
	struct rpcrdma__conn *conn = call->conn;

	if (rpcrdma__rb_put(&conn->l->rb, &conn->rb, &call->rbw))
		kick(conn->l);
}

void rpcrdma__budget_conn_close(struct rpcrdma__conn *conn)
{
	struct rpcrdma__list out, *n;

	rpcrdma__list_init(&out);
	rpcrdma__rb_conn_drain(&conn->l->rb, &conn->rb, &out);
	while ((n = rpcrdma__list_pop(&out))) {
		struct rpcrdma__rb_wait *w = rpcrdma__container_of(n, struct rpcrdma__rb_wait, node);

		/* Never pulled, never answered: the client sends it again on
		 * its next connection, as for any call a closing one held. */
		rpcrdma__call_release(rpcrdma__container_of(w, struct rpcrdma_call, rbw));
	}
}

int rpcrdma__budget_start(struct rpcrdma_listener *l)
{
	int err;

	l->rb_src.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->rb_src.fd < 0)
		return -errno;
	l->rb_src.handle = rb_handle;
	rpcrdma__rb_init(&l->rb, l->opts.read_budget_bytes, l->opts.read_conn_bytes, &l->stats);
	err = rpcrdma__poller_add(l->poller, &l->rb_src);
	if (err) {
		rpcrdma__rb_fini(&l->rb);
		close(l->rb_src.fd);
		l->rb_src.fd = -1;
	}
	return err;
}

void rpcrdma__budget_stop(struct rpcrdma_listener *l)
{
	rpcrdma__poller_del(l->poller, &l->rb_src);
}

void rpcrdma__budget_free(struct rpcrdma_listener *l)
{
	rpcrdma__rb_fini(&l->rb);
	close(l->rb_src.fd);
}
