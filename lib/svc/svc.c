/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Service core: the program registry, the transport instances' slots, and
 * dispatch of a received call to its procedure and back to the transport.
 */
#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

#include "svc_backward.h"
#include "svc_int.h"
#include "gss/gss_int.h"
#include "util/bcache.h"

struct rpcrdma__svc_prog {
	struct rpcrdma__svc_prog *next;
	struct rpcrdma_svc_program p;   /* p.vers points at vers below */
	struct rpcrdma_svc_version vers[];
};

struct rpcrdma__svc_xprt {
	struct rpcrdma_svc *svc;
	const struct rpcrdma__svc_xprt_ops *ops;
	void *priv;
	char netid[16];
	uint32_t flags;
	unsigned max_calls;
	atomic_uint in_progress;
	struct sockaddr_storage local;
	socklen_t local_len;
	/* Call blocks kept for reuse, so that a call allocates nothing once
	 * the transport has had that many in progress: at most
	 * CALL_CACHE_MAX, any thread under cache_lock. */
	pthread_mutex_t cache_lock;
	struct rpcrdma__bcache cache;
};

#define CALL_CACHE_MAX 16u
#define CALL_BLOCK_ROUND 256u

struct rpcrdma_svc_call {
	size_t cap; /* bytes of this block (first: the cache's link when cached) */
	struct rpcrdma__svc_xprt *xprt;
	void *ctx;
	const struct rpcrdma__svc_prog *prog;
	const struct rpcrdma_svc_proc *proc;
	uint8_t *rbuf;
	size_t rmax;
	/* RPCSEC_GSS (lib/gss): rbuf is the call's scratch for the plain
	 * reply, sealed at the end into the transport's tbuf (tmax bytes). */
	struct rpcrdma__gss_call *gss;
	uint8_t *tbuf;
	size_t tmax;
	size_t bulk_off, bulk_len; /* rpcrdma_svc_call_set_bulk, in the results */
	size_t direct_len;         /* rpcrdma_svc_call_set_results_len */
	bool direct;
	void *args, *res;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	struct rpcrdma__call_hdr hdr;
	alignas(max_align_t) unsigned char storage[];
};

RPCRDMA__BCACHE_TYPED(call_block, struct rpcrdma_svc_call)

/* ------------------------------------------------------------ registry */

static int check_version(const struct rpcrdma_svc_version *v)
{
	if (v->nprocs && !v->procs)
		return -EINVAL;
	if (v->flags & ~(RPCRDMA_SVC_VERS_NEEDS_CC | RPCRDMA_SVC_VERS_AUTH_SYS |
			 RPCRDMA_SVC_VERS_AUTH_GSS))
		return -EINVAL;
	for (uint32_t i = 0; i < v->nprocs; i++) {
		const struct rpcrdma_svc_proc *pr = &v->procs[i];
		if (pr->handler && ((pr->args_size && !pr->decode_args) ||
				    (pr->res_size && !pr->encode_res)))
			return -EINVAL;
	}
	return 0;
}

int rpcrdma_svc_register(struct rpcrdma_svc *svc, const struct rpcrdma_svc_program *prog)
{
	if (!svc || !prog || prog->nvers == 0 || !prog->vers || prog->nvers > 1024)
		return -EINVAL;
	for (uint32_t i = 0; i < prog->nvers; i++) {
		int rc = check_version(&prog->vers[i]);
		if (rc)
			return rc;
		for (uint32_t j = 0; j < i; j++)
			if (prog->vers[j].vers == prog->vers[i].vers)
				return -EINVAL;
	}
	struct rpcrdma__svc_prog *sp =
		calloc(1, sizeof(*sp) + prog->nvers * sizeof(sp->vers[0]));
	if (!sp)
		return -ENOMEM;
	sp->p = *prog;
	memcpy(sp->vers, prog->vers, prog->nvers * sizeof(sp->vers[0]));
	sp->p.vers = sp->vers;

	pthread_rwlock_wrlock(&svc->progs_lock);
	for (struct rpcrdma__svc_prog *q = svc->progs; q; q = q->next) {
		if (q->p.prog == prog->prog) {
			pthread_rwlock_unlock(&svc->progs_lock);
			free(sp);
			return -EEXIST;
		}
	}
	sp->next = svc->progs;
	svc->progs = sp;
	pthread_rwlock_unlock(&svc->progs_lock);
	return 0;
}

