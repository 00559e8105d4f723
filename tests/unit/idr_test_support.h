/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the IDR and IDA tests: a deterministic random generator
 * and an allocator hook that counts live blocks and fails the Nth call.
 */
#ifndef RPCRDMA_TEST_IDR_SUPPORT_H
#define RPCRDMA_TEST_IDR_SUPPORT_H

#include <rpcrdma/idr.h>

#include <stdint.h>
#include <stdlib.h>

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

#endif /* RPCRDMA_TEST_IDR_SUPPORT_H */
