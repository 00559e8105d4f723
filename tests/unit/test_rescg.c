/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Resource controller accounting: charge/uncharge, limits, per-device and
 * per-group independence, lifetimes, the transport ledger, and a
 * multi-threaded stress run checking totals.  White-box (uses the ledger).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rpcrdma/rescg.h>

#include "util/rescg_ledger.h"

#define OBJ RPCRDMA_RES_HCA_OBJECT
#define HDL RPCRDMA_RES_HCA_HANDLE

static uint32_t usage_of(struct rpcrdma_rescg_group *g, const char *dev, enum rpcrdma_rescg_resource r)
{
	uint32_t u = 12345;
	assert_int_equal(rpcrdma_rescg_group_get(g, dev, r, NULL, &u), 0);
	return u;
}

static uint32_t limit_of(struct rpcrdma_rescg_group *g, const char *dev, enum rpcrdma_rescg_resource r)
{
	uint32_t l = 12345;
	assert_int_equal(rpcrdma_rescg_group_get(g, dev, r, &l, NULL), 0);
	return l;
}

static void test_create_and_names(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *a, *b, *c;
	assert_int_equal(rpcrdma_rescg_create(NULL), -EINVAL);
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "gold", &a), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "gold", &b), -EEXIST);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "", &b), -EINVAL);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "a b", &b), -EINVAL);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "[x]", &b), -EINVAL);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, NULL, &b), -EINVAL);
	char longname[RPCRDMA_RESCG_NAME_MAX + 2];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(rpcrdma_rescg_group_create(ctl, longname, &b), -EINVAL);
	longname[RPCRDMA_RESCG_NAME_MAX] = '\0';
	assert_int_equal(rpcrdma_rescg_group_create(ctl, longname, &b), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "bronze-1.x:y_z", &c), 0);
	assert_ptr_equal(rpcrdma_rescg_group_find(ctl, "gold"), a);
	assert_ptr_equal(rpcrdma_rescg_group_find(ctl, longname), b);
	assert_null(rpcrdma_rescg_group_find(ctl, "gol"));
	assert_null(rpcrdma_rescg_group_find(ctl, "golden"));
	assert_string_equal(rpcrdma_rescg_group_name(c), "bronze-1.x:y_z");
	/* iteration in creation order */
	assert_ptr_equal(rpcrdma_rescg_group_next(ctl, NULL), a);
	assert_ptr_equal(rpcrdma_rescg_group_next(ctl, a), b);
	assert_ptr_equal(rpcrdma_rescg_group_next(ctl, b), c);
	assert_null(rpcrdma_rescg_group_next(ctl, c));
	/* destroy frees the name */
	rpcrdma_rescg_group_destroy(b);
	assert_null(rpcrdma_rescg_group_find(ctl, longname));
	assert_ptr_equal(rpcrdma_rescg_group_next(ctl, a), c);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, longname, &b), 0);
	assert_ptr_equal(rpcrdma_rescg_group_next(ctl, c), b);
	assert_string_equal(rpcrdma_rescg_resource_name(HDL), "hca_handle");
	assert_string_equal(rpcrdma_rescg_resource_name(OBJ), "hca_object");
	assert_null(rpcrdma_rescg_resource_name((enum rpcrdma_rescg_resource)2));
	rpcrdma_rescg_destroy(ctl);
	rpcrdma_rescg_destroy(NULL);
}