/* Registry iteration for rpcbind.c: calls fn for each (prog, vers, flags). */
void rpcrdma__svc_each_version(struct rpcrdma_svc *svc,
			       void (*fn)(void *arg, uint32_t prog, uint32_t vers, uint32_t flags),
			       void *arg);
void rpcrdma__svc_each_version(struct rpcrdma_svc *svc,
			       void (*fn)(void *arg, uint32_t prog, uint32_t vers, uint32_t flags),
			       void *arg)
{
	pthread_rwlock_rdlock(&svc->progs_lock);
	for (struct rpcrdma__svc_prog *q = svc->progs; q; q = q->next)
		for (uint32_t i = 0; i < q->p.nvers; i++)
			fn(arg, q->p.prog, q->vers[i].vers, q->vers[i].flags);
	pthread_rwlock_unlock(&svc->progs_lock);
}

void rpcrdma__svc_free_programs(struct rpcrdma_svc *svc);
void rpcrdma__svc_free_programs(struct rpcrdma_svc *svc)
{
	while (svc->progs) {
		struct rpcrdma__svc_prog *q = svc->progs;
		svc->progs = q->next;
		free(q);
	}
}

/* ----------------------------------------------------------- transports */

int rpcrdma__svc_xprt_create(struct rpcrdma_svc *svc, const struct rpcrdma__svc_xprt_ops *ops,
			    void *priv, const struct rpcrdma__svc_xprt_info *info,
			    struct rpcrdma__svc_xprt **out)
{
	if (out)
		*out = NULL; /* api.h: a failed create leaves *out NULL */
	if (!svc || !ops || !ops->reply_buf || !ops->done || !info || !out ||
	    info->size < sizeof(*info) || !info->netid ||
	    strlen(info->netid) >= sizeof(((struct rpcrdma__svc_xprt *)0)->netid) ||
	    (info->local && info->local_len > sizeof(struct sockaddr_storage)) ||
	    (info->flags & ~RPCRDMA__SVC_XPRT_CONGESTION_CONTROL))
		return -EINVAL;
	struct rpcrdma__svc_xprt *x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->svc = svc;
	x->ops = ops;
	x->priv = priv;
	strcpy(x->netid, info->netid);
	x->flags = info->flags;
	x->max_calls = info->max_calls ? info->max_calls : svc->opts.max_calls;
	atomic_init(&x->in_progress, 0);
	pthread_mutex_init(&x->cache_lock, NULL);
	rpcrdma__bcache_init(&x->cache, CALL_CACHE_MAX);
	if (info->local) {
		memcpy(&x->local, info->local, info->local_len);
		x->local_len = info->local_len;
	}
	pthread_mutex_lock(&svc->lock);
	svc->nxprts++;
	pthread_mutex_unlock(&svc->lock);
	*out = x;
	return 0;
}

int rpcrdma__svc_xprt_destroy(struct rpcrdma__svc_xprt *x)
{
	if (!x)
		return 0;
	if (atomic_load(&x->in_progress))
		return -EBUSY;
	struct rpcrdma_svc *svc = x->svc;
	for (void *b; (b = rpcrdma__bcache_pop(&x->cache));)
		free(b);
	pthread_mutex_destroy(&x->cache_lock);
	free(x);
	/* Last touch of svc: rpcrdma_svc_destroy may free it right after. */
	pthread_mutex_lock(&svc->lock);
	if (--svc->nxprts == 0)
		pthread_cond_broadcast(&svc->xprts_gone);
	pthread_mutex_unlock(&svc->lock);
	return 0;
}

void rpcrdma__svc_xprt_complete(struct rpcrdma__svc_xprt *x)
{
	atomic_fetch_sub_explicit(&x->in_progress, 1, memory_order_release);
}

