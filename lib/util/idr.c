/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IDR: int id -> pointer map on a radix tree of 64-slot nodes (6 bits of the
 * id per level).  See idr_internal.h for the tree invariants.
 */
#include "idr_internal.h"

#define NODE_SIZE sizeof(struct rpcrdma__id_node)
#define ALL_ONES (~(uint64_t)0)

/* Ids covered by a tree of height h. */
static inline int64_t cap(unsigned h)
{
	return (int64_t)1 << (RPCRDMA__ID_BITS * h);
}

static inline unsigned shift_of(unsigned level)
{
	return RPCRDMA__ID_BITS * (level - 1);
}

static inline unsigned slot_of(int64_t id, unsigned level)
{
	return (unsigned)(id >> shift_of(level)) & (RPCRDMA__ID_SLOTS - 1);
}

/* The least height whose tree covers id. */
static unsigned height_for(int64_t id)
{
	if (id < RPCRDMA__ID_SLOTS)
		return 1;
	unsigned bits = 64 - (unsigned)__builtin_clzll((uint64_t)id); /* bits in id */
	return (bits + RPCRDMA__ID_BITS - 1) / RPCRDMA__ID_BITS;
}

int rpcrdma_idr_create(const struct rpcrdma_idr_allocator *allocator, struct rpcrdma_idr **out)
{
	if (out)
		*out = NULL; /* api.h: a failed create leaves *out NULL */
	struct rpcrdma__id_mem mem;
	int r = rpcrdma__id_mem_init(&mem, allocator);
	if (r < 0)
		return r;
	struct rpcrdma_idr *idr = rpcrdma__id_mem_alloc(&mem, sizeof(*idr));
	if (idr == NULL)
		return -ENOMEM;
	memset(idr, 0, sizeof(*idr));
	idr->mem = mem;
	*out = idr;
	return 0;
}

static void free_subtree(struct rpcrdma__id_mem *m, struct rpcrdma__id_node *n, unsigned level)
{
	if (level > 1) {
		for (uint64_t u = n->used; u != 0; u &= u - 1)
			free_subtree(m, n->slots[rpcrdma__ctz64(u)], level - 1);
	}
	rpcrdma__id_node_free(m, n, NODE_SIZE);
}

void rpcrdma_idr_destroy(struct rpcrdma_idr *idr)
{
	if (idr == NULL)
		return;
	if (idr->root != NULL)
		free_subtree(&idr->mem, idr->root, idr->height);
	struct rpcrdma__id_mem mem = idr->mem;
	rpcrdma__id_mem_free(&mem, idr, sizeof(*idr));
}

/* The leaf holding id, or NULL. */
static struct rpcrdma__id_node *leaf_of(const struct rpcrdma_idr *idr, int64_t id)
{
	if (idr->root == NULL || id >= cap(idr->height))
		return NULL;
	struct rpcrdma__id_node *n = idr->root;
	for (unsigned level = idr->height; level > 1 && n != NULL; level--)
		n = n->slots[slot_of(id, level)];
	return n;
}

/*
 * Lowest free id >= start in the subtree n at level, which covers ids from
 * base; start lies in that range.  -1 when none.  At each level only the slot
 * holding start can fail (its free ids may all lie below start); any later
 * non-full slot has a free id, so the cost is at most twice the height.
 */
static int64_t node_find_free(const struct rpcrdma__id_node *n, unsigned level, int64_t base,
			      int64_t start)
{
	unsigned shift = shift_of(level);
	uint64_t mask = ~n->full & rpcrdma__bits_from((unsigned)((start - base) >> shift));
	for (; mask != 0; mask &= mask - 1) {
		unsigned i = rpcrdma__ctz64(mask);
		int64_t child_base = base + ((int64_t)i << shift);
		int64_t from = start > child_base ? start : child_base;
		if (level == 1)
			return from;
		const struct rpcrdma__id_node *child = n->slots[i];
		if (child == NULL)
			return from;
		int64_t id = node_find_free(child, level - 1, child_base, from);
		if (id >= 0)
			return id;
	}
	return -1;
}

/* Lowest free id >= start; may be >= RPCRDMA__ID_LIMIT, meaning none. */
static int64_t find_free(const struct rpcrdma_idr *idr, int64_t start)
{
	if (idr->root == NULL || start >= cap(idr->height))
		return start;
	int64_t id = node_find_free(idr->root, idr->height, 0, start);
	return id >= 0 ? id : cap(idr->height);
}

