/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IDA: a set of ids as bitmaps.  Ids below 64 sit in a word of the handle
 * while no tree exists; beyond, a radix tree whose leaves are 1024-bit
 * bitmaps and whose interior nodes have 64 slots (see idr_internal.h).
 */
#include "idr_internal.h"

#define NODE_SIZE sizeof(struct rpcrdma__id_node)
#define LEAF_SIZE sizeof(struct rpcrdma__ida_leaf)
#define LEAF_IDS ((int64_t)1 << RPCRDMA__IDA_LEAF_SHIFT)
#define ALL_ONES (~(uint64_t)0)

/* Ids covered by a tree of height h >= 1. */
static inline int64_t cap(unsigned h)
{
	return (int64_t)1 << (RPCRDMA__IDA_LEAF_SHIFT + RPCRDMA__ID_BITS * (h - 1));
}

/* Shift of the slot index in an interior node at level >= 2. */
static inline unsigned shift_of(unsigned level)
{
	return RPCRDMA__IDA_LEAF_SHIFT + RPCRDMA__ID_BITS * (level - 2);
}

static inline unsigned slot_of(int64_t id, unsigned level)
{
	return (unsigned)(id >> shift_of(level)) & (RPCRDMA__ID_SLOTS - 1);
}

static unsigned height_for(int64_t id)
{
	if (id < LEAF_IDS)
		return 1;
	unsigned bits = 64 - (unsigned)__builtin_clzll((uint64_t)id) - RPCRDMA__IDA_LEAF_SHIFT;
	return 1 + (bits + RPCRDMA__ID_BITS - 1) / RPCRDMA__ID_BITS;
}

static inline unsigned bit_in_leaf(int64_t id)
{
	return (unsigned)(id & (LEAF_IDS - 1));
}

static bool leaf_full(const struct rpcrdma__ida_leaf *l)
{
	uint64_t all = ALL_ONES;
	for (unsigned w = 0; w < RPCRDMA__IDA_LEAF_WORDS; w++)
		all &= l->w[w];
	return all == ALL_ONES;
}

/* True when no bit is set in words from..end of the leaf. */
static bool leaf_clear_from(const struct rpcrdma__ida_leaf *l, unsigned from)
{
	uint64_t any = 0;
	for (unsigned w = from; w < RPCRDMA__IDA_LEAF_WORDS; w++)
		any |= l->w[w];
	return any == 0;
}

/* Whether the child in slot i of an interior node at level is full. */
static bool child_full(const void *child, unsigned child_level)
{
	if (child_level == 1)
		return leaf_full(child);
	return ((const struct rpcrdma__id_node *)child)->full == ALL_ONES;
}

int rpcrdma_ida_create(const struct rpcrdma_idr_allocator *allocator, struct rpcrdma_ida **out)
{
	if (out)
		*out = NULL; /* api.h: a failed create leaves *out NULL */
	struct rpcrdma__id_mem mem;
	int r = rpcrdma__id_mem_init(&mem, allocator);
	if (r < 0)
		return r;
	struct rpcrdma_ida *ida = rpcrdma__id_mem_alloc(&mem, sizeof(*ida));
	if (ida == NULL)
		return -ENOMEM;
	memset(ida, 0, sizeof(*ida));
	ida->mem = mem;
	*out = ida;
	return 0;
}

static void free_subtree(struct rpcrdma__id_mem *m, void *n, unsigned level)
{
	if (level == 1) {
		rpcrdma__id_node_free(m, n, LEAF_SIZE);
		return;
	}
	struct rpcrdma__id_node *node = n;
	for (uint64_t u = node->used; u != 0; u &= u - 1)
		free_subtree(m, node->slots[rpcrdma__ctz64(u)], level - 1);
	rpcrdma__id_node_free(m, node, NODE_SIZE);
}

void rpcrdma_ida_destroy(struct rpcrdma_ida *ida)
{
	if (ida == NULL)
		return;
	if (ida->root != NULL)
		free_subtree(&ida->mem, ida->root, ida->height);
	struct rpcrdma__id_mem mem = ida->mem;
	rpcrdma__id_mem_free(&mem, ida, sizeof(*ida));
}

/* Lowest clear bit >= from in the leaf, or -1. */
static int64_t leaf_find_free(const struct rpcrdma__ida_leaf *l, unsigned from)
{
	unsigned w = from / 64;
	uint64_t mask = ~l->w[w] & rpcrdma__bits_from(from % 64);
	for (;;) {
		if (mask != 0)
			return (int64_t)w * 64 + rpcrdma__ctz64(mask);
		if (++w == RPCRDMA__IDA_LEAF_WORDS)
			return -1;
		mask = ~l->w[w];
	}
}

