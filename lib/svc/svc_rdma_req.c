/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RDMA transport's requests (struct rdma_req, svc_rdma_int.h): their
 * pool, the cache of large reply buffers and the budget of reply buffers
 * registered at a call's arrival.  Any thread; r->lock guards the pool
 * and the cache.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "svc_rdma_int.h"

#define SVC_RDMA_BIG_KEEP_BYTES ((size_t)8 << 20)
#define SVC_RDMA_BIG_ROUND ((size_t)64 << 10)

RPCRDMA__BCACHE_TYPED(req_cache, struct rdma_req)

/* A buffer of at least len bytes (its size in *cap): a cached one, else a
 * new one rounded up to 64 KiB.  NULL when out of memory. */
void *rpcrdma__svc_big_get(struct rpcrdma__svc_rdma *r, size_t len, size_t *cap)
{
	pthread_mutex_lock(&r->lock);
	void *b = rpcrdma__bcache_get(&r->bigs, len, cap);
	if (b)
		r->big_bytes -= *cap;
	pthread_mutex_unlock(&r->lock);
	if (b)
		return b;
	if (len > SIZE_MAX - SVC_RDMA_BIG_ROUND)
		return NULL;
	*cap = (len + SVC_RDMA_BIG_ROUND - 1) & ~(SVC_RDMA_BIG_ROUND - 1);
	return malloc(*cap);
}

/* Back to the cache, or freed when the cache is full (in blocks or in
 * bytes). */
static void big_put(struct rpcrdma__svc_rdma *r, void *buf, size_t cap)
{
	bool kept = false;

	pthread_mutex_lock(&r->lock);
	if (cap <= SVC_RDMA_BIG_KEEP_BYTES - r->big_bytes)
		kept = rpcrdma__bcache_put(&r->bigs, buf, cap);
	if (kept)
		r->big_bytes += cap;
	pthread_mutex_unlock(&r->lock);
	if (!kept)
		free(buf);
}


/* Takes len bytes of the budget; false when they would exceed it. */
bool rpcrdma__svc_pre_take(struct rpcrdma__svc_rdma *r, size_t len)
{
	size_t cur = atomic_load_explicit(&r->pre_bytes, memory_order_relaxed);
	do {
		if (len > SVC_RDMA_PRE_BUDGET - cur)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&r->pre_bytes, &cur, cur + len,
							memory_order_relaxed,
							memory_order_relaxed));
	return true;
}

/* Requests kept in the pool: this many connections' full grants, at most
 * SVC_RDMA_KEEP_BYTES of them. */
#define SVC_RDMA_KEEP 4u
#define SVC_RDMA_KEEP_BYTES ((size_t)4 << 20)

static struct rdma_req *req_new(struct rpcrdma__svc_rdma *r)
{
	struct rdma_req *q = calloc(1, sizeof(*q) + r->own_cap);

	if (q)
		q->own = q + 1;
	return q;
}

/* A request from the pool, cleared (a new one when the pool is empty:
 * more calls in progress than ever before, up to the grants' sum). */
struct rdma_req *rpcrdma__svc_req_get(struct rpcrdma__svc_rdma *r)
{
	struct rdma_req *q;

	pthread_mutex_lock(&r->lock);
	q = req_cache_pop(&r->reqs);
	pthread_mutex_unlock(&r->lock);
	if (rpcrdma__unlikely(!q))
		return req_new(r);
	void *own = q->own;
	memset(q, 0, sizeof(*q));
	q->own = own;
	return q;
}

/* r->lock held: q back to the pool, or NULL when the pool is full (the
 * caller frees it after unlocking). */
struct rdma_req *rpcrdma__svc_req_put_locked(struct rpcrdma__svc_rdma *r, struct rdma_req *q)
{
	return req_cache_put(&r->reqs, q, sizeof(*q)) ? NULL : q;
}

/* Gives back q's share of the budget and the reply buffer it may own. */
void rpcrdma__svc_req_clear(struct rpcrdma__svc_rdma *r, struct rdma_req *q)
{
	if (q->pre_len)
		atomic_fetch_sub_explicit(&r->pre_bytes, q->pre_len, memory_order_relaxed);
	if (!q->registered && q->buf && q->buf != q->own)
		big_put(r, q->buf, q->big_cap);   /* a reply larger than own_cap */
	q->buf = NULL;
}

/* Clears q and returns it to the pool. */
void rpcrdma__svc_req_free(struct rpcrdma__svc_rdma *r, struct rdma_req *q)
{
	rpcrdma__svc_req_clear(r, q);
	pthread_mutex_lock(&r->lock);
	q = rpcrdma__svc_req_put_locked(r, q);
	pthread_mutex_unlock(&r->lock);
	if (q) /* NULL: back in the pool */
		free(q);
}

/* The pool at listen time: a grant's worth of requests (within what it
 * keeps), each with a reply buffer of own_cap bytes. */
int rpcrdma__svc_req_pool_init(struct rpcrdma__svc_rdma *r, unsigned grant, size_t own_cap)
{
	size_t most = SVC_RDMA_KEEP_BYTES / (sizeof(struct rdma_req) + own_cap);

	unsigned keep = (unsigned)((size_t)grant * SVC_RDMA_KEEP < most ?
				   (size_t)grant * SVC_RDMA_KEEP : most);

	r->own_cap = own_cap;
	rpcrdma__bcache_init(&r->reqs, keep);
	rpcrdma__bcache_init(&r->bigs, SVC_RDMA_BIG_KEEP_BYTES / SVC_RDMA_BIG_ROUND);
	for (unsigned i = 0; i < grant && i < keep; i++) {
		struct rdma_req *q = req_new(r);

		if (!q)
			return -ENOMEM;
		req_cache_put(&r->reqs, q, sizeof(*q));
	}
	return 0;
}

void rpcrdma__svc_req_pool_fini(struct rpcrdma__svc_rdma *r)
{
	for (void *b; (b = rpcrdma__bcache_pop(&r->bigs));)
		free(b);
	for (struct rdma_req *q; (q = req_cache_pop(&r->reqs));)
		free(q);
	r->big_bytes = 0;
}
