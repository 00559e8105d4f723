/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IDA tests (white-box: the tree invariants are checked after operations).
 * Randomized differential tests against a bitset window and a sorted array,
 * the inline <-> tree transitions, edge cases at every tree height and at the
 * ends of the id space, failure injection at every allocation of a sequence
 * and at random points, and leak checks.
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

static struct rpcrdma_ida *new_ida(struct fail_alloc *fa)
{
	struct rpcrdma_idr_allocator a = fail_alloc_hooks(fa);
	struct rpcrdma_ida *ida = NULL;
	assert_int_equal(rpcrdma_ida_create(&a, &ida), 0);
	assert_non_null(ida);
	return ida;
}

static void free_ida(struct rpcrdma_ida *ida, struct fail_alloc *fa)
{
	rpcrdma_ida_destroy(ida);
	assert_int_equal(fa->live, 0);
	assert_int_equal(fa->live_bytes, 0);
}

/* Allocation checked against want (-1: range full); -ENOMEM accepted only
 * when the allocator just failed, and then nothing may have changed. */
static int checked_alloc(struct rpcrdma_ida *ida, struct fail_alloc *fa, int start, int end,
			 int64_t want)
{
	long failures = fa->failures, calls = fa->calls;
	size_t nodes = rpcrdma__ida_node_count(ida), count = rpcrdma_ida_count(ida);
	int got = rpcrdma_ida_alloc(ida, start, end);
	if (got == -ENOMEM) {
		assert_int_equal(fa->failures, failures + 1);
		assert_true(want >= 0);
		assert_int_equal(rpcrdma__ida_node_count(ida), nodes);
		assert_int_equal(rpcrdma_ida_count(ida), count);
		assert_int_equal(rpcrdma__ida_check(ida), 0);
		return got;
	}
	assert_int_equal(fa->failures, failures);
	if (want < 0) {
		assert_int_equal(got, -ENOSPC);
		return got;
	}
	assert_int_equal(got, want);
	/* it allocated exactly the nodes it keeps */
	assert_int_equal(rpcrdma__ida_node_count(ida) - nodes, fa->calls - calls);
	return got;
}

/* ---------------------------------------------------- dense window model */

#define WIN 8192

struct dref {
	int64_t base;
	uint64_t bits[WIN / 64];
	size_t count;
};

static bool dref_used(const struct dref *m, int64_t id)
{
	int64_t k = id - m->base;
	return k >= 0 && k < WIN && ((m->bits[k / 64] >> (k % 64)) & 1);
}

static int64_t dref_scan_free(const struct dref *m, int64_t from, int64_t lim)
{
	for (int64_t id = from; id < lim;) {
		int64_t k = id - m->base;
		uint64_t w = ~m->bits[k / 64] & (~(uint64_t)0 << (k % 64));
		if (w != 0) {
			int64_t found = m->base + (k / 64) * 64 + __builtin_ctzll(w);
			return found < lim ? found : -1;
		}
		id = m->base + (k / 64 + 1) * 64;
	}
	return -1;
}

static void dref_compare(const struct rpcrdma_ida *ida, const struct dref *m)
{
	assert_int_equal(rpcrdma__ida_check(ida), 0);
	assert_int_equal(rpcrdma_ida_count(ida), m->count);
	assert_int_equal(rpcrdma_ida_is_empty(ida), m->count == 0);
	for (int64_t id = m->base; id < m->base + WIN; id++)
		assert_int_equal(rpcrdma_ida_test(ida, (int)id), dref_used(m, id));
}

