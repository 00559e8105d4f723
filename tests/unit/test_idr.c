/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IDR tests (white-box: the tree invariants are checked after operations).
 * Randomized differential tests against plain reference models (a bitset
 * window, a sorted array), edge cases at every tree height and at the ends
 * of the id space, cyclic wrap-around, allocation failure injected at every
 * allocation of a sequence and at random points of the random runs, and
 * leak checks (the counting allocator, node counts back to 0, LeakSanitizer).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>

#include <rpcrdma/idr.h>

#include "util/idr_internal.h"
#include "../common/idr_test_support.h"

static char tokens[256];

static void *random_ptr(struct rng *r)
{
	return rng_below(r, 16) == 0 ? NULL : &tokens[rng_below(r, sizeof(tokens))];
}

static struct rpcrdma_idr *new_idr(struct fail_alloc *fa)
{
	struct rpcrdma_idr_allocator a = fail_alloc_hooks(fa);
	struct rpcrdma_idr *idr = NULL;
	assert_int_equal(rpcrdma_idr_create(&a, &idr), 0);
	assert_non_null(idr);
	return idr;
}

static void free_idr(struct rpcrdma_idr *idr, struct fail_alloc *fa)
{
	rpcrdma_idr_destroy(idr);
	assert_int_equal(fa->live, 0);
	assert_int_equal(fa->live_bytes, 0);
}

/* ---------------------------------------------------- dense window model */

#define WIN 4096

struct dref {
	int64_t base;
	uint64_t bits[WIN / 64];
	void *ptr[WIN];
	size_t count;
	int64_t next; /* cyclic cursor, absolute */
};

static bool dref_used(const struct dref *m, int64_t id)
{
	int64_t k = id - m->base;
	return k >= 0 && k < WIN && ((m->bits[k / 64] >> (k % 64)) & 1);
}

/* Lowest id in [from, lim) whose bit equals want, or -1. */
static int64_t dref_scan(const struct dref *m, int64_t from, int64_t lim, bool want)
{
	if (from < m->base)
		from = m->base;
	if (lim > m->base + WIN)
		lim = m->base + WIN;
	for (int64_t id = from; id < lim;) {
		int64_t k = id - m->base;
		uint64_t w = want ? m->bits[k / 64] : ~m->bits[k / 64];
		w &= ~(uint64_t)0 << (k % 64);
		if (w != 0) {
			int64_t found = m->base + (k / 64) * 64 + __builtin_ctzll(w);
			return found < lim ? found : -1;
		}
		id = m->base + (k / 64 + 1) * 64;
	}
	return -1;
}

static void dref_set(struct dref *m, int64_t id, void *p)
{
	int64_t k = id - m->base;
	m->bits[k / 64] |= (uint64_t)1 << (k % 64);
	m->ptr[k] = p;
	m->count++;
}

static void dref_clear(struct dref *m, int64_t id)
{
	int64_t k = id - m->base;
	m->bits[k / 64] &= ~((uint64_t)1 << (k % 64));
	m->ptr[k] = NULL;
	m->count--;
}

/* Everything in the IDR equals the model, in order, and the tree is sound. */
static void dref_compare(const struct rpcrdma_idr *idr, const struct dref *m)
{
	assert_int_equal(rpcrdma__idr_check(idr), 0);
	assert_int_equal(rpcrdma_idr_count(idr), m->count);
	assert_int_equal(rpcrdma_idr_is_empty(idr), m->count == 0);
	int64_t want = dref_scan(m, m->base, m->base + WIN, true);
	void *p;
	int id = rpcrdma_idr_get_next(idr, 0, &p);
	while (want >= 0) {
		assert_int_equal(id, want);
		assert_ptr_equal(p, m->ptr[want - m->base]);
		want = dref_scan(m, want + 1, m->base + WIN, true);
		id = id == INT_MAX ? -ENOENT : rpcrdma_idr_get_next(idr, id + 1, &p);
	}
	assert_int_equal(id, -ENOENT);
}

