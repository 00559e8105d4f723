/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box tests of the transport's machinery that needs no RDMA device:
 * the poller's sources (one-shot dispatch, re-arm, removal, all three
 * modes, driven through eventfds), context pools without registered
 * buffers, the intrusive list, counter names, and argument checking of the
 * listener and client entry points.  The verbs paths are proven over
 * soft-RoCE in the VM (tests/vm), never here.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <netinet/in.h>

#include <cmocka.h>

#include <arpa/inet.h>

#include <rpcrdma/svc.h>
#include "rdma/rdma_internal.h"

struct evsrc {
	struct rpcrdma__source src;
	int efd;
	atomic_int calls;
	atomic_int concurrent, max_concurrent;
};

static int ev_handle(struct rpcrdma__source *s, unsigned budget)
{
	struct evsrc *e = rpcrdma__container_of(s, struct evsrc, src);
	uint64_t v;
	int now = atomic_fetch_add(&e->concurrent, 1) + 1;

	(void)budget;
	if (now > atomic_load(&e->max_concurrent))
		atomic_store(&e->max_concurrent, now);
	usleep(1000);   /* widen the window for a second thread */
	if (read(e->efd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	atomic_fetch_add(&e->calls, 1);
	atomic_fetch_sub(&e->concurrent, 1);
	return 1;
}

static void ev_init(struct evsrc *e)
{
	memset(e, 0, sizeof(*e));
	e->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(e->efd >= 0);
	e->src.fd = e->efd;
	e->src.handle = ev_handle;
}

static void ev_kick(struct evsrc *e)
{
	uint64_t one = 1;

	assert_int_equal(write(e->efd, &one, sizeof(one)), sizeof(one));
}

static void wait_calls(struct evsrc *e, int n)
{
	for (int i = 0; i < 5000 && atomic_load(&e->calls) < n; i++)
		usleep(1000);
	assert_int_equal(atomic_load(&e->calls), n);
}

static void test_opts_rejected(void **state)
{
	struct rpcrdma_poller_opts o;
	struct rpcrdma_poller *p = NULL;

	(void)state;
	rpcrdma_poller_opts_init(&o);
	o.batch = 0;
	assert_int_equal(rpcrdma_poller_create(&o, &p), -EINVAL);
	rpcrdma_poller_opts_init(&o);
	o.budget = o.batch - 1;
	assert_int_equal(rpcrdma_poller_create(&o, &p), -EINVAL);
	rpcrdma_poller_opts_init(&o);
	o.threads = 0;
	assert_int_equal(rpcrdma_poller_create(&o, &p), -EINVAL);
	rpcrdma_poller_opts_init(&o);
	o.mode = (enum rpcrdma_poller_mode)7;
	assert_int_equal(rpcrdma_poller_create(&o, &p), -EINVAL);
	rpcrdma_poller_opts_init(&o);
	o.spin_us = 100001;
	assert_int_equal(rpcrdma_poller_create(&o, &p), -EINVAL);
	rpcrdma_poller_opts_init(&o);
	o.spin_us = 100000;             /* the largest: a worker that spins */
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	assert_int_equal(p->opts.spin_us, 100000);
	rpcrdma_poller_destroy(p);
	p = NULL;
	rpcrdma_poller_opts_init(&o);
	o.spin_us = 100;                /* workqueue mode only */
	o.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	assert_int_equal(p->opts.spin_us, 0);
	rpcrdma_poller_destroy(p);
	p = NULL;
	/* direct_spin: DIRECT mode only; no completion channels then (as in
	 * BUSY mode), while a plain DIRECT or workqueue poller arms its CQs. */
	rpcrdma_poller_opts_init(&o);
	assert_int_equal(o.direct_spin, 0);
	o.direct_spin = 1;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	assert_int_equal(p->opts.direct_spin, 0);
	assert_true(rpcrdma__poller_notifies(p));
	rpcrdma_poller_destroy(p);
	p = NULL;
	o.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	assert_int_equal(p->opts.direct_spin, 1);
	assert_false(rpcrdma__poller_notifies(p));
	rpcrdma_poller_destroy(p);
	p = NULL;
	o.direct_spin = 0;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	assert_true(rpcrdma__poller_notifies(p));
	rpcrdma_poller_destroy(p);
	p = NULL;
	o.mode = RPCRDMA_POLLER_BUSY;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	assert_false(rpcrdma__poller_notifies(p));
	rpcrdma_poller_destroy(p);
	p = NULL;
	rpcrdma_poller_opts_init(&o);
	o.spin_us = 5;                  /* past an older struct's end: ignored */
	o.size = offsetof(struct rpcrdma_poller_opts, spin_us);
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	assert_int_equal(p->opts.spin_us, 0);
	rpcrdma_poller_destroy(p);
	p = NULL;
	rpcrdma_poller_opts_init(&o);
	o.size = sizeof(o) + 8;    /* a newer, larger struct */
	assert_int_equal(rpcrdma_poller_create(&o, &p), -EINVAL);
	assert_null(p);
	/* A smaller (older) struct: the rest takes the defaults. */
	o.size = offsetof(struct rpcrdma_poller_opts, threads);
	o.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	assert_int_equal(p->opts.batch, 32);
	rpcrdma_poller_destroy(p);
	rpcrdma_poller_destroy(NULL);
}

/* direct_spin before any completion queue exists (connecting): every
 * poll still looks at the event channels, as a plain DIRECT poll does. */
static void test_direct_spin_events(void **state)
{
	struct rpcrdma_poller_opts o;
	struct rpcrdma_poller *p;
	struct evsrc e;

	(void)state;
	rpcrdma_poller_opts_init(&o);
	o.mode = RPCRDMA_POLLER_DIRECT;
	o.direct_spin = 1;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	ev_init(&e);
	assert_int_equal(rpcrdma__poller_add(p, &e.src), 0);
	assert_int_equal(rpcrdma_poller_poll(p, 0), 0);
	for (int i = 1; i <= 3; i++) {
		ev_kick(&e);
		assert_int_equal(rpcrdma_poller_poll(p, 0), 1);
		assert_int_equal(atomic_load(&e.calls), i);
	}
	rpcrdma__poller_del(p, &e.src);
	close(e.efd);
	rpcrdma_poller_destroy(p);
}

static void test_direct_oneshot(void **state)
{
	struct rpcrdma_poller_opts o;
	struct rpcrdma_poller *p;
	struct evsrc e;
	struct pollfd pfd;

	(void)state;
	rpcrdma_poller_opts_init(&o);
	o.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	ev_init(&e);
	assert_int_equal(rpcrdma__poller_add(p, &e.src), 0);

	/* Nothing ready: the fd is not readable and poll does nothing. */
	pfd = (struct pollfd){ .fd = rpcrdma_poller_fd(p), .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(rpcrdma_poller_poll(p, 0), 0);

	ev_kick(&e);
	assert_int_equal(poll(&pfd, 1, 1000), 1);     /* the embedding loop's view */
	assert_int_equal(rpcrdma_poller_poll(p, 0), 1);
	assert_int_equal(atomic_load(&e.calls), 1);
	assert_int_equal(rpcrdma_poller_poll(p, 0), 0);  /* consumed */

	ev_kick(&e);                                     /* re-armed after handling */
	assert_int_equal(rpcrdma_poller_poll(p, 0), 1);
	assert_int_equal(atomic_load(&e.calls), 2);

	rpcrdma__poller_del(p, &e.src);
	ev_kick(&e);
	assert_int_equal(rpcrdma_poller_poll(p, 0), 0);  /* removed: never again */
	assert_int_equal(atomic_load(&e.calls), 2);
	close(e.efd);
	rpcrdma_poller_destroy(p);
}

static void test_poll_needs_direct(void **state)
{
	struct rpcrdma_poller *p;

	(void)state;
	assert_int_equal(rpcrdma_poller_create(NULL, &p), 0);   /* workqueue */
	assert_int_equal(rpcrdma_poller_poll(p, 0), -EINVAL);
	assert_true(rpcrdma_poller_fd(p) >= 0);
	rpcrdma_poller_destroy(p);
	assert_int_equal(rpcrdma_poller_poll(NULL, 0), -EINVAL);
}

/* Workqueue with 4 workers: each event is handled exactly once and a
 * source is never handled by two threads at a time. */
static void test_workqueue_exclusive(void **state)
{
	struct rpcrdma_poller_opts o;
	struct rpcrdma_poller *p;
	struct evsrc e[3];

	(void)state;
	rpcrdma_poller_opts_init(&o);
	o.threads = 4;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	for (int i = 0; i < 3; i++) {
		ev_init(&e[i]);
		assert_int_equal(rpcrdma__poller_add(p, &e[i].src), 0);
	}
	for (int round = 1; round <= 20; round++) {
		for (int i = 0; i < 3; i++)
			ev_kick(&e[i]);
		for (int i = 0; i < 3; i++)
			wait_calls(&e[i], round);
	}
	for (int i = 0; i < 3; i++) {
		assert_int_equal(atomic_load(&e[i].max_concurrent), 1);
		rpcrdma__poller_del(p, &e[i].src);
	}
	/* After removal no worker touches the sources (they could be freed). */
	for (int i = 0; i < 3; i++)
		ev_kick(&e[i]);
	usleep(20000);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(atomic_load(&e[i].calls), 20);
		close(e[i].efd);
	}
	rpcrdma_poller_destroy(p);
}

static void test_busy_sources(void **state)
{
	struct rpcrdma_poller_opts o;
	struct rpcrdma_poller *p;
	struct evsrc e;

	(void)state;
	rpcrdma_poller_opts_init(&o);
	o.mode = RPCRDMA_POLLER_BUSY;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	ev_init(&e);
	assert_int_equal(rpcrdma__poller_add(p, &e.src), 0);
	ev_kick(&e);
	wait_calls(&e, 1);
	ev_kick(&e);
	wait_calls(&e, 2);
	rpcrdma__poller_del(p, &e.src);
	close(e.efd);
	rpcrdma_poller_destroy(p);
}

struct node {
	struct rpcrdma__ctxt c;
	int payload;
};

static void test_pool_without_buffers(void **state)
{
	struct rpcrdma__pool pool;
	struct rpcrdma__ctxt *got[8];

	(void)state;
	assert_int_equal(rpcrdma__pool_init(&pool, NULL, rpcrdma__send_done, 0, sizeof(struct node), 0, 0),
			 -EINVAL);
	assert_int_equal(rpcrdma__pool_init(&pool, NULL, rpcrdma__send_done, 8, 4, 0, 0), -EINVAL);
	assert_int_equal(rpcrdma__pool_init(&pool, NULL, rpcrdma__send_done, 8, sizeof(struct node), 0, 0),
			 0);
	for (int i = 0; i < 8; i++) {
		got[i] = rpcrdma__pool_get(&pool);
		assert_non_null(got[i]);
		assert_ptr_equal(got[i]->cqe.done, rpcrdma__send_done);
		assert_ptr_equal(got[i]->pool, &pool);
		assert_null(got[i]->buf);
		assert_int_equal((uintptr_t)got[i] % 64, 0);
		for (int j = 0; j < i; j++)
			assert_ptr_not_equal(got[i], got[j]);
	}
	assert_null(rpcrdma__pool_get(&pool));   /* exhausted, never more than count */
	assert_int_equal(pool.nfree, 0);
	rpcrdma__pool_put(got[3]);
	assert_ptr_equal(rpcrdma__pool_get(&pool), got[3]);
	for (int i = 0; i < 8; i++)
		rpcrdma__pool_put(got[i]);
	assert_int_equal(pool.nfree, 8);
	rpcrdma__pool_fini(&pool);
}

/* A batch back at once (a signaled Send gives back the silent ones before
 * it), and the lock-free variants a pool's owner serializes. */
static void test_pool_put_list_and_owned(void **state)
{
	struct rpcrdma__pool pool;
	struct rpcrdma__ctxt *got[8];
	struct rpcrdma__list batch;

	(void)state;
	assert_int_equal(rpcrdma__pool_init(&pool, NULL, rpcrdma__send_done, 8, sizeof(struct node), 0, 0),
			 0);
	for (int i = 0; i < 8; i++)
		assert_non_null(got[i] = rpcrdma__pool_get_owned(&pool));
	assert_null(rpcrdma__pool_get_owned(&pool));
	assert_int_equal(pool.nfree, 0);
	rpcrdma__list_init(&batch);
	for (int i = 0; i < 5; i++)
		rpcrdma__list_add_tail(&batch, &got[i]->node);
	rpcrdma__pool_put_list(&pool, &batch, 5);
	assert_true(rpcrdma__list_empty(&batch));
	assert_int_equal(pool.nfree, 5);
	rpcrdma__pool_put_owned(got[7]);
	assert_int_equal(pool.nfree, 6);
	/* In order: the batch first, then the one put after it. */
	for (int i = 0; i < 5; i++)
		assert_ptr_equal(rpcrdma__pool_get(&pool), got[i]);
	assert_ptr_equal(rpcrdma__pool_get_owned(&pool), got[7]);
	assert_null(rpcrdma__pool_get(&pool));
	rpcrdma__list_init(&batch);
	rpcrdma__pool_put_list(&pool, &batch, 0);  /* an empty batch changes nothing */
	assert_int_equal(pool.nfree, 0);
	for (int i = 0; i < 8; i++)
		if (i != 5 && i != 6)
			rpcrdma__pool_put(got[i]);
	rpcrdma__pool_put(got[5]);
	rpcrdma__pool_put(got[6]);
	assert_int_equal(pool.nfree, 8);
	rpcrdma__pool_fini(&pool);
}

static void test_list(void **state)
{
	struct rpcrdma__list h, a, b;

	(void)state;
	rpcrdma__list_init(&h);
	assert_true(rpcrdma__list_empty(&h));
	assert_null(rpcrdma__list_pop(&h));
	rpcrdma__list_add_tail(&h, &a);
	rpcrdma__list_add_tail(&h, &b);
	assert_ptr_equal(rpcrdma__list_pop(&h), &a);
	/* A popped node is self-linked: deleting it again is harmless. */
	rpcrdma__list_del(&a);
	assert_ptr_equal(rpcrdma__list_pop(&h), &b);
	assert_true(rpcrdma__list_empty(&h));

	/* splice_tail keeps both lists' order and empties the source. */
	struct rpcrdma__list src, c, d;

	rpcrdma__list_init(&src);
	rpcrdma__list_splice_tail(&h, &src);      /* empty source: nothing */
	assert_true(rpcrdma__list_empty(&h));
	rpcrdma__list_add_tail(&h, &a);
	rpcrdma__list_add_tail(&src, &b);
	rpcrdma__list_add_tail(&src, &c);
	rpcrdma__list_splice_tail(&h, &src);
	assert_true(rpcrdma__list_empty(&src));
	rpcrdma__list_add_tail(&h, &d);
	assert_ptr_equal(rpcrdma__list_pop(&h), &a);
	assert_ptr_equal(rpcrdma__list_pop(&h), &b);
	assert_ptr_equal(rpcrdma__list_pop(&h), &c);
	assert_ptr_equal(rpcrdma__list_pop(&h), &d);
	assert_true(rpcrdma__list_empty(&h));
	assert_ptr_equal(h.prev, &h);
}

static void test_stat_names(void **state)
{
	(void)state;
	for (int i = 0; i < RPCRDMA_STAT_COUNT; i++) {
		const char *n = rpcrdma_stat_name((enum rpcrdma_stat)i);

		assert_string_not_equal(n, "?");
		for (int j = 0; j < i; j++)
			assert_string_not_equal(n, rpcrdma_stat_name((enum rpcrdma_stat)j));
	}
	assert_string_equal(rpcrdma_stat_name(RPCRDMA_STAT_COUNT), "?");
	assert_string_equal(rpcrdma_stat_name((enum rpcrdma_stat)-1), "?");
}

static void handler(struct rpcrdma_call *call, void *arg)
{
	(void)arg;
	rpcrdma_call_drop(call);
}

static void test_entry_points_checked(void **state)
{
	struct rpcrdma_poller_opts po;
	struct rpcrdma_poller *p;
	struct rpcrdma_listener_opts lo;
	struct rpcrdma_client_opts co;
	struct rpcrdma_listener *l = NULL;
	struct rpcrdma_client *c = NULL;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr bad = { .sa_family = AF_UNIX };

	(void)state;
	rpcrdma_poller_opts_init(&po);
	po.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&po, &p), 0);
	assert_int_equal(rpcrdma_listener_create(NULL, (struct sockaddr *)&sin, NULL, handler, NULL, &l),
			 -EINVAL);
	assert_int_equal(rpcrdma_listener_create(p, &bad, NULL, handler, NULL, &l), -EINVAL);
	assert_int_equal(rpcrdma_listener_create(p, (struct sockaddr *)&sin, NULL, NULL, NULL, &l),
			 -EINVAL);
	static const char region[64];

	assert_int_equal(rpcrdma_listener_register(NULL, region, sizeof(region)), -EINVAL);
	rpcrdma_listener_opts_init(&lo);
	lo.max_credits = 0;     /* a grant of 0 is never possible */
	assert_int_equal(rpcrdma_listener_create(p, (struct sockaddr *)&sin, &lo, handler, NULL, &l),
			 -EINVAL);
	rpcrdma_listener_opts_init(&lo);
	lo.recv_inline = 512;
	assert_int_equal(rpcrdma_listener_create(p, (struct sockaddr *)&sin, &lo, handler, NULL, &l),
			 -EINVAL);
	rpcrdma_client_opts_init(&co);
	co.max_credits = 0;
	assert_int_equal(rpcrdma_client_create(p, (struct sockaddr *)&sin, &co, &c), -EINVAL);
	rpcrdma_client_opts_init(&co);
	assert_int_equal(co.reconnect_min_ms, 100);
	assert_int_equal(co.reconnect_max_ms, 2000);
	co.reconnect_max_ms = co.reconnect_min_ms - 1;   /* max below min */
	assert_int_equal(rpcrdma_client_create(p, (struct sockaddr *)&sin, &co, &c), -EINVAL);
	rpcrdma_client_opts_init(&co);
	co.reconnect_min_ms = -1;
	assert_int_equal(rpcrdma_client_create(p, (struct sockaddr *)&sin, &co, &c), -EINVAL);
	rpcrdma_client_opts_init(&co);
	co.reconnect_max_ms = 600001;
	assert_int_equal(rpcrdma_client_create(p, (struct sockaddr *)&sin, &co, &c), -EINVAL);
	assert_int_equal(rpcrdma_client_create(p, &bad, NULL, &c), -EINVAL);
	assert_null(c);
	/* On a host without an RDMA device the real thing fails cleanly
	 * (ASan checks nothing leaks); with one, it may succeed. */
	if (rpcrdma_listener_create(p, (struct sockaddr *)&sin, NULL, handler, NULL, &l) == 0)
		rpcrdma_listener_destroy(l);
	rpcrdma_poller_destroy(p);
}