static void dense_window(int64_t base, long ops, uint64_t seed)
{
	static struct dref m;
	memset(&m, 0, sizeof(m));
	m.base = base;
	bool top = base + WIN == (int64_t)INT_MAX + 1;
	struct rng r = {seed};
	struct fail_alloc fa = {0};
	struct rpcrdma_ida *ida = new_ida(&fa);
	fa.fail_at = 1 + (long)rng_below(&r, 64);
	for (long i = 0; i < ops; i++) {
		unsigned bias = (i / 30000) % 2 == 0 ? 55 : 15; /* fill, drain */
		unsigned op = (unsigned)rng_below(&r, 100);
		int64_t any = base + (int64_t)rng_below(&r, WIN);
		if (op < bias) {
			int64_t a = (int64_t)rng_below(&r, WIN);
			int64_t b = rng_below(&r, 4) == 0 ? WIN
							  : a + 1 + (int64_t)rng_below(&r, (uint64_t)(WIN - a));
			int start = (int)(base + a);
			int end = top && b == WIN ? 0 : (int)(base + b);
			int64_t want = dref_scan_free(&m, start, base + b);
			int got = checked_alloc(ida, &fa, start, end, want);
			if (got == -ENOMEM) {
				fa.fail_at = fa.calls + 1 + (long)rng_below(&r, 64);
			} else if (got >= 0) {
				int64_t k = got - base;
				m.bits[k / 64] |= (uint64_t)1 << (k % 64);
				m.count++;
			}
		} else if (op < bias + 30) {
			bool was = dref_used(&m, any);
			assert_int_equal(rpcrdma_ida_free(ida, (int)any), was ? 0 : -ENOENT);
			if (was) {
				int64_t k = any - base;
				m.bits[k / 64] &= ~((uint64_t)1 << (k % 64));
				m.count--;
			}
			assert_false(rpcrdma_ida_test(ida, (int)any));
		} else if (op < 99 || i % 64 != 0) {
			assert_int_equal(rpcrdma_ida_test(ida, (int)any), dref_used(&m, any));
		} else {
			dref_compare(ida, &m);
		}
	}
	dref_compare(ida, &m);
	for (int64_t id = base; id < base + WIN; id++)
		assert_int_equal(rpcrdma_ida_free(ida, (int)id), dref_used(&m, id) ? 0 : -ENOENT);
	assert_true(rpcrdma_ida_is_empty(ida));
	assert_int_equal(rpcrdma__ida_node_count(ida), 0);
	free_ida(ida, &fa);
}