/* One random operation on the window model; alloc_bias in percent. */
static void dense_step(struct rpcrdma_idr *idr, struct dref *m, struct rng *r,
		       struct fail_alloc *fa, unsigned alloc_bias)
{
	bool top = m->base + WIN == (int64_t)INT_MAX + 1;
	unsigned op = (unsigned)rng_below(r, 100);
	int64_t any = m->base + (int64_t)rng_below(r, WIN);
	if (op < alloc_bias) {
		bool cyclic = rng_below(r, 3) == 0;
		int64_t a = cyclic ? 0 : (int64_t)rng_below(r, WIN);
		int64_t b = cyclic ? WIN : a + 1 + (int64_t)rng_below(r, (uint64_t)(WIN - a));
		int start = (int)(m->base + a);
		int end = top && b == WIN ? 0 : (int)(m->base + b);
		int64_t lim = m->base + b;
		int64_t want;
		if (cyclic) {
			int64_t from = m->next > start ? m->next : start;
			want = dref_scan(m, from, lim, false);
			if (want < 0)
				want = dref_scan(m, start, lim, false);
		} else {
			want = dref_scan(m, start, lim, false);
		}
		void *p = random_ptr(r);
		long failures = fa->failures, calls = fa->calls;
		size_t nodes = rpcrdma__idr_node_count(idr);
		int got = cyclic ? rpcrdma_idr_alloc_cyclic(idr, p, start, end)
				 : rpcrdma_idr_alloc(idr, p, start, end);
		if (got == -ENOMEM) {
			assert_int_equal(fa->failures, failures + 1);
			assert_true(want >= 0);
			assert_int_equal(rpcrdma__idr_node_count(idr), nodes);
			fa->fail_at = fa->calls + 1 + (long)rng_below(r, 64);
			return;
		}
		assert_int_equal(fa->failures, failures);
		assert_int_equal(rpcrdma__idr_node_count(idr) - nodes, fa->calls - calls);
		if (want < 0) {
			assert_int_equal(got, -ENOSPC);
			return;
		}
		assert_int_equal(got, want);
		dref_set(m, want, p);
		if (cyclic)
			m->next = want == INT_MAX ? 0 : want + 1;
	} else if (op < alloc_bias + 25) {
		void *want = dref_used(m, any) ? m->ptr[any - m->base] : NULL;
		bool was = dref_used(m, any);
		assert_ptr_equal(rpcrdma_idr_remove(idr, (int)any), want);
		if (was)
			dref_clear(m, any);
		assert_int_equal(rpcrdma_idr_lookup(idr, (int)any, NULL), -ENOENT);
	} else if (op < alloc_bias + 45) {
		void *p = &tokens[0];
		int rc = rpcrdma_idr_lookup(idr, (int)any, &p);
		if (dref_used(m, any)) {
			assert_int_equal(rc, 0);
			assert_ptr_equal(p, m->ptr[any - m->base]);
			assert_ptr_equal(rpcrdma_idr_find(idr, (int)any), p);
		} else {
			assert_int_equal(rc, -ENOENT);
			assert_ptr_equal(p, &tokens[0]);
			assert_null(rpcrdma_idr_find(idr, (int)any));
		}
	} else if (op < alloc_bias + 55) {
		void *np = random_ptr(r), *old = &tokens[1];
		int rc = rpcrdma_idr_replace(idr, (int)any, np, &old);
		if (dref_used(m, any)) {
			assert_int_equal(rc, 0);
			assert_ptr_equal(old, m->ptr[any - m->base]);
			m->ptr[any - m->base] = np;
		} else {
			assert_int_equal(rc, -ENOENT);
			assert_ptr_equal(old, &tokens[1]);
		}
	} else if (op < 99) {
		int64_t want = dref_scan(m, any, m->base + WIN, true);
		void *p = NULL;
		int got = rpcrdma_idr_get_next(idr, (int)any, &p);
		if (want < 0) {
			assert_int_equal(got, -ENOENT);
		} else {
			assert_int_equal(got, want);
			assert_ptr_equal(p, m->ptr[want - m->base]);
		}
	} else {
		dref_compare(idr, m);
	}
}

