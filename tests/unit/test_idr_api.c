/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Black-box: the id allocators through the shared library only, used the way
 * the transport will use them (connection ids, the client's calls by xid).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>

#include <rpcrdma/rpcrdma.h>

struct conn {
	int id;
};

static int free_conn(int id, void *ptr, void *arg)
{
	struct conn *c = ptr;
	assert_int_equal(c->id, id);
	(*(int *)arg)++;
	free(c);
	return 0;
}

/* Connection ids: the lowest free id, reused as soon as it is released. */
static void test_connection_ids(void **state)
{
	(void)state;
	struct rpcrdma_idr *conns;
	assert_int_equal(rpcrdma_idr_create(NULL, &conns), 0);
	for (int i = 0; i < 300; i++) {
		struct conn *c = malloc(sizeof(*c));
		assert_non_null(c);
		/* reserve, then publish once the object is set up */
		c->id = rpcrdma_idr_alloc(conns, NULL, 0, 0);
		assert_int_equal(c->id, i);
		assert_int_equal(rpcrdma_idr_replace(conns, c->id, c, NULL), 0);
	}
	struct conn *c = rpcrdma_idr_remove(conns, 70);
	assert_non_null(c);
	assert_int_equal(c->id, 70);
	assert_null(rpcrdma_idr_find(conns, 70));
	assert_int_equal(rpcrdma_idr_alloc(conns, c, 0, 0), 70); /* reused at once */
	assert_int_equal(rpcrdma_idr_count(conns), 300);
	int freed = 0;
	assert_int_equal(rpcrdma_idr_for_each(conns, free_conn, &freed), 0);
	assert_int_equal(freed, 300);
	rpcrdma_idr_destroy(conns);
}

/* Calls in flight by xid: a late reply to a finished call finds nothing,
 * because its xid is not handed out again until the range wraps. */
static void test_calls_by_xid(void **state)
{
	(void)state;
	struct rpcrdma_idr *calls;
	assert_int_equal(rpcrdma_idr_create(NULL, &calls), 0);
	int call_a = 1, call_b = 2;
	int xa = rpcrdma_idr_alloc_cyclic(calls, &call_a, 1, 0);
	assert_int_equal(xa, 1);
	assert_ptr_equal(rpcrdma_idr_remove(calls, xa), &call_a); /* reply arrived */
	int xb = rpcrdma_idr_alloc_cyclic(calls, &call_b, 1, 0);
	assert_int_not_equal(xb, xa);
	assert_null(rpcrdma_idr_remove(calls, xa)); /* a duplicate reply to a */
	assert_ptr_equal(rpcrdma_idr_find(calls, xb), &call_b);
	assert_ptr_equal(rpcrdma_idr_remove(calls, xb), &call_b);
	assert_true(rpcrdma_idr_is_empty(calls));
	rpcrdma_idr_destroy(calls);
}

static void test_ida_small(void **state)
{
	(void)state;
	struct rpcrdma_ida *ida;
	assert_int_equal(rpcrdma_ida_create(NULL, &ida), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(rpcrdma_ida_alloc(ida, 0, 0), i);
	assert_int_equal(rpcrdma_ida_alloc(ida, 0, 64), -ENOSPC);
	assert_int_equal(rpcrdma_ida_free(ida, 10), 0);
	assert_int_equal(rpcrdma_ida_free(ida, 10), -ENOENT);
	assert_false(rpcrdma_ida_test(ida, 10));
	assert_int_equal(rpcrdma_ida_alloc(ida, 0, 64), 10);
	assert_int_equal(rpcrdma_ida_alloc(ida, 0, 0), 64);
	assert_int_equal(rpcrdma_ida_count(ida), 65);
	rpcrdma_ida_destroy(ida);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connection_ids),
		cmocka_unit_test(test_calls_by_xid),
		cmocka_unit_test(test_ida_small),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
