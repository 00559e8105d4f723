/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The read budget's accounting (lib/rdma/rdma_budget.c), without a device: the
 * listener's and each connection's bounds, the wait queue's order (FIFO per
 * connection, round robin across them, no overtaking of a call waiting for
 * the listener's room), the drain of a closing connection, and a flood of
 * random calls in which none is ever lost and no bound is ever passed.
 * Also the listener options' defaults and the raise of a budget below one
 * call of max_call_bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rdma/rdma_internal.h"

#define MIB ((size_t)1 << 20)

struct fixture {
	struct rpcrdma__rb b;
	struct rpcrdma__counters lst;
	struct rpcrdma__counters cst[8];
	struct rpcrdma__rb_conn c[8];
};

static void fx_init(struct fixture *f, size_t limit, size_t conn_limit)
{
	memset(f, 0, sizeof(*f));
	rpcrdma__rb_init(&f->b, limit, conn_limit, &f->lst);
	for (int i = 0; i < 8; i++)
		rpcrdma__rb_conn_init(&f->c[i], &f->cst[i]);
}

static uint64_t stat(const struct rpcrdma__counters *c, enum rpcrdma_stat s)
{
	return atomic_load(&c->v[s]);
}

/* One connection: its share bounds it, a release lets the next one in. */
static void test_conn_share(void **state)
{
	struct fixture f;
	struct rpcrdma__rb_wait w[6];
	struct rpcrdma__rb_conn *who;

	(void)state;
	fx_init(&f, 64 * MIB, 16 * MIB);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[0], &w[i], 4 * MIB), 1);
	/* Its share is full: waits, and nothing can be admitted now. */
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[0], &w[4], 4 * MIB), 0);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[0], &w[5], 4 * MIB), 0);
	assert_false(w[4].held);
	assert_null(rpcrdma__rb_next(&f.b, &who));
	assert_int_equal(f.b.used, 16 * MIB);
	/* A release makes room for exactly one, in order. */
	assert_true(rpcrdma__rb_put(&f.b, &f.c[0], &w[1]));
	assert_ptr_equal(rpcrdma__rb_next(&f.b, &who), &w[4]);
	assert_ptr_equal(who, &f.c[0]);
	assert_true(w[4].held);
	assert_null(rpcrdma__rb_next(&f.b, &who));
	assert_false(rpcrdma__rb_put(&f.b, &f.c[0], &w[1]));  /* holds nothing: a no-op */
	assert_int_equal(f.c[0].used, 16 * MIB);
	assert_int_equal(stat(&f.lst, RPCRDMA_STAT_READ_WAITS), 2);
	assert_int_equal(stat(&f.cst[0], RPCRDMA_STAT_READ_WAITS), 2);
	assert_int_equal(stat(&f.lst, RPCRDMA_STAT_READ_BYTES_PEAK), 16 * MIB);
	rpcrdma__rb_fini(&f.b);
}

/* A flooding connection cannot take the listener's budget from another. */
static void test_flood_leaves_room(void **state)
{
	struct fixture f;
	static struct rpcrdma__rb_wait w[200];
	struct rpcrdma__rb_wait x;
	int admitted = 0;

	(void)state;
	fx_init(&f, 64 * MIB, 16 * MIB);
	for (int i = 0; i < 200; i++)
		admitted += rpcrdma__rb_take(&f.b, &f.c[0], &w[i], 2 * MIB) == 1;
	assert_int_equal(admitted, 8);
	assert_int_equal(f.b.nwaiting, 192);
	/* Another connection's call goes at once. */
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[1], &x, 16 * MIB), 1);
	assert_int_equal(f.b.used, 32 * MIB);
	rpcrdma__rb_fini(&f.b);
}

/* A call waiting for the listener's room is not overtaken by later, smaller
 * calls of other connections; one waiting for its own share holds up nobody. */
static void test_no_overtaking(void **state)
{
	struct fixture f;
	struct rpcrdma__rb_wait a, a2, b, c, d;
	struct rpcrdma__rb_conn *who;

	(void)state;
	fx_init(&f, 64 * MIB, 64 * MIB);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[0], &a, 60 * MIB), 1);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[1], &b, 16 * MIB), 0);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[2], &c, 4 * MIB), 0);  /* fits, waits */
	assert_null(rpcrdma__rb_next(&f.b, &who));
	assert_true(rpcrdma__rb_put(&f.b, &f.c[0], &a));
	assert_ptr_equal(rpcrdma__rb_next(&f.b, &who), &b);
	assert_ptr_equal(rpcrdma__rb_next(&f.b, &who), &c);
	assert_null(rpcrdma__rb_next(&f.b, &who));

	/* Connection 3 over its own share does not hold up connection 4. */
	fx_init(&f, 64 * MIB, 16 * MIB);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[3], &a, 16 * MIB), 1);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[3], &a2, 16 * MIB), 0);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[4], &d, 16 * MIB), 1);
	assert_null(rpcrdma__rb_next(&f.b, &who));
	rpcrdma__rb_fini(&f.b);
}

