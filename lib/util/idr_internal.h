/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals shared by the IDR (idr.c), the IDA (ida.c) and their invariant
 * checker (idr_check.c): the radix-tree node, bit helpers, the memory hooks
 * and a small pool that obtains every node an operation needs before the
 * operation touches the tree (so -ENOMEM changes nothing).
 *
 * Tree shape.  A tree of height h >= 1 has its root at level h and its leaves
 * at level 1; height 0 means no root.  Every interior node has 64 slots:
 *   used bit i  <=> slots[i] != NULL (a child exists, and is never empty),
 *   full bit i  <=> that child has no free id left in its range.
 * A missing child is empty, hence never full.  Nodes are freed as soon as
 * they become empty, and the root is replaced by its slot 0 child while it
 * has no other child, so the height is the least that covers the largest id.
 *
 * IDR leaf: an rpcrdma__id_node too, whose slots hold the user pointers and
 * whose used and full bitmaps are both "id in use" (64 ids per leaf).
 * IDA leaf: an rpcrdma__ida_leaf, a 1024-bit bitmap (bit set = id in use).
 */
#ifndef RPCRDMA_IDR_INTERNAL_H
#define RPCRDMA_IDR_INTERNAL_H

#include <rpcrdma/idr.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The number of tree nodes held (0 when empty); for memory accounting. */
size_t rpcrdma__idr_node_count(const struct rpcrdma_idr *idr);
/* The number of tree nodes (interior and bitmap) held; 0 when inline. */
size_t rpcrdma__ida_node_count(const struct rpcrdma_ida *ida);

#define RPCRDMA__ID_BITS 6
#define RPCRDMA__ID_SLOTS 64
#define RPCRDMA__ID_LIMIT ((int64_t)INT_MAX + 1) /* ids are < this */
#define RPCRDMA__IDR_MAX_HEIGHT 6		  /* 6 * 6 = 36 >= 31 bits */
#define RPCRDMA__IDA_LEAF_SHIFT 10		  /* 1024 ids per IDA leaf */
#define RPCRDMA__IDA_LEAF_WORDS (1u << (RPCRDMA__IDA_LEAF_SHIFT - 6))
#define RPCRDMA__IDA_MAX_HEIGHT 5 /* 10 + 4 * 6 = 34 >= 31 bits */
#define RPCRDMA__ID_POOL_MAX 12 /* growing 1 -> 6 levels: 5 + 5 */

struct rpcrdma__id_node {
	uint64_t used;
	uint64_t full;
	void *slots[RPCRDMA__ID_SLOTS];
};

struct rpcrdma__ida_leaf {
	uint64_t w[RPCRDMA__IDA_LEAF_WORDS];
};

/* Memory hooks plus the number of nodes they currently hold. */
struct rpcrdma__id_mem {
	struct rpcrdma_idr_allocator a;
	size_t nodes;
};

struct rpcrdma_idr {
	struct rpcrdma__id_mem mem;
	struct rpcrdma__id_node *root;
	unsigned height;
	int next;     /* cursor of rpcrdma_idr_alloc_cyclic */
	size_t count; /* ids in use */
};

/* Ids below 64 live in inline_bits while root is NULL; once a tree exists,
 * inline_bits is 0 and every id is in the tree. */
struct rpcrdma_ida {
	struct rpcrdma__id_mem mem;
	uint64_t inline_bits;
	void *root; /* rpcrdma__id_node, or rpcrdma__ida_leaf when height == 1 */
	unsigned height;
	size_t count;
};

/* Up to RPCRDMA__ID_POOL_MAX zeroed blocks of one size, obtained in advance. */
struct rpcrdma__id_pool {
	unsigned n;
	size_t size;
	void *p[RPCRDMA__ID_POOL_MAX];
};

static inline uint64_t rpcrdma__bit(unsigned i)
{
	return (uint64_t)1 << i;
}

static inline unsigned rpcrdma__ctz64(uint64_t x)
{
	return (unsigned)__builtin_ctzll(x);
}

static inline unsigned rpcrdma__popcount64(uint64_t x)
{
	return (unsigned)__builtin_popcountll(x);
}

/* Bits i and up of a word, for i < 64. */
static inline uint64_t rpcrdma__bits_from(unsigned i)
{
	return ~(uint64_t)0 << i;
}

/* Checks [start, end) and gives its exclusive upper limit in *lim. */
static inline int rpcrdma__id_range(int start, int end, int64_t *lim)
{
	if (start < 0)
		return -EINVAL;
	if (end <= 0) {
		*lim = RPCRDMA__ID_LIMIT;
		return 0;
	}
	if (start >= end)
		return -EINVAL;
	*lim = end;
	return 0;
}

int rpcrdma__id_mem_init(struct rpcrdma__id_mem *m, const struct rpcrdma_idr_allocator *a);
void *rpcrdma__id_mem_alloc(const struct rpcrdma__id_mem *m, size_t size);
void rpcrdma__id_mem_free(const struct rpcrdma__id_mem *m, void *p, size_t size);

/* Fills the pool with n zeroed blocks of size bytes: 0, or -ENOMEM with the
 * pool empty and nothing held. */
int rpcrdma__id_pool_fill(struct rpcrdma__id_mem *m, struct rpcrdma__id_pool *pool,
			  unsigned n, size_t size);
/* Takes one block; the pool must not be empty. */
void *rpcrdma__id_pool_take(struct rpcrdma__id_pool *pool);
/* Frees what is left in the pool. */
void rpcrdma__id_pool_drain(struct rpcrdma__id_mem *m, struct rpcrdma__id_pool *pool);
/* Frees one node obtained through the pool. */
void rpcrdma__id_node_free(struct rpcrdma__id_mem *m, void *node, size_t size);

/* Invariant checkers (idr_check.c, linked into the white-box tests only):
 * 0 when every rule above holds (bitmaps, no empty node, minimal height,
 * node and id counts), else -EUCLEAN. */
int rpcrdma__idr_check(const struct rpcrdma_idr *idr);
int rpcrdma__ida_check(const struct rpcrdma_ida *ida);

#endif /* RPCRDMA_IDR_INTERNAL_H */
