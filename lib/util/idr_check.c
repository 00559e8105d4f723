/* SPDX-License-Identifier: BSD-2-Clause */
/* Invariant checkers of the IDR and IDA trees, for the tests. */
#include "idr_internal.h"

#define ALL_ONES (~(uint64_t)0)

struct tally {
	size_t ids;
	size_t nodes;
};

/* Checks the IDR subtree; sets *full.  0 or -EUCLEAN. */
static int idr_node_check(const struct rpcrdma__id_node *n, unsigned level, struct tally *t,
			  bool *full)
{
	t->nodes++;
	if (n->used == 0)
		return -EUCLEAN; /* empty nodes are freed */
	if (level == 1) {
		if (n->used != n->full)
			return -EUCLEAN;
		for (unsigned i = 0; i < RPCRDMA__ID_SLOTS; i++) {
			if (!(n->used & rpcrdma__bit(i)) && n->slots[i] != NULL)
				return -EUCLEAN;
		}
		t->ids += rpcrdma__popcount64(n->used);
		*full = n->full == ALL_ONES;
		return 0;
	}
	for (unsigned i = 0; i < RPCRDMA__ID_SLOTS; i++) {
		bool used = (n->used >> i) & 1, child_full = false;
		if (used != (n->slots[i] != NULL))
			return -EUCLEAN;
		if (used) {
			int r = idr_node_check(n->slots[i], level - 1, t, &child_full);
			if (r < 0)
				return r;
		}
		if (((n->full >> i) & 1) != child_full)
			return -EUCLEAN;
	}
	*full = n->full == ALL_ONES;
	return 0;
}

int rpcrdma__idr_check(const struct rpcrdma_idr *idr)
{
	struct tally t = {0, 0};
	if (idr->root == NULL) {
		if (idr->height != 0)
			return -EUCLEAN;
	} else {
		if (idr->height < 1 || idr->height > RPCRDMA__IDR_MAX_HEIGHT)
			return -EUCLEAN;
		if (idr->height > 1 && (idr->root->used & ~(uint64_t)1) == 0)
			return -EUCLEAN; /* the tree should have shrunk */
		if (idr->height == RPCRDMA__IDR_MAX_HEIGHT && (idr->root->used >> 2) != 0)
			return -EUCLEAN; /* ids above INT_MAX */
		bool full;
		int r = idr_node_check(idr->root, idr->height, &t, &full);
		if (r < 0)
			return r;
	}
	if (t.ids != idr->count || t.nodes != idr->mem.nodes)
		return -EUCLEAN;
	return 0;
}

static int ida_node_check(const void *p, unsigned level, struct tally *t, bool *full)
{
	t->nodes++;
	if (level == 1) {
		const struct rpcrdma__ida_leaf *l = p;
		uint64_t any = 0, all = ALL_ONES;
		for (unsigned w = 0; w < RPCRDMA__IDA_LEAF_WORDS; w++) {
			any |= l->w[w];
			all &= l->w[w];
			t->ids += rpcrdma__popcount64(l->w[w]);
		}
		*full = all == ALL_ONES;
		return any != 0 ? 0 : -EUCLEAN;
	}
	const struct rpcrdma__id_node *n = p;
	if (n->used == 0)
		return -EUCLEAN;
	for (unsigned i = 0; i < RPCRDMA__ID_SLOTS; i++) {
		bool used = (n->used >> i) & 1, child_full = false;
		if (used != (n->slots[i] != NULL))
			return -EUCLEAN;
		if (used) {
			int r = ida_node_check(n->slots[i], level - 1, t, &child_full);
			if (r < 0)
				return r;
		}
		if (((n->full >> i) & 1) != child_full)
			return -EUCLEAN;
	}
	*full = n->full == ALL_ONES;
	return 0;
}

int rpcrdma__ida_check(const struct rpcrdma_ida *ida)
{
	struct tally t = {0, 0};
	if (ida->root == NULL) {
		if (ida->height != 0)
			return -EUCLEAN;
		t.ids = rpcrdma__popcount64(ida->inline_bits);
	} else {
		if (ida->inline_bits != 0)
			return -EUCLEAN;
		if (ida->height < 1 || ida->height > RPCRDMA__IDA_MAX_HEIGHT)
			return -EUCLEAN;
		if (ida->height == 1) {
			const struct rpcrdma__ida_leaf *l = ida->root;
			uint64_t high = 0;
			for (unsigned w = 1; w < RPCRDMA__IDA_LEAF_WORDS; w++)
				high |= l->w[w];
			if (high == 0)
				return -EUCLEAN; /* should be inline */
		} else {
			const struct rpcrdma__id_node *n = ida->root;
			if ((n->used & ~(uint64_t)1) == 0)
				return -EUCLEAN; /* should have shrunk */
			if (ida->height == RPCRDMA__IDA_MAX_HEIGHT && (n->used >> 8) != 0)
				return -EUCLEAN; /* ids above INT_MAX */
		}
		bool full;
		int r = ida_node_check(ida->root, ida->height, &t, &full);
		if (r < 0)
			return r;
	}
	if (t.ids != ida->count || t.nodes != ida->mem.nodes)
		return -EUCLEAN;
	return 0;
}