/* Waiting connections are served round robin. */
static void test_round_robin(void **state)
{
	struct fixture f;
	struct rpcrdma__rb_wait hold, w[3][3];
	struct rpcrdma__rb_conn *who;
	int order[9];

	(void)state;
	fx_init(&f, 4 * MIB, 4 * MIB);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[7], &hold, 4 * MIB), 1);
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 3; i++)
			assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[i], &w[i][k], MIB), 0);
	assert_true(rpcrdma__rb_put(&f.b, &f.c[7], &hold));
	for (int n = 0; n < 9; n++) {
		struct rpcrdma__rb_wait *x;

		/* Four fit at once; release each as it comes to keep turning. */
		x = rpcrdma__rb_next(&f.b, &who);
		assert_non_null(x);
		order[n] = (int)(who - f.c);
		rpcrdma__rb_put(&f.b, who, x);
	}
	for (int n = 0; n < 9; n++)
		assert_int_equal(order[n], n % 3);
	assert_int_equal(f.b.used, 0);
	assert_int_equal(f.b.nwaiting, 0);
	rpcrdma__rb_fini(&f.b);
}

/* A closing connection gives its waiting calls back, none charged, takes
 * nothing more, and what it holds is still given back. */
static void test_drain(void **state)
{
	struct fixture f;
	struct rpcrdma__rb_wait held, w[5], late, other;
	struct rpcrdma__rb_conn *who;
	struct rpcrdma__list out, *n;
	int count = 0;

	(void)state;
	fx_init(&f, 8 * MIB, 8 * MIB);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[0], &held, 8 * MIB), 1);
	for (int i = 0; i < 5; i++)
		assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[0], &w[i], MIB), 0);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[1], &other, MIB), 0);
	rpcrdma__list_init(&out);
	rpcrdma__rb_conn_drain(&f.b, &f.c[0], &out);
	while ((n = rpcrdma__list_pop(&out))) {
		struct rpcrdma__rb_wait *x = rpcrdma__container_of(n, struct rpcrdma__rb_wait, node);

		assert_ptr_equal(x, &w[count]);
		assert_false(x->held);
		count++;
	}
	assert_int_equal(count, 5);
	assert_int_equal(rpcrdma__rb_take(&f.b, &f.c[0], &late, MIB), -ENOTCONN);
	assert_int_equal(f.b.nwaiting, 1);
	/* Its held call ends later: the other connection's call goes in. */
	assert_true(rpcrdma__rb_put(&f.b, &f.c[0], &held));
	assert_ptr_equal(rpcrdma__rb_next(&f.b, &who), &other);
	assert_ptr_equal(who, &f.c[1]);
	assert_int_equal(f.c[0].used, 0);
	assert_null(rpcrdma__rb_next(&f.b, &who));
	rpcrdma__rb_fini(&f.b);
}

/* A flood of calls of every size up to the share, on several connections,
 * with releases and closes in random order: no bound passed, the sums
 * always agree, and every call is admitted exactly once or given back by
 * a drain. */