/* How many nodes inserting id needs (grown levels and missing path nodes). */
static unsigned nodes_needed(const struct rpcrdma_idr *idr, int64_t id)
{
	unsigned need = height_for(id);
	if (idr->root == NULL)
		return need;
	unsigned h = idr->height, n = 0;
	if (need > h) {
		n = need - h; /* the new levels above the old root, in slot 0 */
		for (unsigned level = need; level > h; level--) {
			if (slot_of(id, level) != 0)
				return n + level - 1;
		}
	}
	const struct rpcrdma__id_node *node = idr->root;
	for (unsigned level = h; level > 1; level--) {
		node = node->slots[slot_of(id, level)];
		if (node == NULL)
			return n + level - 1;
	}
	return n;
}

/* Stores ptr under the free id, taking nodes from pool.  Cannot fail. */
static void insert(struct rpcrdma_idr *idr, int64_t id, void *ptr, struct rpcrdma__id_pool *pool)
{
	unsigned need = height_for(id);
	if (idr->root == NULL) {
		idr->root = rpcrdma__id_pool_take(pool);
		idr->height = need;
	}
	while (idr->height < need) {
		struct rpcrdma__id_node *top = rpcrdma__id_pool_take(pool);
		top->slots[0] = idr->root;
		top->used = 1;
		top->full = idr->root->full == ALL_ONES ? 1 : 0;
		idr->root = top;
		idr->height++;
	}

	struct rpcrdma__id_node *path[RPCRDMA__IDR_MAX_HEIGHT + 1];
	struct rpcrdma__id_node *n = idr->root;
	for (unsigned level = idr->height; level > 1; level--) {
		unsigned i = slot_of(id, level);
		path[level] = n;
		if (n->slots[i] == NULL) {
			n->slots[i] = rpcrdma__id_pool_take(pool);
			n->used |= rpcrdma__bit(i);
		}
		n = n->slots[i];
	}
	unsigned i = slot_of(id, 1);
	n->slots[i] = ptr;
	n->used |= rpcrdma__bit(i);
	n->full |= rpcrdma__bit(i);
	for (unsigned level = 1; level < idr->height && n->full == ALL_ONES; level++) {
		n = path[level + 1];
		n->full |= rpcrdma__bit(slot_of(id, level + 1));
	}
	idr->count++;
}

/* Gets the nodes, then inserts: the id, or -ENOMEM with nothing changed. */
static int insert_id(struct rpcrdma_idr *idr, int64_t id, void *ptr)
{
	struct rpcrdma__id_pool pool;
	int r = rpcrdma__id_pool_fill(&idr->mem, &pool, nodes_needed(idr, id), NODE_SIZE);
	if (r < 0)
		return r;
	insert(idr, id, ptr, &pool);
	rpcrdma__id_pool_drain(&idr->mem, &pool); /* empty: the count is exact */
	return (int)id;
}

int rpcrdma_idr_alloc(struct rpcrdma_idr *idr, void *ptr, int start, int end)
{
	int64_t lim;
	int r = rpcrdma__id_range(start, end, &lim);
	if (r < 0)
		return r;
	int64_t id = find_free(idr, start);
	if (id >= lim)
		return -ENOSPC;
	return insert_id(idr, id, ptr);
}

int rpcrdma_idr_alloc_cyclic(struct rpcrdma_idr *idr, void *ptr, int start, int end)
{
	int64_t lim;
	int r = rpcrdma__id_range(start, end, &lim);
	if (r < 0)
		return r;
	int64_t from = idr->next > start ? idr->next : start;
	int64_t id = from < lim ? find_free(idr, from) : lim;
	if (id >= lim) {
		id = find_free(idr, start); /* wrap around */
		if (id >= lim)
			return -ENOSPC;
	}
	r = insert_id(idr, id, ptr);
	if (r >= 0)
		idr->next = r == INT_MAX ? 0 : r + 1;
	return r;
}

int rpcrdma_idr_lookup(const struct rpcrdma_idr *idr, int id, void **ptr)
{
	if (id < 0)
		return -EINVAL;
	const struct rpcrdma__id_node *leaf = leaf_of(idr, id);
	unsigned i = slot_of(id, 1);
	if (leaf == NULL || !(leaf->used & rpcrdma__bit(i)))
		return -ENOENT;
	if (ptr != NULL)
		*ptr = leaf->slots[i];
	return 0;
}

void *rpcrdma_idr_find(const struct rpcrdma_idr *idr, int id)
{
	void *p = NULL;
	return rpcrdma_idr_lookup(idr, id, &p) == 0 ? p : NULL;
}

