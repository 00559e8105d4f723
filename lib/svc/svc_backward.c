/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Backward direction: connection handles, pending calls, their timeouts
 * and completions.  The pieces and the lock order are in svc_backward.h.
 *
 * A pending call is in the hub's table from just before its message is
 * sent until one of these removes it, under the hub's lock: its reply (the
 * transport's receive path), its deadline (the timer, loop thread), its
 * connection going down, or the service's destroy.  Whoever removes it
 * owns it and completes it: right away when on the loop thread, else by
 * queuing it to the hub's done list and waking the loop (eventfd).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "svc_backward.h"
#include "svc_int.h"

#define NBUCKETS 256u
#define DEFAULT_TIMEOUT_MS 10000

struct rpcrdma_svc_conn {
	atomic_int refs;
	atomic_bool up;
	pthread_mutex_t lock;        /* held around ops->send */
	struct rpcrdma_svc *svc;     /* while up */
	struct rpcrdma__svc_bc_slot *slot;
	const struct rpcrdma__svc_bc_ops *ops;
	void *priv;
};

struct bc_call {
	struct bc_call *next;        /* bucket chain, then done list */
	const struct rpcrdma__svc_bc_slot *slot;
	uint32_t xid;
	int status;
	uint64_t deadline;           /* ms, CLOCK_MONOTONIC */
	struct rpcrdma_clnt_req *req;
	rpcrdma_clnt_done done;
	void *arg;
};

