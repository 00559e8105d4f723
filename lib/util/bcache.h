/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The block cache: a bounded free-list of blocks of one type, with
 * counters.  A block given back is kept, up to `max` blocks, for a later
 * get, which takes the most recently kept block whose capacity covers what
 * it needs (LIFO: the warmest one); past the bound the owner frees it.
 * The capacity is the owner's unit (bytes of a call block, WRs of a read
 * context; 0 for blocks of one size).
 *
 * While cached, a block's first bytes hold the link (struct
 * rpcrdma__bcache_blk): the type's first member must be one the owner sets
 * again after a get (a list node, its size), and the type at least as
 * large as the link (RPCRDMA__BCACHE_TYPED checks it).  No lock: the owner
 * serializes gets and puts (its own lock, or one thread).
 *
 * Used by the service core's call blocks (svc.c), a connection's read
 * contexts (rdma_rw.c) and the RDMA client's call records
 * (rdma_client.c).  Registered buffers have their own cache
 * (rpcrdma__mrcache): classes of bytes, bounded in bytes, charged.
 */
#ifndef RPCRDMA_UTIL_BCACHE_H
#define RPCRDMA_UTIL_BCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rpcrdma__bcache_blk {
	struct rpcrdma__bcache_blk *next;
	size_t cap;
};

struct rpcrdma__bcache {
	struct rpcrdma__bcache_blk *head;
	unsigned n, max;                /* blocks kept, at most max */
	/* Counters (the owner's lock): gets served from the cache, gets it
	 * could not serve, puts kept, puts refused (the cache full). */
	uint64_t hits, misses, kept, refused;
};

static inline void rpcrdma__bcache_init(struct rpcrdma__bcache *bc, unsigned max)
{
	*bc = (struct rpcrdma__bcache){ .max = max };
}

/* The most recently kept block of capacity at least need, taken out of
 * the cache, and its capacity in *cap; NULL when none (a miss).  The
 * block's bytes past the link are as they were put. */
static inline void *rpcrdma__bcache_get(struct rpcrdma__bcache *bc, size_t need, size_t *cap)
{
	struct rpcrdma__bcache_blk *b, **pp;

	for (pp = &bc->head; (b = *pp) != NULL; pp = &b->next) {
		if (b->cap >= need) {
			*pp = b->next;
			bc->n--;
			bc->hits++;
			*cap = b->cap;
			return b;
		}
	}
	bc->misses++;
	return NULL;
}

/* Keeps blk, of capacity cap: true, or false when the cache is full (the
 * caller frees blk). */
static inline bool rpcrdma__bcache_put(struct rpcrdma__bcache *bc, void *blk, size_t cap)
{
	struct rpcrdma__bcache_blk *b = blk;

	if (bc->n >= bc->max) {
		bc->refused++;
		return false;
	}
	b->cap = cap;
	b->next = bc->head;
	bc->head = b;
	bc->n++;
	bc->kept++;
	return true;
}

/* Takes any block out (for the owner to free at its end); NULL when
 * empty.  Counts nothing. */
static inline void *rpcrdma__bcache_pop(struct rpcrdma__bcache *bc)
{
	struct rpcrdma__bcache_blk *b = bc->head;

	if (b) {
		bc->head = b->next;
		bc->n--;
	}
	return b;
}

/*
 * Typed wrappers for blocks of `type`: name_get(bc, need, &cap) returns a
 * type *, name_put(bc, p, cap) and name_pop(bc) take one.  The type must be
 * at least as large as the link.  Marked unused: a user may need only some
 * (clang warns of an unused static inline function of a .c file).
 */
#define RPCRDMA__BCACHE_TYPED(name, type)                                           \
	_Static_assert(sizeof(type) >= sizeof(struct rpcrdma__bcache_blk),          \
		       #type " is too small for the block cache's link");           \
	__attribute__((unused)) static inline type *                                \
	name##_get(struct rpcrdma__bcache *bc, size_t need, size_t *cap)            \
	{                                                                           \
		return (type *)rpcrdma__bcache_get(bc, need, cap);                  \
	}                                                                           \
	__attribute__((unused)) static inline bool                                  \
	name##_put(struct rpcrdma__bcache *bc, type *p, size_t cap)                 \
	{                                                                           \
		return rpcrdma__bcache_put(bc, p, cap);                             \
	}                                                                           \
	__attribute__((unused)) static inline type *                                \
	name##_pop(struct rpcrdma__bcache *bc)                                      \
	{                                                                           \
		return (type *)rpcrdma__bcache_pop(bc);                             \
	}

#endif /* RPCRDMA_UTIL_BCACHE_H */