/*
 * A service drives one DIRECT poller: with RDMA here, a second is refused
 * (-EINVAL) and a workqueue poller is not driven; without (no rdma_cm
 * device file, so no driver either), both fail as the first did, with the
 * same error.  Destroying the service stops the idle driver thread (ASan
 * and the thread join check that nothing is left).
 */
static void test_svc_one_direct_poller(void **state)
{
	struct rpcrdma_poller_opts o;
	struct rpcrdma_poller *d1, *d2, *wq;
	struct rpcrdma_svc *svc;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rpcrdma_svc_stats st;
	int rc;

	(void)state;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rpcrdma_poller_opts_init(&o);
	o.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&o, &d1), 0);
	assert_int_equal(rpcrdma_poller_create(&o, &d2), 0);
	rpcrdma_poller_opts_init(&o);
	assert_int_equal(rpcrdma_poller_create(&o, &wq), 0);
	assert_int_equal(rpcrdma_svc_create(NULL, &svc), 0);
	rc = rpcrdma_svc_listen_rdma(svc, d1, (struct sockaddr *)&sin, NULL, NULL, NULL, NULL);
	assert_true(rc <= 0 && rc != -EINVAL);
	int rc2 = rpcrdma_svc_listen_rdma(svc, d2, (struct sockaddr *)&sin, NULL, NULL, NULL, NULL);
	/* The service took d1 before its listener (which fails without a
	 * device): d2 is a second DIRECT poller either way.  (With handlers
	 * that switch credentials, the driver's probe file comes first, and
	 * without a device it fails, d1 with it.) */
	assert_int_equal(rc2, -EINVAL);
	rc2 = rpcrdma_svc_listen_rdma(svc, wq, (struct sockaddr *)&sin, NULL, NULL, NULL, NULL);
	assert_true(rc2 != -EINVAL);
	{
		/* A spinning DIRECT poller's fd does not signal completions:
		 * no loop can wait on it, so the service refuses it. */
		struct rpcrdma_poller *ds;

		rpcrdma_poller_opts_init(&o);
		o.mode = RPCRDMA_POLLER_DIRECT;
		o.direct_spin = 1;
		assert_int_equal(rpcrdma_poller_create(&o, &ds), 0);
		assert_int_equal(rpcrdma_svc_listen_rdma(svc, ds, (struct sockaddr *)&sin, NULL,
							 NULL, NULL, NULL), -EINVAL);
		rpcrdma_poller_destroy(ds);
	}
	assert_int_equal(rpcrdma_svc_start(svc), 0);
	rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	assert_int_equal(st.rdma_loop_calls, 0);
	rpcrdma_svc_destroy(svc);
	rpcrdma_poller_destroy(wq);
	rpcrdma_poller_destroy(d2);
	rpcrdma_poller_destroy(d1);
}

