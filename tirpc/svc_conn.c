/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A connection's transport of the bridge's server side (svc.c tells the
 * modes): xp_recv takes the call the mode hands over (cn_take) and
 * decodes its header, xp_getargs its arguments, xp_reply encodes the
 * reply and ends the call; and the helpers both transports use.
 * Everything here runs on the svc_run thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "svc_int.h"

#include <rpc/svc_auth.h>
#include <rpc/svc_mt.h>

/* xdr_void as an xdrproc_t, without a cast between function types. */
static bool_t no_results(XDR *x, ...)
{
	(void)x;
	return TRUE;
}

static const struct xp_ops cn_ops;

static bool_t no_control(SVCXPRT *x, const u_int req, void *arg)
{
	(void)x;
	(void)req;
	(void)arg;
	return FALSE;
}

static const struct xp_ops2 ops2 = { .xp_control = no_control };

void rpcrdma__tx_xprt_free(SVCXPRT *x)
{
	if (!x)
		return;
	if (x->xp_fd >= 0)
		close(x->xp_fd);
	free(x->xp_netid);
	free(x->xp_p3);
	free(x);
}

/* A transport over fd (taken, closed on failure; -1: errno says why it
 * could not be made), not registered yet. */
SVCXPRT *rpcrdma__tx_xprt_new(const struct xp_ops *ops, void *p1, int fd, const struct tsvc *s)
{
	int fd_err = errno; /* fd's, when it is -1 */
	SVCXPRT *x = calloc(1, sizeof(*x));
	if (!x) {
		if (fd >= 0)
			close(fd);
		errno = ENOMEM;
		return NULL;
	}
	x->xp_fd = fd;
	x->xp_p3 = calloc(1, sizeof(SVCXPRT_EXT));
	x->xp_netid = strdup(s->local.ss_family == AF_INET6 ? "rdma6" : "rdma");
	if (x->xp_fd < 0 || !x->xp_p3 || !x->xp_netid) {
		int err = x->xp_fd < 0 ? fd_err : ENOMEM;
		rpcrdma__tx_xprt_free(x);
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

/* Ends the calls of q undispatched (counted in n_dropped). */
void rpcrdma__tx_drop_list(struct tsvc *s, struct tcall *q)
{
	while (q) {
		struct tcall *n = q->next;
		rpcrdma_call_drop(q->call);
		atomic_fetch_add_explicit(&s->n_dropped, 1, memory_order_relaxed);
		free(q);
		q = n;
	}
}

void rpcrdma__tx_drop_call(struct tsvc *s, struct rpcrdma_call *call)
{
	rpcrdma_call_drop(call);
	atomic_fetch_add_explicit(&s->n_dropped, 1, memory_order_relaxed);
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
void rpcrdma__tx_graves_sweep(struct tsvc *s, bool all)
{
	time_t now = time(NULL);
	for (struct tgrave **pp = &s->graves; *pp;) {
		struct tgrave *g = *pp;
		if (all || now >= g->until) {
			*pp = g->next;
			rpcrdma__tx_xprt_free(g->xprt);
			free(g);
		} else {
			pp = &g->next;
		}
	}
}

/* Unregistered and unlinked: ends its calls and frees it (the SVCXPRT
 * of an RPCSEC_GSS connection later: see struct tgrave). */
void rpcrdma__tx_conn_free(struct tconn *c)
{
	conn_end_cur(c);
	rpcrdma__tx_drop_list(c->svc, c->head);
	struct tgrave *g = c->gss ? malloc(sizeof(*g)) : NULL;
	if (g) {
		close(c->xprt->xp_fd);
		c->xprt->xp_fd = -1;
		g->xprt = c->xprt;
		g->until = time(NULL) + GSS_XPRT_KEEP;
		g->next = c->svc->graves;
		c->svc->graves = g;
	} else {
		rpcrdma__tx_xprt_free(c->xprt);
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
	rpcrdma__tx_conn_free(c);
}

/* The next call of c: DIRECT, the one dispatch_here() hands it; THREAD,
 * the head of its queue, one count of its eventfd. */
static struct rpcrdma_call *cn_take(struct tconn *c)
{
	struct tsvc *s = c->svc;
	struct rpcrdma_call *call = NULL;
	eventfd_t v;

	if (s->direct) {
		if (s->hand && s->hand_conn == c) {
			call = s->hand;
			s->hand = NULL;
			atomic_fetch_add_explicit(&s->n_direct, 1, memory_order_relaxed);
		}
		return call;
	}
	if (eventfd_read(c->xprt->xp_fd, &v) != 0)
		return NULL;
	pthread_mutex_lock(&s->lock);
	struct tcall *q = c->head;
	if (q) {
		c->head = q->next;
		if (!c->head)
			c->tail = &c->head;
	}
	pthread_mutex_unlock(&s->lock);
	if (q) {
		call = q->call;
		free(q);
	}
	return call;
}

static bool_t cn_recv(SVCXPRT *x, struct rpc_msg *msg)
{
	struct tconn *c = x->xp_p1;

	conn_end_cur(c);
	struct rpcrdma_call *call = cn_take(c);
	if (!call)
		return FALSE;

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

struct tconn *rpcrdma__tx_conn_new(struct tsvc *s, struct rpcrdma_call *call, uint64_t id)
{
	struct tconn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->svc = s;
	c->id = id;
	c->tail = &c->head;
	/* (DIRECT: never written, a unique fd for svc_getreq_common) */
	c->xprt = rpcrdma__tx_xprt_new(&cn_ops, c, eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC | EFD_SEMAPHORE), s);
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