static void dense_window(int64_t base, long ops, uint64_t seed)
{
	static struct dref m; /* 36 KiB: keep it off the stack */
	memset(&m, 0, sizeof(m));
	m.base = base;
	struct rng r = {seed};
	struct fail_alloc fa = {0};
	struct rpcrdma_idr *idr = new_idr(&fa);
	fa.fail_at = 1 + (long)rng_below(&r, 64);
	for (long i = 0; i < ops; i++) {
		/* Alternate filling and draining phases so every height is
		 * reached from both directions. */
		unsigned bias = (i / 20000) % 2 == 0 ? 45 : 10;
		dense_step(idr, &m, &r, &fa, bias);
	}
	dref_compare(idr, &m);
	for (int64_t id = base; id < base + WIN; id++) {
		void *want = dref_used(&m, id) ? m.ptr[id - base] : NULL;
		assert_ptr_equal(rpcrdma_idr_remove(idr, (int)id), want);
	}
	assert_true(rpcrdma_idr_is_empty(idr));
	assert_int_equal(rpcrdma__idr_node_count(idr), 0);
	assert_int_equal(rpcrdma__idr_check(idr), 0);
	free_idr(idr, &fa);
}

/* Windows across the boundaries of every height and at both ends. */
static void test_dense_random(void **state)
{
	(void)state;
	const int64_t bases[] = {
		0,			       /* heights 1 and 2 (0, 63, 64, 4095) */
		4096 - WIN / 2,		       /* 2 and 3 */
		((int64_t)1 << 18) - WIN / 2, /* 3 and 4 */
		((int64_t)1 << 24) - WIN / 2, /* 4 and 5 */
		((int64_t)1 << 30) - WIN / 2, /* 5 and 6 */
		(int64_t)INT_MAX + 1 - WIN,   /* the top, with end == 0 */
	};
	for (unsigned i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		dense_window(bases[i], 250000, 0x9E3779B97F4A7C15ULL + i);
}

/* ---------------------------------------------------- sparse sorted model */

#define SPARSE_MAX 2048

struct sref {
	size_t n;
	int64_t id[SPARSE_MAX];
	void *ptr[SPARSE_MAX];
	int64_t next;
};

static void sref_compare(const struct rpcrdma_idr *idr, const struct sref *m)
{
	assert_int_equal(rpcrdma__idr_check(idr), 0);
	assert_int_equal(rpcrdma_idr_count(idr), m->n);
	void *p;
	int id = rpcrdma_idr_get_next(idr, 0, &p);
	for (size_t k = 0; k < m->n; k++) {
		assert_int_equal(id, m->id[k]);
		assert_ptr_equal(p, m->ptr[k]);
		id = id == INT_MAX ? -ENOENT : rpcrdma_idr_get_next(idr, id + 1, &p);
	}
	assert_int_equal(id, -ENOENT);
}

/* An id whose magnitude is spread over every tree height. */
static int64_t spread_id(struct rng *r)
{
	unsigned bits = 1 + (unsigned)rng_below(r, 31);
	return (int64_t)rng_below(r, (uint64_t)1 << bits);
}

/* Allocation at [start, end) checked against the model; -ENOMEM accepted
 * only when the allocator just failed.  Returns the result. */
static int sparse_alloc(struct rpcrdma_idr *idr, struct sref *m, struct fail_alloc *fa,
			bool cyclic, int start, int end, void *p)
{
	int64_t lim = end <= 0 ? (int64_t)INT_MAX + 1 : end;
	int64_t want;
	if (cyclic) {
		int64_t from = m->next > start ? m->next : start;
		want = from < lim ? id_set_free(m->id, m->n, from, lim) : -1;
		if (want < 0)
			want = id_set_free(m->id, m->n, start, lim);
	} else {
		want = id_set_free(m->id, m->n, start, lim);
	}
	long failures = fa->failures, calls = fa->calls;
	size_t nodes = rpcrdma__idr_node_count(idr);
	int got = cyclic ? rpcrdma_idr_alloc_cyclic(idr, p, start, end)
			 : rpcrdma_idr_alloc(idr, p, start, end);
	if (got == -ENOMEM) {
		assert_int_equal(fa->failures, failures + 1);
		assert_true(want >= 0);
		assert_int_equal(rpcrdma__idr_node_count(idr), nodes);
		return got;
	}
	assert_int_equal(fa->failures, failures);
	/* it allocated exactly the nodes it keeps */
	assert_int_equal(rpcrdma__idr_node_count(idr) - nodes, fa->calls - calls);
	if (want < 0) {
		assert_int_equal(got, -ENOSPC);
		return got;
	}
	assert_int_equal(got, want);
	id_set_insert(m->id, m->ptr, &m->n, want, p);
	if (cyclic)
		m->next = want == INT_MAX ? 0 : want + 1;
	return got;
}

static void sparse_remove(struct rpcrdma_idr *idr, struct sref *m, int64_t id)
{
	size_t k;
	if (id_set_has(m->id, m->n, id, &k)) {
		assert_ptr_equal(rpcrdma_idr_remove(idr, (int)id), m->ptr[k]);
		id_set_erase(m->id, m->ptr, &m->n, k);
	} else {
		assert_null(rpcrdma_idr_remove(idr, (int)id));
	}
}

static void test_sparse_random(void **state)
{
	(void)state;
	static struct sref m;
	memset(&m, 0, sizeof(m));
	struct rng r = {12345};
	struct fail_alloc fa = {0};
	struct rpcrdma_idr *idr = new_idr(&fa);
	fa.fail_at = 1 + (long)rng_below(&r, 64);
	for (long i = 0; i < 600000; i++) {
		if (i % 50000 == 49999) { /* drain completely, in random order */
			while (m.n > 0)
				sparse_remove(idr, &m, m.id[rng_below(&r, m.n)]);
			assert_int_equal(rpcrdma__idr_node_count(idr), 0);
			sref_compare(idr, &m);
			continue;
		}
		unsigned op = (unsigned)rng_below(&r, 100);
		if (op < 40 && m.n < SPARSE_MAX) {
			int start = (int)spread_id(&r);
			int end = 0;
			if (rng_below(&r, 2) == 0) {
				int64_t e = start + 1 + (int64_t)rng_below(&r, 8);
				end = e > INT_MAX ? 0 : (int)e;
			}
			if (sparse_alloc(idr, &m, &fa, rng_below(&r, 4) == 0, start, end,
					 random_ptr(&r)) == -ENOMEM)
				fa.fail_at = fa.calls + 1 + (long)rng_below(&r, 64);
		} else if (op < 70) {
			int64_t id = m.n > 0 && rng_below(&r, 4) != 0 ? m.id[rng_below(&r, m.n)]
								 : spread_id(&r);
			sparse_remove(idr, &m, id);
		} else if (op < 85) {
			int64_t id = m.n > 0 && rng_below(&r, 2) ? m.id[rng_below(&r, m.n)]
							    : spread_id(&r);
			size_t k;
			void *p = NULL;
			if (id_set_has(m.id, m.n, id, &k)) {
				assert_int_equal(rpcrdma_idr_lookup(idr, (int)id, &p), 0);
				assert_ptr_equal(p, m.ptr[k]);
			} else {
				assert_int_equal(rpcrdma_idr_lookup(idr, (int)id, &p), -ENOENT);
			}
		} else if (op < 99) {
			int64_t id = spread_id(&r);
			size_t k = id_set_pos(m.id, m.n, id);
			void *p = NULL;
			int got = rpcrdma_idr_get_next(idr, (int)id, &p);
			if (k == m.n) {
				assert_int_equal(got, -ENOENT);
			} else {
				assert_int_equal(got, m.id[k]);
				assert_ptr_equal(p, m.ptr[k]);
			}
		} else {
			sref_compare(idr, &m);
		}
	}
	sref_compare(idr, &m);
	free_idr(idr, &fa);
}

/* ------------------------------------------------------------ edge cases */

static const int64_t edge_ids[] = {
	0,	  1,	    62,	      63,	64,	  65,	    4095,
	4096,	  4097,	    262143,   262144,	16777215, 16777216, ((int64_t)1 << 30) - 1,
	1 << 30,  INT_MAX - 64, INT_MAX - 63, INT_MAX - 1, INT_MAX,
};
#define N_EDGE (sizeof(edge_ids) / sizeof(edge_ids[0]))

/* Each edge id alone, then every pair: exact allocation, find, remove. */
static void test_edges_every_height(void **state)
{
	(void)state;
	struct fail_alloc fa = {0};
	struct rpcrdma_idr *idr = new_idr(&fa);
	for (size_t i = 0; i < N_EDGE; i++) {
		int id = (int)edge_ids[i];
		int end = id == INT_MAX ? 0 : id + 1;
		assert_int_equal(rpcrdma_idr_alloc(idr, &tokens[i], id, end), id);
		assert_int_equal(rpcrdma_idr_alloc(idr, &tokens[0], id, end), -ENOSPC);
		assert_ptr_equal(rpcrdma_idr_find(idr, id), &tokens[i]);
		assert_int_equal(rpcrdma_idr_get_next(idr, 0, NULL), id);
		assert_int_equal(rpcrdma__idr_check(idr), 0);
		/* one node per level: the height is exactly the one id needs */
		unsigned h = 1;
		while (h < 6 && edge_ids[i] >= ((int64_t)1 << (6 * h)))
			h++;
		assert_int_equal(rpcrdma__idr_node_count(idr), h);
		/* ids beyond the tree's reach must not alias id's slot */
		for (int64_t c = 64; c <= INT_MAX; c *= 2) {
			if (edge_ids[i] + c <= INT_MAX) {
				int alias = (int)(edge_ids[i] + c);
				assert_int_equal(rpcrdma_idr_lookup(idr, alias, NULL), -ENOENT);
				assert_null(rpcrdma_idr_remove(idr, alias));
				assert_int_equal(rpcrdma_idr_replace(idr, alias, NULL, NULL), -ENOENT);
			}
		}
		assert_int_equal(rpcrdma_idr_count(idr), 1);
		assert_ptr_equal(rpcrdma_idr_remove(idr, id), &tokens[i]);
		assert_int_equal(rpcrdma__idr_node_count(idr), 0);
		assert_true(rpcrdma_idr_is_empty(idr));
	}
	for (size_t i = 0; i < N_EDGE; i++) {
		for (size_t j = 0; j < N_EDGE; j++) {
			int a = (int)edge_ids[i], b = (int)edge_ids[j];
			assert_int_equal(rpcrdma_idr_alloc(idr, &tokens[1], a, 0), a);
			int got = rpcrdma_idr_alloc(idr, &tokens[2], b, 0);
			if (a == b)
				assert_int_equal(got, a == INT_MAX ? -ENOSPC : a + 1);
			else
				assert_int_equal(got, b);
			assert_int_equal(rpcrdma__idr_check(idr), 0);
			assert_int_equal(rpcrdma_idr_get_next(idr, 0, NULL), a < got || got < 0 ? a : got);
			assert_ptr_equal(rpcrdma_idr_remove(idr, a), &tokens[1]);
			assert_int_equal(rpcrdma__idr_check(idr), 0);
			if (got >= 0)
				assert_ptr_equal(rpcrdma_idr_remove(idr, got), &tokens[2]);
			assert_int_equal(rpcrdma__idr_node_count(idr), 0);
		}
	}
	free_idr(idr, &fa);
}

/* Fill [0, 4097] densely: the tree is full at 64 and 4096 boundaries. */
static void test_dense_fill_and_full_bits(void **state)
{
	(void)state;
	struct fail_alloc fa = {0};
	struct rpcrdma_idr *idr = new_idr(&fa);
	for (int i = 0; i < 64 * 64 + 2; i++) {
		assert_int_equal(rpcrdma_idr_alloc(idr, &tokens[i % 256], 0, 0), i);
		if (i % 61 == 0)
			assert_int_equal(rpcrdma__idr_check(idr), 0);
	}
	assert_int_equal(rpcrdma__idr_check(idr), 0);
	/* 64 full leaves + 1 leaf for 4096..4097 + one level-2 node under a
	 * level-3 root, plus the level-2 node above 4096 */
	assert_int_equal(rpcrdma__idr_node_count(idr), 64 + 1 + 1 + 1 + 1);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, 0, 4096), -ENOSPC);
	assert_ptr_equal(rpcrdma_idr_remove(idr, 4095), &tokens[4095 % 256]);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, 0, 4096), 4095);
	assert_ptr_equal(rpcrdma_idr_remove(idr, 0), &tokens[0]);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, 1, 0), 4098);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, 0, 0), 0);
	assert_int_equal(rpcrdma__idr_check(idr), 0);
	free_idr(idr, &fa);
}

