/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The server side of the bridge: an RDMA listener behind libtirpc's
 * SVCXPRT (see <rpcrdma/tirpc.h>).
 *
 * The rendezvous transport's fd is an eventfd.  on_call(), on a poller
 * thread, queues each call on its connection's transport and writes that
 * transport's eventfd (a semaphore: one count per call); a call of a
 * connection that has no transport yet goes to the rendezvous queue and
 * wakes the rendezvous fd, whose xp_recv (on the svc_run thread) makes the
 * transport, registers it with xprt_register() and moves the connection's
 * calls over (in arrival order: both under the same lock).  Everything
 * libtirpc calls runs on the svc_run thread; `lock` guards the queues, the
 * connection list and `closing` against on_call.
 *
 * A connection's transport handles one call at a time: xp_recv takes the
 * next call and decodes its header with xdr_callmsg from the received
 * iovecs, xp_getargs the arguments, xp_reply encodes the reply (counted
 * first, to size the buffer and find the bulk item) and ends the call.  A
 * call the dispatch routine left unanswered is dropped by xp_stat.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpc/svc_auth.h>
#include <rpc/svc_mt.h>

#include <rpcrdma/poller.h>
#include <rpcrdma/xprt.h>
#include <rpcrdma/tirpc.h>

#include "internal.h"

struct tcall {
	struct tcall *next;
	struct rpcrdma_call *call;
	uint64_t conn;
};

struct tsvc {
	SVCXPRT *xprt;                  /* the rendezvous transport */
	struct rpcrdma_poller *poller;
	struct rpcrdma_listener *listener;
	u_int sendsz;
	struct sockaddr_storage local;
	socklen_t local_len;

	pthread_mutex_t lock;
	bool closing;                   /* on_call drops */
	struct tcall *pend, **pend_tail;
	struct tconn *conns;
	struct tgrave *graves;          /* svc_run thread only */
};

/*
 * libtirpc's svc_auth_gss keeps each transport's RPCSEC_GSS context in a
 * cache keyed by the SVCXPRT's address, and forgets it on
 * RPCSEC_GSS_DESTROY or once unused for 300 s.  A transport allocated
 * later at the address of one whose client left without DESTROY would
 * take that context over (and refuse its own client's RPCSEC_GSS_INIT
 * with CTXPROBLEM).  So the SVCXPRT of a connection that carried
 * RPCSEC_GSS calls is kept, its fd closed, for GSS_XPRT_KEEP seconds.
 */
#define GSS_XPRT_KEEP 310
struct tgrave {
	struct tgrave *next;
	SVCXPRT *xprt;
	time_t until;
};

struct tconn {
	struct tconn *next;             /* svc->conns, svc->lock */
	struct tsvc *svc;
	SVCXPRT *xprt;
	uint64_t id;
	struct tcall *head, **tail;     /* svc->lock */
	/* svc_run thread only */
	struct rpcrdma_call *cur;       /* between xp_recv and its reply */
	uint32_t xid;
	enum rpcrdma__tx_auth auth;     /* what cur's credential does to the body */
	bool gss;                       /* it carried RPCSEC_GSS calls */
	XDR xdr;
	struct rpcrdma__tx_dec dec;
	struct sockaddr_storage peer;
};

/* xdr_void as an xdrproc_t, without a cast between function types. */
static bool_t no_results(XDR *x, ...)
{
	(void)x;
	return TRUE;
}

static const struct xp_ops rv_ops;
static const struct xp_ops cn_ops;

static bool_t no_control(SVCXPRT *x, const u_int req, void *arg)
{
	(void)x;
	(void)req;
	(void)arg;
	return FALSE;
}

static const struct xp_ops2 ops2 = { .xp_control = no_control };

static void xprt_free(SVCXPRT *x)
{
	if (!x)
		return;
	if (x->xp_fd >= 0)
		close(x->xp_fd);
	free(x->xp_netid);
	free(x->xp_p3);
	free(x);
}