/* The credential rule is a service option: an unknown flag is refused,
 * RPCRDMA_SVC_HANDLERS_TELL_CREDS without SWITCH_CREDS too;
 * with RPCRDMA_SVC_HANDLERS_SWITCH_CREDS the DIRECT poller's driver makes
 * its probe file before the service takes the poller, so without a device
 * a failed listen leaves the service free to take another. */
static void test_svc_creds_option(void **state)
{
	struct rpcrdma_poller_opts o;
	struct rpcrdma_svc_opts so;
	struct rpcrdma_poller *d1, *d2;
	struct rpcrdma_svc *svc;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int rc, rc2;

	(void)state;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rpcrdma_svc_opts_init(&so);
	so.flags = 0x8;
	assert_int_equal(rpcrdma_svc_create(&so, &svc), -EINVAL);
	assert_null(svc);
	/* Handlers that tell when they switch: only with SWITCH_CREDS; the
	 * call is any thread's, any time, with or without a service. */
	so.flags = RPCRDMA_SVC_HANDLERS_TELL_CREDS;
	assert_int_equal(rpcrdma_svc_create(&so, &svc), -EINVAL);
	assert_null(svc);
	rpcrdma_svc_creds_switching();
	so.flags = RPCRDMA_SVC_HANDLERS_SWITCH_CREDS | RPCRDMA_SVC_HANDLERS_TELL_CREDS;
	assert_int_equal(rpcrdma_svc_create(&so, &svc), 0);
	rpcrdma_svc_creds_switching();
	rpcrdma_svc_destroy(svc);
	/* Handlers that may block on the poller: a known flag, with the other;
	 * its counters start at 0, and a caller's older, shorter struct gets
	 * no byte beyond its size. */
	so.flags = RPCRDMA_SVC_HANDLERS_SWITCH_CREDS | RPCRDMA_SVC_HANDLERS_BLOCK;
	assert_int_equal(rpcrdma_svc_create(&so, &svc), 0);
	{
		struct rpcrdma_svc_stats st;

		memset(&st, 0xa5, sizeof(st));
		rpcrdma_svc_get_stats(svc, &st, offsetof(struct rpcrdma_svc_stats,
							 rdma_poller_calls));
		assert_int_equal(st.calls, 0);
		assert_int_equal(st.tcp_buffered, 0);
		assert_true(st.rdma_poller_calls == 0xa5a5a5a5a5a5a5a5ull &&
			    st.rdma_queued_busy == 0xa5a5a5a5a5a5a5a5ull);
		/* The two counters appended after them, the same way. */
		memset(&st, 0xa5, sizeof(st));
		rpcrdma_svc_get_stats(svc, &st, offsetof(struct rpcrdma_svc_stats,
							 rdma_queued_slots));
		assert_true(st.rdma_queued_busy == 0 &&
			    st.rdma_queued_slots == 0xa5a5a5a5a5a5a5a5ull &&
			    st.rdma_budget_calls == 0xa5a5a5a5a5a5a5a5ull &&
			    st.calls_async == 0xa5a5a5a5a5a5a5a5ull);
		rpcrdma_svc_get_stats(svc, &st, sizeof(st));
		assert_true(st.rdma_poller_calls == 0 && st.rdma_queued_creds == 0 &&
			    st.rdma_queued_block == 0 && st.rdma_queued_embedded == 0 &&
			    st.rdma_queued_busy == 0 && st.rdma_queued_slots == 0 &&
			    st.rdma_budget_calls == 0 && st.calls_async == 0);
	}
	rpcrdma_svc_destroy(svc);
	so.flags = RPCRDMA_SVC_HANDLERS_SWITCH_CREDS;
	assert_int_equal(rpcrdma_svc_create(&so, &svc), 0);
	rpcrdma_poller_opts_init(&o);
	o.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&o, &d1), 0);
	assert_int_equal(rpcrdma_poller_create(&o, &d2), 0);
	rc = rpcrdma_svc_listen_rdma(svc, d1, (struct sockaddr *)&sin, NULL, NULL, NULL, NULL);
	rc2 = rpcrdma_svc_listen_rdma(svc, d2, (struct sockaddr *)&sin, NULL, NULL, NULL, NULL);
	if (access("/dev/infiniband/rdma_cm", F_OK) == 0) {
		assert_int_equal(rc2, -EINVAL);
	} else {
		assert_true(rc < 0 && rc != -EINVAL);
		assert_int_equal(rc2, rc);
	}
	rpcrdma_svc_destroy(svc);
	rpcrdma_poller_destroy(d2);
	rpcrdma_poller_destroy(d1);
}

