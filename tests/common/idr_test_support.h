/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the IDR and IDA tests and the idr_ops fuzz target: a
 * deterministic random generator, an allocator hook that counts live blocks
 * and fails the Nth call, and the reference model the allocators are
 * compared with (a sorted set of ids).
 */
#ifndef RPCRDMA_TEST_IDR_SUPPORT_H
#define RPCRDMA_TEST_IDR_SUPPORT_H

#include <rpcrdma/idr.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	/* xorshift64* */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

/* Uniform enough in [0, n) for n > 0. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (rng_next(r) >> 11) % n;
}

struct fail_alloc {
	long calls;	   /* allocations attempted */
	long fail_at;	   /* the call (1-based) that fails; 0: none */
	long failures;	   /* failures injected */
	long live;	   /* blocks allocated and not freed */
	size_t live_bytes; /* their size */
};

static inline void *fail_alloc_alloc(void *user, size_t size)
{
	struct fail_alloc *f = user;
	f->calls++;
	if (f->fail_at != 0 && f->calls == f->fail_at) {
		f->failures++;
		return NULL;
	}
	void *p = malloc(size);
	if (p != NULL) {
		f->live++;
		f->live_bytes += size;
	}
	return p;
}

static inline void fail_alloc_free(void *user, void *ptr, size_t size)
{
	struct fail_alloc *f = user;
	f->live--;
	f->live_bytes -= size;
	free(ptr);
}

static inline struct rpcrdma_idr_allocator fail_alloc_hooks(struct fail_alloc *f)
{
	struct rpcrdma_idr_allocator a = {fail_alloc_alloc, fail_alloc_free, f};
	return a;
}

/*
 * The reference model: id[0..n-1] sorted ascending, with a parallel array
 * ptr[] of the pointers stored under them (ptr NULL: ids only, an IDA).
 * Insertion needs room for one more entry (the caller checks).
 */

/* Index of the first entry >= x. */
static inline size_t id_set_pos(const int64_t *id, size_t n, int64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (id[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether x is in the set; its index (or where it would go) in *pos. */
static inline bool id_set_has(const int64_t *id, size_t n, int64_t x, size_t *pos)
{
	size_t k = id_set_pos(id, n, x);
	if (pos != NULL)
		*pos = k;
	return k < n && id[k] == x;
}

/* Lowest id not in the set in [from, lim), or -1. */
static inline int64_t id_set_free(const int64_t *id, size_t n, int64_t from, int64_t lim)
{
	size_t k = id_set_pos(id, n, from);
	int64_t x = from;
	while (k < n && id[k] == x) {
		x++;
		k++;
	}
	return x < lim ? x : -1;
}

/* Adds x (not in the set) with pointer p. */
static inline void id_set_insert(int64_t *id, void **ptr, size_t *n, int64_t x, void *p)
{
	size_t k = id_set_pos(id, *n, x);
	memmove(&id[k + 1], &id[k], (*n - k) * sizeof(id[0]));
	id[k] = x;
	if (ptr != NULL) {
		memmove(&ptr[k + 1], &ptr[k], (*n - k) * sizeof(ptr[0]));
		ptr[k] = p;
	}
	(*n)++;
}

/* Removes entry k. */
static inline void id_set_erase(int64_t *id, void **ptr, size_t *n, size_t k)
{
	memmove(&id[k], &id[k + 1], (*n - k - 1) * sizeof(id[0]));
	if (ptr != NULL)
		memmove(&ptr[k], &ptr[k + 1], (*n - k - 1) * sizeof(ptr[0]));
	(*n)--;
}

#endif /* RPCRDMA_TEST_IDR_SUPPORT_H */