static void test_charge_uncharge(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *g;
	struct rpcrdma_rescg_charge *t1, *t2, *t3;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &g), 0);
	/* default: unlimited */
	assert_int_equal(limit_of(g, "rxe0", OBJ), RPCRDMA_RESCG_MAX);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 0);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 5, &t1), 0);
	assert_ptr_equal(rpcrdma_rescg_charge_group(t1), g);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &t2), 0);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", HDL, 1, &t3), 0);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 6);
	assert_int_equal(usage_of(g, "rxe0", HDL), 1);
	rpcrdma_rescg_uncharge(t1);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 1);
	rpcrdma_rescg_uncharge(t2);
	rpcrdma_rescg_uncharge(t3);
	rpcrdma_rescg_uncharge(NULL);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 0);
	assert_int_equal(usage_of(g, "rxe0", HDL), 0);
	/* bad arguments */
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 0, &t1), -EINVAL);
	assert_int_equal(rpcrdma_rescg_charge(g, "rx e0", OBJ, 1, &t1), -EINVAL);
	assert_int_equal(rpcrdma_rescg_charge(g, NULL, OBJ, 1, &t1), -EINVAL);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", (enum rpcrdma_rescg_resource)2, 1, &t1),
			 -EINVAL);
	assert_int_equal(rpcrdma_rescg_charge(NULL, "rxe0", OBJ, 1, &t1), -EINVAL);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, NULL), -EINVAL);
	/* raw accounting and its underflow detection */
	assert_int_equal(rpcrdma_rescg_group_charge(g, "rxe0", OBJ, 3), 0);
	assert_int_equal(rpcrdma_rescg_group_uncharge(g, "rxe0", OBJ, 4), -EINVAL);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 3);
	assert_int_equal(rpcrdma_rescg_group_uncharge(g, "rxe0", HDL, 1), -EINVAL);
	assert_int_equal(rpcrdma_rescg_group_uncharge(g, "mlx5_0", OBJ, 1), -EINVAL);
	assert_int_equal(rpcrdma_rescg_group_uncharge(g, "rxe0", OBJ, 0), -EINVAL);
	assert_int_equal(rpcrdma_rescg_group_uncharge(g, "rxe0", OBJ, 3), 0);
	assert_int_equal(rpcrdma_rescg_group_uncharge(g, "rxe0", OBJ, 1), -EINVAL);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 0);
	rpcrdma_rescg_destroy(ctl);
}

static void test_over_limit_charges_nothing(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *g;
	struct rpcrdma_rescg_charge *t[4], *bad = (struct rpcrdma_rescg_charge *)&bad;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &g), 0);
	assert_int_equal(rpcrdma_rescg_group_set_limit(g, "rxe0", OBJ, 4), 0);
	assert_int_equal(rpcrdma_rescg_group_set_limit(g, "rxe0", OBJ, RPCRDMA_RESCG_MAX + 1), -EINVAL);
	assert_int_equal(limit_of(g, "rxe0", OBJ), 4);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 3, &t[0]), 0);
	/* n > 1 over the limit: nothing at all is charged */
	struct rpcrdma_rescg_charge *keep = bad;
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 2, &keep), -EAGAIN);
	assert_ptr_equal(keep, bad); /* out untouched */
	assert_int_equal(usage_of(g, "rxe0", OBJ), 3);
	assert_int_equal(rpcrdma_rescg_group_charge(g, "rxe0", OBJ, 2), -EAGAIN);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 3);
	/* exactly up to the limit is fine */
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &t[1]), 0);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &t[2]), -EAGAIN);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 4);
	/* the other resource is independent */
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", HDL, 100, &t[2]), 0);
	rpcrdma_rescg_uncharge(t[1]);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &t[1]), 0);
	/* limit 0 denies everything */
	assert_int_equal(rpcrdma_rescg_group_set_limit(g, "rxe0", HDL, 0), 0);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", HDL, 1, &t[3]), -EAGAIN);
	/* a huge n never wraps */
	assert_int_equal(rpcrdma_rescg_group_charge(g, "rxe1", OBJ, UINT32_MAX), -EAGAIN);
	assert_int_equal(rpcrdma_rescg_group_charge(g, "rxe1", OBJ, RPCRDMA_RESCG_MAX), -EAGAIN);
	assert_int_equal(rpcrdma_rescg_group_charge(g, "rxe1", OBJ, RPCRDMA_RESCG_MAX - 1), 0);
	assert_int_equal(rpcrdma_rescg_group_charge(g, "rxe1", OBJ, 1), -EAGAIN);
	assert_int_equal(usage_of(g, "rxe1", OBJ), RPCRDMA_RESCG_MAX - 1);
	assert_int_equal(rpcrdma_rescg_group_uncharge(g, "rxe1", OBJ, RPCRDMA_RESCG_MAX - 1), 0);
	rpcrdma_rescg_uncharge(t[0]);
	rpcrdma_rescg_uncharge(t[1]);
	rpcrdma_rescg_uncharge(t[2]);
	rpcrdma_rescg_destroy(ctl);
}

