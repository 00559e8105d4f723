/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RDMA transport's resource accounting, the parts that need no device:
 * the cost rules and a listener with a group.  The charges made by real
 * connections are proven over soft-RoCE (tests/vm/payloads/rdma-rescg).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <cmocka.h>

#include <rpcrdma/rescg.h>

#include "rdma/rdma_internal.h"

static void handler(struct rpcrdma_call *call, void *arg)
{
	(void)arg;
	rpcrdma_call_drop(call);
}

/* A listener with a resource group is accepted; without a connection it
 * charges nothing (devices are charged at their first connection), and
 * destroying it leaves the group as it was. */
static void test_listener_group(void **state)
{
	struct rpcrdma_poller_opts po;
	struct rpcrdma_poller *p;
	struct rpcrdma_listener_opts lo;
	struct rpcrdma_listener *l = NULL;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *grp;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char buf[128];

	(void)state;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &grp), 0);
	assert_int_equal(rpcrdma_rescg_group_write_max(grp, "rxe0 hca_object=0", 17, NULL, 0), 0);
	rpcrdma_poller_opts_init(&po);
	po.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&po, &p), 0);
	rpcrdma_listener_opts_init(&lo);
	lo.resource_group = grp;
	if (rpcrdma_listener_create(p, (struct sockaddr *)&sin, &lo, handler, NULL, &l) == 0)
		rpcrdma_listener_destroy(l);
	rpcrdma_poller_destroy(p);
	assert_int_equal(rpcrdma_rescg_group_print_current(grp, buf, sizeof(buf)), 32);
	assert_string_equal(buf, "rxe0 hca_handle=0 hca_object=0 \n");
	rpcrdma_rescg_destroy(ctl);
}

/* The charging rules of xprt.h (RESOURCE ACCOUNTING), in hca_object units. */
static void test_rescg_costs(void **state)
{
	(void)state;
	/* PD + CQ + completion channel + SRQ + the SRQ's receive MR */
	assert_int_equal(rpcrdma__rescg_dev_objects(true, true), 5);
	assert_int_equal(rpcrdma__rescg_dev_objects(false, true), 3);
	/* busy poller: no completion channel */
	assert_int_equal(rpcrdma__rescg_dev_objects(true, false), 4);
	assert_int_equal(rpcrdma__rescg_dev_objects(false, false), 2);
	/* QP + send MR (+ 2 receive MRs without SRQ: at accept, first call) */
	assert_int_equal(rpcrdma__rescg_conn_objects(true), 2);
	assert_int_equal(rpcrdma__rescg_conn_objects(false), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rescg_costs),
		cmocka_unit_test(test_listener_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