unsigned rpcrdma__svc_xprt_in_progress(const struct rpcrdma__svc_xprt *x)
{
	return atomic_load_explicit(&x->in_progress, memory_order_acquire);
}

const char *rpcrdma__svc_xprt_netid(const struct rpcrdma__svc_xprt *x)
{
	return x->netid;
}

struct rpcrdma__svc_bc_slot *rpcrdma__svc_call_bc_slot(const struct rpcrdma_svc_call *c)
{
	const struct rpcrdma__svc_xprt *x = c->xprt;
	return x->ops->backward ? x->ops->backward(x->priv, c->ctx) : NULL;
}

int rpcrdma__svc_xprt_busy(const struct rpcrdma__svc_xprt *x)
{
	return rpcrdma__svc_xprt_in_progress(x) >= x->max_calls;
}

void rpcrdma__svc_xprt_set_max_calls(struct rpcrdma__svc_xprt *x, unsigned n)
{
	x->max_calls = n;
}

/* ------------------------------------------------------------- dispatch */

/* why: the reason logged when nothing is sent (len 0); NULL when the
 * caller logged it already. */
static void finish(struct rpcrdma__svc_xprt *x, void *ctx, void *buf, size_t len,
		   const char *why)
{
	if (len == 0) {
		RPCRDMA__STAT_INC(x->svc, dropped);
		if (why)
			rpcrdma__svc_log(x->svc, RPCRDMA_LOG_CALL_DROPPED, x->netid, NULL, 0,
					 why, 0);
	}
	x->ops->done(x->priv, ctx, buf, len);
}

/* Sends a reply that is only a header (every status but SUCCESS). */
enum small_kind { SMALL_ACCEPTED, SMALL_RPC_MISMATCH, SMALL_AUTH };

/* g: an RPCSEC_GSS call's state (its accepted replies are sealed), freed
 * here; else NULL. */
static void reply_small(struct rpcrdma__svc_xprt *x, void *ctx, uint32_t xid,
			enum small_kind kind, uint32_t stat, uint32_t low, uint32_t high,
			struct rpcrdma__gss_call *g)
{
	struct rpcrdma_svc *svc = x->svc;
	size_t max = RPCRDMA__REPLY_HDR_MAX + (g ? RPCRDMA__GSS_SEAL_SLACK : 0);
	uint8_t *buf = x->ops->reply_buf(x->priv, ctx, max);
	uint8_t plain[RPCRDMA__REPLY_HDR_MAX];
	size_t len;

	if (!buf) {
		rpcrdma__gss_call_free(g);
		finish(x, ctx, NULL, 0, "the transport refused a reply buffer");
		return;
	}
	switch (kind) {
	case SMALL_ACCEPTED:
		if (g) {
			len = rpcrdma__svc_reply_accepted(plain, xid, stat, low, high);
			len = rpcrdma__gss_seal(g, plain, len, buf, max);
			if (!len) {
				rpcrdma__gss_call_free(g);
				finish(x, ctx, buf, 0, "RPCSEC_GSS: the reply could not be sealed");
				return;
			}
		} else {
			len = rpcrdma__svc_reply_accepted(buf, xid, stat, low, high);
		}
		RPCRDMA__STAT_INC(svc, replies[stat]);
		break;
	case SMALL_RPC_MISMATCH:
		len = rpcrdma__svc_reply_rpc_mismatch(buf, xid);
		RPCRDMA__STAT_INC(svc, rpc_mismatch);
		break;
	default:
		len = rpcrdma__svc_reply_auth_error(buf, xid, stat);
		RPCRDMA__STAT_INC(svc, auth_errors);
		break;
	}
	rpcrdma__gss_call_free(g);
	finish(x, ctx, buf, len, NULL);
}

/* Lowest and highest version this transport may use (all_versions: any
 * registered version); false if none. */