static void test_lower_limit_never_revokes(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *g;
	struct rpcrdma_rescg_charge *t[10], *x;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &g), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &t[i]), 0);
	assert_int_equal(rpcrdma_rescg_group_set_limit(g, "rxe0", OBJ, 3), 0);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 10); /* nothing revoked */
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &x), -EAGAIN);
	for (int i = 0; i < 7; i++) {
		rpcrdma_rescg_uncharge(t[i]);
		assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &x), -EAGAIN);
	}
	assert_int_equal(usage_of(g, "rxe0", OBJ), 3);
	rpcrdma_rescg_uncharge(t[7]);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &t[7]), 0);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &x), -EAGAIN);
	/* raising it again admits more */
	assert_int_equal(rpcrdma_rescg_group_set_limit(g, "rxe0", OBJ, RPCRDMA_RESCG_MAX), 0);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &x), 0);
	rpcrdma_rescg_uncharge(x);
	for (int i = 7; i < 10; i++)
		rpcrdma_rescg_uncharge(t[i]);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 0);
	rpcrdma_rescg_destroy(ctl);
}

static void test_independence(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *a, *b;
	struct rpcrdma_rescg_charge *t1, *t2, *t3, *x;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "a", &a), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "b", &b), 0);
	assert_int_equal(rpcrdma_rescg_group_set_limit(a, "rxe0", OBJ, 1), 0);
	assert_int_equal(rpcrdma_rescg_group_set_limit(a, "rxe1", OBJ, 2), 0);
	/* per device */
	assert_int_equal(rpcrdma_rescg_charge(a, "rxe0", OBJ, 1, &t1), 0);
	assert_int_equal(rpcrdma_rescg_charge(a, "rxe0", OBJ, 1, &x), -EAGAIN);
	assert_int_equal(rpcrdma_rescg_charge(a, "rxe1", OBJ, 2, &t2), 0);
	assert_int_equal(rpcrdma_rescg_charge(a, "rxe1", OBJ, 1, &x), -EAGAIN);
	assert_int_equal(usage_of(a, "rxe0", OBJ), 1);
	assert_int_equal(usage_of(a, "rxe1", OBJ), 2);
	/* per group: b has no limit on rxe0 and is charged separately */
	assert_int_equal(limit_of(b, "rxe0", OBJ), RPCRDMA_RESCG_MAX);
	assert_int_equal(rpcrdma_rescg_charge(b, "rxe0", OBJ, 50, &t3), 0);
	assert_int_equal(usage_of(b, "rxe0", OBJ), 50);
	assert_int_equal(usage_of(a, "rxe0", OBJ), 1);
	/* an uncharge goes back to the group charged, not another */
	rpcrdma_rescg_uncharge(t3);
	assert_int_equal(usage_of(b, "rxe0", OBJ), 0);
	assert_int_equal(usage_of(a, "rxe0", OBJ), 1);
	assert_int_equal(rpcrdma_rescg_group_uncharge(b, "rxe0", OBJ, 1), -EINVAL);
	assert_int_equal(usage_of(a, "rxe0", OBJ), 1);
	rpcrdma_rescg_uncharge(t1);
	rpcrdma_rescg_uncharge(t2);
	rpcrdma_rescg_destroy(ctl);
}

static void test_destroy_with_outstanding_charges(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *g, *g2, *h;
	struct rpcrdma_rescg_charge *t1, *t2, *x;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &g), 0);
	assert_int_equal(rpcrdma_rescg_group_set_limit(g, "rxe0", OBJ, 5), 0);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 2, &t1), 0);
	/* destroying the group frees the name; old charges still release to it */
	rpcrdma_rescg_group_destroy(g);
	assert_null(rpcrdma_rescg_group_find(ctl, "g"));
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 1, &x), -ENOENT);
	assert_int_equal(rpcrdma_rescg_group_charge(g, "rxe0", OBJ, 1), -ENOENT);
	assert_int_equal(rpcrdma_rescg_group_write_max(g, "rxe0 hca_object=1", 17, NULL, 0), -ENOENT);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &g2), 0);
	assert_ptr_not_equal(g, g2);
	assert_int_equal(usage_of(g2, "rxe0", OBJ), 0);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 2);
	rpcrdma_rescg_uncharge(t1); /* frees g (ASan checks) */
	/* destroying the controller with charges outstanding */
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "h", &h), 0);
	assert_int_equal(rpcrdma_rescg_charge(h, "rxe0", OBJ, 1, &t1), 0);
	assert_int_equal(rpcrdma_rescg_charge(g2, "rxe1", HDL, 1, &t2), 0);
	rpcrdma_rescg_destroy(ctl);
	rpcrdma_rescg_uncharge(t1);
	rpcrdma_rescg_uncharge(t2); /* frees the controller; LeakSanitizer checks */
}