static void test_range_rules(void **state)
{
	(void)state;
	struct fail_alloc fa = {0};
	struct rpcrdma_idr *idr = new_idr(&fa);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, -1, 0), -EINVAL);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, 5, 5), -EINVAL);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, 6, 5), -EINVAL);
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, -3, 5), -EINVAL);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, INT_MAX, -7), INT_MAX); /* end < 0: no limit */
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, INT_MAX, 0), -ENOSPC);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, INT_MAX - 1, 0), INT_MAX - 1);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, INT_MAX - 1, 0), -ENOSPC);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, INT_MAX - 1, INT_MAX), -ENOSPC);
	assert_int_equal(rpcrdma_idr_get_next(idr, INT_MAX, NULL), INT_MAX);
	assert_int_equal(rpcrdma_idr_get_next(idr, -1, NULL), -EINVAL);
	assert_int_equal(rpcrdma_idr_lookup(idr, -1, NULL), -EINVAL);
	assert_int_equal(rpcrdma_idr_replace(idr, -1, NULL, NULL), -EINVAL);
	assert_null(rpcrdma_idr_find(idr, -1));
	assert_null(rpcrdma_idr_remove(idr, -1));
	assert_null(rpcrdma_idr_remove(idr, INT_MAX));
	assert_null(rpcrdma_idr_remove(idr, INT_MAX - 1));
	assert_true(rpcrdma_idr_is_empty(idr));
	assert_int_equal(rpcrdma__idr_node_count(idr), 0);
	free_idr(idr, &fa);

	struct rpcrdma_idr_allocator half = {fail_alloc_alloc, NULL, &fa};
	struct rpcrdma_idr *out = NULL;
	assert_int_equal(rpcrdma_idr_create(&half, &out), -EINVAL);
	assert_null(out);
	assert_int_equal(rpcrdma_idr_create(NULL, &out), 0); /* malloc and free */
	assert_int_equal(rpcrdma_idr_alloc(out, &tokens[0], 100000, 0), 100000);
	rpcrdma_idr_destroy(out);
	rpcrdma_idr_destroy(NULL);
}