static bool allowed_range(const struct rpcrdma__svc_prog *sp, bool has_cc, bool all_versions,
			  uint32_t *low, uint32_t *high)
{
	bool any = false;
	for (uint32_t i = 0; i < sp->p.nvers; i++) {
		const struct rpcrdma_svc_version *v = &sp->vers[i];
		if (!all_versions && (v->flags & RPCRDMA_SVC_VERS_NEEDS_CC) && !has_cc)
			continue;
		if (!any || v->vers < *low)
			*low = v->vers;
		if (!any || v->vers > *high)
			*high = v->vers;
		any = true;
	}
	return any;
}

/* A zeroed call of need bytes: a cached block that is large enough, else
 * a new one (sizes rounded up, so that procedures of similar sizes share
 * blocks).  NULL when out of memory. */
static struct rpcrdma_svc_call *call_get(struct rpcrdma__svc_xprt *x, size_t need)
{
	struct rpcrdma_svc_call *c;
	size_t cap;

	pthread_mutex_lock(&x->cache_lock);
	c = call_block_get(&x->cache, need, &cap);
	pthread_mutex_unlock(&x->cache_lock);
	if (!c) {
		cap = (need + CALL_BLOCK_ROUND - 1) & ~(size_t)(CALL_BLOCK_ROUND - 1);
		c = malloc(cap);
		if (!c)
			return NULL;
	}
	memset(c, 0, need);
	c->cap = cap;
	return c;
}

/* Any thread, before the call's transport slot is given back (so the
 * transport outlives its cache). */
static void free_call(struct rpcrdma_svc_call *c)
{
	struct rpcrdma__svc_xprt *x = c->xprt;
	size_t cap = c->cap;

	if (c->proc->release)
		c->proc->release(c->args, c->res);
	pthread_mutex_lock(&x->cache_lock);
	bool kept = call_block_put(&x->cache, c, cap);
	pthread_mutex_unlock(&x->cache_lock);
	if (!kept)
		free(c);
}

