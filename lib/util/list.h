/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal intrusive doubly linked list.  One node per object: an operation
 * context sits on exactly one list at a time (its pool's free list, a
 * connection's pending-send queue, a connection's in-flight list), so one
 * node serves them all.
 */
#ifndef RPCRDMA_LIST_H
#define RPCRDMA_LIST_H

#include <stddef.h>
#include <stdbool.h>

struct rpcrdma__list {
	struct rpcrdma__list *next, *prev;
};

#define rpcrdma__container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

static inline void rpcrdma__list_init(struct rpcrdma__list *h)
{
	h->next = h->prev = h;
}

static inline bool rpcrdma__list_empty(const struct rpcrdma__list *h)
{
	return h->next == h;
}

static inline void rpcrdma__list_add_tail(struct rpcrdma__list *h, struct rpcrdma__list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void rpcrdma__list_del(struct rpcrdma__list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

/* Removes and returns the first node, or NULL when the list is empty. */
static inline struct rpcrdma__list *rpcrdma__list_pop(struct rpcrdma__list *h)
{
	struct rpcrdma__list *n = h->next;

	if (n == h)
		return NULL;
	rpcrdma__list_del(n);
	return n;
}

/* Moves every node of src to the end of h, in order; src ends empty. */
static inline void rpcrdma__list_splice_tail(struct rpcrdma__list *h, struct rpcrdma__list *src)
{
	if (rpcrdma__list_empty(src))
		return;
	src->next->prev = h->prev;
	h->prev->next = src->next;
	src->prev->next = h;
	h->prev = src->prev;
	rpcrdma__list_init(src);
}

#endif /* RPCRDMA_LIST_H */