/* NULL reserves an id; replace fills it and returns the old pointer. */
static void test_null_and_replace(void **state)
{
	(void)state;
	struct fail_alloc fa = {0};
	struct rpcrdma_idr *idr = new_idr(&fa);
	assert_int_equal(rpcrdma_idr_alloc(idr, NULL, 0, 0), 0);
	assert_false(rpcrdma_idr_is_empty(idr));
	void *p = &tokens[9];
	assert_int_equal(rpcrdma_idr_lookup(idr, 0, &p), 0);
	assert_null(p);
	assert_null(rpcrdma_idr_find(idr, 0));
	assert_int_equal(rpcrdma_idr_alloc(idr, &tokens[1], 0, 0), 1); /* 0 is taken */
	void *old = &tokens[9];
	assert_int_equal(rpcrdma_idr_replace(idr, 0, &tokens[3], &old), 0);
	assert_null(old);
	assert_int_equal(rpcrdma_idr_replace(idr, 0, &tokens[4], &old), 0);
	assert_ptr_equal(old, &tokens[3]);
	assert_int_equal(rpcrdma_idr_replace(idr, 2, &tokens[4], &old), -ENOENT);
	assert_int_equal(rpcrdma_idr_replace(idr, 5000, &tokens[4], NULL), -ENOENT);
	assert_int_equal(rpcrdma_idr_lookup(idr, 2, NULL), -ENOENT);
	assert_ptr_equal(rpcrdma_idr_remove(idr, 0), &tokens[4]);
	assert_int_equal(rpcrdma_idr_lookup(idr, 0, NULL), -ENOENT);
	assert_null(rpcrdma_idr_remove(idr, 0)); /* twice: nothing left */
	assert_ptr_equal(rpcrdma_idr_remove(idr, 1), &tokens[1]);
	assert_int_equal(rpcrdma__idr_node_count(idr), 0);
	free_idr(idr, &fa);
}