static void test_ledger(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *g;
	struct rpcrdma__rescg_ledger l1, l2, none;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &g), 0);
	assert_int_equal(rpcrdma_rescg_group_set_limit(g, "rxe0", OBJ, 4), 0);
	assert_int_equal(rpcrdma_rescg_group_set_limit(g, "rxe0", HDL, 1), 0);
	assert_int_equal(rpcrdma__rescg_ledger_init(&l1, g, "rxe0"), 0);
	assert_int_equal(rpcrdma__rescg_ledger_init(&l2, g, "rxe0"), 0);
	assert_int_equal(rpcrdma__rescg_ledger_init(&none, NULL, "anything goes"), 0);
	assert_int_equal(rpcrdma__rescg_ledger_charge(&none, OBJ, 1000), 0);
	rpcrdma__rescg_ledger_release(&none);
	assert_int_equal(rpcrdma__rescg_ledger_init(&none, g, "bad name"), -EINVAL);
	rpcrdma__rescg_ledger_release(&none);
	/* a connection: device context, PD, 2 CQs, QP */
	assert_int_equal(rpcrdma__rescg_ledger_charge(&l1, HDL, 1), 0);
	assert_int_equal(rpcrdma__rescg_ledger_charge(&l1, OBJ, 3), 0);
	assert_int_equal(rpcrdma__rescg_ledger_charge(&l1, OBJ, 1), 0);
	assert_int_equal(rpcrdma__rescg_ledger_charge(&l2, HDL, 1), -EAGAIN);
	assert_int_equal(rpcrdma__rescg_ledger_charge(&l2, OBJ, 1), -EAGAIN);
	assert_int_equal(rpcrdma__rescg_ledger_uncharge(&l2, OBJ, 1), -EINVAL); /* holds none */
	assert_int_equal(usage_of(g, "rxe0", OBJ), 4);
	assert_int_equal(rpcrdma__rescg_ledger_uncharge(&l1, OBJ, 1), 0); /* creation failed */
	assert_int_equal(rpcrdma__rescg_ledger_uncharge(&l1, OBJ, 4), -EINVAL);
	assert_int_equal(rpcrdma__rescg_ledger_charge(&l2, OBJ, 1), 0);
	rpcrdma__rescg_ledger_release(&l1);
	rpcrdma__rescg_ledger_release(&l1);
	assert_int_equal(usage_of(g, "rxe0", OBJ), 1);
	assert_int_equal(usage_of(g, "rxe0", HDL), 0);
	/* group destroyed under a live ledger: charges fail, uncharges work */
	rpcrdma_rescg_group_destroy(g);
	assert_int_equal(rpcrdma__rescg_ledger_charge(&l2, OBJ, 1), -ENOENT);
	assert_int_equal(rpcrdma__rescg_ledger_uncharge(&l2, OBJ, 1), 0); /* frees g */
	assert_int_equal(rpcrdma__rescg_ledger_charge(&l2, OBJ, 1), -ENOENT);
	assert_int_equal(rpcrdma__rescg_ledger_uncharge(&l2, OBJ, 1), -EINVAL);
	rpcrdma__rescg_ledger_release(&l2);
	rpcrdma_rescg_destroy(ctl);
}

/* ---- stress
 *
 * THREADS workers charge and uncharge 1 or 2 units at random to two groups
 * limited to LIMIT on one device, half of them through tokens and half
 * through the token-less calls.  Each keeps `held` (per group, shared)
 * below the controller's usage: it adds after a charge succeeded and
 * subtracts before an uncharge, so held > LIMIT at any moment would prove
 * the controller admitted more than the limit.  Workers also read usage
 * and check it stays within the limit.  At a barrier, with every worker
 * holding its charges, usage must equal the sum held; after the workers
 * release everything it must be 0.
 */

#define THREADS 4
#define ROUNDS 20000
#define LIMIT 7
#define HOLD_MAX 8

struct stress {
	struct rpcrdma_rescg_group *grp[2];
	pthread_barrier_t hold, checked;
	atomic_int held[2];
	atomic_int violations;
	atomic_long charged, denied;
};

struct worker {
	struct stress *s;
	unsigned seed;
	bool raw;
};

struct holding {
	struct rpcrdma_rescg_charge *tok;
	int gi;
	uint32_t units;
};