struct rpcrdma__svc_bc_hub {
	struct rpcrdma__svc_source timer; /* timerfd: deadlines */
	struct rpcrdma__svc_source kick;  /* eventfd: done list not empty */
	struct rpcrdma_svc *svc;
	pthread_mutex_t lock;
	bool dead;
	uint32_t next_xid;
	uint64_t armed;                   /* deadline the timer is set to, 0: none */
	struct bc_call *done_head, **done_tail;
	struct bc_call *bucket[NBUCKETS];
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct rpcrdma__svc_bc_hub *hub_of(struct rpcrdma_svc *svc)
{
	return __atomic_load_n(&svc->bc_hub, __ATOMIC_ACQUIRE);
}

static void run_done(struct bc_call *list)
{
	while (list) {
		struct bc_call *p = list;
		list = p->next;
		p->done(p->req, p->status, p->arg);
		free(p);
	}
}

/* Under hub->lock: sets the timer to the deadline d (0: off). */
static void arm(struct rpcrdma__svc_bc_hub *h, uint64_t d)
{
	struct itimerspec its = {0};
	its.it_value.tv_sec = (time_t)(d / 1000);
	its.it_value.tv_nsec = (long)(d % 1000) * 1000000;
	if (d && !its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	if (timerfd_settime(h->timer.fd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		h->armed = d;
}

/* Under hub->lock: unlinks the pending call xid sent on s. */
static struct bc_call *take(struct rpcrdma__svc_bc_hub *h, uint32_t xid,
			    const struct rpcrdma__svc_bc_slot *s)
{
	for (struct bc_call **pp = &h->bucket[xid % NBUCKETS]; *pp; pp = &(*pp)->next) {
		struct bc_call *p = *pp;
		if (p->xid == xid && p->slot == s) {
			*pp = p->next;
			p->next = NULL;
			return p;
		}
	}
	return NULL;
}

/* Under hub->lock: whether xid is pending. */
static bool pending(const struct rpcrdma__svc_bc_hub *h, uint32_t xid)
{
	for (const struct bc_call *p = h->bucket[xid % NBUCKETS]; p; p = p->next)
		if (p->xid == xid)
			return true;
	return false;
}

/* Completes the calls of list: here (on_loop) or on the loop. */
static void finish(struct rpcrdma__svc_bc_hub *h, struct bc_call *list, bool on_loop)
{
	if (!list)
		return;
	if (on_loop) {
		run_done(list);
		return;
	}
	pthread_mutex_lock(&h->lock);
	*h->done_tail = list;
	while (list->next)
		list = list->next;
	h->done_tail = &list->next;
	pthread_mutex_unlock(&h->lock);
	uint64_t one = 1;
	if (write(h->kick.fd, &one, sizeof(one)) < 0) {
		/* cannot overflow; ignore */
	}
}

/* Under hub->lock: moves every pending call that matches to *out with
 * status st; *next (if not NULL) gets the earliest deadline left. */
static void sweep(struct rpcrdma__svc_bc_hub *h, bool (*match)(const struct bc_call *, const void *),
		  const void *key, int st, struct bc_call **out, uint64_t *next)
{
	for (unsigned i = 0; i < NBUCKETS; i++) {
		struct bc_call **pp = &h->bucket[i];
		while (*pp) {
			struct bc_call *p = *pp;
			if (!match(p, key)) {
				if (next && (!*next || p->deadline < *next))
					*next = p->deadline;
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			p->status = st;
			p->next = *out;
			*out = p;
		}
	}
}

static bool match_due(const struct bc_call *p, const void *key)
{
	return p->deadline <= *(const uint64_t *)key;
}

static bool match_slot(const struct bc_call *p, const void *key)
{
	return p->slot == key;
}

static bool match_all(const struct bc_call *p, const void *key)
{
	(void)p;
	(void)key;
	return true;
}

/* The timer: fails the calls past their deadline (loop thread). */
static void timer_handle(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma__svc_bc_hub *h = (struct rpcrdma__svc_bc_hub *)src;
	struct bc_call *due = NULL;
	uint64_t v, now = now_ms(), next = 0;
	(void)events;
	if (read(src->fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: re-armed meanwhile */
	}
	pthread_mutex_lock(&h->lock);
	sweep(h, match_due, &now, -ETIMEDOUT, &due, &next);
	arm(h, next);
	pthread_mutex_unlock(&h->lock);
	run_done(due);
}

/* The eventfd: runs the completions queued by other threads. */
static void kick_handle(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma__svc_bc_hub *h =
		(struct rpcrdma__svc_bc_hub *)((char *)src - offsetof(struct rpcrdma__svc_bc_hub, kick));
	uint64_t v;
	(void)events;
	if (read(src->fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: drained already */
	}
	pthread_mutex_lock(&h->lock);
	struct bc_call *list = h->done_head;
	h->done_head = NULL;
	h->done_tail = &h->done_head;
	pthread_mutex_unlock(&h->lock);
	run_done(list);
}

static void hub_close(struct rpcrdma__svc_bc_hub *h)
{
	if (h->timer.fd >= 0)
		close(h->timer.fd);
	if (h->kick.fd >= 0)
		close(h->kick.fd);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* Under svc->lock: the service's hub, made on first use. */
static struct rpcrdma__svc_bc_hub *hub_get(struct rpcrdma_svc *svc)
{
	struct rpcrdma__svc_bc_hub *h = svc->bc_hub;
	if (h)
		return h;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->svc = svc;
	pthread_mutex_init(&h->lock, NULL);
	h->done_tail = &h->done_head;
	h->timer.handle = timer_handle;
	h->kick.handle = kick_handle;
	h->timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	h->kick.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (getrandom(&h->next_xid, sizeof(h->next_xid), GRND_NONBLOCK) != sizeof(h->next_xid))
		h->next_xid = (uint32_t)now_ms() * 2654435761u;
	if (h->timer.fd < 0 || h->kick.fd < 0 || rpcrdma__svc_watch(svc, &h->timer, EPOLLIN))
		goto out_close;
	if (rpcrdma__svc_watch(svc, &h->kick, EPOLLIN)) {
		rpcrdma__svc_unwatch(svc, &h->timer);
		goto out_close;
	}
	__atomic_store_n(&svc->bc_hub, h, __ATOMIC_RELEASE);
	return h;
out_close:
	hub_close(h);
	return NULL;
}

void rpcrdma__svc_bc_slot_init(struct rpcrdma__svc_bc_slot *s, struct rpcrdma_svc *svc,
			       const char *netid, const struct rpcrdma__svc_bc_ops *ops,
			       void *priv)
{
	memset(s, 0, sizeof(*s));
	s->svc = svc;
	s->netid = netid;
	s->ops = ops;
	s->priv = priv;
}

int rpcrdma_svc_call_conn(const struct rpcrdma_svc_call *call, struct rpcrdma_svc_conn **out)
{
	struct rpcrdma__svc_bc_slot *s = rpcrdma__svc_call_bc_slot(call);
	int rc = 0;

	*out = NULL;
	if (!s)
		return -EOPNOTSUPP;
	struct rpcrdma_svc *svc = s->svc;
	pthread_mutex_lock(&svc->lock);
	struct rpcrdma_svc_conn *c = s->conn;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c || !hub_get(svc)) {
			free(c);
			rc = -ENOMEM;
			goto out_unlock;
		}
		atomic_init(&c->refs, 1); /* the slot's */
		atomic_init(&c->up, !s->down);
		pthread_mutex_init(&c->lock, NULL);
		c->svc = svc;
		c->slot = s;
		c->ops = s->ops;
		c->priv = s->priv;
		s->conn = c;
	}
	atomic_fetch_add(&c->refs, 1);
	*out = c;
out_unlock:
	pthread_mutex_unlock(&svc->lock);
	return rc;
}

void rpcrdma_svc_conn_put(struct rpcrdma_svc_conn *c)
{
	if (!c || atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int rpcrdma_svc_conn_connected(const struct rpcrdma_svc_conn *c)
{
	return atomic_load(&c->up) ? 1 : 0;
}

/* Under c->lock: puts p in the table (xid assigned), the timer armed. */
static int pend(struct rpcrdma__svc_bc_hub *h, struct bc_call *p)
{
	pthread_mutex_lock(&h->lock);
	if (h->dead) {
		pthread_mutex_unlock(&h->lock);
		return -ENOTCONN;
	}
	do /* skip an xid still pending after 2^32 calls */
		p->xid = h->next_xid++;
	while (pending(h, p->xid));
	struct bc_call **b = &h->bucket[p->xid % NBUCKETS];
	p->next = *b;
	*b = p;
	if (!h->armed || p->deadline < h->armed)
		arm(h, p->deadline);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

/* Encodes the call into a block the transport will own. */
static int build(const struct rpcrdma_svc_conn *c, uint32_t xid, uint32_t prog, uint32_t vers,
		 const struct rpcrdma_svc_cred *cred, struct rpcrdma_clnt_req *req,
		 uint8_t **block, size_t *len)
{
	size_t hlen = rpcrdma__bc_call_hdr_len(cred), head = c->ops->headroom;
	if (!hlen)
		return -EINVAL;
	if (req->args_max > ((size_t)1 << 30))
		return -EMSGSIZE;
	uint8_t *b = malloc(head + hlen + req->args_max);
	if (!b)
		return -ENOMEM;
	long n = rpcrdma__bc_call_encode(b + head, hlen + req->args_max, xid, prog, vers, cred,
					 req);
	if (n < 0) {
		free(b);
		return (int)n;
	}
	*block = b;
	*len = (size_t)n;
	return 0;
}

int rpcrdma_svc_conn_call_async(struct rpcrdma_svc_conn *c, uint32_t prog, uint32_t vers,
				const struct rpcrdma_svc_cred *cred,
				struct rpcrdma_clnt_req *req, rpcrdma_clnt_done done, void *arg)
{
	if (!c || !req || !done || req->size < sizeof(*req))
		return -EINVAL;
	struct bc_call *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->req = req;
	p->done = done;
	p->arg = arg;
	p->deadline = now_ms() + (uint64_t)(req->timeout_ms > 0 ? req->timeout_ms
							       : DEFAULT_TIMEOUT_MS);
	req->reply_stat = req->accept_stat = req->auth_stat = 0;

	int rc = -ENOTCONN;
	uint8_t *block = NULL;
	size_t len = 0;
	pthread_mutex_lock(&c->lock);
	if (!atomic_load(&c->up))
		goto out_unlock;
	p->slot = c->slot;
	struct rpcrdma__svc_bc_hub *h = hub_of(c->svc);
	rc = pend(h, p);
	if (rc)
		goto out_unlock;
	req->xid = p->xid;
	rc = build(c, p->xid, prog, vers, cred, req, &block, &len);
	if (rc == 0)
		rc = c->ops->send(c->priv, block, len);
	if (rc) {
		pthread_mutex_lock(&h->lock);
		struct bc_call *q = take(h, p->xid, p->slot);
		pthread_mutex_unlock(&h->lock);
		if (!q) /* a timeout got it first: done will be called */
			rc = 0;
	}
	pthread_mutex_unlock(&c->lock);
	if (rc)
		free(p);
	return rc;
out_unlock:
	pthread_mutex_unlock(&c->lock);
	free(p);
	return rc;
}

void rpcrdma__svc_bc_down(struct rpcrdma__svc_bc_slot *s, int err, bool on_loop)
{
	struct rpcrdma_svc *svc = s->svc;
	pthread_mutex_lock(&svc->lock);
	bool was = s->down;
	s->down = true;
	struct rpcrdma_svc_conn *c = s->conn;
	pthread_mutex_unlock(&svc->lock);
	if (was || !c)
		return; /* no handle: nothing was ever sent */
	/* Waits for a send in progress; no new one starts. */
	pthread_mutex_lock(&c->lock);
	atomic_store(&c->up, false);
	c->ops = NULL;
	c->priv = NULL;
	c->slot = NULL;
	pthread_mutex_unlock(&c->lock);

	struct rpcrdma__svc_bc_hub *h = hub_of(svc);
	struct bc_call *gone = NULL;
	pthread_mutex_lock(&h->lock);
	sweep(h, match_slot, s, err, &gone, NULL);
	pthread_mutex_unlock(&h->lock);
	finish(h, gone, on_loop);
}

void rpcrdma__svc_bc_release(struct rpcrdma__svc_bc_slot *s)
{
	if (!s->svc)
		return;
	rpcrdma__svc_bc_down(s, -ENOTCONN, false);
	rpcrdma_svc_conn_put(s->conn);
	s->conn = NULL;
}

void rpcrdma__svc_bc_reply(struct rpcrdma__svc_bc_slot *s, const uint8_t *msg, size_t len,
			   bool on_loop)
{
	struct rpcrdma_svc *svc = s->svc;
	struct rpcrdma__svc_bc_hub *h = hub_of(svc);
	struct bc_call *p = NULL;
	if (h && len >= 8) {
		pthread_mutex_lock(&h->lock);
		p = take(h, rpcrdma__get_be32(msg), s);
		pthread_mutex_unlock(&h->lock);
	}
	if (!p) {
		RPCRDMA__STAT_INC(svc, dropped);
		rpcrdma__svc_log(svc, RPCRDMA_LOG_CALL_DROPPED, s->netid, NULL, 0,
				 "a reply that matches no backward call", 0);
		return;
	}
	p->status = rpcrdma__bc_reply_decode(msg, len, p->req);
	finish(h, p, on_loop);
}

/* rpcrdma_svc_destroy, loop stopped, before the transports shut down (the
 * class's cancel): fails every pending call with -ECANCELED, runs the
 * queued completions, refuses new calls (-ENOTCONN). */
static void bc_shutdown(struct rpcrdma_svc *svc)
{
	struct rpcrdma__svc_bc_hub *h = hub_of(svc);
	if (!h)
		return;
	struct bc_call *gone = NULL;
	pthread_mutex_lock(&h->lock);
	h->dead = true;
	sweep(h, match_all, NULL, -ECANCELED, &gone, NULL);
	if (h->done_head) { /* completed, not yet run: theirs first */
		*h->done_tail = gone;
		gone = h->done_head;
		h->done_head = NULL;
		h->done_tail = &h->done_head;
	}
	arm(h, 0);
	pthread_mutex_unlock(&h->lock);
	run_done(gone);
}

/* ... and at its end, no xprt left (the class's free): frees the hub. */
static void bc_free(struct rpcrdma_svc *svc)
{
	struct rpcrdma__svc_bc_hub *h = hub_of(svc);
	if (!h)
		return;
	bc_shutdown(svc); /* completions queued since */
	rpcrdma__svc_unwatch(svc, &h->timer);
	rpcrdma__svc_unwatch(svc, &h->kick);
	svc->bc_hub = NULL;
	hub_close(h);
}

const struct rpcrdma__svc_xprt_class rpcrdma__svc_bc_class = {
	.name = "backward",
	.cancel = bc_shutdown,
	.free = bc_free,
};