/* A transport over a new eventfd, not registered yet. */
static SVCXPRT *xprt_new(const struct xp_ops *ops, void *p1, int efd_flags,
			 const struct tsvc *s)
{
	SVCXPRT *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->xp_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC | efd_flags);
	x->xp_p3 = calloc(1, sizeof(SVCXPRT_EXT));
	x->xp_netid = strdup(s->local.ss_family == AF_INET6 ? "rdma6" : "rdma");
	if (x->xp_fd < 0 || !x->xp_p3 || !x->xp_netid) {
		int err = x->xp_fd < 0 ? errno : ENOMEM;
		xprt_free(x);
		errno = err;
		return NULL;
	}
	x->xp_ops = ops;
	x->xp_ops2 = &ops2;
	x->xp_p1 = p1;
	x->xp_ltaddr.buf = (void *)&s->local;
	x->xp_ltaddr.len = x->xp_ltaddr.maxlen = s->local_len;
	x->xp_port = ntohs(s->local.ss_family == AF_INET6 ?
				   ((const struct sockaddr_in6 *)&s->local)->sin6_port :
				   ((const struct sockaddr_in *)&s->local)->sin_port);
	return x;
}

static void drop_list(struct tcall *q)
{
	while (q) {
		struct tcall *n = q->next;
		rpcrdma_call_drop(q->call);
		free(q);
		q = n;
	}
}

/* ---- poller threads ---- */