static void release(struct worker *w, struct holding *h)
{
	atomic_fetch_sub(&w->s->held[h->gi], (int)h->units);
	if (w->raw) {
		if (rpcrdma_rescg_group_uncharge(w->s->grp[h->gi], "rxe0", OBJ, h->units) != 0)
			atomic_fetch_add(&w->s->violations, 1);
	} else {
		rpcrdma_rescg_uncharge(h->tok);
	}
}

static void *stress_worker(void *arg)
{
	struct worker *w = arg;
	struct stress *s = w->s;
	struct holding mine[HOLD_MAX];
	int n = 0;
	for (int i = 0; i < ROUNDS; i++) {
		int op = rand_r(&w->seed) % 4;
		if (op < 2 && n < HOLD_MAX) {
			struct holding h = {NULL, rand_r(&w->seed) % 2, 1 + (uint32_t)(rand_r(&w->seed) % 2)};
			int rc = w->raw ? rpcrdma_rescg_group_charge(s->grp[h.gi], "rxe0", OBJ, h.units)
					: rpcrdma_rescg_charge(s->grp[h.gi], "rxe0", OBJ, h.units, &h.tok);
			if (rc == 0) {
				if (atomic_fetch_add(&s->held[h.gi], (int)h.units) + (int)h.units > LIMIT)
					atomic_fetch_add(&s->violations, 1);
				atomic_fetch_add(&s->charged, 1);
				mine[n++] = h;
			} else if (rc == -EAGAIN) {
				atomic_fetch_add(&s->denied, 1);
			} else {
				atomic_fetch_add(&s->violations, 1);
			}
		} else if (op == 2 && n > 0) {
			int k = rand_r(&w->seed) % n;
			release(w, &mine[k]);
			mine[k] = mine[--n];
		} else {
			uint32_t u;
			int gi = rand_r(&w->seed) % 2;
			if (rpcrdma_rescg_group_get(s->grp[gi], "rxe0", OBJ, NULL, &u) != 0 || u > LIMIT)
				atomic_fetch_add(&s->violations, 1);
		}
	}
	pthread_barrier_wait(&s->hold);
	pthread_barrier_wait(&s->checked);
	while (n > 0)
		release(w, &mine[--n]);
	return NULL;
}

static void test_stress_threads(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct stress s;
	memset(&s, 0, sizeof(s));
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "a", &s.grp[0]), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "b", &s.grp[1]), 0);
	for (int g = 0; g < 2; g++)
		assert_int_equal(rpcrdma_rescg_group_set_limit(s.grp[g], "rxe0", OBJ, LIMIT), 0);
	assert_int_equal(pthread_barrier_init(&s.hold, NULL, THREADS + 1), 0);
	assert_int_equal(pthread_barrier_init(&s.checked, NULL, THREADS + 1), 0);
	pthread_t th[THREADS];
	struct worker w[THREADS];
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){&s, 0x9e3779b9u * (unsigned)(i + 1), i % 2 == 1};
		assert_int_equal(pthread_create(&th[i], NULL, stress_worker, &w[i]), 0);
	}
	pthread_barrier_wait(&s.hold);
	for (int g = 0; g < 2; g++)
		assert_int_equal(usage_of(s.grp[g], "rxe0", OBJ), atomic_load(&s.held[g]));
	pthread_barrier_wait(&s.checked);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_int_equal(atomic_load(&s.violations), 0);
	for (int g = 0; g < 2; g++) {
		assert_int_equal(usage_of(s.grp[g], "rxe0", OBJ), 0);
		assert_int_equal(atomic_load(&s.held[g]), 0);
	}
	/* The limit was actually contended, and work was done.  The bound is one
	 * thread's share: a thread that finishes first keeps its units until the
	 * barrier, so the others may be starved for the rest of their rounds. */
	assert_true(atomic_load(&s.denied) > 0);
	assert_true(atomic_load(&s.charged) > ROUNDS / 10);
	pthread_barrier_destroy(&s.hold);
	pthread_barrier_destroy(&s.checked);
	rpcrdma_rescg_destroy(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_and_names),
		cmocka_unit_test(test_charge_uncharge),
		cmocka_unit_test(test_over_limit_charges_nothing),
		cmocka_unit_test(test_lower_limit_never_revokes),
		cmocka_unit_test(test_independence),
		cmocka_unit_test(test_destroy_with_outstanding_charges),
		cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_stress_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