#define FLOOD 4000
static void test_flood_random(void **state)
{
	static struct rpcrdma__rb_wait w[FLOOD];
	static int conn_of[FLOOD], admitted[FLOOD], drained[FLOOD];
	struct fixture f;
	struct rpcrdma__rb_conn *who;
	unsigned seed = 12345;
	int taken = 0;

	(void)state;
	fx_init(&f, 64 * MIB, 16 * MIB);
	for (int step = 0; step < 4 * FLOOD; step++) {
		int op = (int)(rand_r(&seed) % 8);

		if (op < 4 && taken < FLOOD) {
			int i = taken++, c = (int)(rand_r(&seed) % 8);
			/* sizes of every class from 4 KiB to the share itself */
			size_t sz = rpcrdma__mrcache_class((size_t)(rand_r(&seed) % (16 * MIB)) + 1);

			conn_of[i] = c;
			int r = rpcrdma__rb_take(&f.b, &f.c[c], &w[i], sz);

			if (r == -ENOTCONN) {
				drained[i] = 1;     /* the caller releases it */
			} else if (r == 1) {
				admitted[i]++;
			}
		} else if (op < 7) {
			/* release a random held call */
			int i = taken ? (int)(rand_r(&seed) % (unsigned)taken) : 0;

			if (taken && w[i].held)
				rpcrdma__rb_put(&f.b, &f.c[conn_of[i]], &w[i]);
		} else if (rand_r(&seed) % 50 == 0) {
			/* a connection closes; a new one takes its slot */
			int c = (int)(rand_r(&seed) % 8);
			struct rpcrdma__list out, *n;

			rpcrdma__list_init(&out);
			rpcrdma__rb_conn_drain(&f.b, &f.c[c], &out);
			while ((n = rpcrdma__list_pop(&out)))
				drained[rpcrdma__container_of(n, struct rpcrdma__rb_wait, node) - w] = 1;
			/* its held calls end, then the slot is reused */
			for (int i = 0; i < taken; i++)
				if (conn_of[i] == c && w[i].held)
					rpcrdma__rb_put(&f.b, &f.c[c], &w[i]);
			assert_int_equal(f.c[c].used, 0);
			rpcrdma__rb_conn_init(&f.c[c], &f.cst[c]);
		}
		struct rpcrdma__rb_wait *x;

		while ((x = rpcrdma__rb_next(&f.b, &who)))
			admitted[x - w]++;
		/* the bounds and the sums */
		size_t sum = 0, held = 0;

		assert_true(f.b.used <= f.b.limit);
		for (int c = 0; c < 8; c++) {
			assert_true(f.c[c].used <= f.b.conn_limit);
			sum += f.c[c].used;
		}
		for (int i = 0; i < taken; i++)
			held += w[i].held ? w[i].bytes : 0;
		assert_int_equal(sum, f.b.used);
		assert_int_equal(held, f.b.used);
	}
	/* Release everything: every waiting call comes through. */
	for (int round = 0; round < FLOOD && (f.b.nwaiting || f.b.used); round++) {
		struct rpcrdma__rb_wait *x;

		for (int i = 0; i < taken; i++)
			if (w[i].held)
				rpcrdma__rb_put(&f.b, &f.c[conn_of[i]], &w[i]);
		while ((x = rpcrdma__rb_next(&f.b, &who)))
			admitted[x - w]++;
	}
	assert_int_equal(f.b.nwaiting, 0);
	for (int i = 0; i < taken; i++)
		assert_int_equal(admitted[i] + drained[i], 1);
	assert_true(stat(&f.lst, RPCRDMA_STAT_READ_BYTES_PEAK) <= 64 * MIB);
	assert_true(stat(&f.lst, RPCRDMA_STAT_READ_WAITS) > 0);
	rpcrdma__rb_fini(&f.b);
}

/* Defaults, an old caller's shorter options, and a budget raised to one
 * call of max_call_bytes. */
static void test_opts(void **state)
{
	struct rpcrdma_listener_opts u, o;

	(void)state;
	rpcrdma_listener_opts_init(&u);
	assert_int_equal(u.max_call_bytes, (1u << 20) + (12u << 10));
	assert_int_equal(u.read_budget_bytes, 64 * MIB);
	assert_int_equal(u.read_conn_bytes, 16 * MIB);
	/* options from before the budget existed: the defaults */
	u.size = offsetof(struct rpcrdma_listener_opts, read_budget_bytes);
	u.read_budget_bytes = 1;
	assert_int_equal(rpcrdma__listener_opts_get(&u, &o), 0);
	assert_int_equal(o.read_budget_bytes, 64 * MIB);
	/* 16 MiB + 1 is a 32 MiB buffer: both raised to it */
	rpcrdma_listener_opts_init(&u);
	u.max_call_bytes = (16u << 20) + 1;
	u.read_budget_bytes = 0;
	u.read_conn_bytes = 0;
	assert_int_equal(rpcrdma__listener_opts_get(&u, &o), 0);
	assert_int_equal(o.read_conn_bytes, 32 * MIB);
	assert_int_equal(o.read_budget_bytes, 32 * MIB);
	/* a share above the budget raises the budget */
	u.read_conn_bytes = 128 * MIB;
	assert_int_equal(rpcrdma__listener_opts_get(&u, &o), 0);
	assert_int_equal(o.read_budget_bytes, 128 * MIB);
	/* and the old checks still hold */
	u.max_credits = 0;
	assert_int_equal(rpcrdma__listener_opts_get(&u, &o), -EINVAL);
	assert_string_equal(rpcrdma_stat_name(RPCRDMA_STAT_READ_WAITS), "read_waits");
	assert_string_equal(rpcrdma_stat_name(RPCRDMA_STAT_READ_BYTES_PEAK), "read_bytes_peak");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conn_share),
		cmocka_unit_test(test_flood_leaves_room),
		cmocka_unit_test(test_no_overtaking),
		cmocka_unit_test(test_round_robin),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_flood_random),
		cmocka_unit_test(test_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