int rpcrdma_idr_replace(struct rpcrdma_idr *idr, int id, void *ptr, void **old)
{
	if (id < 0)
		return -EINVAL;
	struct rpcrdma__id_node *leaf = leaf_of(idr, id);
	unsigned i = slot_of(id, 1);
	if (leaf == NULL || !(leaf->used & rpcrdma__bit(i)))
		return -ENOENT;
	if (old != NULL)
		*old = leaf->slots[i];
	leaf->slots[i] = ptr;
	return 0;
}

void *rpcrdma_idr_remove(struct rpcrdma_idr *idr, int id)
{
	if (id < 0 || idr->root == NULL || id >= cap(idr->height))
		return NULL;
	struct rpcrdma__id_node *path[RPCRDMA__IDR_MAX_HEIGHT + 1];
	struct rpcrdma__id_node *n = idr->root;
	for (unsigned level = idr->height; level > 1; level--) {
		path[level] = n;
		n = n->slots[slot_of(id, level)];
		if (n == NULL)
			return NULL;
	}
	unsigned i = slot_of(id, 1);
	if (!(n->used & rpcrdma__bit(i)))
		return NULL;
	void *ptr = n->slots[i];
	n->slots[i] = NULL;
	n->used &= ~rpcrdma__bit(i);
	n->full &= ~rpcrdma__bit(i);
	idr->count--;
	for (unsigned level = 2; level <= idr->height; level++)
		path[level]->full &= ~rpcrdma__bit(slot_of(id, level));

	/* Free the nodes this emptied, bottom up. */
	unsigned level = 1;
	while (n->used == 0 && level < idr->height) {
		struct rpcrdma__id_node *parent = path[level + 1];
		unsigned s = slot_of(id, level + 1);
		parent->slots[s] = NULL;
		parent->used &= ~rpcrdma__bit(s);
		rpcrdma__id_node_free(&idr->mem, n, NODE_SIZE);
		n = parent;
		level++;
	}
	if (idr->root->used == 0) {
		rpcrdma__id_node_free(&idr->mem, idr->root, NODE_SIZE);
		idr->root = NULL;
		idr->height = 0;
		return ptr;
	}
	/* Shrink while the root only has its slot 0 child. */
	while (idr->height > 1 && idr->root->used == 1) {
		struct rpcrdma__id_node *child = idr->root->slots[0];
		rpcrdma__id_node_free(&idr->mem, idr->root, NODE_SIZE);
		idr->root = child;
		idr->height--;
	}
	return ptr;
}

/* Lowest used id >= start in subtree n (start in its range), or -1.  A child
 * that exists is never empty, so only the slot holding start can fail. */
static int64_t node_next(const struct rpcrdma__id_node *n, unsigned level, int64_t base,
			 int64_t start, void **ptr)
{
	unsigned shift = shift_of(level);
	uint64_t mask = n->used & rpcrdma__bits_from((unsigned)((start - base) >> shift));
	for (; mask != 0; mask &= mask - 1) {
		unsigned i = rpcrdma__ctz64(mask);
		int64_t child_base = base + ((int64_t)i << shift);
		if (level == 1) {
			*ptr = n->slots[i];
			return child_base;
		}
		int64_t from = start > child_base ? start : child_base;
		int64_t id = node_next(n->slots[i], level - 1, child_base, from, ptr);
		if (id >= 0)
			return id;
	}
	return -1;
}

int rpcrdma_idr_get_next(const struct rpcrdma_idr *idr, int id, void **ptr)
{
	if (id < 0)
		return -EINVAL;
	if (idr->root == NULL || id >= cap(idr->height))
		return -ENOENT;
	void *p = NULL;
	int64_t next = node_next(idr->root, idr->height, 0, id, &p);
	if (next < 0)
		return -ENOENT;
	if (ptr != NULL)
		*ptr = p;
	return (int)next;
}

int rpcrdma_idr_for_each(struct rpcrdma_idr *idr, int (*fn)(int id, void *ptr, void *arg),
			 void *arg)
{
	void *p;
	for (int id = 0; (id = rpcrdma_idr_get_next(idr, id, &p)) >= 0; id++) {
		int r = fn(id, p, arg);
		if (r != 0)
			return r;
		if (id == INT_MAX)
			break;
	}
	return 0;
}

bool rpcrdma_idr_is_empty(const struct rpcrdma_idr *idr)
{
	return idr->root == NULL;
}

size_t rpcrdma_idr_count(const struct rpcrdma_idr *idr)
{
	return idr->count;
}

size_t rpcrdma__idr_node_count(const struct rpcrdma_idr *idr)
{
	return idr->mem.nodes;
}
