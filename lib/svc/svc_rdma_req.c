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

/* A large reply buffer on the cache. */
struct rpcrdma__svc_big {
	struct rpcrdma__svc_big *next;
	size_t cap;
};

#define SVC_RDMA_BIG_KEEP_BYTES ((size_t)8 << 20)
#define SVC_RDMA_BIG_ROUND ((size_t)64 << 10)

/* A buffer of at least len bytes (its size in *cap): a cached one, else a
 * new one rounded up to 64 KiB.  NULL when out of memory. */
void *rpcrdma__svc_big_get(struct rpcrdma__svc_rdma *r, size_t len, size_t *cap)
{
	struct rpcrdma__svc_big *b, **pp;

	pthread_mutex_lock(&r->lock);
	for (pp = &r->bigs; (b = *pp) != NULL; pp = &b->next)
		if (b->cap >= len) {
			*pp = b->next;
			r->big_bytes -= b->cap;
			break;
		}
	pthread_mutex_unlock(&r->lock);
	if (b) {
		*cap = b->cap;
		return b;
	}
	if (len > SIZE_MAX - SVC_RDMA_BIG_ROUND)
		return NULL;
	*cap = (len + SVC_RDMA_BIG_ROUND - 1) & ~(SVC_RDMA_BIG_ROUND - 1);
	return malloc(*cap);
}

/* Back to the cache, or freed when the cache is full. */
static void big_put(struct rpcrdma__svc_rdma *r, void *buf, size_t cap)
{
	struct rpcrdma__svc_big *b = buf;

	pthread_mutex_lock(&r->lock);
	if (cap <= SVC_RDMA_BIG_KEEP_BYTES - r->big_bytes) {
		b->cap = cap;
		b->next = r->bigs;
		r->bigs = b;
		r->big_bytes += cap;
		b = NULL;
	}
	pthread_mutex_unlock(&r->lock);
	if (b) /* NULL: cached */
		free(b);
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
	q = r->free;
	if (q) {
		r->free = q->next;
		r->nfree--;
	}
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
	if (r->nfree >= r->nkeep)
		return q;
	q->next = r->free;
	r->free = q;
	r->nfree++;
	return NULL;
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

	r->own_cap = own_cap;
	r->nkeep = (unsigned)((size_t)grant * SVC_RDMA_KEEP < most ?
			      (size_t)grant * SVC_RDMA_KEEP : most);
	for (unsigned i = 0; i < grant && i < r->nkeep; i++) {
		struct rdma_req *q = req_new(r);

		if (!q)
			return -ENOMEM;
		q->next = r->free;
		r->free = q;
		r->nfree++;
	}
	return 0;
}

void rpcrdma__svc_req_pool_fini(struct rpcrdma__svc_rdma *r)
{
	while (r->bigs) {
		struct rpcrdma__svc_big *b = r->bigs;

		r->bigs = b->next;
		free(b);
	}
	while (r->free) {
		struct rdma_req *q = r->free;

		r->free = q->next;
		free(q);
	}
	r->nfree = 0;
}
