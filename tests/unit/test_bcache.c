/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box: the block cache (lib/util/bcache.h): the bound, first fit by
 * capacity from the most recently kept, the counters, blocks of one size,
 * a bound of 0, a flood far past the bound, capacities near 2^32 and
 * SIZE_MAX, and the bytes past the link kept as they were put.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/bcache.h"

struct blk {
	void *link[2];                  /* the cache's while cached */
	unsigned id;
	unsigned char payload[40];
};

RPCRDMA__BCACHE_TYPED(blk, struct blk)

static struct blk *blk_new(unsigned id)
{
	struct blk *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	b->id = id;
	return b;
}

static void drain_free(struct rpcrdma__bcache *bc)
{
	for (struct blk *b; (b = blk_pop(bc));)
		free(b);
	assert_int_equal(bc->n, 0);
	assert_null(bc->head);
}

static void test_bound_and_counters(void **state)
{
	struct rpcrdma__bcache bc;
	struct blk *b[5];
	size_t cap = 0;

	(void)state;
	rpcrdma__bcache_init(&bc, 3);
	assert_null(blk_get(&bc, 0, &cap));
	assert_int_equal(bc.misses, 1);
	for (unsigned i = 0; i < 5; i++)
		b[i] = blk_new(i);
	for (unsigned i = 0; i < 3; i++)
		assert_true(blk_put(&bc, b[i], 0));
	/* Full: the fourth and fifth are refused, the caller keeps them. */
	assert_false(blk_put(&bc, b[3], 0));
	assert_false(blk_put(&bc, b[4], 0));
	assert_int_equal(bc.n, 3);
	assert_int_equal(bc.kept, 3);
	assert_int_equal(bc.refused, 2);
	free(b[3]);
	free(b[4]);
	/* LIFO: the last kept comes first. */
	struct blk *g = blk_get(&bc, 0, &cap);
	assert_ptr_equal(g, b[2]);
	assert_int_equal(g->id, 2);
	assert_int_equal(bc.hits, 1);
	assert_int_equal(bc.n, 2);
	/* Room again: put is kept. */
	assert_true(blk_put(&bc, g, 0));
	assert_int_equal(bc.n, 3);
	drain_free(&bc);
	/* pop counts nothing */
	assert_int_equal(bc.hits, 1);
	assert_int_equal(bc.misses, 1);
}

static void test_first_fit_by_capacity(void **state)
{
	struct rpcrdma__bcache bc;
	size_t cap = 0;

	(void)state;
	rpcrdma__bcache_init(&bc, 8);
	struct blk *small = blk_new(1), *big = blk_new(2), *mid = blk_new(3);
	assert_true(blk_put(&bc, small, 256));
	assert_true(blk_put(&bc, big, 4096));
	assert_true(blk_put(&bc, mid, 1024));
	/* Needs 2000: mid (1024, most recent) is too small, big fits. */
	assert_ptr_equal(blk_get(&bc, 2000, &cap), big);
	assert_int_equal(cap, 4096);
	/* Needs 5000: nothing fits, nothing taken. */
	assert_null(blk_get(&bc, 5000, &cap));
	assert_int_equal(bc.n, 2);
	assert_int_equal(bc.misses, 1);
	/* Needs 100: the most recent that fits, mid. */
	assert_ptr_equal(blk_get(&bc, 100, &cap), mid);
	assert_int_equal(cap, 1024);
	/* Exactly the capacity fits. */
	assert_ptr_equal(blk_get(&bc, 256, &cap), small);
	assert_int_equal(cap, 256);
	assert_int_equal(bc.n, 0);
	free(small);
	free(mid);
	free(big);
}

static void test_payload_kept(void **state)
{
	struct rpcrdma__bcache bc;
	size_t cap;

	(void)state;
	rpcrdma__bcache_init(&bc, 2);
	struct blk *b = blk_new(77);
	memset(b->payload, 0xa5, sizeof(b->payload));
	assert_true(blk_put(&bc, b, 0));
	struct blk *g = blk_get(&bc, 0, &cap);
	assert_ptr_equal(g, b);
	/* Only the link was written: what follows it is as it was put. */
	assert_int_equal(g->id, 77);
	for (size_t i = 0; i < sizeof(g->payload); i++)
		assert_int_equal(g->payload[i], 0xa5);
	free(g);
}

static void test_zero_bound(void **state)
{
	struct rpcrdma__bcache bc;
	size_t cap;

	(void)state;
	rpcrdma__bcache_init(&bc, 0);
	struct blk *b = blk_new(1);
	assert_false(blk_put(&bc, b, 0));
	assert_null(blk_get(&bc, 0, &cap));
	assert_int_equal(bc.refused, 1);
	assert_int_equal(bc.misses, 1);
	free(b);
}

/* Far more puts than the bound, interleaved with gets: the cache never
 * holds more than its bound, and every block is either cached or given
 * back to the caller (nothing lost: ASan sees the frees). */
static void test_flood(void **state)
{
	struct rpcrdma__bcache bc;
	size_t cap;
	unsigned outside = 0;

	(void)state;
	rpcrdma__bcache_init(&bc, 16);
	for (unsigned i = 0; i < 100000; i++) {
		if (i % 3 == 2) {
			struct blk *g = blk_get(&bc, 0, &cap);
			if (g)
				free(g);
			continue;
		}
		struct blk *b = blk_new(i);
		if (!blk_put(&bc, b, i)) {
			free(b);
			outside++;
		}
		assert_true(bc.n <= 16);
	}
	assert_int_equal(bc.kept + bc.refused, 100000 - 100000 / 3);
	assert_int_equal(bc.refused, outside);
	assert_int_equal(bc.kept - bc.hits, bc.n);
	drain_free(&bc);
}

/* Capacities at the edges of size_t and of 32 bits. */
static void test_huge_capacities(void **state)
{
	struct rpcrdma__bcache bc;
	size_t cap;

	(void)state;
	rpcrdma__bcache_init(&bc, 4);
	struct blk *a = blk_new(1), *b = blk_new(2);
	assert_true(blk_put(&bc, a, (size_t)UINT32_MAX));
	assert_true(blk_put(&bc, b, SIZE_MAX));
	assert_ptr_equal(blk_get(&bc, (size_t)UINT32_MAX + 1, &cap), b);
	assert_true(cap == SIZE_MAX);
	assert_null(blk_get(&bc, (size_t)UINT32_MAX + 1, &cap));
	assert_ptr_equal(blk_get(&bc, UINT32_MAX, &cap), a);
	assert_true(cap == UINT32_MAX);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_and_counters),
		cmocka_unit_test(test_first_fit_by_capacity),
		cmocka_unit_test(test_payload_kept),
		cmocka_unit_test(test_zero_bound),
		cmocka_unit_test(test_flood),
		cmocka_unit_test(test_huge_capacities),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