static void test_cyclic(void **state)
{
	(void)state;
	struct fail_alloc fa = {0};
	struct rpcrdma_idr *idr = new_idr(&fa);
	for (int i = 0; i < 8; i++)
		assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, &tokens[i], 0, 8), i);
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, 0, 8), -ENOSPC);
	rpcrdma_idr_remove(idr, 3);
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, 0, 8), 3); /* wrapped */
	rpcrdma_idr_remove(idr, 5);
	rpcrdma_idr_remove(idr, 2);
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, 0, 8), 5); /* after 3, not 2 */
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, 0, 8), 2); /* wraps past 7 */
	while (!rpcrdma_idr_is_empty(idr))
		rpcrdma_idr_remove(idr, rpcrdma_idr_get_next(idr, 0, NULL));

	/* Not reused soon: alloc then free at once walks the whole range,
	 * from the cursor (3, after the 2 above), wrapping at 1000. */
	for (int i = 0, want = 3; i < 3000; i++, want = (want + 1) % 1000) {
		int id = rpcrdma_idr_alloc_cyclic(idr, &tokens[7], 0, 1000);
		assert_int_equal(id, want);
		assert_ptr_equal(rpcrdma_idr_remove(idr, id), &tokens[7]);
	}
	/* Wrap at the top of the id space; the cursor goes back to 0. */
	for (int i = 2; i >= 0; i--)
		assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, INT_MAX - 10, 0),
				 INT_MAX - 10 + (2 - i));
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, INT_MAX - 1, 0), INT_MAX - 1);
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, INT_MAX - 1, 0), INT_MAX);
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, INT_MAX - 1, 0), -ENOSPC);
	rpcrdma_idr_remove(idr, INT_MAX - 1);
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, INT_MAX - 1, 0), INT_MAX - 1);
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, 0, 0), 0); /* INT_MAX taken: wraps */
	assert_int_equal(rpcrdma_idr_alloc_cyclic(idr, NULL, 0, 0), 1);
	assert_int_equal(rpcrdma__idr_check(idr), 0);
	free_idr(idr, &fa);
}

