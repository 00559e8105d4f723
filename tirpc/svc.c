/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The server side of the bridge: an RDMA listener behind libtirpc's
 * SVCXPRT (see <rpcrdma/tirpc.h>).  Two modes:
 *
 * DIRECT (the default).  The listener's poller is a DIRECT one, polled by
 * the svc_run thread: the rendezvous transport's fd is an epoll fd over
 * the poller's fd and an eventfd `again`, so svc_run's poll wakes when a
 * completion or a connection event is ready, and its xp_recv (rv_recv)
 * polls.  on_call() then runs on that thread, inside the poll: it hands
 * the call to its connection's transport through `hand` and calls
 * libtirpc's svc_getreq_common() on that transport's fd, which takes it
 * (cn_recv), runs the dispatch routine and its svc_sendreply() (cn_reply,
 * the reply posted when the poll's batch ends).  A call of a connection
 * that has no transport yet waits on the rendezvous queue until the poll
 * returns; rv_recv then makes the transport and dispatches it the same
 * way, on the same thread.  No call changes threads: calls_direct counts
 * them.  rv_recv polls until nothing is ready or it has polled AGAIN_POLLS
 * times; then it writes `again`, so that svc_run's next poll returns at
 * once and the program's other descriptors get their turn.
 *
 * THREAD (RPCRDMA_TIRPC_SVC_THREAD).  A workqueue poller thread reaps the
 * completions.  The rendezvous transport's fd is an eventfd.  on_call(),
 * on that thread, queues each call on its connection's transport and
 * writes that transport's eventfd (a semaphore: one count per call); a
 * call of a connection that has no transport yet goes to the rendezvous
 * queue and wakes the rendezvous fd, whose xp_recv (on the svc_run thread)
 * makes the transport, registers it with xprt_register() and moves the
 * connection's calls over (in arrival order: both under the same lock).
 * Every call is handed over: calls_handed counts them.
 *
 * Everything libtirpc calls runs on the svc_run thread; `lock` guards the
 * queues, the connection list and `closing` against on_call.
 *
 * A connection's transport handles one call at a time: xp_recv takes the
 * next call and decodes its header with xdr_callmsg from the received
 * iovecs, xp_getargs the arguments, xp_reply encodes the reply (counted
 * first, to size the buffer and find the bulk item) and ends the call.  A
 * call the dispatch routine left unanswered is dropped by xp_stat.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rpcrdma/tirpc.h>

#include "svc_int.h"

static const struct xp_ops rv_ops;

/* ---- poller threads (THREAD), svc_run thread (DIRECT) ---- */

static struct tconn *conn_find(struct tsvc *s, uint64_t id)
{
	for (struct tconn *c = s->conns; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

/* A queued call of connection conn; NULL (the call dropped) without memory. */
static struct tcall *tcall_new(struct tsvc *s, struct rpcrdma_call *call, uint64_t conn)
{
	struct tcall *q = malloc(sizeof(*q));

	if (!q) {
		rpcrdma__tx_drop_call(s, call);
		return NULL;
	}
	q->next = NULL;
	q->call = call;
	q->conn = conn;
	return q;
}

/* THREAD: on the poller thread; every call is handed to svc_run's. */
static void on_call_thread(struct rpcrdma_call *call, void *arg)
{
	struct tsvc *s = arg;
	struct tcall *q = tcall_new(s, call, rpcrdma_call_conn_id(call));

	if (!q)
		return;
	pthread_mutex_lock(&s->lock);
	if (s->closing) {
		pthread_mutex_unlock(&s->lock);
		free(q);
		rpcrdma__tx_drop_call(s, call);
		return;
	}
	atomic_fetch_add_explicit(&s->n_handed, 1, memory_order_relaxed);
	struct tconn *c = conn_find(s, q->conn);
	int fd;
	if (c) {
		*c->tail = q;
		c->tail = &q->next;
		fd = c->xprt->xp_fd;
	} else {
		*s->pend_tail = q;
		s->pend_tail = &q->next;
		fd = s->xprt->xp_fd;
	}
	/* Under the lock: the transport cannot be destroyed meanwhile. */
	(void)eventfd_write(fd, 1);
	pthread_mutex_unlock(&s->lock);
}

/* svc_exit() was called: svc_run() is returning, and a transport
 * registered now would keep it going (xprt_register makes svc_pollfd
 * again). */
static bool svc_exited(void)
{
	return !svc_pollfd && !svc_max_pollfd;
}

/*
 * DIRECT: runs call's dispatch routine here, through libtirpc's
 * svc_getreq_common() on c's fd: cn_recv takes the call from s->hand.  c
 * may be gone when this returns (a dispatch routine may svc_destroy() its
 * own transport): it is not touched after.
 */
static void dispatch_here(struct tsvc *s, struct tconn *c, struct rpcrdma_call *call)
{
	s->hand = call;
	s->hand_conn = c;
	svc_getreq_common(c->xprt->xp_fd);
	s->hand_conn = NULL;
	if (s->hand) { /* not taken: the transport was not registered */
		rpcrdma__tx_drop_call(s, s->hand);
		s->hand = NULL;
	}
}

/*
 * DIRECT: on the svc_run thread, inside rv_recv's rpcrdma_poller_poll():
 * a call of a connection with a transport is dispatched at once (its
 * reply goes out with the others of this poll's batch); one of a new
 * connection waits on s->pend until the poll returns (rv_recv makes the
 * transport outside the poller).  One thread: no lock.
 */
static void on_call_direct(struct rpcrdma_call *call, void *arg)
{
	struct tsvc *s = arg;

	if (s->closing || svc_exited()) {
		rpcrdma__tx_drop_call(s, call);
		return;
	}
	uint64_t id = rpcrdma_call_conn_id(call);
	struct tconn *c = conn_find(s, id);
	if (c) {
		dispatch_here(s, c, call);
		return;
	}
	struct tcall *q = tcall_new(s, call, id);
	if (!q)
		return;
	*s->pend_tail = q;
	s->pend_tail = &q->next;
}

/* ---- the rendezvous transport (svc_run thread) ---- */

struct idset {
	uint64_t *v;
	size_t n, cap;
	bool oom;
};

static void collect(uint64_t id, uint32_t credits, const struct rpcrdma_stats *st, void *arg)
{
	struct idset *ids = arg;
	(void)credits;
	(void)st;
	if (ids->n == ids->cap) {
		size_t cap = ids->cap ? 2 * ids->cap : 16;
		uint64_t *v = realloc(ids->v, cap * sizeof(*v));
		if (!v) {
			ids->oom = true;
			return;
		}
		ids->v = v;
		ids->cap = cap;
	}
	ids->v[ids->n++] = id;
}

static bool has_id(const struct idset *ids, uint64_t id)
{
	for (size_t i = 0; i < ids->n; i++)
		if (ids->v[i] == id)
			return true;
	return false;
}

/* Destroys the transports of closed connections (with no call left). */
static void reap(struct tsvc *s)
{
	struct idset ids = { 0 };
	struct tconn *dead = NULL;

	rpcrdma__tx_graves_sweep(s, false);
	(void)rpcrdma_listener_foreach_conn(s->listener, collect, &ids);
	if (ids.oom) {
		free(ids.v);
		return;
	}
	pthread_mutex_lock(&s->lock);
	for (struct tconn **pp = &s->conns; *pp;) {
		struct tconn *c = *pp;
		if (!has_id(&ids, c->id) && !c->head && !c->cur) {
			*pp = c->next;
			c->next = dead;
			dead = c;
		} else {
			pp = &c->next;
		}
	}
	pthread_mutex_unlock(&s->lock);
	free(ids.v);
	while (dead) {
		struct tconn *c = dead;
		dead = c->next;
		xprt_unregister(c->xprt);
		rpcrdma__tx_conn_free(c);
	}
}

/* Links a new connection's transport (svc->lock held in THREAD mode). */
static void conn_link(struct tsvc *s, struct tconn *c)
{
	c->next = s->conns;
	s->conns = c;
}

/*
 * DIRECT: the calls of connections that had no transport when they came,
 * in arrival order: each connection's transport is made at its first,
 * then they are dispatched here like the others.
 */
static void serve_new(struct tsvc *s)
{
	reap(s);
	while (s->pend) {
		struct tcall *q = s->pend;
		s->pend = q->next;
		if (!s->pend)
			s->pend_tail = &s->pend;
		struct tconn *c = conn_find(s, q->conn);
		if (!c && !s->closing && !svc_exited() && (c = rpcrdma__tx_conn_new(s, q->call, q->conn)))
			conn_link(s, c);
		if (c && !svc_exited())
			dispatch_here(s, c, q->call);
		else
			rpcrdma__tx_drop_call(s, q->call);
		free(q);
	}
}

/*
 * At most this many polls of up to the poller's budget (256 completions)
 * each per wake-up: the program's other descriptors then get their turn,
 * and `again` brings svc_run back at once.
 */
#define AGAIN_POLLS 8

/* DIRECT: svc_run's poll found the poller's fd (or `again`) readable. */
static void rv_poll(struct tsvc *s)
{
	int n = 1;
	eventfd_t v;

	if (s->again_set) {
		(void)eventfd_read(s->again_fd, &v);
		s->again_set = false;
	}
	/* Until nothing is ready: the last poll, finding no completion,
	 * reads the channels' events and re-arms the queues, so that the
	 * fd stays readable exactly while there is work. */
	for (unsigned i = 0; i < AGAIN_POLLS && n > 0 && !svc_exited(); i++)
		n = rpcrdma_poller_poll(s->poller, 0);
	if (s->pend)
		serve_new(s);
	if (n > 0 && !svc_exited() && eventfd_write(s->again_fd, 1) == 0)
		s->again_set = true;
}

static bool_t rv_recv(SVCXPRT *x, struct rpc_msg *msg)
{
	struct tsvc *s = x->xp_p1;
	eventfd_t v;
	(void)msg;

	if (s->direct) {
		rv_poll(s);
		return FALSE;
	}
	(void)eventfd_read(x->xp_fd, &v);
	reap(s);
	for (;;) {
		pthread_mutex_lock(&s->lock);
		struct tcall *first = s->pend;
		pthread_mutex_unlock(&s->lock);
		if (!first)
			break;
		uint64_t id = first->conn;
		struct tconn *c = rpcrdma__tx_conn_new(s, first->call, id);
		struct tcall *drop = NULL;

		pthread_mutex_lock(&s->lock);
		struct tcall **pp = &s->pend;
		while (*pp) {
			struct tcall *q = *pp;
			if (q->conn != id) {
				pp = &q->next;
				continue;
			}
			*pp = q->next;
			q->next = NULL;
			if (c) {
				*c->tail = q;
				c->tail = &q->next;
				(void)eventfd_write(c->xprt->xp_fd, 1);
			} else {
				q->next = drop;
				drop = q;
			}
		}
		s->pend_tail = pp;
		if (c)
			conn_link(s, c);
		pthread_mutex_unlock(&s->lock);
		rpcrdma__tx_drop_list(s, drop);
	}
	return FALSE;
}

static enum xprt_stat rv_stat(SVCXPRT *x)
{
	(void)x;
	return XPRT_IDLE;
}

static bool_t rv_getargs(SVCXPRT *x, xdrproc_t proc, void *args)
{
	(void)x;
	(void)proc;
	(void)args;
	return FALSE;
}

static bool_t rv_reply(SVCXPRT *x, struct rpc_msg *msg)
{
	(void)x;
	(void)msg;
	return FALSE;
}

static void svc_free(struct tsvc *s)
{
	rpcrdma_listener_destroy(s->listener);
	rpcrdma_poller_destroy(s->poller);
	rpcrdma__tx_xprt_free(s->xprt);
	if (s->again_fd >= 0)
		close(s->again_fd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static void rv_destroy(SVCXPRT *x)
{
	struct tsvc *s = x->xp_p1;

	xprt_unregister(x);
	pthread_mutex_lock(&s->lock);
	s->closing = true;
	struct tconn *conns = s->conns;
	struct tcall *pend = s->pend;
	s->conns = NULL;
	s->pend = NULL;
	s->pend_tail = &s->pend;
	pthread_mutex_unlock(&s->lock);
	while (conns) {
		struct tconn *c = conns;
		conns = c->next;
		xprt_unregister(c->xprt);
		rpcrdma__tx_conn_free(c);
	}
	rpcrdma__tx_drop_list(s, pend);
	rpcrdma__tx_graves_sweep(s, true);
	/* Every call handle is ended: the listener's shutdown can finish. */
	svc_free(s);
}

static const struct xp_ops rv_ops = {
	.xp_recv = rv_recv,
	.xp_stat = rv_stat,
	.xp_getargs = rv_getargs,
	.xp_reply = rv_reply,
	.xp_freeargs = rv_getargs,
	.xp_destroy = rv_destroy,
};

int rpcrdma__tx_svc_local(const SVCXPRT *xprt, const struct sockaddr_storage **local)
{
	if (!xprt || xprt->xp_ops != &rv_ops)
		return -EINVAL;
	*local = &((const struct tsvc *)xprt->xp_p1)->local;
	return 0;
}

int rpcrdma_tirpc_svc_stats(const SVCXPRT *xprt, struct rpcrdma_stats *out)
{
	if (!xprt || !out || xprt->xp_ops != &rv_ops)
		return -EINVAL;
	rpcrdma_listener_stats(((const struct tsvc *)xprt->xp_p1)->listener, out);
	return 0;
}

int rpcrdma_tirpc_svc_counts(const SVCXPRT *xprt, struct rpcrdma_tirpc_svc_counts *out)
{
	if (!xprt || !out || xprt->xp_ops != &rv_ops || out->size < sizeof(size_t))
		return -EINVAL;
	const struct tsvc *s = xprt->xp_p1;
	struct rpcrdma_tirpc_svc_counts c = {
		.size = out->size < sizeof(c) ? out->size : sizeof(c),
		.calls_direct = atomic_load_explicit(&s->n_direct, memory_order_relaxed),
		.calls_handed = atomic_load_explicit(&s->n_handed, memory_order_relaxed),
		.calls_dropped = atomic_load_explicit(&s->n_dropped, memory_order_relaxed),
	};
	memcpy(out, &c, c.size);
	return 0;
}

/* DIRECT: the rendezvous fd, an epoll fd over the poller's and `again`. */
static int rv_epoll(struct tsvc *s)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	s->again_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ep < 0 || s->again_fd < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, rpcrdma_poller_fd(s->poller), &ev) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, s->again_fd, &ev)) {
		int err = errno;
		if (ep >= 0)
			close(ep);
		errno = err;
		return -1;
	}
	return ep;
}

SVCXPRT *rpcrdma_tirpc_svc_create_flags(const char *addr, unsigned short port, u_int sendsz,
					u_int recvsz, unsigned flags)
{
	if (flags & ~RPCRDMA_TIRPC_SVC_THREAD) {
		errno = EINVAL;
		return NULL;
	}
	struct tsvc *s = calloc(1, sizeof(*s));
	int rc;

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->pend_tail = &s->pend;
	s->again_fd = -1;
	s->direct = !(flags & RPCRDMA_TIRPC_SVC_THREAD);
	s->sendsz = sendsz ? sendsz : RPCRDMA_TIRPC_DEFAULT_SIZE;
	rc = rpcrdma__tx_parse_addr(addr, port, &s->local, &s->local_len);
	if (rc)
		goto fail;
	struct rpcrdma_poller_opts po;
	rpcrdma_poller_opts_init(&po);
	po.mode = s->direct ? RPCRDMA_POLLER_DIRECT : RPCRDMA_POLLER_WORKQUEUE;
	po.threads = 1;
	rc = rpcrdma_poller_create(&po, &s->poller);
	if (rc)
		goto fail;
	s->xprt = rpcrdma__tx_xprt_new(&rv_ops, s, s->direct ? rv_epoll(s) : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), s);
	if (!s->xprt) {
		rc = -errno;
		goto fail;
	}
	struct rpcrdma_listener_opts lo;
	rpcrdma_listener_opts_init(&lo);
	lo.max_call_bytes = recvsz ? recvsz : RPCRDMA_TIRPC_DEFAULT_SIZE;
	rc = rpcrdma_listener_create(s->poller, (const struct sockaddr *)&s->local, &lo,
				     s->direct ? on_call_direct : on_call_thread, s, &s->listener);
	if (rc)
		goto fail;
	uint16_t bound = htons((uint16_t)rpcrdma_listener_port(s->listener));
	if (s->local.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&s->local)->sin6_port = bound;
	else
		((struct sockaddr_in *)&s->local)->sin_port = bound;
	s->xprt->xp_port = ntohs(bound);
	xprt_register(s->xprt);
	return s->xprt;
fail:
	svc_free(s);
	errno = -rc;
	return NULL;
}

SVCXPRT *rpcrdma_tirpc_svc_create(const char *addr, unsigned short port, u_int sendsz,
				  u_int recvsz)
{
	return rpcrdma_tirpc_svc_create_flags(addr, port, sendsz, recvsz, 0);
}
