/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box test of the poller's pool of completion queues (poller_cq.c,
 * issue 23 item 16) over fake verbs: this program defines ibv_query_device,
 * ibv_create_cq, ibv_resize_cq and ibv_destroy_cq itself (a device whose
 * max_cqe is 4000), and a DIRECT poller with direct_spin needs no
 * completion channel.  One CQ per device used to grow to max_cqe and then
 * refuse every queue pair (-ENOSPC): the pool creates CQs as needed,
 * spreads reservations over the least-loaded one, keeps devices apart, and
 * refuses only what no CQ could hold.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rdma/rdma_internal.h"

#define FAKE_MAX_CQE 4000

static int cqs_live, resizes;

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	(void)context;
	memset(attr, 0, sizeof(*attr));
	attr->max_cqe = FAKE_MAX_CQE;
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct ibv_cq *cq;

	(void)channel;
	(void)comp_vector;
	if (cqe > FAKE_MAX_CQE)
		return NULL;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->context = context;
	cq->cq_context = cq_context;
	cq->cqe = cqe;
	cqs_live++;
	return cq;
}

int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	if (cqe > FAKE_MAX_CQE)
		return EINVAL;
	cq->cqe = cqe;
	resizes++;
	return 0;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	free(cq);
	cqs_live--;
	return 0;
}

static struct rpcrdma_poller *direct_poller(void)
{
	struct rpcrdma_poller_opts o;
	struct rpcrdma_poller *p;

	rpcrdma_poller_opts_init(&o);
	o.mode = RPCRDMA_POLLER_DIRECT;
	o.direct_spin = 1;      /* no completion channel: the fakes need none */
	o.cq_entries = 100;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	return p;
}

/* The pure choice: least-loaded CQ of the device that fits, else -1. */
static void test_pick(void **state)
{
	struct ibv_context *a = (struct ibv_context *)(uintptr_t)0x10;
	struct ibv_context *b = (struct ibv_context *)(uintptr_t)0x20;
	struct rpcrdma__cq c[4] = {
		{ .verbs = a, .reserved = 700, .max_cqe = 1000 },
		{ .verbs = b, .reserved = 0, .max_cqe = 1000 },
		{ .verbs = a, .reserved = 300, .max_cqe = 1000 },
		{ .verbs = a, .reserved = 900, .max_cqe = 1000 },
	};
	/* (the CQs' own max_cqe counts here, not the fake device's) */
	struct rpcrdma__cq *v[4] = { &c[0], &c[1], &c[2], &c[3] };

	(void)state;
	assert_int_equal(rpcrdma__cq_pick(v, 4, a, 100), 2);   /* least loaded of a */
	assert_int_equal(rpcrdma__cq_pick(v, 4, b, 100), 1);   /* b's own */
	assert_int_equal(rpcrdma__cq_pick(v, 4, a, 701), -1);  /* none can hold it */
	assert_int_equal(rpcrdma__cq_pick(v, 4, a, 700), 2);   /* exactly max_cqe */
	c[0].reserved = 960;
	c[2].reserved = 950;
	assert_int_equal(rpcrdma__cq_pick(v, 4, a, 100), 3);   /* 900 + 100 fits */
	assert_int_equal(rpcrdma__cq_pick(v, 4, a, 101), -1);
	assert_int_equal(rpcrdma__cq_pick(v, 0, a, 1), -1);
}

/* 300 connections of 352 entries (the default grant's share) on a device
 * whose CQs hold 4000: the old single CQ refused the twelfth; the pool
 * makes as many CQs as needed, no CQ holds more than max_cqe, and entries
 * released go to the least-loaded CQ before any new one is made. */
static void test_pool_grows(void **state)
{
	enum { N = 300, E = 352 };
	struct rpcrdma_poller *p = direct_poller();
	struct ibv_context *dev = (struct ibv_context *)(uintptr_t)0x10;
	struct rpcrdma__cq *got[N];
	unsigned ncq;

	(void)state;
	for (unsigned i = 0; i < 110; i++)
		assert_int_equal(rpcrdma__poller_cq_get(p, dev, E, &got[i]), 0);
	ncq = atomic_load(&p->ncqs);
	assert_int_equal(ncq, 10);              /* 11 of 352 in 4000 */
	assert_int_equal(cqs_live, (int)ncq);
	for (unsigned i = 0; i < ncq; i++) {
		assert_true(p->cqs[i]->reserved <= p->cqs[i]->capacity);
		assert_true(p->cqs[i]->capacity <= FAKE_MAX_CQE);
		assert_int_equal(p->cqs[i]->reserved, 11 * E);
	}
	/* Entries given back are reused before any new CQ is made, on the
	 * least-loaded CQ first. */
	rpcrdma__poller_cq_put(got[0], E);      /* CQ 0: 10 left */
	for (unsigned i = 22; i < 25; i++)
		rpcrdma__poller_cq_put(got[i], E);  /* CQ 2: 8 left */
	{
		struct rpcrdma__cq *x;

		for (unsigned i = 0; i < 2; i++) {
			assert_int_equal(rpcrdma__poller_cq_get(p, dev, E, &x), 0);
			assert_ptr_equal(x, got[22]);
		}
		assert_int_equal(rpcrdma__poller_cq_get(p, dev, E, &x), 0);
		assert_true(x == got[22] || x == got[0]);
		assert_int_equal(rpcrdma__poller_cq_get(p, dev, E, &x), 0);
		assert_int_equal(atomic_load(&p->ncqs), ncq);
	}
	/* 300 in all: 28 CQs. */
	for (unsigned i = 110; i < N; i++)
		assert_int_equal(rpcrdma__poller_cq_get(p, dev, E, &got[i]), 0);
	assert_int_equal(atomic_load(&p->ncqs), (N + 10) / 11);
	for (unsigned i = 0; i < atomic_load(&p->ncqs); i++)
		assert_true(p->cqs[i]->reserved <= p->cqs[i]->capacity);
	/* A reservation no CQ of the device could ever hold. */
	assert_int_equal(rpcrdma__poller_cq_get(p, dev, FAKE_MAX_CQE + 1, &got[0]), -ENOSPC);
	rpcrdma_poller_destroy(p);
	assert_int_equal(cqs_live, 0);
}