struct collect {
	int ids[64];
	int n;
	int stop_at;
	struct rpcrdma_idr *idr;
	bool remove;
};

static int collect_fn(int id, void *ptr, void *arg)
{
	struct collect *c = arg;
	assert_ptr_equal(ptr, &tokens[c->n]);
	c->ids[c->n++] = id;
	if (c->remove)
		assert_ptr_equal(rpcrdma_idr_remove(c->idr, id), ptr);
	return c->n == c->stop_at ? 77 : 0;
}

struct grow {
	struct rpcrdma_idr *idr;
	int n;
	int ids[16];
};

static int grow_fn(int id, void *ptr, void *arg)
{
	struct grow *g = arg;
	(void)ptr;
	g->ids[g->n++] = id;
	if (id == 64) {
		assert_int_equal(rpcrdma_idr_alloc(g->idr, &tokens[200], 65, 0), 65);
		assert_int_equal(rpcrdma_idr_alloc(g->idr, &tokens[201], 1, 0), 1);
	}
	return 0;
}

static void test_iterate_order(void **state)
{
	(void)state;
	struct fail_alloc fa = {0};
	struct rpcrdma_idr *idr = new_idr(&fa);
	/* inserted out of order; pointer k belongs to the k-th smallest id */
	const int sorted[] = {0, 63, 64, 4095, 4096, 262144, 1 << 30, INT_MAX};
	const int order[] = {5, 0, 7, 3, 1, 6, 2, 4};
	for (int i = 0; i < 8; i++) {
		int k = order[i];
		int end = sorted[k] == INT_MAX ? 0 : sorted[k] + 1;
		assert_int_equal(rpcrdma_idr_alloc(idr, &tokens[k], sorted[k], end), sorted[k]);
	}
	struct collect c = {.stop_at = -1, .idr = idr};
	assert_int_equal(rpcrdma_idr_for_each(idr, collect_fn, &c), 0);
	assert_int_equal(c.n, 8);
	assert_memory_equal(c.ids, sorted, sizeof(sorted));

	struct collect s = {.stop_at = 3, .idr = idr};
	assert_int_equal(rpcrdma_idr_for_each(idr, collect_fn, &s), 77);
	assert_int_equal(s.n, 3);

	/* ids allocated during the walk: above the current one visited, below not */
	struct grow g = {idr, 0, {0}};
	assert_int_equal(rpcrdma_idr_for_each(idr, grow_fn, &g), 0);
	assert_int_equal(g.n, 9);
	const int grown[] = {0, 63, 64, 65, 4095, 4096, 262144, 1 << 30, INT_MAX};
	assert_memory_equal(g.ids, grown, sizeof(grown));
	assert_ptr_equal(rpcrdma_idr_remove(idr, 65), &tokens[200]);
	assert_ptr_equal(rpcrdma_idr_remove(idr, 1), &tokens[201]);

	struct collect d = {.stop_at = -1, .idr = idr, .remove = true};
	assert_int_equal(rpcrdma_idr_for_each(idr, collect_fn, &d), 0);
	assert_int_equal(d.n, 8);
	assert_memory_equal(d.ids, sorted, sizeof(sorted));
	assert_true(rpcrdma_idr_is_empty(idr));
	assert_int_equal(rpcrdma__idr_node_count(idr), 0);
	free_idr(idr, &fa);
}

