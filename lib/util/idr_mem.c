/* SPDX-License-Identifier: BSD-2-Clause */
/* Memory hooks and node pool of the id allocators. */
#include "idr_internal.h"

static void *default_alloc(void *user, size_t size)
{
	(void)user;
	return malloc(size);
}

static void default_free(void *user, void *ptr, size_t size)
{
	(void)user;
	(void)size;
	free(ptr);
}

int rpcrdma__id_mem_init(struct rpcrdma__id_mem *m, const struct rpcrdma_idr_allocator *a)
{
	if (a == NULL) {
		m->a.alloc = default_alloc;
		m->a.free = default_free;
		m->a.user = NULL;
	} else {
		if (a->alloc == NULL || a->free == NULL)
			return -EINVAL;
		m->a = *a;
	}
	m->nodes = 0;
	return 0;
}

void *rpcrdma__id_mem_alloc(const struct rpcrdma__id_mem *m, size_t size)
{
	return m->a.alloc(m->a.user, size);
}

void rpcrdma__id_mem_free(const struct rpcrdma__id_mem *m, void *p, size_t size)
{
	m->a.free(m->a.user, p, size);
}

int rpcrdma__id_pool_fill(struct rpcrdma__id_mem *m, struct rpcrdma__id_pool *pool,
			  unsigned n, size_t size)
{
	pool->n = 0;
	pool->size = size;
	if (n > RPCRDMA__ID_POOL_MAX)
		return -EINVAL; /* a caller bug: heights are bounded */
	while (pool->n < n) {
		void *p = rpcrdma__id_mem_alloc(m, size);
		if (p == NULL) {
			rpcrdma__id_pool_drain(m, pool);
			return -ENOMEM;
		}
		memset(p, 0, size);
		pool->p[pool->n++] = p;
		m->nodes++;
	}
	return 0;
}

void *rpcrdma__id_pool_take(struct rpcrdma__id_pool *pool)
{
	if (pool->n == 0)
		abort(); /* the count of needed nodes was wrong: never continue */
	return pool->p[--pool->n];
}

void rpcrdma__id_pool_drain(struct rpcrdma__id_mem *m, struct rpcrdma__id_pool *pool)
{
	while (pool->n > 0)
		rpcrdma__id_node_free(m, pool->p[--pool->n], pool->size);
}

void rpcrdma__id_node_free(struct rpcrdma__id_mem *m, void *node, size_t size)
{
	m->nodes--;
	rpcrdma__id_mem_free(m, node, size);
}
