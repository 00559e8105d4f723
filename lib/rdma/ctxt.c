/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Operation contexts: preallocated pools whose buffers are registered once,
 * and single-use registered buffers for chunk data.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_internal.h"

int rpcrdma__pool_init(struct rpcrdma__pool *pool, struct ibv_pd *pd, rpcrdma__done_fn *done,
		       unsigned count, size_t ctxt_size, size_t buf_size, int access)
{
	memset(pool, 0, sizeof(*pool));
	rpcrdma__list_init(&pool->free);
	if (count == 0 || ctxt_size < sizeof(struct rpcrdma__ctxt))
		return -EINVAL;
	/* Keep every context and buffer 64-byte aligned. */
	ctxt_size = (ctxt_size + 63) & ~(size_t)63;
	buf_size = (buf_size + 63) & ~(size_t)63;
	pool->ctxt_size = ctxt_size;
	pool->buf_size = buf_size;
	pool->count = count;
	if (posix_memalign((void **)&pool->ctxts, 64, (size_t)count * ctxt_size)) {
		pool->ctxts = NULL;
		return -ENOMEM;
	}
	memset(pool->ctxts, 0, (size_t)count * ctxt_size);
	if (buf_size) {
		if (posix_memalign((void **)&pool->bufs, 4096, (size_t)count * buf_size)) {
			free(pool->ctxts);
			memset(pool, 0, sizeof(*pool));   /* fini: a no-op */
			return -ENOMEM;
		}
		memset(pool->bufs, 0, (size_t)count * buf_size);
		pool->mr = ibv_reg_mr(pd, pool->bufs, (size_t)count * buf_size, access);
		if (!pool->mr) {
			int err = errno ? -errno : -ENOMEM;

			free(pool->bufs);
			free(pool->ctxts);
			memset(pool, 0, sizeof(*pool));
			return err;
		}
	}
	pthread_mutex_init(&pool->lock, NULL);
	for (unsigned i = 0; i < count; i++) {
		struct rpcrdma__ctxt *c = (void *)(pool->ctxts + (size_t)i * ctxt_size);

		c->cqe.done = done;
		c->pool = pool;
		if (buf_size) {
			c->buf = pool->bufs + (size_t)i * buf_size;
			c->lkey = pool->mr->lkey;
		}
		rpcrdma__list_add_tail(&pool->free, &c->node);
	}
	pool->nfree = count;
	return 0;
}

void rpcrdma__pool_fini(struct rpcrdma__pool *pool)
{
	if (!pool->ctxts)
		return;
	if (pool->mr)
		ibv_dereg_mr(pool->mr);
	free(pool->bufs);
	free(pool->ctxts);
	pthread_mutex_destroy(&pool->lock);
	memset(pool, 0, sizeof(*pool));
}

struct rpcrdma__ctxt *rpcrdma__pool_get(struct rpcrdma__pool *pool)
{
	struct rpcrdma__list *n;

	pthread_mutex_lock(&pool->lock);
	n = rpcrdma__list_pop(&pool->free);
	if (n)
		pool->nfree--;
	pthread_mutex_unlock(&pool->lock);
	return n ? rpcrdma__container_of(n, struct rpcrdma__ctxt, node) : NULL;
}

void rpcrdma__pool_put(struct rpcrdma__ctxt *c)
{
	struct rpcrdma__pool *pool = c->pool;

	pthread_mutex_lock(&pool->lock);
	rpcrdma__list_add_tail(&pool->free, &c->node);
	pool->nfree++;
	pthread_mutex_unlock(&pool->lock);
}

void rpcrdma__pool_put_list(struct rpcrdma__pool *pool, struct rpcrdma__list *list, unsigned n)
{
	pthread_mutex_lock(&pool->lock);
	rpcrdma__list_splice_tail(&pool->free, list);
	pool->nfree += n;
	pthread_mutex_unlock(&pool->lock);
}

struct rpcrdma__ctxt *rpcrdma__pool_get_owned(struct rpcrdma__pool *pool)
{
	struct rpcrdma__list *n = rpcrdma__list_pop(&pool->free);

	if (!n)
		return NULL;
	pool->nfree--;
	return rpcrdma__container_of(n, struct rpcrdma__ctxt, node);
}

void rpcrdma__pool_put_owned(struct rpcrdma__ctxt *c)
{
	rpcrdma__list_add_tail(&c->pool->free, &c->node);
	c->pool->nfree++;
}

int rpcrdma__mrbuf_reg(struct rpcrdma__mrbuf *b, struct ibv_pd *pd, void *addr, size_t len,
		       int access)
{
	b->addr = addr;
	b->len = b->cap = len;
	b->own = false;
	/* ibv_reg_mr refuses length 0; register one byte so the key exists. */
	b->mr = ibv_reg_mr(pd, addr, len ? len : 1, access);
	if (!b->mr)
		return errno ? -errno : -ENOMEM;
	return 0;
}

int rpcrdma__mrbuf_alloc(struct rpcrdma__mrbuf *b, struct ibv_pd *pd, size_t len, int access)
{
	void *p;
	int err;

	if (posix_memalign(&p, 4096, len ? len : 1))
		return -ENOMEM;
	err = rpcrdma__mrbuf_reg(b, pd, p, len, access);
	if (err) {
		free(p);
		return err;
	}
	b->own = true;
	return 0;
}