/* The device's connections by QP number (rdma_qpmap.c): every connection
 * added is found, removed ones are not, and the table grows past two
 * connections a bucket without losing any. */
static void test_qpmap(void **state)
{
	enum { N = 1000 };
	struct rpcrdma__dev *dev = calloc(1, sizeof(*dev));
	struct rpcrdma__conn *conns = calloc(N, sizeof(*conns));
	struct rpcrdma__conn never = { 0 };

	(void)state;
	assert_non_null(dev);
	assert_non_null(conns);
	rpcrdma__qpmap_init(dev);
	assert_int_equal(dev->qp_hmask, 63);
	for (unsigned i = 0; i < N; i++) {
		/* distinct 24-bit QP numbers: the even ones spread, the odd
		 * ones multiples of 1024, all in bucket 0 (long chains) */
		conns[i].qp = (struct ibv_qp *)&conns[i];  /* any non-NULL: has a QP */
		conns[i].qp_num = i % 2 ? i << 10 : i;
		rpcrdma__qpmap_add(dev, &conns[i]);
	}
	assert_int_equal(dev->qp_hcount, N);
	assert_true(dev->qp_hmask + 1 >= N / 2);        /* grew from 64 */
	assert_ptr_not_equal(dev->qp_hash, dev->qp_hash0);
	for (unsigned i = 0; i < N; i++)
		assert_ptr_equal(rpcrdma__qpmap_find(dev, conns[i].qp_num), &conns[i]);
	assert_null(rpcrdma__qpmap_find(dev, 0x1000000u));  /* not a QP number */
	for (unsigned i = 0; i < N; i += 2)
		rpcrdma__qpmap_del(dev, &conns[i]);
	assert_int_equal(dev->qp_hcount, N / 2);
	for (unsigned i = 0; i < N; i++)
		assert_ptr_equal(rpcrdma__qpmap_find(dev, conns[i].qp_num),
				 i % 2 ? &conns[i] : NULL);
	/* a connection that failed before its QP existed was never added */
	never.qp_num = conns[1].qp_num;
	rpcrdma__qpmap_del(dev, &never);
	assert_ptr_equal(rpcrdma__qpmap_find(dev, conns[1].qp_num), &conns[1]);
	for (unsigned i = 1; i < N; i += 2)
		rpcrdma__qpmap_del(dev, &conns[i]);
	assert_int_equal(dev->qp_hcount, 0);
	for (unsigned i = 0; i <= dev->qp_hmask; i++)
		assert_null(dev->qp_hash[i]);
	rpcrdma__qpmap_fini(dev);
	free(conns);
	free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts_rejected),
		cmocka_unit_test(test_direct_oneshot),
		cmocka_unit_test(test_direct_spin_events),
		cmocka_unit_test(test_poll_needs_direct),
		cmocka_unit_test(test_workqueue_exclusive),
		cmocka_unit_test(test_busy_sources),
		cmocka_unit_test(test_pool_without_buffers),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_pool_put_list_and_owned),
		cmocka_unit_test(test_stat_names),
		cmocka_unit_test(test_qpmap),
		cmocka_unit_test(test_entry_points_checked),
		cmocka_unit_test(test_svc_one_direct_poller),
		cmocka_unit_test(test_svc_creds_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