/* Lowest free id >= start in subtree n at level covering ids from base. */
static int64_t node_find_free(const void *n, unsigned level, int64_t base, int64_t start)
{
	if (level == 1) {
		int64_t bit = leaf_find_free(n, (unsigned)(start - base));
		return bit < 0 ? -1 : base + bit;
	}
	const struct rpcrdma__id_node *node = n;
	unsigned shift = shift_of(level);
	uint64_t mask = ~node->full & rpcrdma__bits_from((unsigned)((start - base) >> shift));
	for (; mask != 0; mask &= mask - 1) {
		unsigned i = rpcrdma__ctz64(mask);
		int64_t child_base = base + ((int64_t)i << shift);
		int64_t from = start > child_base ? start : child_base;
		if (node->slots[i] == NULL)
			return from;
		int64_t id = node_find_free(node->slots[i], level - 1, child_base, from);
		if (id >= 0)
			return id;
	}
	return -1;
}

/* Lowest free id >= start; may be >= RPCRDMA__ID_LIMIT, meaning none. */
static int64_t find_free(const struct rpcrdma_ida *ida, int64_t start)
{
	if (ida->root == NULL) {
		if (start >= 64)
			return start;
		uint64_t mask = ~ida->inline_bits & rpcrdma__bits_from((unsigned)start);
		return mask != 0 ? rpcrdma__ctz64(mask) : 64;
	}
	if (start >= cap(ida->height))
		return start;
	int64_t id = node_find_free(ida->root, ida->height, 0, start);
	return id >= 0 ? id : cap(ida->height);
}

/* Interior nodes and leaves inserting id into the tree needs. */
static void nodes_needed(const struct rpcrdma_ida *ida, int64_t id, unsigned *interior,
			 unsigned *leaves)
{
	unsigned need = height_for(id);
	*leaves = 1;
	if (ida->root == NULL) {
		*interior = need - 1;
		return;
	}
	unsigned h = ida->height;
	*interior = 0;
	if (need > h) {
		*interior = need - h;
		for (unsigned level = need; level > h; level--) {
			if (slot_of(id, level) != 0) {
				*interior += level - 2;
				return;
			}
		}
	}
	const void *n = ida->root;
	for (unsigned level = h; level > 1; level--) {
		n = ((const struct rpcrdma__id_node *)n)->slots[slot_of(id, level)];
		if (n == NULL) {
			*interior += level - 2;
			return;
		}
	}
	*leaves = 0;
}

/* Sets the free id in the tree, with nodes from the pools.  Cannot fail. */
static void tree_insert(struct rpcrdma_ida *ida, int64_t id, struct rpcrdma__id_pool *interior,
			struct rpcrdma__id_pool *leaves)
{
	unsigned need = height_for(id);
	if (ida->root == NULL) {
		ida->root = rpcrdma__id_pool_take(need == 1 ? leaves : interior);
		ida->height = need;
	}
	while (ida->height < need) {
		struct rpcrdma__id_node *top = rpcrdma__id_pool_take(interior);
		top->slots[0] = ida->root;
		top->used = 1;
		top->full = child_full(ida->root, ida->height) ? 1 : 0;
		ida->root = top;
		ida->height++;
	}
	struct rpcrdma__id_node *path[RPCRDMA__IDA_MAX_HEIGHT + 1];
	void *n = ida->root;
	for (unsigned level = ida->height; level > 1; level--) {
		struct rpcrdma__id_node *node = n;
		unsigned i = slot_of(id, level);
		path[level] = node;
		if (node->slots[i] == NULL) {
			node->slots[i] = rpcrdma__id_pool_take(level == 2 ? leaves : interior);
			node->used |= rpcrdma__bit(i);
		}
		n = node->slots[i];
	}
	struct rpcrdma__ida_leaf *leaf = n;
	unsigned b = bit_in_leaf(id);
	leaf->w[b / 64] |= rpcrdma__bit(b % 64);
	bool full = leaf_full(leaf);
	for (unsigned level = 2; level <= ida->height && full; level++) {
		path[level]->full |= rpcrdma__bit(slot_of(id, level));
		full = path[level]->full == ALL_ONES;
	}
}

/* Inserts id into the tree: 0 or -ENOMEM with nothing changed. */
static int tree_insert_id(struct rpcrdma_ida *ida, int64_t id)
{
	unsigned ni, nl;
	nodes_needed(ida, id, &ni, &nl);
	struct rpcrdma__id_pool interior, leaves;
	int r = rpcrdma__id_pool_fill(&ida->mem, &interior, ni, NODE_SIZE);
	if (r < 0)
		return r;
	r = rpcrdma__id_pool_fill(&ida->mem, &leaves, nl, LEAF_SIZE);
	if (r < 0) {
		rpcrdma__id_pool_drain(&ida->mem, &interior);
		return r;
	}
	tree_insert(ida, id, &interior, &leaves);
	rpcrdma__id_pool_drain(&ida->mem, &interior);
	rpcrdma__id_pool_drain(&ida->mem, &leaves);
	return 0;
}

/* Moves the inline ids into a one-leaf tree: 0 or -ENOMEM. */
static int to_tree(struct rpcrdma_ida *ida)
{
	struct rpcrdma__id_pool leaves;
	int r = rpcrdma__id_pool_fill(&ida->mem, &leaves, 1, LEAF_SIZE);
	if (r < 0)
		return r;
	struct rpcrdma__ida_leaf *leaf = rpcrdma__id_pool_take(&leaves);
	leaf->w[0] = ida->inline_bits;
	ida->inline_bits = 0;
	ida->root = leaf;
	ida->height = 1;
	return 0;
}