/* Devices never share a CQ, and the pool's size bounds the CQs. */
static void test_devices_and_limit(void **state)
{
	struct rpcrdma_poller *p = direct_poller();
	struct ibv_context *a = (struct ibv_context *)(uintptr_t)0x10;
	struct ibv_context *b = (struct ibv_context *)(uintptr_t)0x20;
	struct rpcrdma__cq *ca, *cb, *x;
	unsigned i;

	(void)state;
	assert_int_equal(rpcrdma__poller_cq_get(p, a, 10, &ca), 0);
	assert_int_equal(rpcrdma__poller_cq_get(p, b, 10, &cb), 0);
	assert_ptr_not_equal(ca, cb);
	assert_ptr_equal(ca->verbs, a);
	assert_ptr_equal(cb->verbs, b);
	/* Small reservations grow one CQ (resize) rather than add CQs. */
	resizes = 0;
	for (i = 0; i < 50; i++) {
		assert_int_equal(rpcrdma__poller_cq_get(p, a, 10, &x), 0);
		assert_ptr_equal(x, ca);
	}
	assert_true(resizes > 0);
	assert_int_equal(atomic_load(&p->ncqs), 2);
	/* Fill the pool with full CQs: then -ENOSPC, nothing else broken. */
	for (i = 2; i < RPCRDMA__MAX_CQS; i++)
		assert_int_equal(rpcrdma__poller_cq_get(p, b, FAKE_MAX_CQE, &x), 0);
	assert_int_equal(rpcrdma__poller_cq_get(p, b, FAKE_MAX_CQE, &x), -ENOSPC);
	assert_int_equal(rpcrdma__poller_cq_get(p, a, 10, &x), 0);  /* room left on a's */
	rpcrdma_poller_destroy(p);
	assert_int_equal(cqs_live, 0);
}

/* opts.cqs = 3: the first three connections of a device get a CQ each,
 * the next ones the least loaded; another device starts its own three;
 * 65 is refused. */
static void test_spread(void **state)
{
	struct rpcrdma_poller_opts o;
	struct rpcrdma_poller *p;
	struct ibv_context *a = (struct ibv_context *)(uintptr_t)0x10;
	struct ibv_context *b = (struct ibv_context *)(uintptr_t)0x20;
	struct rpcrdma__cq *got[6], *x;

	(void)state;
	rpcrdma_poller_opts_init(&o);
	o.mode = RPCRDMA_POLLER_DIRECT;
	o.direct_spin = 1;
	o.cq_entries = 100;
	o.cqs = 65;
	assert_int_equal(rpcrdma_poller_create(&o, &p), -EINVAL);
	o.cqs = 3;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(rpcrdma__poller_cq_get(p, a, 10, &got[i]), 0);
	assert_ptr_not_equal(got[0], got[1]);
	assert_ptr_not_equal(got[1], got[2]);
	assert_ptr_not_equal(got[0], got[2]);
	assert_int_equal(atomic_load(&p->ncqs), 3);
	got[1]->reserved += 50; /* made busier: the next goes elsewhere */
	assert_int_equal(rpcrdma__poller_cq_get(p, a, 10, &got[3]), 0);
	assert_int_equal(atomic_load(&p->ncqs), 3);
	assert_true(got[3] == got[0] || got[3] == got[2]);
	assert_int_equal(rpcrdma__poller_cq_get(p, b, 10, &x), 0);
	assert_int_equal(atomic_load(&p->ncqs), 4); /* b's first, its own */
	assert_ptr_equal(x->verbs, b);
	rpcrdma_poller_destroy(p);
	assert_int_equal(cqs_live, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_pool_grows),
		cmocka_unit_test(test_devices_and_limit),
		cmocka_unit_test(test_spread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