static void test_dense_random(void **state)
{
	(void)state;
	const int64_t bases[] = {
		0,			       /* inline, height 1 and 2 (1024) */
		((int64_t)1 << 16) - WIN / 2, /* heights 2 and 3 */
		((int64_t)1 << 22) - WIN / 2, /* 3 and 4 */
		((int64_t)1 << 28) - WIN / 2, /* 4 and 5 */
		(int64_t)INT_MAX + 1 - WIN,   /* the top, with end == 0 */
	};
	for (unsigned i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		dense_window(bases[i], 250000, 0xC0FFEE0000ULL + i);
}

/* ---------------------------------------------------- sparse sorted model */

#define SPARSE_MAX 2048

struct sref {
	size_t n;
	int64_t id[SPARSE_MAX];
};

static int sparse_alloc(struct rpcrdma_ida *ida, struct sref *m, struct fail_alloc *fa, int start,
			int end)
{
	int64_t lim = end <= 0 ? (int64_t)INT_MAX + 1 : end;
	int got = checked_alloc(ida, fa, start, end, id_set_free(m->id, m->n, start, lim));
	if (got >= 0)
		id_set_insert(m->id, NULL, &m->n, got, NULL);
	return got;
}

static void sparse_free(struct rpcrdma_ida *ida, struct sref *m, int64_t id)
{
	size_t k;
	if (id_set_has(m->id, m->n, id, &k)) {
		assert_int_equal(rpcrdma_ida_free(ida, (int)id), 0);
		id_set_erase(m->id, NULL, &m->n, k);
	} else {
		assert_int_equal(rpcrdma_ida_free(ida, (int)id), -ENOENT);
	}
}

static void sref_compare(const struct rpcrdma_ida *ida, const struct sref *m)
{
	assert_int_equal(rpcrdma__ida_check(ida), 0);
	assert_int_equal(rpcrdma_ida_count(ida), m->n);
	for (size_t k = 0; k < m->n; k++) {
		assert_true(rpcrdma_ida_test(ida, (int)m->id[k]));
		if (m->id[k] > 0 && (k == 0 || m->id[k - 1] != m->id[k] - 1))
			assert_false(rpcrdma_ida_test(ida, (int)m->id[k] - 1));
	}
}

static int64_t spread_id(struct rng *r)
{
	unsigned bits = 1 + (unsigned)rng_below(r, 31);
	return (int64_t)rng_below(r, (uint64_t)1 << bits);
}

static void test_sparse_random(void **state)
{
	(void)state;
	static struct sref m;
	memset(&m, 0, sizeof(m));
	struct rng r = {777};
	struct fail_alloc fa = {0};
	struct rpcrdma_ida *ida = new_ida(&fa);
	fa.fail_at = 1 + (long)rng_below(&r, 64);
	for (long i = 0; i < 600000; i++) {
		if (i % 40000 == 39999) {
			while (m.n > 0)
				sparse_free(ida, &m, m.id[rng_below(&r, m.n)]);
			assert_int_equal(rpcrdma__ida_node_count(ida), 0);
			sref_compare(ida, &m);
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
			if (sparse_alloc(ida, &m, &fa, start, end) == -ENOMEM)
				fa.fail_at = fa.calls + 1 + (long)rng_below(&r, 64);
		} else if (op < 70) {
			int64_t id = m.n > 0 && rng_below(&r, 4) != 0 ? m.id[rng_below(&r, m.n)]
								 : spread_id(&r);
			sparse_free(ida, &m, id);
		} else if (op < 99) {
			int64_t id = spread_id(&r);
			size_t k;
			assert_int_equal(rpcrdma_ida_test(ida, (int)id), id_set_has(m.id, m.n, id, &k));
		} else {
			sref_compare(ida, &m);
		}
	}
	sref_compare(ida, &m);
	free_ida(ida, &fa);
}

/* ------------------------------------------------------------ edge cases */

static const int64_t edge_ids[] = {
	0,	   1,	    63,	       64,	   1023,	  1024,	     4095, 4096,
	65535,	   65536,   (1 << 22) - 1, 1 << 22, (1 << 28) - 1, 1 << 28,
	INT_MAX - 1024, INT_MAX - 1023, INT_MAX - 1, INT_MAX,
};
#define N_EDGE (sizeof(edge_ids) / sizeof(edge_ids[0]))

static size_t nodes_for_one(int64_t id)
{
	if (id < 64)
		return 0; /* inline */
	size_t h = 1;
	while (id >= ((int64_t)1 << (10 + 6 * (h - 1))))
		h++;
	return h; /* h - 1 interior nodes and one leaf */
}

static void test_edges_every_height(void **state)
{
	(void)state;
	struct fail_alloc fa = {0};
	struct rpcrdma_ida *ida = new_ida(&fa);
	for (size_t i = 0; i < N_EDGE; i++) {
		int id = (int)edge_ids[i];
		int end = id == INT_MAX ? 0 : id + 1;
		assert_int_equal(rpcrdma_ida_alloc(ida, id, end), id);
		assert_int_equal(rpcrdma_ida_alloc(ida, id, end), -ENOSPC);
		assert_true(rpcrdma_ida_test(ida, id));
		assert_false(rpcrdma_ida_test(ida, id == 0 ? 1 : id - 1));
		assert_int_equal(rpcrdma__ida_node_count(ida), nodes_for_one(id));
		assert_int_equal(rpcrdma__ida_check(ida), 0);
		/* ids beyond the tree's reach must not alias id's slot */
		for (int64_t c = 64; c <= INT_MAX; c *= 2) {
			if (id + c <= INT_MAX) {
				assert_false(rpcrdma_ida_test(ida, (int)(id + c)));
				assert_int_equal(rpcrdma_ida_free(ida, (int)(id + c)), -ENOENT);
			}
		}
		assert_int_equal(rpcrdma_ida_free(ida, id), 0);
		assert_int_equal(rpcrdma_ida_free(ida, id), -ENOENT);
		assert_int_equal(rpcrdma__ida_node_count(ida), 0);
	}
	for (size_t i = 0; i < N_EDGE; i++) {
		for (size_t j = 0; j < N_EDGE; j++) {
			int a = (int)edge_ids[i], b = (int)edge_ids[j];
			assert_int_equal(rpcrdma_ida_alloc(ida, a, 0), a);
			int got = rpcrdma_ida_alloc(ida, b, 0);
			if (a == b)
				assert_int_equal(got, a == INT_MAX ? -ENOSPC : a + 1);
			else
				assert_int_equal(got, b);
			assert_int_equal(rpcrdma__ida_check(ida), 0);
			assert_int_equal(rpcrdma_ida_free(ida, a), 0);
			assert_int_equal(rpcrdma__ida_check(ida), 0);
			if (got >= 0)
				assert_int_equal(rpcrdma_ida_free(ida, got), 0);
			assert_int_equal(rpcrdma__ida_node_count(ida), 0);
		}
	}
	free_ida(ida, &fa);
}

/* Ids below 64 need no node; the tree comes and goes around them. */
static void test_inline(void **state)
{
	(void)state;
	struct fail_alloc fa = {0};
	struct rpcrdma_ida *ida = new_ida(&fa);
	long after_create = fa.calls;
	for (int i = 0; i < 64; i++)
		assert_int_equal(rpcrdma_ida_alloc(ida, 0, 0), i);
	assert_int_equal(fa.calls, after_create); /* no allocation at all */
	assert_int_equal(rpcrdma__ida_node_count(ida), 0);
	assert_int_equal(rpcrdma_ida_alloc(ida, 0, 64), -ENOSPC);
	assert_int_equal(rpcrdma_ida_alloc(ida, 0, 0), 64);
	assert_int_equal(rpcrdma__ida_node_count(ida), 1);
	assert_int_equal(rpcrdma_ida_free(ida, 64), 0);
	assert_int_equal(rpcrdma__ida_node_count(ida), 0);
	for (int i = 0; i < 64; i++)
		assert_true(rpcrdma_ida_test(ida, i));
	/* a far id: its path, and a leaf for the inline ids */
	assert_int_equal(rpcrdma_ida_alloc(ida, 5000, 0), 5000);
	assert_int_equal(rpcrdma__ida_node_count(ida), 3);
	assert_int_equal(rpcrdma__ida_check(ida), 0);
	assert_int_equal(rpcrdma_ida_free(ida, 17), 0);
	assert_int_equal(rpcrdma_ida_alloc(ida, 0, 0), 17);
	assert_int_equal(rpcrdma_ida_free(ida, 5000), 0);
	assert_int_equal(rpcrdma__ida_node_count(ida), 0);
	assert_int_equal(rpcrdma_ida_count(ida), 64);
	for (int i = 0; i < 64; i++)
		assert_int_equal(rpcrdma_ida_free(ida, i), 0);
	assert_true(rpcrdma_ida_is_empty(ida));
	free_ida(ida, &fa);
}

/* 70000 ids: full bits at leaf (1024) and interior (65536) boundaries. */
static void test_dense_fill(void **state)
{
	(void)state;
	struct fail_alloc fa = {0};
	struct rpcrdma_ida *ida = new_ida(&fa);
	for (int i = 0; i < 70000; i++)
		assert_int_equal(rpcrdma_ida_alloc(ida, 0, 0), i);
	assert_int_equal(rpcrdma__ida_check(ida), 0);
	/* root (level 3), 2 level-2 nodes, 64 + 5 leaves */
	assert_int_equal(rpcrdma__ida_node_count(ida), 1 + 2 + 64 + 5);
	assert_int_equal(rpcrdma_ida_alloc(ida, 0, 65536), -ENOSPC);
	assert_int_equal(rpcrdma_ida_free(ida, 65535), 0);
	assert_int_equal(rpcrdma_ida_alloc(ida, 1000, 65536), 65535);
	assert_int_equal(rpcrdma_ida_free(ida, 1023), 0);
	assert_int_equal(rpcrdma_ida_free(ida, 1024), 0);
	assert_int_equal(rpcrdma_ida_alloc(ida, 0, 0), 1023);
	assert_int_equal(rpcrdma_ida_alloc(ida, 0, 0), 1024);
	assert_int_equal(rpcrdma_ida_alloc(ida, 0, 0), 70000);
	assert_int_equal(rpcrdma__ida_check(ida), 0);
	free_ida(ida, &fa); /* destroy frees a populated tree */
}

static void test_range_rules(void **state)
{
	(void)state;
	struct fail_alloc fa = {0};
	struct rpcrdma_ida *ida = new_ida(&fa);
	assert_int_equal(rpcrdma_ida_alloc(ida, -1, 0), -EINVAL);
	assert_int_equal(rpcrdma_ida_alloc(ida, 9, 9), -EINVAL);
	assert_int_equal(rpcrdma_ida_alloc(ida, 10, 9), -EINVAL);
	assert_int_equal(rpcrdma_ida_free(ida, -1), -EINVAL);
	assert_int_equal(rpcrdma_ida_free(ida, 0), -ENOENT);
	assert_int_equal(rpcrdma_ida_free(ida, INT_MAX), -ENOENT);
	assert_false(rpcrdma_ida_test(ida, -1));
	assert_int_equal(rpcrdma_ida_alloc(ida, INT_MAX, -1), INT_MAX);
	assert_int_equal(rpcrdma_ida_alloc(ida, INT_MAX, 0), -ENOSPC);
	assert_int_equal(rpcrdma_ida_free(ida, INT_MAX - 1), -ENOENT);
	assert_int_equal(rpcrdma_ida_free(ida, 63), -ENOENT);
	assert_int_equal(rpcrdma_ida_free(ida, INT_MAX), 0);
	assert_int_equal(rpcrdma__ida_node_count(ida), 0);
	free_ida(ida, &fa);

	struct rpcrdma_idr_allocator half = {NULL, fail_alloc_free, &fa};
	struct rpcrdma_ida *out = NULL;
	assert_int_equal(rpcrdma_ida_create(&half, &out), -EINVAL);
	assert_null(out);
	assert_int_equal(rpcrdma_ida_create(NULL, &out), 0);
	assert_int_equal(rpcrdma_ida_alloc(out, 1 << 20, 0), 1 << 20);
	rpcrdma_ida_destroy(out);
	rpcrdma_ida_destroy(NULL);
}

/* ------------------------------------------------- failure injection */

/* +id: allocate from id; -id - 1: free id. */
static const int64_t program[] = {
	5,	  0,	       64,	  -64 - 1, 5000,	 -5000 - 1, 1 << 28,
	3,	  1023,	       1024,	  INT_MAX, -(1 << 28) - 1, 65536,	 -5 - 1,
	-INT_MAX - 1, 70000, 1 << 22, -1023 - 1, 0,	  -0 - 1,	 -1024 - 1,
	-70000 - 1, 100,   -65536 - 1, -(1 << 22) - 1, 2000000000, -100 - 1,
};
#define N_STEPS (sizeof(program) / sizeof(program[0]))

static int run_program(long fail_at, long *calls)
{
	static struct sref m;
	memset(&m, 0, sizeof(m));
	struct fail_alloc fa = {.fail_at = fail_at};
	struct rpcrdma_idr_allocator a = fail_alloc_hooks(&fa);
	struct rpcrdma_ida *ida = NULL;
	int r = rpcrdma_ida_create(&a, &ida);
	if (r == -ENOMEM) {
		assert_int_equal(fail_at, 1);
		assert_null(ida);
		assert_int_equal(fa.live, 0);
		return 1;
	}
	assert_int_equal(r, 0);
	int enomem = 0;
	for (size_t i = 0; i < N_STEPS; i++) {
		if (program[i] >= 0) {
			if (sparse_alloc(ida, &m, &fa, (int)program[i], 0) == -ENOMEM)
				enomem++;
		} else {
			sparse_free(ida, &m, -program[i] - 1);
		}
		sref_compare(ida, &m);
	}
	while (m.n > 0)
		sparse_free(ida, &m, m.id[0]);
	assert_int_equal(rpcrdma__ida_node_count(ida), 0);
	*calls = fa.calls;
	rpcrdma_ida_destroy(ida);
	assert_int_equal(fa.live, 0);
	assert_int_equal(fa.live_bytes, 0);
	return enomem;
}

static void test_failure_every_allocation(void **state)
{
	(void)state;
	long clean = 0;
	assert_int_equal(run_program(0, &clean), 0);
	assert_true(clean > 15);
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
		cmocka_unit_test(test_inline),
		cmocka_unit_test(test_edges_every_height),
		cmocka_unit_test(test_dense_fill),
		cmocka_unit_test(test_failure_every_allocation),
		cmocka_unit_test(test_sparse_random),
		cmocka_unit_test(test_dense_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