/* Back to inline when the tree is one leaf holding only ids below 64. */
static void maybe_to_inline(struct rpcrdma_ida *ida)
{
	if (ida->height != 1 || !leaf_clear_from(ida->root, 1))
		return;
	struct rpcrdma__ida_leaf *leaf = ida->root;
	ida->inline_bits = leaf->w[0];
	ida->root = NULL;
	ida->height = 0;
	rpcrdma__id_node_free(&ida->mem, leaf, LEAF_SIZE);
}

int rpcrdma_ida_alloc(struct rpcrdma_ida *ida, int start, int end)
{
	int64_t lim;
	int r = rpcrdma__id_range(start, end, &lim);
	if (r < 0)
		return r;
	int64_t id = find_free(ida, start);
	if (id >= lim)
		return -ENOSPC;
	if (ida->root == NULL && id < 64) {
		ida->inline_bits |= rpcrdma__bit((unsigned)id);
	} else {
		bool converted = false;
		if (ida->root == NULL && ida->inline_bits != 0) {
			r = to_tree(ida);
			if (r < 0)
				return r;
			converted = true;
		}
		r = tree_insert_id(ida, id);
		if (r < 0) {
			if (converted)
				maybe_to_inline(ida);
			return r;
		}
	}
	ida->count++;
	return (int)id;
}

bool rpcrdma_ida_test(const struct rpcrdma_ida *ida, int id)
{
	if (id < 0)
		return false;
	if (ida->root == NULL)
		return id < 64 && (ida->inline_bits & rpcrdma__bit((unsigned)id));
	if (id >= cap(ida->height))
		return false;
	const void *n = ida->root;
	for (unsigned level = ida->height; level > 1 && n != NULL; level--)
		n = ((const struct rpcrdma__id_node *)n)->slots[slot_of(id, level)];
	if (n == NULL)
		return false;
	unsigned b = bit_in_leaf(id);
	return (((const struct rpcrdma__ida_leaf *)n)->w[b / 64] >> (b % 64)) & 1;
}

int rpcrdma_ida_free(struct rpcrdma_ida *ida, int id)
{
	if (id < 0)
		return -EINVAL;
	if (ida->root == NULL) {
		if (id >= 64 || !(ida->inline_bits & rpcrdma__bit((unsigned)id)))
			return -ENOENT;
		ida->inline_bits &= ~rpcrdma__bit((unsigned)id);
		ida->count--;
		return 0;
	}
	if (id >= cap(ida->height))
		return -ENOENT;
	struct rpcrdma__id_node *path[RPCRDMA__IDA_MAX_HEIGHT + 1];
	void *n = ida->root;
	for (unsigned level = ida->height; level > 1; level--) {
		path[level] = n;
		n = path[level]->slots[slot_of(id, level)];
		if (n == NULL)
			return -ENOENT;
	}
	struct rpcrdma__ida_leaf *leaf = n;
	unsigned b = bit_in_leaf(id);
	uint64_t *word = &leaf->w[b / 64];
	if (!(*word & rpcrdma__bit(b % 64)))
		return -ENOENT;
	*word &= ~rpcrdma__bit(b % 64);
	ida->count--;
	for (unsigned level = 2; level <= ida->height; level++)
		path[level]->full &= ~rpcrdma__bit(slot_of(id, level));

	/* Free the nodes this emptied, bottom up. */
	unsigned level = 1;
	bool empty = *word == 0 && leaf_clear_from(leaf, 0);
	while (empty && level < ida->height) {
		struct rpcrdma__id_node *parent = path[level + 1];
		unsigned s = slot_of(id, level + 1);
		parent->slots[s] = NULL;
		parent->used &= ~rpcrdma__bit(s);
		rpcrdma__id_node_free(&ida->mem, n, level == 1 ? LEAF_SIZE : NODE_SIZE);
		n = parent;
		level++;
		empty = parent->used == 0;
	}
	if (empty) { /* the root itself */
		rpcrdma__id_node_free(&ida->mem, ida->root, ida->height == 1 ? LEAF_SIZE : NODE_SIZE);
		ida->root = NULL;
		ida->height = 0;
		return 0;
	}
	while (ida->height > 1 && ((struct rpcrdma__id_node *)ida->root)->used == 1) {
		struct rpcrdma__id_node *top = ida->root;
		ida->root = top->slots[0];
		ida->height--;
		rpcrdma__id_node_free(&ida->mem, top, NODE_SIZE);
	}
	maybe_to_inline(ida);
	return 0;
}

bool rpcrdma_ida_is_empty(const struct rpcrdma_ida *ida)
{
	return ida->count == 0;
}

size_t rpcrdma_ida_count(const struct rpcrdma_ida *ida)
{
	return ida->count;
}

size_t rpcrdma__ida_node_count(const struct rpcrdma_ida *ida)
{
	return ida->mem.nodes;
}