/* ------------------------------------------------- failure injection */

struct step {
	enum { ALLOC, CYCLIC, REMOVE } op;
	int a, b;
};

/* Growth at every height, growth by several levels at once (1 -> 6 needs
 * ten nodes), shrinking, a path beside an existing one, cyclic wrap. */
static const struct step program[] = {
	{ALLOC, 5, 0},	      {ALLOC, 0, 0},	       {ALLOC, 1 << 30, 0},
	{REMOVE, 1 << 30, 0}, {ALLOC, 64, 0},	       {ALLOC, 4096, 4100},
	{ALLOC, 262144, 0},   {ALLOC, 16777216, 0},    {ALLOC, INT_MAX, 0},
	{ALLOC, 4000, 0},     {REMOVE, 262144, 0},     {REMOVE, 16777216, 0},
	{REMOVE, INT_MAX, 0}, {REMOVE, 4096, 0},       {ALLOC, 300000, 0},
	{CYCLIC, INT_MAX - 1, 0}, {CYCLIC, INT_MAX - 1, 0}, {CYCLIC, INT_MAX - 1, 0},
	{CYCLIC, 0, 0},       {REMOVE, 300000, 0},     {REMOVE, 64, 0},
	{ALLOC, 63, 0},	      {ALLOC, 70000, 70001},   {REMOVE, 5, 0},
	{ALLOC, 0, 4096},     {ALLOC, 1 << 24, 0},     {REMOVE, 0, 0},
};
#define N_STEPS (sizeof(program) / sizeof(program[0]))

/* Runs the program with the allocator failing its call fail_at; returns the
 * number of -ENOMEM results seen. */
static int run_program(long fail_at, long *calls)
{
	static struct sref m;
	memset(&m, 0, sizeof(m));
	struct fail_alloc fa = {.fail_at = fail_at};
	struct rpcrdma_idr_allocator a = fail_alloc_hooks(&fa);
	struct rpcrdma_idr *idr = NULL;
	int r = rpcrdma_idr_create(&a, &idr);
	if (r == -ENOMEM) {
		assert_int_equal(fail_at, 1);
		assert_null(idr);
		assert_int_equal(fa.live, 0);
		return 1;
	}
	assert_int_equal(r, 0);
	int enomem = 0;
	for (size_t i = 0; i < N_STEPS; i++) {
		const struct step *s = &program[i];
		if (s->op == REMOVE) {
			sparse_remove(idr, &m, s->a);
		} else if (sparse_alloc(idr, &m, &fa, s->op == CYCLIC, s->a, s->b,
					&tokens[i]) == -ENOMEM) {
			enomem++;
		}
		sref_compare(idr, &m); /* unchanged by a failure, sound */
	}
	while (m.n > 0)
		sparse_remove(idr, &m, m.id[m.n - 1]);
	assert_int_equal(rpcrdma__idr_node_count(idr), 0);
	*calls = fa.calls;
	rpcrdma_idr_destroy(idr);
	assert_int_equal(fa.live, 0);
	assert_int_equal(fa.live_bytes, 0);
	return enomem;
}

static void test_failure_every_allocation(void **state)
{
	(void)state;
	long clean = 0;
	assert_int_equal(run_program(0, &clean), 0);
	assert_true(clean > 20);
	for (long k = 1; k <= clean; k++) {
		long calls = 0;
		assert_int_equal(run_program(k, &calls), 1);
	}
	long calls = 0;
	assert_int_equal(run_program(clean + 1, &calls), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range_rules),
		cmocka_unit_test(test_null_and_replace),
		cmocka_unit_test(test_edges_every_height),
		cmocka_unit_test(test_dense_fill_and_full_bits),
		cmocka_unit_test(test_cyclic),
		cmocka_unit_test(test_iterate_order),
		cmocka_unit_test(test_failure_every_allocation),
		cmocka_unit_test(test_sparse_random),
		cmocka_unit_test(test_dense_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