static size_t align_up(size_t n)
{
	return (n + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
}

/* RPCSEC_GSS (lib/gss): true when the call goes on (*g: a data call's
 * state), false when the hook answered, refused or dropped it. */
static bool gss_accept(struct rpcrdma__svc_xprt *x, const struct iovec *iov, unsigned niov,
		       struct rpcrdma__call_hdr *h, const struct sockaddr *peer,
		       socklen_t peer_len, void *ctx, struct rpcrdma__gss_call **g)
{
	struct rpcrdma_svc *svc = x->svc;
	const uint8_t *r;
	uint8_t *buf;
	size_t len;
	uint32_t stat;

	struct rpcrdma__gss_hdr gh = {
		.xid = h->xid, .len = h->len, .cred_body = h->gss_cred, .verf = h->gss_verf,
		.cred_len = h->gss_clen, .vlen = h->gss_vlen, .vflavor = h->gss_vflavor,
		.cred_end = h->gss_cred_end, .auth_stat = h->auth_stat, .cred = h->cred};
	enum rpcrdma__gss_verdict v;

	if (!svc->gss)
		goto out_badcred;
	v = rpcrdma__gss_svc_accept(svc->gss, iov, niov, &gh, peer, peer_len, g);
	h->auth_stat = gh.auth_stat;
	h->cred = gh.cred;
	switch (v) {
	case RPCRDMA__GSS_V_DATA:
		return true;
	case RPCRDMA__GSS_V_REPLY: /* INIT, CONTINUE_INIT, DESTROY */
		r = rpcrdma__gss_call_reply(*g, &len, &stat);
		buf = x->ops->reply_buf(x->priv, ctx, len);
		if (buf) {
			memcpy(buf, r, len);
			RPCRDMA__STAT_INC(svc, replies[stat]);
		}
		rpcrdma__gss_call_free(*g);
		finish(x, ctx, buf, buf ? len : 0, "the transport refused a reply buffer");
		return false;
	case RPCRDMA__GSS_V_AUTH:
		goto out_auth;
	case RPCRDMA__GSS_V_GARBAGE:
		reply_small(x, ctx, h->xid, SMALL_ACCEPTED, RPCRDMA_SVC_GARBAGE_ARGS, 0, 0, *g);
		return false;
	default:
		finish(x, ctx, NULL, 0, "RPCSEC_GSS: a replay, or below the sequence window");
		return false;
	}
out_badcred:
	h->auth_stat = RPCRDMA_AUTH_BADCRED;
out_auth:
	reply_small(x, ctx, h->xid, SMALL_AUTH, h->auth_stat, 0, 0, NULL);
	return false;
}

/* Reserves the reply buffer: rmax bytes from the transport, or, for
 * RPCSEC_GSS, room to seal them there (tbuf) and the call's scratch for
 * the plain reply (rbuf).  false: refused or out of memory. */
static bool reserve_reply(struct rpcrdma_svc_call *c)
{
	struct rpcrdma__svc_xprt *x = c->xprt;

	if (!c->gss) {
		c->rbuf = x->ops->reply_buf(x->priv, c->ctx, c->rmax);
		return c->rbuf != NULL;
	}
	c->tmax = c->rmax + RPCRDMA__GSS_SEAL_SLACK;
	c->tbuf = x->ops->reply_buf(x->priv, c->ctx, c->tmax);
	if (c->tbuf)
		c->rbuf = rpcrdma__gss_call_scratch(c->gss, c->rmax);
	return c->rbuf != NULL;
}

static void reply_done(struct rpcrdma_svc_call *c, uint8_t *buf, size_t len, bool success,
		       const char *why);

/* Step 8: whether the version refuses the call's flavour (procedure 0
 * takes any).  RPCSEC_GSS calls carry mapped ids, so they pass
 * RPCRDMA_SVC_VERS_AUTH_SYS too. */
static bool too_weak(const struct rpcrdma_svc_version *ver, const struct rpcrdma__call_hdr *h)
{
	uint32_t f = h->cred.flavor;
	if (h->proc == 0)
		return false;
	if ((ver->flags & RPCRDMA_SVC_VERS_AUTH_GSS) && f != RPCRDMA__AUTH_GSS)
		return true;
	return (ver->flags & RPCRDMA_SVC_VERS_AUTH_SYS) && f != RPCRDMA_AUTH_SYS &&
	       f != RPCRDMA__AUTH_GSS;
}

/* Steps 5-8: the call's program, version and procedure, and whether its
 * flavour is strong enough for them.  NULL: refused, the reply sent (g is
 * the reply's, as reply_small takes it). */
static const struct rpcrdma_svc_proc *find_proc(struct rpcrdma__svc_xprt *x, void *ctx,
						 const struct rpcrdma__call_hdr *h,
						 struct rpcrdma__gss_call *g,
						 const struct rpcrdma__svc_prog **prog)
{
	struct rpcrdma_svc *svc = x->svc;
	const struct rpcrdma__svc_prog *sp;
	const struct rpcrdma_svc_version *ver = NULL;
	bool has_cc = x->flags & RPCRDMA__SVC_XPRT_CONGESTION_CONTROL;
	uint32_t low = 0, high = 0;

	/* Programs are never unregistered, so sp stays valid after unlock. */
	pthread_rwlock_rdlock(&svc->progs_lock);
	for (sp = svc->progs; sp; sp = sp->next)
		if (sp->p.prog == h->prog)
			break;
	pthread_rwlock_unlock(&svc->progs_lock);
	if (!sp)
		goto out_prog_unavail;
	for (uint32_t i = 0; i < sp->p.nvers; i++)
		if (sp->vers[i].vers == h->vers)
			ver = &sp->vers[i];
	if (!ver || ((ver->flags & RPCRDMA_SVC_VERS_NEEDS_CC) && !has_cc))
		goto out_prog_mismatch;
	if (h->proc >= ver->nprocs || !ver->procs[h->proc].handler)
		goto out_proc_unavail;
	if (too_weak(ver, h))
		goto out_too_weak;
	*prog = sp;
	return &ver->procs[h->proc];

out_too_weak:
	reply_small(x, ctx, h->xid, SMALL_AUTH, RPCRDMA_AUTH_TOOWEAK, 0, 0, g);
	return NULL;
out_proc_unavail:
	reply_small(x, ctx, h->xid, SMALL_ACCEPTED, RPCRDMA_SVC_PROC_UNAVAIL, 0, 0, g);
	return NULL;
out_prog_mismatch:
	/* A transport that may use no version (NFSv4 alone over UDP) still
	 * gets PROG_MISMATCH, with the registered range, as Linux answers:
	 * the program exists, this version here not. */
	if (allowed_range(sp, has_cc, false, &low, &high) ||
	    allowed_range(sp, has_cc, true, &low, &high)) {
		reply_small(x, ctx, h->xid, SMALL_ACCEPTED, RPCRDMA_SVC_PROG_MISMATCH, low, high,
			    g);
		return NULL;
	}
out_prog_unavail:
	reply_small(x, ctx, h->xid, SMALL_ACCEPTED, RPCRDMA_SVC_PROG_UNAVAIL, 0, 0, g);
	return NULL;
}

static void dispatch(struct rpcrdma__svc_xprt *x, const struct iovec *iov, unsigned niov,
		     const struct sockaddr *peer, socklen_t peer_len, void *ctx)
{
	struct rpcrdma_svc *svc = x->svc;
	struct rpcrdma__call_hdr h;
	enum rpcrdma__call_verdict v;
	const struct rpcrdma__svc_prog *sp;
	const struct rpcrdma_svc_proc *proc;
	struct rpcrdma_svc_call *c;
	struct rpcrdma__gss_call *g = NULL;

	if (niov == 0)
		goto out_drop;
	v = rpcrdma__svc_call_decode(iov[0].iov_base, iov[0].iov_len, &h);
	if (__builtin_expect(v != RPCRDMA__CALL_OK, 0))
		goto out_bad_header;
	if (h.cred.flavor == RPCRDMA__AUTH_GSS &&
	    !gss_accept(x, iov, niov, &h, peer, peer_len, ctx, &g))
		return;
	proc = find_proc(x, ctx, &h, g, &sp);
	if (!proc)
		return;

	size_t asz = align_up(proc->args_size), rsz = align_up(proc->res_size);
	c = call_get(x, sizeof(*c) + asz + rsz);
	if (!c)
		goto out_system_err;
	c->xprt = x;
	c->ctx = ctx;
	c->prog = sp;
	c->proc = proc;
	c->hdr = h;
	c->args = c->storage;
	c->res = c->storage + asz;
	c->gss = g;
	if (peer && peer_len && peer_len <= sizeof(c->peer)) {
		memcpy(&c->peer, peer, peer_len);
		c->peer_len = peer_len;
	}
	if (proc->decode_args) {
		struct rpcrdma_xdr_dec dec;
		const struct iovec *aiov;
		unsigned aniov;
		size_t skip;
		rpcrdma__gss_call_args(g, iov, niov, h.len, &aiov, &aniov, &skip);
		rpcrdma_xdr_dec_init(&dec, aiov, aniov);
		if (rpcrdma_xdr_skip(&dec, skip) || proc->decode_args(&dec, c->args))
			goto out_garbage_args;
	}
	size_t est = proc->estimate ? proc->estimate(c, c->args) : 0; /* NULL: void */
	if (est > ((size_t)1 << 31))
		goto out_free_call;
	c->rmax = RPCRDMA__REPLY_ACCEPTED_LEN + ((est + 3) & ~(size_t)3);
	if (!reserve_reply(c)) {
		reply_done(c, NULL, 0, false, "the transport refused a reply buffer");
		return;
	}
	RPCRDMA__STAT_INC(svc, calls);
	int st = proc->handler(c, c->args, c->res);
	if (st != RPCRDMA_SVC_ASYNC)
		rpcrdma_svc_reply(c, st);
	else
		RPCRDMA__STAT_INC(svc, calls_async);
	return;

out_garbage_args:
	free_call(c);
	reply_small(x, ctx, h.xid, SMALL_ACCEPTED, RPCRDMA_SVC_GARBAGE_ARGS, 0, 0, g);
	return;
out_free_call:
	free_call(c);
out_system_err:
	reply_small(x, ctx, h.xid, SMALL_ACCEPTED, RPCRDMA_SVC_SYSTEM_ERR, 0, 0, g);
	return;
out_bad_header:
	if (v == RPCRDMA__CALL_RPC_MISMATCH)
		reply_small(x, ctx, h.xid, SMALL_RPC_MISMATCH, 0, 0, 0, NULL);
	else if (v == RPCRDMA__CALL_AUTH_ERROR)
		reply_small(x, ctx, h.xid, SMALL_AUTH, h.auth_stat, 0, 0, NULL);
	else if (v == RPCRDMA__CALL_GARBAGE)
		reply_small(x, ctx, h.xid, SMALL_ACCEPTED, RPCRDMA_SVC_GARBAGE_ARGS, 0, 0, NULL);
	else
		goto out_drop;
	return;
out_drop:
	rpcrdma__svc_log(svc, RPCRDMA_LOG_CALL_DROPPED, x->netid, peer, peer_len,
			 "not an RPC call (too short, or not a CALL)", 0);
	finish(x, ctx, NULL, 0, NULL);
}

int rpcrdma__svc_xprt_recv(struct rpcrdma__svc_xprt *x, const struct iovec *iov,
			  unsigned niov, const struct sockaddr *peer, socklen_t peer_len,
			  void *ctx)
{
	unsigned n = atomic_fetch_add_explicit(&x->in_progress, 1, memory_order_acq_rel);
	if (n >= x->max_calls) {
		atomic_fetch_sub_explicit(&x->in_progress, 1, memory_order_release);
		RPCRDMA__STAT_INC(x->svc, busy);
		return -EBUSY;
	}
	dispatch(x, iov, niov, peer, peer_len, ctx);
	return 0;
}

/*
 * Ends a call: seals an RPCSEC_GSS reply, passes a SUCCESS reply's bulk
 * item (offsets in the reply as sent) to the transport, frees the call
 * and hands the reply (len 0: none) to the transport.
 */
static void reply_done(struct rpcrdma_svc_call *c, uint8_t *buf, size_t len, bool success,
		       const char *why)
{
	struct rpcrdma__svc_xprt *x = c->xprt;
	struct rpcrdma__gss_call *g = c->gss;
	void *ctx = c->ctx;
	size_t plain_len = len;

	if (g) { /* buf is the scratch (or NULL): the transport gets tbuf */
		if (len && !(len = rpcrdma__gss_seal(g, buf, len, c->tbuf, c->tmax)))
			why = "RPCSEC_GSS: the reply could not be sealed";
		buf = c->tbuf;
	}
	if (success && len && c->bulk_len) {
		size_t body = plain_len - RPCRDMA__REPLY_ACCEPTED_LEN;
		if (c->bulk_off > body || c->bulk_len > body - c->bulk_off)
			RPCRDMA__STAT_INC(x->svc, encode_errors);
		else if (x->ops->bulk && rpcrdma__gss_call_bulk_ok(g))
			x->ops->bulk(x->priv, ctx,
				     len - plain_len + RPCRDMA__REPLY_ACCEPTED_LEN + c->bulk_off,
				     c->bulk_len);
	}
	free_call(c);
	rpcrdma__gss_call_free(g);
	finish(x, ctx, buf, len, why);
}

void rpcrdma_svc_reply(struct rpcrdma_svc_call *c, int status)
{
	struct rpcrdma_svc *svc = c->xprt->svc;
	uint8_t *buf = c->rbuf;
	uint32_t xid = c->hdr.xid;
	size_t len = 0;

	switch (status) {
	case RPCRDMA_SVC_DROP:
		reply_done(c, buf, 0, false, "the handler returned RPCRDMA_SVC_DROP");
		return;
	case RPCRDMA_SVC_SUCCESS:
		len = rpcrdma__svc_reply_accepted(buf, xid, RPCRDMA_SVC_SUCCESS, 0, 0);
		if (c->direct) {
			len += c->direct_len;
		} else if (c->proc->encode_res) {
			struct rpcrdma_xdr_enc enc;
			rpcrdma_xdr_enc_init(&enc, buf + len, c->rmax - len);
			int rc = c->proc->encode_res(&enc, c->res);
			if (rc) {
				if (rc == -EMSGSIZE)
					RPCRDMA__STAT_INC(svc, estimate_exceeded);
				else
					RPCRDMA__STAT_INC(svc, encode_errors);
				status = RPCRDMA_SVC_SYSTEM_ERR;
				break;
			}
			len += rpcrdma_xdr_enc_len(&enc);
		}
		RPCRDMA__STAT_INC(svc, replies[RPCRDMA_SVC_SUCCESS]);
		reply_done(c, buf, len, true, NULL);
		return;
	case RPCRDMA_SVC_PROC_UNAVAIL:
	case RPCRDMA_SVC_GARBAGE_ARGS:
	case RPCRDMA_SVC_SYSTEM_ERR:
		break;
	default:
		status = RPCRDMA_SVC_SYSTEM_ERR;
		break;
	}
	len = rpcrdma__svc_reply_accepted(buf, xid, (uint32_t)status, 0, 0);
	RPCRDMA__STAT_INC(svc, replies[status]);
	reply_done(c, buf, len, false, NULL);
}

/* ---------------------------------------------------------- accessors */

uint32_t rpcrdma_svc_call_xid(const struct rpcrdma_svc_call *c)
{
	return RPCRDMA__BE32(c->hdr.xid);
}

uint32_t rpcrdma_svc_call_prog(const struct rpcrdma_svc_call *c)
{
	return c->hdr.prog;
}

uint32_t rpcrdma_svc_call_vers(const struct rpcrdma_svc_call *c)
{
	return c->hdr.vers;
}

uint32_t rpcrdma_svc_call_proc(const struct rpcrdma_svc_call *c)
{
	return c->hdr.proc;
}

const struct rpcrdma_svc_cred *rpcrdma_svc_call_cred(const struct rpcrdma_svc_call *c)
{
	return &c->hdr.cred;
}

const struct sockaddr *rpcrdma_svc_call_peer(const struct rpcrdma_svc_call *c, socklen_t *len)
{
	if (len)
		*len = c->peer_len;
	return (const struct sockaddr *)&c->peer;
}

const char *rpcrdma_svc_call_netid(const struct rpcrdma_svc_call *c)
{
	return c->xprt->netid;
}

void *rpcrdma_svc_call_program_ctx(const struct rpcrdma_svc_call *c)
{
	return c->prog->p.ctx;
}

struct rpcrdma__gss_call *rpcrdma__svc_call_gss(const struct rpcrdma_svc_call *c)
{
	return c->gss;
}

void *rpcrdma__svc_call_xprt_ctx(const struct rpcrdma_svc_call *c)
{
	return c->ctx;
}

int rpcrdma_svc_call_set_bulk(struct rpcrdma_svc_call *c, size_t offset, size_t len)
{
	if (len == 0 || c->bulk_len)
		return -EINVAL;
	c->bulk_off = offset;
	c->bulk_len = len;
	return 0;
}

void *rpcrdma_svc_call_results(struct rpcrdma_svc_call *c, size_t *room)
{
	if (room)
		*room = c->rmax - RPCRDMA__REPLY_ACCEPTED_LEN;
	return c->rbuf + RPCRDMA__REPLY_ACCEPTED_LEN;
}

int rpcrdma_svc_call_set_results_len(struct rpcrdma_svc_call *c, size_t len)
{
	if (len % 4 || len > c->rmax - RPCRDMA__REPLY_ACCEPTED_LEN)
		return -EINVAL;
	c->direct_len = len;
	c->direct = true;
	return 0;
}

size_t rpcrdma_svc_call_reply_max(const struct rpcrdma_svc_call *c)
{
	return c->rmax;
}

size_t rpcrdma_svc_call_header_len(const struct rpcrdma_svc_call *c)
{
	return c->hdr.len;
}