void rpcrdma__mrbuf_free(struct rpcrdma__mrbuf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	if (b->own)
		free(b->addr);
	memset(b, 0, sizeof(*b));
}

/* ---- the registered-buffer cache ---- */

int rpcrdma__mrcache_init(struct rpcrdma__mrcache *mc, struct ibv_pd *pd, size_t max_bytes,
			  struct rpcrdma_rescg_group *grp, const char *device,
			  struct rpcrdma__counters *stats)
{
	int err = rpcrdma__rescg_ledger_init(&mc->led, grp, device);

	if (err) {
		mc->pd = NULL;
		return err;
	}
	pthread_mutex_init(&mc->lock, NULL);
	rpcrdma__list_init(&mc->free);
	mc->bytes = 0;
	mc->max_bytes = max_bytes;
	mc->pd = pd;
	mc->stats = stats;
	return 0;
}

/* Charges one registration (1 hca_object) before it is made. */
static int mrcache_charge(struct rpcrdma__mrcache *mc)
{
	int err;

	pthread_mutex_lock(&mc->lock);
	err = rpcrdma__rescg_ledger_charge(&mc->led, RPCRDMA_RES_HCA_OBJECT, 1);
	pthread_mutex_unlock(&mc->lock);
	if (err == -EAGAIN && mc->stats)
		rpcrdma__count(mc->stats, NULL, RPCRDMA_STAT_RESCG_DENIED, 1);
	return err;
}

/* Returns the charge of a registration undone or never made. */
static void mrcache_uncharge(struct rpcrdma__mrcache *mc)
{
	pthread_mutex_lock(&mc->lock);
	(void)rpcrdma__rescg_ledger_uncharge(&mc->led, RPCRDMA_RES_HCA_OBJECT, 1);
	pthread_mutex_unlock(&mc->lock);
}

void rpcrdma__mrcache_fini(struct rpcrdma__mrcache *mc)
{
	struct rpcrdma__list *n;

	if (!mc->pd)
		return;
	while ((n = rpcrdma__list_pop(&mc->free))) {
		/* The entry lies in the buffer it describes: copy it out first. */
		struct rpcrdma__mrbuf b = *rpcrdma__container_of(n, struct rpcrdma__mrbuf, node);

		rpcrdma__mrbuf_free(&b);
	}
	/* Every buffer is back (the connections are gone): this returns
	 * exactly the cached registrations just freed. */
	rpcrdma__rescg_ledger_release(&mc->led);
	pthread_mutex_destroy(&mc->lock);
	mc->pd = NULL;
}

size_t rpcrdma__mrcache_class(size_t len)
{
	size_t c = 4096;

	while (c < len && c < ((size_t)1 << 40))
		c <<= 1;
	return c;
}

int rpcrdma__mrcache_get(struct rpcrdma__mrcache *mc, struct rpcrdma__mrbuf *b, size_t len)
{
	size_t cls = rpcrdma__mrcache_class(len);
	struct rpcrdma__mrbuf *hit = NULL;
	int err;

	pthread_mutex_lock(&mc->lock);
	for (struct rpcrdma__list *n = mc->free.next; n != &mc->free; n = n->next) {
		struct rpcrdma__mrbuf *c = rpcrdma__container_of(n, struct rpcrdma__mrbuf, node);

		if (c->cap == cls) {
			hit = c;
			rpcrdma__list_del(n);
			mc->bytes -= c->cap;
			break;
		}
	}
	pthread_mutex_unlock(&mc->lock);
	if (hit) {
		*b = *hit;
		b->len = len;
		rpcrdma__list_init(&b->node);
		return 0;
	}
	err = mrcache_charge(mc);
	if (err)
		return err;
	err = rpcrdma__mrbuf_alloc(b, mc->pd, cls, IBV_ACCESS_LOCAL_WRITE);
	if (err) {
		mrcache_uncharge(mc);
		return err;
	}
	b->cap = cls;
	b->len = len;
	return 0;
}

/* A cached buffer's entry is written at the start of the buffer itself
 * (its own memory, page-aligned, at least 4 KiB, unused while cached), so
 * caching allocates nothing. */
void rpcrdma__mrcache_put(struct rpcrdma__mrcache *mc, struct rpcrdma__mrbuf *b)
{
	struct rpcrdma__mrbuf *keep;

	if (!b->mr)
		return;
	pthread_mutex_lock(&mc->lock);
	if (b->own && b->cap >= sizeof(*keep) && mc->bytes + b->cap <= mc->max_bytes) {
		keep = (struct rpcrdma__mrbuf *)(void *)b->addr;
		*keep = *b;
		rpcrdma__list_add_tail(&mc->free, &keep->node);
		mc->bytes += b->cap;
		pthread_mutex_unlock(&mc->lock);
		memset(b, 0, sizeof(*b));
		return;
	}
	pthread_mutex_unlock(&mc->lock);
	rpcrdma__mrbuf_free(b);
	mrcache_uncharge(mc);
}