static struct tconn *conn_find(struct tsvc *s, uint64_t id)
{
	for (struct tconn *c = s->conns; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

static void on_call(struct rpcrdma_call *call, void *arg)
{
	struct tsvc *s = arg;
	struct tcall *q = malloc(sizeof(*q));

	if (!q) {
		rpcrdma_call_drop(call);
		return;
	}
	q->next = NULL;
	q->call = call;
	q->conn = rpcrdma_call_conn_id(call);
	pthread_mutex_lock(&s->lock);
	if (s->closing) {
		pthread_mutex_unlock(&s->lock);
		free(q);
		rpcrdma_call_drop(call);
		return;
	}
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

/* ---- a connection's transport (svc_run thread) ---- */

static void conn_end_cur(struct tconn *c)
{
	if (c->cur) {
		rpcrdma_call_drop(c->cur);
		c->cur = NULL;
	}
}

/* Unlinks c from the list if it is still there (svc->lock held). */
static void conn_unlink(struct tsvc *s, struct tconn *c)
{
	for (struct tconn **pp = &s->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
}

/* Frees the kept transports whose time is up (all: every one). */
static void graves_sweep(struct tsvc *s, bool all)
{
	time_t now = time(NULL);
	for (struct tgrave **pp = &s->graves; *pp;) {
		struct tgrave *g = *pp;
		if (all || now >= g->until) {
			*pp = g->next;
			xprt_free(g->xprt);
			free(g);
		} else {
			pp = &g->next;
		}
	}
}

/* Unregistered and unlinked: ends its calls and frees it (the SVCXPRT
 * of an RPCSEC_GSS connection later: see struct tgrave). */
static void conn_free(struct tconn *c)
{
	conn_end_cur(c);
	drop_list(c->head);
	struct tgrave *g = c->gss ? malloc(sizeof(*g)) : NULL;
	if (g) {
		close(c->xprt->xp_fd);
		c->xprt->xp_fd = -1;
		g->xprt = c->xprt;
		g->until = time(NULL) + GSS_XPRT_KEEP;
		g->next = c->svc->graves;
		c->svc->graves = g;
	} else {
		xprt_free(c->xprt);
	}
	free(c);
}

static void cn_destroy(SVCXPRT *x)
{
	struct tconn *c = x->xp_p1;
	struct tsvc *s = c->svc;

	xprt_unregister(x);
	pthread_mutex_lock(&s->lock);
	conn_unlink(s, c);
	pthread_mutex_unlock(&s->lock);
	conn_free(c);
}

static bool_t cn_recv(SVCXPRT *x, struct rpc_msg *msg)
{
	struct tconn *c = x->xp_p1;
	struct tsvc *s = c->svc;
	eventfd_t v;

	conn_end_cur(c);
	if (eventfd_read(x->xp_fd, &v) != 0)
		return FALSE;
	pthread_mutex_lock(&s->lock);
	struct tcall *q = c->head;
	if (q) {
		c->head = q->next;
		if (!c->head)
			c->tail = &c->head;
	}
	pthread_mutex_unlock(&s->lock);
	if (!q)
		return FALSE;
	struct rpcrdma_call *call = q->call;
	free(q);

	unsigned n = 0;
	const struct iovec *iov = rpcrdma_call_payload(call, &n);
	rpcrdma__tx_dec_init(&c->xdr, &c->dec, iov, n);
	if (!xdr_callmsg(&c->xdr, msg)) {
		rpcrdma_call_drop(call);
		return FALSE;
	}
	c->cur = call;
	c->xid = msg->rm_xid;
	c->auth = rpcrdma__tx_auth_kind((int)msg->rm_call.cb_cred.oa_flavor,
					msg->rm_call.cb_cred.oa_base, msg->rm_call.cb_cred.oa_length);
	c->gss |= msg->rm_call.cb_cred.oa_flavor == RPCSEC_GSS;
	return TRUE;
}

/* After each dispatch: a call left unanswered is dropped.  Further calls
 * wake the fd again (one count each), so other transports get their turn. */
static enum xprt_stat cn_stat(SVCXPRT *x)
{
	conn_end_cur(x->xp_p1);
	return XPRT_IDLE;
}

static bool_t cn_getargs(SVCXPRT *x, xdrproc_t proc, void *args)
{
	struct tconn *c = x->xp_p1;
	SVCAUTH *a = &SVC_XP_AUTH(x);

	if (!c->cur)
		return FALSE;
	c->xdr.x_op = XDR_DECODE;
	bool_t ok = a->svc_ah_ops ? SVCAUTH_UNWRAP(a, &c->xdr, proc, args) : proc(&c->xdr, args);
	if (!ok) {
		/* What the routine allocated before it failed (xdr_array
		 * allocates the count the peer claims, before it finds the
		 * elements missing, and keeps it) is freed here: rpcgen's
		 * dispatch routine answers GARBAGE_ARGS and never calls
		 * svc_freeargs then.  The
		 * XDR_FREE routines set the pointers they free to NULL, so a
		 * dispatch routine that does call it frees nothing twice. */
		xdr_free(proc, args);
	}
	return ok;
}

static bool_t cn_freeargs(SVCXPRT *x, xdrproc_t proc, void *args)
{
	(void)x;
	xdr_free(proc, args);
	return TRUE;
}

/* wrap: through the transport's SVCAUTH (RPCSEC_GSS signs or seals). */
static bool encode_reply(SVCXPRT *x, XDR *xs, struct rpc_msg *msg, xdrproc_t proc,
			 void *where, bool wrap)
{
	SVCAUTH *a = &SVC_XP_AUTH(x);

	if (!xdr_replymsg(xs, msg))
		return false;
	if (!proc)
		return true;
	if (wrap && a->svc_ah_ops)
		return SVCAUTH_WRAP(a, xs, proc, where);
	return proc(xs, where);
}

/*
 * Encodes twice: once counting (the size and the bulk item), once into a
 * buffer of that size -- registered memory of the call's when the bulk
 * item will go by its write chunk, so the RDMA Write goes from there.  On
 * failure the call stays open (rpcgen's stubs then send SYSTEM_ERR).
 * Under RPCSEC_GSS (c->auth not PLAIN: see internal.h) the count is of
 * the results unwrapped and the wrapped reply is encoded once, into that
 * much and RPCRDMA__TX_WRAP_SLACK more; a bulk item is kept only when the
 * wrap left the body as it was (service none), never for SEALED calls.
 */
static bool_t cn_reply(SVCXPRT *x, struct rpc_msg *msg)
{
	struct tconn *c = x->xp_p1;
	xdrproc_t proc = NULL;
	void *where = NULL;

	if (!c->cur)
		return FALSE;
	if (msg->rm_reply.rp_stat == MSG_ACCEPTED && msg->rm_reply.rp_acpt.ar_stat == SUCCESS) {
		proc = msg->acpted_rply.ar_results.proc;
		where = msg->acpted_rply.ar_results.where;
		msg->acpted_rply.ar_results.proc = no_results;
		msg->acpted_rply.ar_results.where = NULL;
	}
	msg->rm_xid = c->xid;

	bool once = c->auth != RPCRDMA__TX_AUTH_PLAIN;
	size_t bulk_min = c->auth == RPCRDMA__TX_AUTH_SEALED ? SIZE_MAX : RPCRDMA__TX_BULK_MIN;
	struct rpcrdma__tx_enc e;
	XDR xs;
	rpcrdma__tx_enc_init(&xs, &e, NULL, c->svc->sendsz, bulk_min);
	if (!encode_reply(x, &xs, msg, proc, where, !once))
		return FALSE;
	size_t len = e.pos, bulk = e.bulk_len, cap = len;
	if (once)
		cap = len + RPCRDMA__TX_WRAP_SLACK < c->svc->sendsz ? len + RPCRDMA__TX_WRAP_SLACK
								     : c->svc->sendsz;
	void *buf = NULL;
	bool owned = true;
	if (bulk && rpcrdma_call_write_room(c->cur) >= bulk &&
	    rpcrdma_call_reply_buffer(c->cur, cap, &buf) == 0)
		owned = false;
	else if (!(buf = malloc(cap ? cap : 1)))
		return FALSE;
	rpcrdma__tx_enc_init(&xs, &e, buf, cap, bulk_min);
	if (!encode_reply(x, &xs, msg, proc, where, true) || (!once && e.pos != len)) {
		if (owned)
			free(buf);
		return FALSE;
	}
	if (e.pos != len)
		e.bulk_len = 0; /* wrapped: the item is sealed in the token */
	struct iovec iov = { buf, e.pos };
	struct rpcrdma_reply rep = {
		.size = sizeof(rep),
		.iov = &iov,
		.iovcnt = 1,
		.bulk_offset = e.bulk_len ? e.bulk_off : 0,
		.bulk_length = e.bulk_len,
	};
	int rc = rpcrdma_call_reply(c->cur, &rep);
	c->cur = NULL;
	if (owned)
		free(buf);
	return rc == 0;
}

static const struct xp_ops cn_ops = {
	.xp_recv = cn_recv,
	.xp_stat = cn_stat,
	.xp_getargs = cn_getargs,
	.xp_reply = cn_reply,
	.xp_freeargs = cn_freeargs,
	.xp_destroy = cn_destroy,
};

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

	graves_sweep(s, false);
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
		conn_free(c);
	}
}

static struct tconn *conn_new(struct tsvc *s, struct rpcrdma_call *call, uint64_t id)
{
	struct tconn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->svc = s;
	c->id = id;
	c->tail = &c->head;
	c->xprt = xprt_new(&cn_ops, c, EFD_SEMAPHORE, s);
	if (!c->xprt) {
		free(c);
		return NULL;
	}
	socklen_t plen = 0;
	const struct sockaddr *peer = rpcrdma_call_peer(call, &plen);
	if (peer && plen <= sizeof(c->peer)) {
		memcpy(&c->peer, peer, plen);
		if (plen <= sizeof(c->xprt->xp_raddr))
			memcpy(&c->xprt->xp_raddr, peer, plen);
		c->xprt->xp_addrlen = (int)plen;
		c->xprt->xp_rtaddr.buf = &c->peer;
		c->xprt->xp_rtaddr.len = c->xprt->xp_rtaddr.maxlen = plen;
	}
	xprt_register(c->xprt);
	return c;
}

static bool_t rv_recv(SVCXPRT *x, struct rpc_msg *msg)
{
	struct tsvc *s = x->xp_p1;
	eventfd_t v;
	(void)msg;

	(void)eventfd_read(x->xp_fd, &v);
	reap(s);
	for (;;) {
		pthread_mutex_lock(&s->lock);
		struct tcall *first = s->pend;
		pthread_mutex_unlock(&s->lock);
		if (!first)
			break;
		uint64_t id = first->conn;
		struct tconn *c = conn_new(s, first->call, id);
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
		if (c) {
			c->next = s->conns;
			s->conns = c;
		}
		pthread_mutex_unlock(&s->lock);
		drop_list(drop);
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
	xprt_free(s->xprt);
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
		conn_free(c);
	}
	drop_list(pend);
	graves_sweep(s, true);
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

SVCXPRT *rpcrdma_tirpc_svc_create(const char *addr, unsigned short port, u_int sendsz,
				  u_int recvsz)
{
	struct tsvc *s = calloc(1, sizeof(*s));
	int rc;

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->pend_tail = &s->pend;
	s->sendsz = sendsz ? sendsz : RPCRDMA_TIRPC_DEFAULT_SIZE;
	rc = rpcrdma__tx_parse_addr(addr, port, &s->local, &s->local_len);
	if (rc)
		goto fail;
	s->xprt = xprt_new(&rv_ops, s, 0, s);
	if (!s->xprt) {
		rc = -errno;
		goto fail;
	}
	struct rpcrdma_poller_opts po;
	rpcrdma_poller_opts_init(&po);
	po.mode = RPCRDMA_POLLER_WORKQUEUE;
	po.threads = 1;
	rc = rpcrdma_poller_create(&po, &s->poller);
	if (rc)
		goto fail;
	struct rpcrdma_listener_opts lo;
	rpcrdma_listener_opts_init(&lo);
	lo.max_call_bytes = recvsz ? recvsz : RPCRDMA_TIRPC_DEFAULT_SIZE;
	rc = rpcrdma_listener_create(s->poller, (const struct sockaddr *)&s->local, &lo, on_call,
				     s, &s->listener);
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
